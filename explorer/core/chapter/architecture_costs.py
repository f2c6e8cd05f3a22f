"""CNN vs RNN vs self-attention on n tokens of width d (d2l §11.6.2): exact multiply–add counts, sequential
operations and maximum path lengths, and where self-attention becomes the most expensive of the three.

Exact counts of one layer (the book keeps only their order):

- CNN: a 1-D convolution, kernel size k, d input and d output channels, padded to keep n positions:
  k·n·d² multiply–adds, O(knd²);
- RNN: n steps of h_t = tanh(W_xh x_t + W_hh h_{t-1} + b), each two d×d products: 2·n·d², O(nd²);
- self-attention: softmax(QKᵀ/√d)V with Q = K = V the n×d input: QKᵀ and the product with V, 2·n²·d,
  O(n²d); with ``projections`` also W_q, W_k, W_v and W_o: 4·n·d² more.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ARCHITECTURES = ("CNN", "RNN", "self-attention")
MAX_TOKENS = 1_000_000
MAX_WIDTH = 65_536
MAX_KERNEL = 63


class CostError(ValueError):
    """A setting of the comparison that cannot work, with a message fit for users."""


def check_sizes(n: int, d: int, k: int) -> None:
    """Raise `CostError` unless n ≥ 2 tokens, d ≥ 1 and an odd kernel 3 ≤ k ≤ 63."""
    if not 2 <= n <= MAX_TOKENS:
        raise CostError(f"n must be between 2 and {MAX_TOKENS:,} tokens (got {n})")
    if not 1 <= d <= MAX_WIDTH:
        raise CostError(f"d must be between 1 and {MAX_WIDTH:,} (got {d})")
    if not (3 <= k <= MAX_KERNEL and k % 2 == 1):
        raise CostError(f"the kernel size k must be odd, between 3 and {MAX_KERNEL} (got {k}): a padded "
                        "convolution then sees as far to the left as to the right")


def cost_per_token(d: int, k: int, projections: bool = False) -> dict[str, tuple[int, int]]:
    """Multiply–adds per token as ``a·n + b`` (the layer's cost is n times this): ``{arch: (a, b)}``."""
    return {"CNN": (0, k * d * d), "RNN": (0, 2 * d * d),
            "self-attention": (2 * d, 4 * d * d if projections else 0)}


def computational_cost(n: int | np.ndarray, d: int, k: int, projections: bool = False) -> dict[str, np.ndarray]:
    """Exact multiply–adds of each layer for ``n`` tokens (a number or an array of them), as float64."""
    n_arr = np.asarray(n, dtype=np.float64)
    return {arch: n_arr * (a * n_arr + b) for arch, (a, b) in cost_per_token(d, k, projections).items()}


def sequential_operations(n: int) -> dict[str, int]:
    """Operations that must run one after the other within one layer: 1, n and 1."""
    return {"CNN": 1, "RNN": n, "self-attention": 1}


def max_path_length(n: int, k: int) -> dict[str, int]:
    """Hops from the first token to the last position's output: CNN ⌈(n−1)/((k−1)/2)⌉ layers of a padded
    convolution (each sees (k−1)/2 positions to its left), RNN n (x₁ → h₁ → … → hₙ), self-attention 1."""
    reach = (k - 1) // 2
    return {"CNN": -(-(n - 1) // reach), "RNN": n, "self-attention": 1}


def crossover(d: int, k: int, projections: bool = False) -> int:
    """The smallest n from which self-attention costs more than both the CNN and the RNN.

    Per token self-attention costs 2d·n + p (p = 4d² with projections, else 0) and the others a constant c;
    it is the dearer from n > (c − p)/(2d). Without projections: n > max(k, 2)·d/2, the book's "faster than
    an RNN while n < d".
    """
    per = cost_per_token(d, k, projections)
    a, p = per["self-attention"]
    n = 1
    for arch in ("CNN", "RNN"):
        c = per[arch][1]
        n = max(n, (c - p) // a + 1)  # smallest integer n with a·n + p > c
    return n


@dataclass(frozen=True)
class ComparisonResult:
    """Everything the comparison panel shows for (n, d, k).

    ``cost``, ``sequential`` and ``path`` map each architecture to its number; ``n_axis`` ``(N,)`` and
    ``curves`` ``{arch: (N,)}`` the costs against n on a log grid; ``crossover`` the first n where
    self-attention is the most expensive; ``most_expensive`` at the chosen n.
    """

    n: int
    d: int
    k: int
    projections: bool
    cost: dict[str, int]
    sequential: dict[str, int]
    path: dict[str, int]
    n_axis: np.ndarray
    curves: dict[str, np.ndarray]
    crossover: int
    most_expensive: str


def compare(n: int, d: int, k: int, projections: bool = False, n_max: int | None = None,
            points: int = 200) -> ComparisonResult:
    """The table and the curves for n tokens of width d, kernel size k."""
    check_sizes(n, d, k)
    cross = crossover(d, k, projections)
    top = n_max or max(4 * n, 4 * cross, 64)
    n_axis = np.unique(np.round(np.geomspace(1, top, points)))
    cost = {arch: int(round(float(c))) for arch, c in computational_cost(n, d, k, projections).items()}
    return ComparisonResult(n=n, d=d, k=k, projections=projections, cost=cost,
                            sequential=sequential_operations(n), path=max_path_length(n, k), n_axis=n_axis,
                            curves=computational_cost(n_axis, d, k, projections), crossover=cross,
                            most_expensive=max(ARCHITECTURES, key=lambda a: cost[a]))
