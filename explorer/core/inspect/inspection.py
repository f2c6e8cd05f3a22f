"""What the studio shows of one text read by an inspectable model (the maps of book §11.7 at real sizes):
every head pooled to a small thumbnail, the full maps while they fit a memory budget, one head on demand beyond it.

Runs on a worker thread (the calls block); the results are plain data and fresh numpy arrays.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

import numpy as np

from explorer.core.inspect.hf.models import MapsTooLargeError
from explorer.core.choices import ATTENTION_KINDS
from explorer.core.inspect.interface import (AttentionResult, InspectableModel, ModelError, ModelInfo, check_head,
                                             pooled_maps)

#: Thumbnails are pooled to at most this many bins a side (a thumbnail is drawn ~44–90 px wide).
THUMBNAIL_BINS = 64
#: Full maps of one text are kept (for instant heads and head averages) up to this; beyond, heads on demand.
FULL_MAPS_BUDGET = 512 * 2**20


@dataclass
class Inspection:
    """One text's attention, keyed by attention kind (:data:`~explorer.core.choices.ATTENTION_KINDS`).

    ``thumbnails[name]`` is float32 ``(layers, heads, qbins, kbins)`` (pooled as in
    :func:`~explorer.core.inspect.interface.pooled_maps`; equal to the full maps up to ``THUMBNAIL_BINS`` tokens).
    ``maps[name]`` holds ``layers`` full ``(heads, queries, keys)`` arrays, or nothing when only pooled maps
    were kept (then :func:`full_head` computes a head on demand). Row labels of ``cross`` are the tokens each
    row predicts (the target, or the generated output), as in the studio's training snapshots.
    """

    model_name: str
    family: str
    source: str
    target: str | None  # the target asked for (None: none, or the model's own output)
    source_tokens: list[str]
    target_tokens: list[str]
    query_tokens: dict[str, list[str]]
    key_tokens: dict[str, list[str]]
    thumbnails: dict[str, np.ndarray]
    maps: dict[str, list[np.ndarray]] = field(default_factory=dict)
    output: str = ""  # the generated text, for a generation
    method: str = ""  # "greedy" or "beam" for a generation, "" for a forward pass over given text
    finished: bool = True
    elapsed_s: float = 0.0
    step: None = None  # not a training snapshot: no step to mark on the loss curve
    epoch: None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The kinds present, in :data:`~explorer.core.choices.ATTENTION_KINDS` order."""
        return tuple(k for k in ATTENTION_KINDS if k in self.thumbnails)

    @property
    def full(self) -> bool:
        """Whether every full map is held."""
        return bool(self.maps)

    def shape(self, name: str) -> tuple[int, int]:
        """``(layers, heads)`` of one kind of map."""
        return int(self.thumbnails[name].shape[0]), int(self.thumbnails[name].shape[1])

    def map_size(self, name: str) -> tuple[int, int]:
        """``(queries, keys)`` of one full map of that kind."""
        return len(self.query_tokens[name]), len(self.key_tokens[name])

    def head_map(self, name: str, layer: int, head: int | None) -> np.ndarray | None:
        """A held full map ``(queries, keys)`` (``head`` None: the mean over heads), or None when not held."""
        if name not in self.maps:
            return None
        layer_maps = self.maps[name][layer]  # (h, q, k)
        return layer_maps.mean(axis=0) if head is None else layer_maps[head]

    def nbytes(self) -> int:
        """Bytes held by thumbnails and full maps."""
        held = sum(m.nbytes for layers in self.maps.values() for m in layers)
        return held + sum(t.nbytes for t in self.thumbnails.values())


