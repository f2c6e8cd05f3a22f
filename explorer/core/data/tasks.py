"""Synthetic sequence tasks with a known ideal cross-attention pattern (copy, reverse, sort), used to
see whether a Transformer's heads learn the alignment (a companion to D2L §11.7)."""
from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from explorer.core.checks import positive_int
from explorer.core.data.readers import DatasetError

TASKS: tuple[str, ...] = ("copy", "reverse", "sort")
DIGITS: tuple[str, ...] = tuple("0123456789")
LETTERS: tuple[str, ...] = tuple("abcdefghijklmnopqrstuvwxyz")
#: Default lengths: with ``<eos>`` the longest sequence (8 + 1) fits the book's ``num_steps=10``.
DEFAULT_MIN_LEN = 3
DEFAULT_MAX_LEN = 8
PROBE_LEN = 6
#: Most pairs a task generates (a million is far more than any run here needs; a billion never finished).
MAX_TASK_PAIRS = 1_000_000


def _check_task(name: str) -> str:
    key = str(name).strip().lower()
    if key not in TASKS:
        raise DatasetError(f"unknown task {name!r}; known tasks: {', '.join(TASKS)}")
    return key


def _as_tokens(seq: str | Sequence[str]) -> list[str]:
    return seq.split() if isinstance(seq, str) else [str(t) for t in seq]


def solve(name: str, src: str | Sequence[str]) -> list[str]:
    """The task's answer for a source token sequence: ``"3 1 4"`` → copy ``3 1 4``, reverse ``4 1 3``,
    sort ``1 3 4`` (tokens compared as strings, so digits sort numerically)."""
    key = _check_task(name)
    tokens = _as_tokens(src)
    if key == "copy":
        return list(tokens)
    if key == "reverse":
        return tokens[::-1]
    return sorted(tokens)


def make_task_pairs(
    name: str,
    num_pairs: int,
    seed: int = 0,
    min_len: int = DEFAULT_MIN_LEN,
    max_len: int = DEFAULT_MAX_LEN,
    alphabet: Sequence[str] = DIGITS,
) -> list[tuple[str, str]]:
    """``num_pairs`` random ``(source, answer)`` pairs of space-separated tokens drawn uniformly from
    ``alphabet``, lengths uniform in ``[min_len, max_len]``; the same seed gives the same pairs."""
    key = _check_task(name)
    positive_int(num_pairs, "the number of pairs", DatasetError)
    if num_pairs > MAX_TASK_PAIRS:
        raise DatasetError(f"a task generates at most {MAX_TASK_PAIRS:,} pairs, got {num_pairs:,}")
    if not 1 <= min_len <= max_len:
        raise DatasetError(f"need 1 <= min_len <= max_len, got min_len={min_len}, max_len={max_len}")
    symbols = [str(a) for a in alphabet]
    if not symbols or any(not s or s.split() != [s] for s in symbols):
        raise DatasetError("the alphabet must hold non-empty tokens without spaces")
    rng = random.Random(seed)
    pairs = []
    for _ in range(num_pairs):
        src = [rng.choice(symbols) for _ in range(rng.randint(min_len, max_len))]
        pairs.append((" ".join(src), " ".join(solve(key, src))))
    return pairs


def default_probe(name: str, seed: int = 0, length: int = PROBE_LEN) -> tuple[str, str]:
    """A representative ``(source, answer)`` pair for the UI: ``length`` digits, for ``sort`` with one
    repeated digit so the spread over equal keys shows."""
    key = _check_task(name)
    length = max(1, min(int(length), len(DIGITS) - 1))
    rng = random.Random(f"probe-{key}-{seed}")
    if key == "sort" and length >= 2:
        src = rng.sample(DIGITS, length - 1)
        src.insert(rng.randrange(length), src[rng.randrange(length - 1)])
    else:
        src = rng.sample(DIGITS, length)
    return " ".join(src), " ".join(solve(key, src))


def ideal_alignment(name: str, src_tokens: str | Sequence[str], tgt_tokens: str | Sequence[str]) -> np.ndarray:
    """The cross-attention a perfect model would use, shape ``(len(tgt) + 1, len(src) + 1)`` float32.

    Row ``t`` is the decoder step that outputs ``tgt[t]`` (the last row outputs ``<eos>``); column
    ``j`` is encoder position ``j`` (the last column is the source ``<eos>``). A row holds 1 on the
    source position of the token to copy; for ``sort`` with repeated tokens the mass is spread
    evenly over all source positions holding that token. Rows sum to 1. Raises
    :class:`DatasetError` when ``tgt`` is not the task's answer for ``src``.
    """
    key = _check_task(name)
    src, tgt = _as_tokens(src_tokens), _as_tokens(tgt_tokens)
    if tgt != solve(key, src):
        raise DatasetError(f"{' '.join(tgt)!r} is not the {key} answer for {' '.join(src)!r}")
    n = len(src)
    ideal = np.zeros((n + 1, n + 1), dtype=np.float32)
    for t, tok in enumerate(tgt):
        if key == "copy":
            ideal[t, t] = 1.0
        elif key == "reverse":
            ideal[t, n - 1 - t] = 1.0
        else:
            same = [j for j, s in enumerate(src) if s == tok]
            ideal[t, same] = 1.0 / len(same)
    ideal[n, n] = 1.0  # <eos> attends to <eos>
    return ideal


def alignment_scores(weights: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """Per-matrix alignment score for weights ``(..., Q, K)``: the mean over the ideal's rows of the
    attention mass on the row's ideal keys. ``weights`` larger than ``ideal`` (padding, longer
    decoded output) are cropped to ``ideal.shape``; each row's mass is clipped to [0, 1].
    Returns an array of shape ``weights.shape[:-2]``."""
    w = np.asarray(weights, dtype=np.float64)
    ideal = np.asarray(ideal)
    if ideal.ndim != 2 or w.ndim < 2:
        raise ValueError(f"expected weights (..., Q, K) and a 2-D ideal, got {w.shape} and {ideal.shape}")
    rows, cols = ideal.shape
    if w.shape[-2] < rows or w.shape[-1] < cols:
        raise ValueError(f"weights {w.shape[-2:]} are smaller than the ideal alignment {ideal.shape}")
    w = w[..., :rows, :cols]  # (..., rows, cols)
    if not np.isfinite(w).all():
        raise ValueError("attention weights contain NaN or infinity")
    mass = np.clip((w * (ideal > 0)).sum(axis=-1), 0.0, 1.0)  # (..., rows)
    return mass.mean(axis=-1)


def alignment_score(weights: np.ndarray, ideal: np.ndarray) -> float:
    """Alignment score in [0, 1] of one ``(Q, K)`` attention matrix against :func:`ideal_alignment`
    (see :func:`alignment_scores`; ``Q``/``K`` may exceed the ideal's shape and are cropped)."""
    w = np.asarray(weights)
    if w.ndim != 2:
        raise ValueError(f"expected a (Q, K) matrix, got shape {w.shape}; use alignment_scores for stacks")
    return float(alignment_scores(w, ideal))
