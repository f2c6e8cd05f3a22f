"""Why scaled dot-product attention divides by √d (d2l §11.3.3): the scaling demo's numbers.

For q, k with independent unit-variance entries, q·k has variance d; dividing by √d brings it back
to 1, so the softmax over keys neither saturates (entropy → 0) as d grows nor depends on d.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.chapter.attention_demos import DemoError

MAX_DIM = 4096
SWEEP_DIMS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@dataclass(frozen=True)
class Histogram:
    """``counts (n,)`` as a density and ``edges (n+1,)`` (pyqtgraph's ``stepMode='center'`` shape)."""

    counts: np.ndarray
    edges: np.ndarray


@dataclass(frozen=True)
class ScalingResult:
    """Raw and 1/√d-scaled dot products for one ``dim`` and the softmax entropy of each query's row.

    ``raw, scaled (rows*K,)``; ``raw_entropy, scaled_entropy (rows,)`` in nats; ``max_entropy = ln K``
    (uniform weights); histograms of each; ``*_theory = (x, density)`` of N(0, d) and N(0, 1), the
    distributions the book's argument predicts.
    """

    dim: int
    num_keys: int
    raw: np.ndarray
    scaled: np.ndarray
    raw_var: float
    scaled_var: float
    raw_entropy: np.ndarray
    scaled_entropy: np.ndarray
    max_entropy: float
    raw_hist: Histogram
    scaled_hist: Histogram
    raw_entropy_hist: Histogram
    scaled_entropy_hist: Histogram
    raw_theory: tuple[np.ndarray, np.ndarray]
    scaled_theory: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class EntropySweep:
    """Mean softmax entropy and dot-product variance against ``dims (n,)``, raw and scaled."""

    num_keys: int
    dims: np.ndarray
    raw_entropy: np.ndarray
    scaled_entropy: np.ndarray
    raw_var: np.ndarray
    scaled_var: np.ndarray
    max_entropy: float


def softmax_entropy(scores: np.ndarray) -> np.ndarray:
    """Entropy (nats) of ``softmax`` over the last axis: ``(..., K) -> (...)``, stable for big scores."""
    z = scores - scores.max(axis=-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return -(np.exp(log_p) * log_p).sum(axis=-1)


def _dot_products(dim: int, num_rows: int, num_keys: int, seed: int) -> np.ndarray:
    """``(rows, K)`` dot products of N(0, I_d) queries with N(0, I_d) keys, one query per row."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((num_rows, 1, dim), dtype=np.float32)
    k = rng.standard_normal((num_rows, num_keys, dim), dtype=np.float32)
    return (q * k).sum(axis=-1, dtype=np.float64)  # (rows, K)


def normal_density(var: float, lo: float, hi: float, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """``(x (n,), pdf (n,))`` of N(0, var) on [lo, hi]."""
    x = np.linspace(lo, hi, n)
    return x, np.exp(-0.5 * x**2 / var) / np.sqrt(2 * np.pi * var)


def _hist(x: np.ndarray, bins: int, lo: float | None = None, hi: float | None = None) -> Histogram:
    lo = float(x.min()) if lo is None else lo
    hi = float(x.max()) if hi is None else hi
    if hi <= lo:
        hi = lo + 1.0
    counts, edges = np.histogram(x, bins=bins, range=(lo, hi), density=True)
    return Histogram(counts.astype(np.float64), edges.astype(np.float64))


def _check(dim: int, num_rows: int, num_keys: int) -> None:
    if not 1 <= dim <= MAX_DIM:
        raise DemoError(f"d must be between 1 and {MAX_DIM} (got {dim})")
    if not 2 <= num_keys <= 1000:
        raise DemoError(f"the number of keys must be between 2 and 1000 (got {num_keys})")
    if not 10 <= num_rows <= 100_000:
        raise DemoError(f"the number of sampled queries must be between 10 and 100000 (got {num_rows})")


def scaling_demo(dim: int, num_rows: int = 500, num_keys: int = 10, seed: int = 0,
                 bins: int = 40) -> ScalingResult:
    """Dot products of unit-variance vectors of size ``dim``, raw and scaled, with softmax entropies.

    Parameters
    ----------
    dim : d. num_rows : sampled queries, each scored against its own ``num_keys`` random keys.
    """
    _check(dim, num_rows, num_keys)
    raw = _dot_products(dim, num_rows, num_keys, seed)  # (rows, K)
    scaled = raw / np.sqrt(dim)
    raw_h, scaled_h = softmax_entropy(raw), softmax_entropy(scaled)
    max_h = float(np.log(num_keys))
    raw_hist, scaled_hist = _hist(raw, bins), _hist(scaled, bins)
    return ScalingResult(
        dim=dim, num_keys=num_keys, raw=raw.ravel(), scaled=scaled.ravel(),
        raw_var=float(raw.var()), scaled_var=float(scaled.var()),
        raw_entropy=raw_h, scaled_entropy=scaled_h, max_entropy=max_h,
        raw_hist=raw_hist, scaled_hist=scaled_hist,
        raw_entropy_hist=_hist(raw_h, bins, 0.0, max_h), scaled_entropy_hist=_hist(scaled_h, bins, 0.0, max_h),
        raw_theory=normal_density(float(dim), raw_hist.edges[0], raw_hist.edges[-1]),
        scaled_theory=normal_density(1.0, scaled_hist.edges[0], scaled_hist.edges[-1]),
    )


def entropy_sweep(dims: tuple[int, ...] = SWEEP_DIMS, num_rows: int = 200, num_keys: int = 10,
                  seed: int = 0) -> EntropySweep:
    """Mean softmax entropy and dot-product variance for each d in ``dims``, raw and scaled."""
    stats = []
    for i, d in enumerate(dims):
        _check(d, num_rows, num_keys)
        raw = _dot_products(d, num_rows, num_keys, seed + i)
        scaled = raw / np.sqrt(d)
        stats.append((softmax_entropy(raw).mean(), softmax_entropy(scaled).mean(), raw.var(), scaled.var()))
    cols = np.array(stats, dtype=np.float64).T  # (4, n)
    return EntropySweep(num_keys, np.array(dims, dtype=np.float64), cols[0], cols[1], cols[2], cols[3],
                        float(np.log(num_keys)))
