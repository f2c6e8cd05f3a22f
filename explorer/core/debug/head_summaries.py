"""What each attention head does, in numbers over a sentence set (book §11.5 heads, for the debugging tools):
its mean entropy, its dominant relative offset (−8…8: previous-token, next-token, two-back heads …), its share on
the first token (attention sinks, Xiao et al. 2023) and on special tokens ([CLS]/[SEP], Clark et al. 2019), the
previous / same / next / last positions, an induction score for decoder self-attention, and, for synthetic tasks,
its alignment with the ideal pattern. Works on any :class:`InspectableModel`.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from explorer.core.inspect.interface import InspectableModel, ModelError
from explorer.core.inspect.token_roles import UnknownCount, count_unknown, special_tokens
from explorer.core.data.tasks import alignment_scores, ideal_alignment
from explorer.core.data.readers import DatasetError

#: Scores per head; "alignment" only for the cross-attention of a synthetic task, "induction" only for decoders.
#: "offset" is the relative position k (key − query) the head weighs most on average, "offset_share" that weight;
#: "first" the share on the first token (a sink), "special" the share on the tokenizer's special tokens.
SCORES = ("entropy", "offset", "offset_share", "first", "special", "previous", "same", "next", "last", "induction",
          "alignment")
#: The relative offsets whose mean weight is compared for "offset", −8 … 8.
OFFSETS = np.arange(-8, 9)


@dataclass
class HeadSummaries:
    """``scores[kind][name]`` is float64 ``(layers, heads)``: the mean of that score over the sentences (NaN where it
    does not apply, e.g. no earlier copy of any token for induction); ``sentences`` counts what was averaged."""

    scores: dict[str, dict[str, np.ndarray]]
    sentences: int
    skipped: list[str] = field(default_factory=list)  # "sentence i: why" for sentences the model refused
    #: ``profiles[kind]`` float64 ``(layers, heads, len(OFFSETS))``: the mean weight at each relative offset
    profiles: dict[str, np.ndarray] = field(default_factory=dict)
    unknown: UnknownCount | None = None  # how many of the tokens read were the unknown token

    def rows(self) -> list[dict[str, float | int | str]]:
        """One dict per head: kind, layer, head (from 0) and every score (NaN as ``nan``)."""
        out: list[dict[str, float | int | str]] = []
        for kind, per_score in self.scores.items():
            layers, heads = next(iter(per_score.values())).shape
            for layer in range(layers):
                for head in range(heads):
                    row: dict[str, float | int | str] = {"kind": kind, "layer": layer, "head": head}
                    row.update({name: float(per_score[name][layer, head]) for name in SCORES})
                    if math.isfinite(row["offset"]):
                        row["offset"] = int(row["offset"])
                    out.append(row)
        return out


def offset_profile(maps: np.ndarray) -> np.ndarray:
    """The mean weight of each head at each relative offset k of :data:`OFFSETS` (key = query + k), over the
    queries that have such a key: ``(heads, queries, keys) -> (heads, len(OFFSETS))``, NaN where none has."""
    w = np.asarray(maps, dtype=np.float64)
    h, q, k = w.shape
    if q == 0 or k == 0:
        return np.full((h, len(OFFSETS)), math.nan)
    rows = np.arange(q)
    cols = rows[None, :] + OFFSETS[:, None]  # (offsets, q): the key each query has at each offset
    ok = (cols >= 0) & (cols < k)
    picked = w[:, rows[None, :], np.clip(cols, 0, k - 1)] * ok  # (h, offsets, q), one gather for all offsets
    count = ok.sum(axis=1)  # (offsets,)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, picked.sum(axis=2) / count, math.nan)  # (h, offsets)


def dominant_offset(profile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(offset, its weight)`` per head from profiles ``(..., len(OFFSETS))``; NaN for a head without any."""
    filled = np.where(np.isfinite(profile), profile, -np.inf)
    best = filled.argmax(axis=-1)
    weight = np.take_along_axis(filled, best[..., None], axis=-1)[..., 0]
    found = np.isfinite(weight)
    return np.where(found, OFFSETS[best], math.nan), np.where(found, weight, math.nan)


