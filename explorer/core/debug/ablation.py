"""Head ablation measured (book §11.5's heads, §10.7.6's BLEU): translation BLEU and teacher-forced loss of a
sentence set with any heads switched off, and a sweep that switches off each head in turn.

Heads are switched off by :func:`explorer.core.debug.head_ablation.ablated` (their output zeroed before ``W_o``).
"""
from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.core.debug.head_ablation import Head, ablated, all_heads, check_heads
from explorer.core.inspect.interface import InspectableModel, ModelError
from explorer.core.model.metrics import corpus_bleu
from explorer.core.inspect.step_model import StepModel
from explorer.core.inspect.opening import step_model


@dataclass
class Evaluation:
    """One model state on a sentence set: corpus BLEU of its greedy translations (n-grams up to ``max_n``,
    default 2 as the book's BLEU for its short sentences; no smoothing) and the mean per-token cross-entropy
    of the references, teacher-forced, over ``tokens``."""

    heads: list[Head]
    bleu: float
    loss: float
    tokens: int
    translations: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"heads": [list(h) for h in self.heads], "bleu": self.bleu, "loss": _finite(self.loss),
                "tokens": self.tokens, "translations": self.translations}


@dataclass
class AblationRow:
    """A sweep's row: head ``(kind, layer, head)`` off; ``delta_*`` = ablated − baseline."""

    kind: str
    layer: int
    head: int
    bleu: float
    delta_bleu: float
    loss: float
    delta_loss: float

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "layer": self.layer, "head": self.head, "bleu": self.bleu,
                "delta_bleu": self.delta_bleu, "loss": _finite(self.loss), "delta_loss": _finite(self.delta_loss)}


@dataclass
class Sweep:
    """The baseline and one row per head, in :func:`~explorer.core.debug.head_ablation.all_heads` order."""

    baseline: Evaluation
    rows: list[AblationRow]
    pairs: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The ``ablate`` command's JSON: ``baseline_bleu``, ``baseline_loss``, ``heads`` (rows), sizes."""
        return {"baseline_bleu": self.baseline.bleu, "baseline_loss": _finite(self.baseline.loss),
                "pairs": self.pairs, "tokens": self.baseline.tokens, "seconds": self.seconds,
                "heads": [r.to_dict() for r in self.rows]}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def load_pairs(spec: str | os.PathLike[str], num_examples: int | None = 100, seed: int = 0) -> list[tuple[str, str]]:
    """Sentence pairs of a data spec (``builtin``, ``task:NAME`` or a corpus file, as the CLI's ``--data``).

    Raises ``DatasetError`` (a ``ValueError``) for an unreadable source or an empty set.
    """
    from explorer.core.data.sources import load_source
    from explorer.core.data.readers import DatasetError

    pairs = list(load_source(spec, num_examples=num_examples, seed=seed).pairs)
    if not pairs:
        raise DatasetError("the sentence set is empty: choose a data source with at least one sentence pair")
    return pairs


def check_pairs(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``pairs`` as a list of ``(source, reference)`` strings; :class:`ModelError` when empty or malformed."""
    out = list(pairs)
    if not out:
        raise ModelError("the sentence set is empty: ablation needs at least one (source, reference) pair")
    for i, pair in enumerate(out):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(s, str) for s in pair)):
            raise ModelError(f"sentence pair {i + 1} is not a (source, reference) pair of texts: {pair!r}")
    return [(s, t) for s, t in out]


def _measure(sm: StepModel, pairs: list[tuple[str, str]], heads: list[Head], max_n: int) -> Evaluation:
    translations = sm.translate([s for s, _ in pairs])
    bleu = corpus_bleu([sm.words(t) for t in translations], [sm.words(r) for _, r in pairs], max_n=max_n)
    loss = sm.loss(pairs)
    return Evaluation(heads=heads, bleu=float(bleu), loss=loss.mean, tokens=loss.tokens, translations=translations)


def evaluate(model: InspectableModel, pairs: Sequence[tuple[str, str]], heads: Iterable[Any] = (),
             max_n: int = 2) -> Evaluation:
    """BLEU and loss of ``model`` on ``pairs`` with ``heads`` switched off (none: the model as it is).

    Greedy translations (our checkpoints: batched, cut to the training ``num_steps`` as ``translate``);
    BLEU compares whitespace words (our models: the tokens the model reads). Raises :class:`ModelError` for an
    encoder-only model, an empty set or a head that does not exist.
    """
    pairs = check_pairs(pairs)
    sm = step_model(model)
    with ablated(model, heads) as chosen:
        return _measure(sm, pairs, chosen, max_n)


def iter_sweep(model: InspectableModel, pairs: Sequence[tuple[str, str]], kinds: Iterable[str] | None = None,
               max_n: int = 2, also_off: Iterable[Any] = ()) -> Iterator[Evaluation]:
    """The baseline, then one :class:`Evaluation` per head switched off (with ``also_off`` off throughout).

    A generator: a worker can report progress and stop between heads.
    """
    pairs = check_pairs(pairs)
    info = model.describe()
    sm = step_model(model)
    base = check_heads(info, also_off)
    heads = [h for h in all_heads(info, kinds) if h not in base]
    with ablated(model, base) as chosen:
        yield _measure(sm, pairs, chosen, max_n)
    for head in heads:
        with ablated(model, [*base, head]) as chosen:
            yield _measure(sm, pairs, chosen, max_n)


def sweep(model: InspectableModel, pairs: Sequence[tuple[str, str]], kinds: Iterable[str] | None = None,
          max_n: int = 2, also_off: Iterable[Any] = (),
          progress: Callable[[int, int], None] | None = None) -> Sweep:
    """Switch off each head in turn (see :func:`iter_sweep`); ``progress(done, total)`` after each evaluation."""
    t0 = time.perf_counter()
    pairs = check_pairs(pairs)
    info = model.describe()
    base = set(check_heads(info, also_off))
    total = 1 + sum(1 for h in all_heads(info, kinds) if h not in base)
    baseline: Evaluation | None = None
    rows: list[AblationRow] = []
    for done, ev in enumerate(iter_sweep(model, pairs, kinds, max_n, also_off), start=1):
        if baseline is None:
            baseline = ev
        else:
            kind, layer, head = next(h for h in ev.heads if h not in base)
            rows.append(AblationRow(kind, layer, head, ev.bleu, ev.bleu - baseline.bleu, ev.loss,
                                    ev.loss - baseline.loss))
        if progress is not None:
            progress(done, total)
    assert baseline is not None
    return Sweep(baseline=baseline, rows=rows, pairs=len(pairs), seconds=time.perf_counter() - t0)
