"""Two models on the same sentence (book §11.7 maps, compared): per-head difference maps, both translations
and their BLEU side by side, e.g. two checkpoints of one run or the last checkpoints of two runs.

Both models are teacher-forced on the same target, so every map has the same shape: the given target, else
the reference, else model A's greedy translation.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.core.inspect.interface import AttentionResult, InspectableModel, ModelError, save_npz
from explorer.core.model.metrics import bleu
from explorer.core.inspect.opening import step_model

#: Sentence BLEU as the book's probes: n-grams up to 2.
BLEU_K = 2


@dataclass
class HeadChange:
    """How much one head's map moved: largest and mean absolute difference of its weights."""

    kind: str
    layer: int
    head: int
    max_abs: float
    mean_abs: float


@dataclass
class ModelDiff:
    """``diff[kind][layer]`` = B − A, float32 ``(heads, queries, keys)``; ``a``/``b`` the two results (same
    tokens); ``translation_*`` greedy outputs; ``bleu_*`` their sentence BLEU (k = 2) against ``reference``
    (None without one); ``changes`` one row per head, largest change first."""

    name_a: str
    name_b: str
    source: str
    target: str
    reference: str | None
    a: AttentionResult
    b: AttentionResult
    diff: dict[str, list[np.ndarray]]
    translation_a: str
    translation_b: str
    bleu_a: float | None
    bleu_b: float | None
    changes: list[HeadChange]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The ``.npz`` content: tokens, ``diff.KIND.L`` (B − A), ``a.KIND.L`` and ``b.KIND.L``."""
        out = {k: v for k, v in self.a.to_arrays().items() if k.endswith("_tokens")}
        for kind, layers in self.diff.items():
            for layer, d in enumerate(layers):
                out[f"diff.{kind}.{layer}"] = np.ascontiguousarray(d, dtype=np.float32)
                out[f"a.{kind}.{layer}"] = np.ascontiguousarray(self.a.maps[kind][layer], dtype=np.float32)
                out[f"b.{kind}.{layer}"] = np.ascontiguousarray(self.b.maps[kind][layer], dtype=np.float32)
        out["translations"] = np.array([self.translation_a, self.translation_b], dtype=np.str_)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary (no maps)."""
        return {"model_a": self.name_a, "model_b": self.name_b, "source": self.source, "target": self.target,
                "reference": self.reference, "translation_a": self.translation_a,
                "translation_b": self.translation_b, "bleu_a": self.bleu_a, "bleu_b": self.bleu_b,
                "kinds": list(self.diff), "heads": [c.__dict__ for c in self.changes]}


def check_comparable(a: InspectableModel, b: InspectableModel) -> None:
    """Raise :class:`ModelError` unless both models have the same kinds, layers, heads and vocabularies."""
    ia, ib = a.describe(), b.describe()
    if ia.kinds != ib.kinds:
        raise ModelError(f"the models have different attention kinds (A: {', '.join(ia.kinds)}; "
                         f"B: {', '.join(ib.kinds)}): per-head differences need the same architecture")
    for kind in ia.kinds:
        if (ia.layers[kind], ia.heads[kind]) != (ib.layers[kind], ib.heads[kind]):
            raise ModelError(f"the models differ in shape: A has {ia.layers[kind]} {kind} layers × "
                             f"{ia.heads[kind]} heads, B has {ib.layers[kind]} × {ib.heads[kind]}; "
                             "per-head differences need the same layers and heads")
    va, vb = _vocabularies(a), _vocabularies(b)
    if va != vb:
        raise ModelError("the models have different vocabularies, so they read the sentence as different "
                         "tokens: compare checkpoints of one run, or runs trained on the same data")


def _vocabularies(model: InspectableModel) -> Any:
    from explorer.core.inspect.checkpoint_model import CheckpointModel

    if isinstance(model, CheckpointModel):
        return ("ours", model.loaded.src_vocab.idx_to_token, model.loaded.tgt_vocab.idx_to_token)
    tokenizer = getattr(model, "tokenizer", None)
    return ("huggingface", None if tokenizer is None else sorted(tokenizer.get_vocab().items()))


def diff_models(a: InspectableModel, b: InspectableModel, source: str, target: str | None = None,
                reference: str | None = None) -> ModelDiff:
    """Compare ``a`` and ``b`` on ``source`` (see :class:`ModelDiff`).

    ``reference`` (default: ``target``) scores both translations. Raises :class:`ModelError` for models of
    different shapes or vocabularies, and the models' ``ValueError`` for unusable text.
    """
    check_comparable(a, b)
    family = a.describe().family
    decoder = family != "encoder-only"
    translation_a = translation_b = ""
    if decoder:
        translation_a = step_model(a).translate([source])[0]
        translation_b = step_model(b).translate([source])[0]
    reference = target if reference is None else reference
    forced = target
    if forced is None and family == "encoder-decoder":
        forced = reference if reference is not None else translation_a
        if not forced.strip():
            raise ModelError("model A's translation is empty: give a target to compare the maps on")
    ra, rb = a.attention(source, forced), b.attention(source, forced)
    for kind in ra.kinds:
        if (ra.query_tokens[kind], ra.key_tokens[kind]) != (rb.query_tokens[kind], rb.key_tokens[kind]):
            raise ModelError(f"the models read the texts as different tokens ({kind} attention), so their maps "
                             "cannot be compared cell by cell")
    diff = {k: [mb - ma for ma, mb in zip(ra.maps[k], rb.maps[k])] for k in ra.kinds}
    changes = [HeadChange(kind, layer, head, float(np.abs(d[head]).max(initial=0.0)), float(np.abs(d[head]).mean()))
               for kind, layers in diff.items() for layer, d in enumerate(layers) for head in range(d.shape[0])]
    changes.sort(key=lambda c: -c.max_abs)
    scores: list[float | None] = [None, None]
    if decoder and reference is not None:
        sm = step_model(a)
        ref = sm.words(reference)
        scores = [float(bleu(sm.words(t), ref, BLEU_K)) for t in (translation_a, translation_b)]
    return ModelDiff(name_a=a.describe().name, name_b=b.describe().name, source=source, target=forced or "",
                     reference=reference, a=ra, b=rb, diff=diff, translation_a=translation_a,
                     translation_b=translation_b, bleu_a=scores[0], bleu_b=scores[1], changes=changes)


def save_diff_npz(result: ModelDiff, path: str | os.PathLike[str]) -> Path:
    """Write ``result.to_arrays()`` to ``path`` atomically (the same writer as the ``attention`` command's maps)."""
    return save_npz(result, path)