def head_scores(maps: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str], kind: str,
                ideal: np.ndarray | None = None, special: frozenset[str] = frozenset(),
                profile: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Every score of every head of one layer's maps ``(heads, queries, keys)`` for one sentence: ``(heads,)`` each.

    Positions are compared by index (for cross-attention "same" is the diagonal of the alignment). Entropy is in
    nats over the keys with weight > 0. "special" sums the weight on the keys whose token is in ``special``.
    ``profile``: this layer's :func:`offset_profile`, when the caller has it already.
    Induction: the mean, over queries whose token occurred earlier, of the weight on the positions right after
    those earlier copies (decoder self-attention only)."""
    w = np.asarray(maps, dtype=np.float64)  # (h, q, k)
    h, q, k = w.shape
    nan = np.full(h, math.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(w > 0, w * np.log(w), 0.0)
    out = {"entropy": -plogp.sum(axis=2).mean(axis=1) if q else nan}
    rows = np.arange(q)

    def diagonal(offset: int) -> np.ndarray:
        cols = rows + offset
        ok = (cols >= 0) & (cols < k)
        return w[:, rows[ok], cols[ok]].mean(axis=1) if ok.any() else nan

    out["previous"], out["same"], out["next"] = diagonal(-1), diagonal(0), diagonal(1)
    out["offset"], out["offset_share"] = dominant_offset(offset_profile(w) if profile is None else profile)
    out["first"] = w[:, :, 0].mean(axis=1) if q and k else nan
    is_special = np.array([str(t) in special for t in key_tokens[:k]] + [False] * (k - len(key_tokens[:k])), bool)
    out["special"] = w[:, :, is_special].sum(axis=2).mean(axis=1) if q and k else nan
    out["last"] = w[:, :, k - 1].mean(axis=1) if q and k else nan
    out["induction"] = _induction(w, query_tokens, key_tokens) if kind == "decoder" else nan
    out["alignment"] = nan
    if ideal is not None and kind == "cross":
        try:
            out["alignment"] = alignment_scores(w, ideal)  # (h,)
        except ValueError:
            pass
    return out


def _induction(w: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str]) -> np.ndarray:
    """Weight on "the token after an earlier copy of the current one", averaged over queries that have a copy."""
    h, q, k = w.shape
    total, count = np.zeros(h), 0
    for i in range(min(q, len(query_tokens))):
        after = [j + 1 for j in range(min(i, len(key_tokens))) if key_tokens[j] == query_tokens[i] and j + 1 <= i
                 and j + 1 < k]
        if after:
            total += w[:, i, after].sum(axis=1)
            count += 1
    return total / count if count else np.full(h, math.nan)


def summarize_heads(model: InspectableModel, pairs: Sequence[tuple[str, str]], task: str | None = None,
                    progress: Callable[[int, int], None] | None = None) -> HeadSummaries:
    """Average :func:`head_scores` over ``pairs`` (source, target; an encoder-only model reads the source only).

    ``task`` (copy, reverse, sort) adds each cross-attention head's alignment with the task's ideal pattern.
    ``progress(done, total)`` is called after each sentence. Raises :class:`ModelError` for an empty set or
    when the model refuses every sentence. A pair whose target is empty is read as one text."""
    if not pairs:
        raise ModelError("the sentence set is empty: choose some sentence pairs to summarize the heads over")
    info = model.describe()
    sums: dict[str, dict[str, np.ndarray]] = {}
    counts: dict[str, dict[str, np.ndarray]] = {}
    profiles: dict[str, np.ndarray] = {}
    seen: dict[str, np.ndarray] = {}
    special = special_tokens(model)
    unknown = count_unknown(model, [])
    skipped: list[str] = []
    used = 0
    for index, (source, target) in enumerate(pairs):
        try:
            result = model.attention(source, None if info.family == "encoder-only" else (target or None))
        except (ModelError, DatasetError, ValueError) as exc:
            skipped.append(f"sentence {index + 1}: {exc}")
            continue
        typed = result.target_tokens if target and info.family != "encoder-only" else []  # not a generated one
        unknown = unknown + count_unknown(model, [*result.source_tokens, *typed])
        ideal = _ideal(task, source, target)
        for kind in result.kinds:
            shape = (info.layers[kind], info.heads[kind])
            for layer, maps in enumerate(result.maps[kind]):
                profile = offset_profile(maps)  # (h, offsets)
                total = profiles.setdefault(kind, np.zeros((*shape, len(OFFSETS))))
                times = seen.setdefault(kind, np.zeros((*shape, len(OFFSETS))))
                total[layer] += np.nan_to_num(profile)
                times[layer] += np.isfinite(profile)
                scores = head_scores(maps, result.query_tokens[kind], result.key_tokens[kind], kind, ideal, special,
                                     profile)
                for name, values in scores.items():
                    acc = sums.setdefault(kind, {}).setdefault(name, np.zeros(shape))
                    cnt = counts.setdefault(kind, {}).setdefault(name, np.zeros(shape))
                    ok = np.isfinite(values)
                    acc[layer, ok] += values[ok]
                    cnt[layer, ok] += 1
        used += 1
        if progress is not None:
            progress(index + 1, len(pairs))
    if not used:
        raise ModelError(f"the model refused every sentence ({skipped[0] if skipped else 'no sentences'})")
    with np.errstate(invalid="ignore"):
        scores = {kind: {name: np.where(counts[kind][name] > 0, sums[kind][name] / np.maximum(counts[kind][name], 1),
                                        math.nan) for name in SCORES} for kind in sums}
        means = {kind: np.where(seen[kind] > 0, profiles[kind] / np.maximum(seen[kind], 1), math.nan)
                 for kind in profiles}
    for kind, mean in means.items():  # the offset a head prefers over the whole set, not the mean of offsets
        scores[kind]["offset"], scores[kind]["offset_share"] = dominant_offset(mean)
    return HeadSummaries(scores, used, skipped, means, unknown)


def _ideal(task: str | None, source: str, target: str) -> np.ndarray | None:
    if not task:
        return None
    try:
        return ideal_alignment(task, source.split(), target.split())
    except (DatasetError, ValueError):
        return None  # not a pair of this task