def _labels(kinds: tuple[str, ...], query: dict[str, list[str]], key: dict[str, list[str]],
            targets: list[str]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    rows = {k: list(query[k]) for k in kinds}
    cols = {k: list(key[k]) for k in kinds}
    if "cross" in kinds and len(targets) == len(rows["cross"]):  # row i predicts target i
        rows["cross"] = list(targets)
    return rows, cols


def _thumbnails(layers: list[np.ndarray], bins: int) -> np.ndarray:
    """L × (h, q, k) -> (L, h, qbins, kbins), pooled layer by layer (no stacked copy of the full maps)."""
    return np.stack([pooled_maps(m, bins)[0] for m in layers])


def _from_result(info: ModelInfo, source: str, target: str | None, result: AttentionResult, bins: int,
                 keep_full: bool) -> Inspection:
    rows, cols = _labels(result.kinds, result.query_tokens, result.key_tokens, result.target_tokens)
    thumbnails = {k: _thumbnails(result.maps[k], bins) for k in result.kinds}
    maps = {k: result.maps[k] for k in result.kinds} if keep_full else {}
    return Inspection(info.name, info.family, source, target, list(result.source_tokens),
                      list(result.target_tokens), rows, cols, thumbnails, maps)


def estimated_map_bytes(model: InspectableModel, source: str, target: str | None) -> int | None:
    """Bytes the full maps of this text would take, from a tokenizer count (None: no tokenizer to ask)."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        return None
    info = model.describe()
    with warnings.catch_warnings():  # tokenizers nag about settings that do not apply to one sentence
        warnings.filterwarnings("ignore", category=UserWarning, module=r"transformers\.")
        n = len(tokenizer(text=source)["input_ids"])
        m = len(tokenizer(text_target=target)["input_ids"]) if target else 0
    if info.family == "encoder-decoder" and not target:
        m = n + 2  # the model's own output: about as long as its input
    size = {"encoder": n * n, "decoder": (n + m) ** 2 if info.family == "decoder-only" else m * m, "cross": m * n}
    return sum(info.layers[k] * info.heads[k] * size[k] * 4 for k in info.kinds)


def inspect_text(model: InspectableModel, source: str, target: str | None = None,
                 budget: int = FULL_MAPS_BUDGET, bins: int = THUMBNAIL_BINS) -> Inspection:
    """Every head's attention for ``source`` (and ``target``): thumbnails, plus the full maps within ``budget``.

    Beyond the budget (or the model's own, ``MapsTooLargeError``) only pooled maps are computed, one layer at
    a time, and a head opens with :func:`full_head`. Raises ``ValueError`` (user-fit) for unusable text.
    """
    t0 = time.perf_counter()
    info = model.describe()
    target = target or None
    estimate = estimated_map_bytes(model, source, target)
    result = None
    if estimate is None or estimate <= budget:
        try:
            result = model.attention(source, target)
        except MapsTooLargeError:
            result = None
    if result is not None and result.nbytes() <= budget:
        inspection = _from_result(info, source, target, result, bins, keep_full=True)
    elif result is not None:  # larger than the estimate said: keep the thumbnails only
        inspection = _from_result(info, source, target, result, bins, keep_full=False)
    else:
        pooled = model.pooled_attention(source, target, size=bins)
        kinds = tuple(k for k in ATTENTION_KINDS if k in pooled.maps)
        rows, cols = _labels(kinds, pooled.query_tokens, pooled.key_tokens, pooled.target_tokens)
        inspection = Inspection(info.name, info.family, source, target, list(pooled.source_tokens),
                                list(pooled.target_tokens), rows, cols,
                                {k: pooled.maps[k] for k in kinds})
    inspection.elapsed_s = time.perf_counter() - t0
    return inspection


def generate_text(model: InspectableModel, source: str, method: str = "greedy", beam_width: int = 4,
                  bins: int = THUMBNAIL_BINS) -> Inspection:
    """Translate / continue ``source`` (greedy or beam search) and keep the attention of its output (full maps:
    the model's own budget applies). Raises ``ModelError`` for an encoder-only model."""
    t0 = time.perf_counter()
    generation = model.generate(source, method=method, beam_width=beam_width)
    inspection = _from_result(model.describe(), source, None, generation.attention, bins, keep_full=True)
    inspection.output, inspection.method, inspection.finished = generation.text, method, generation.finished
    inspection.elapsed_s = time.perf_counter() - t0
    return inspection


def full_head(model: InspectableModel, inspection: Inspection, name: str, layer: int, head: int | None,
              stop: Callable[[], bool] | None = None) -> np.ndarray:
    """One head at full resolution ``(queries, keys)`` float32 (``head`` None: the mean over heads), from the
    held maps or recomputed by the model (:meth:`InspectableModel.head_attention`, once per head for the mean;
    ``stop()`` is asked between heads and ends the work with a :class:`ModelError` when it says True)."""
    held = inspection.head_map(name, layer, head)
    if held is not None:
        return np.array(held, dtype=np.float32)
    if inspection.method:
        raise ModelError("this generation's maps are no longer held: generate again")
    kind = name
    check_head(model.describe(), kind, layer, 0 if head is None else head)
    if head is not None:
        return model.head_attention(inspection.source, inspection.target, kind, layer, head)
    heads = model.describe().heads[kind]
    total: Any = None
    for h in range(heads):  # a running sum: one full map at a time, never the whole layer
        if stop is not None and stop():
            raise ModelError("stopped: another head was asked for")
        one = model.head_attention(inspection.source, inspection.target, kind, layer, h)
        total = one if total is None else np.add(total, one, out=total)
    return (total / np.float32(heads)).astype(np.float32, copy=False)
