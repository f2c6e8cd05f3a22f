"""Nadaraya–Watson kernel regression: kernels, the book's data, nonparametric and parametric fits.

Follows *Dive into Deep Learning* §11.2 (attention pooling by similarity).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import numpy as np

if TYPE_CHECKING:  # torch is imported lazily: the GUI's first panel should not pay for it
    import torch

KERNELS: tuple[str, ...] = ("gaussian", "boxcar", "constant", "epanechnikov")
X_RANGE: tuple[float, float] = (0.0, 5.0)
MAX_POINTS = 1_000_000
_DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024  # cache-friendly: faster than 64 MB blocks (measured)


class KernelRegressionError(ValueError):
    """Bad input to kernel regression; the message is fit to show to a user."""


@dataclass(frozen=True)
class RegressionData:
    """The book's toy data set: noisy samples of `true_function` on [0, 5).

    Attributes (all float32): x_train (N,) sorted, y_train (N,), x_test (Q,), y_truth (Q,).
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_truth: np.ndarray


@dataclass(frozen=True)
class ParametricEpoch:
    """One epoch of the parametric model: its loss, the learned w and the test-set fit.

    `loss` is the book's figure (sum over training points of the squared error, before the
    step); `w` is the value after the step; `pred` (Q,) and `weights` (Q, N) are on the test points.
    """

    epoch: int
    loss: float
    w: float
    pred: np.ndarray
    weights: np.ndarray


def true_function(x: np.ndarray) -> np.ndarray:
    """The book's target `f(x) = 2 sin(x) + x^0.8` for x ≥ 0, same shape and dtype as x."""
    x = np.asarray(x)
    return 2 * np.sin(x) + np.power(x, 0.8)


def kernel(name: str, u: np.ndarray) -> np.ndarray:
    """Evaluate kernel `name` at u = (x − xᵢ)/h, unnormalised (only ratios matter).

    gaussian exp(−u²/2); boxcar 1 for |u| < 1; constant 1; epanechnikov max(1 − u², 0).
    The book's code labels max(1 − |u|, 0) "Epanechikov"; that is the triangular kernel,
    here the textbook Epanechnikov is used.
    """
    u = np.asarray(u, dtype=np.float32)
    if name == "gaussian":
        return np.exp(-0.5 * u * u)
    if name == "boxcar":
        return (np.abs(u) < 1).astype(np.float32)
    if name == "constant":
        return np.ones_like(u)
    if name == "epanechnikov":
        return np.maximum(1 - u * u, 0).astype(np.float32)
    raise KernelRegressionError(f"Unknown kernel {name!r}; choose one of {', '.join(KERNELS)}.")


def make_data(n_train: int = 50, noise: float = 0.5, seed: int = 0, n_test_step: float = 0.1,
              n_test: int | None = None) -> RegressionData:
    """The book's data: `n_train` sorted x ~ U[0, 5), y = f(x) + N(0, noise²); test x = arange(0, 5, step).

    `n_test`, if given, replaces the step: `n_test` evenly spaced test points on [0, 5).
    """
    if not 1 <= int(n_train) <= MAX_POINTS:
        raise KernelRegressionError(f"The number of training points must be 1–{MAX_POINTS:,}, not {n_train}.")
    if not (math.isfinite(noise) and noise >= 0):
        raise KernelRegressionError(f"The noise level must be a number ≥ 0, not {noise}.")
    lo, hi = X_RANGE
    if n_test is not None:
        if not 1 <= int(n_test) <= MAX_POINTS:
            raise KernelRegressionError(f"The number of test points must be 1–{MAX_POINTS:,}, not {n_test}.")
        x_test = lo + np.arange(int(n_test), dtype=np.float64) * ((hi - lo) / int(n_test))
    else:
        if not (math.isfinite(n_test_step) and n_test_step > 0 and (hi - lo) / n_test_step <= MAX_POINTS):
            raise KernelRegressionError(f"The test-point step must be > 0 and not tiny, not {n_test_step}.")
        x_test = np.arange(lo, hi, n_test_step, dtype=np.float64)
    rng = np.random.default_rng(int(seed))
    x_train = np.sort(rng.uniform(lo, hi, int(n_train)))
    y_train = true_function(x_train) + rng.normal(0.0, float(noise), int(n_train))
    f32 = np.float32
    return RegressionData(x_train.astype(f32), y_train.astype(f32), x_test.astype(f32),
                          true_function(x_test).astype(f32))


def _as_vector(name: str, a: np.ndarray) -> np.ndarray:
    v = np.ascontiguousarray(a, dtype=np.float32)
    if v.ndim != 1:
        raise KernelRegressionError(f"{name} must be a 1-D list of numbers, got shape {v.shape}.")
    if not np.isfinite(v).all():
        raise KernelRegressionError(f"{name} contains NaN or infinite values.")
    return v


def _check(x_train: np.ndarray, y_train: np.ndarray, x_query: np.ndarray, kernel_name: str,
           bandwidth: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xt, yt, xq = _as_vector("x_train", x_train), _as_vector("y_train", y_train), _as_vector("x_query", x_query)
    if xt.size == 0:
        raise KernelRegressionError("Kernel regression needs at least one training point.")
    if xt.shape != yt.shape:
        raise KernelRegressionError(f"x_train and y_train differ in length ({xt.size} vs {yt.size}).")
    if kernel_name not in KERNELS:
        raise KernelRegressionError(f"Unknown kernel {kernel_name!r}; choose one of {', '.join(KERNELS)}.")
    if math.isnan(bandwidth) or bandwidth <= 0:
        raise KernelRegressionError(f"The bandwidth h must be > 0, not {bandwidth}.")
    return xt, yt, xq


def _row_dot(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(Q, N) · (N,) → (Q,) without threaded BLAS gemv/gemm.

    OpenBLAS threads spin after a call and slow every numpy op that follows on a busy
    2-core machine (8 ms instead of 1.5 ms measured), so use the per-row dot of `vecdot`.
    """
    if hasattr(np, "vecdot"):  # numpy ≥ 2.0
        return np.vecdot(m, v)
    return np.einsum("ij,j->i", m, v)


def _nearest_sq_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """min_j (a_i − b_j)² for each i, in float32 exactly as the full matrix computes it. (Q,)"""
    bs = np.sort(b)
    hi = np.searchsorted(bs, a).clip(1, bs.size - 1) if bs.size > 1 else np.zeros(a.size, dtype=np.intp)
    lo = hi - 1 if bs.size > 1 else hi
    return np.minimum(np.square(a - bs[lo]), np.square(a - bs[hi]))


def _fill_weights(out: np.ndarray, xq: np.ndarray, xt: np.ndarray, yt: np.ndarray, kernel_name: str,
                  bandwidth: float) -> np.ndarray:
    """Write the normalised weights (Q, N) into `out` in place and return the predictions (Q,).

    Rows whose kernel mass is 0 (boxcar/Epanechnikov far from every point) fall back to
    weight 1 on the nearest training point (the h → 0 limit), so no row is ever NaN.
    """
    if kernel_name == "constant":
        out.fill(1.0)
    else:
        # h → 0: cap the scale so the largest u² stays finite in float32 (then only the nearest survives)
        span = max(float(np.abs(xq).max(initial=0.0)), float(np.abs(xt).max(initial=0.0)), 1e-30)
        scale = min(1.0 / bandwidth, 1e18 / span)  # 0 for h = inf: every u is 0
        if kernel_name == "gaussian":
            scale *= math.sqrt(0.5)  # so that u² below is already u²/2
        a = xq * np.float32(scale)
        b = xt * np.float32(scale)
        np.subtract(a[:, None], b[None, :], out=out)  # (Q, N) scaled differences u
        if kernel_name == "boxcar":
            np.abs(out, out=out)
            np.less(out, 1.0, out=out)
        else:
            np.square(out, out=out)
            if kernel_name == "gaussian":
                # exp(min_j u_j² − u²): the nearest point gets exactly 1, so no row underflows to 0/0
                row_min = _nearest_sq_distance(a, b)  # (Q,), found by bisection instead of a pass
                np.subtract(row_min[:, None], out, out=out)
                np.exp(out, out=out)
            else:  # epanechnikov
                np.subtract(1.0, out, out=out)
                np.maximum(out, 0.0, out=out)
    mass = _row_dot(out, np.ones_like(yt))  # (Q,) Σ kᵢ
    weighted = _row_dot(out, yt)  # (Q,) Σ kᵢ yᵢ
    empty = mass <= 0
    if empty.any():
        rows = np.flatnonzero(empty)
        nearest = np.abs(xq[rows, None] - xt[None, :]).argmin(axis=1)  # (R,)
        out[rows] = 0.0
        out[rows, nearest] = 1.0
        weighted[rows] = yt[nearest]
        mass[rows] = 1.0
    inv = (1.0 / mass).astype(np.float32)
    np.multiply(out, inv[:, None], out=out)
    return (weighted * inv).astype(np.float32)


def nadaraya_watson(x_train: np.ndarray, y_train: np.ndarray, x_query: np.ndarray, kernel: str = "gaussian",
                    bandwidth: float = 1.0, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Nadaraya–Watson regression `f(x) = Σᵢ α(x, xᵢ) yᵢ`, α ∝ K((x − xᵢ)/h) normalised per query.

    Parameters
    ----------
    x_train, y_train : (N,) keys and values. x_query : (Q,) queries.
    kernel : one of `KERNELS`. bandwidth : h > 0 (`inf` allowed: every weight equal).
    out : optional preallocated C-contiguous float32 (Q, N) buffer for the weights (no allocation
        of the big matrix; handy for repeated fits such as a bandwidth drag).

    Returns
    -------
    pred (Q,) float32 and weights (Q, N) float32 whose rows sum to 1. A row with zero kernel
    mass puts weight 1 on its nearest training point (first one on ties).
    """
    xt, yt, xq = _check(x_train, y_train, x_query, kernel, bandwidth)
    shape = (xq.size, xt.size)
    if out is None:
        out = np.empty(shape, dtype=np.float32)
    elif out.shape != shape or out.dtype != np.float32 or not out.flags.c_contiguous:
        raise KernelRegressionError(f"The weight buffer must be a C-contiguous float32 array of shape {shape}.")
    pred = _fill_weights(out, xq, xt, yt, kernel, float(bandwidth))
    return pred, out


def iter_chunks(x_train: np.ndarray, y_train: np.ndarray, x_query: np.ndarray, kernel: str = "gaussian",
                bandwidth: float = 1.0, max_bytes: int = _DEFAULT_CHUNK_BYTES
                ) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """Fit in blocks of query rows, never holding more than ~`max_bytes` of weights at once.

    Yields (start, stop, pred (stop−start,), weights (stop−start, N)). The weights array is a
    reused buffer: copy it if you keep it past the next iteration.
    """
    xt, yt, xq = _check(x_train, y_train, x_query, kernel, bandwidth)
    rows = max(1, int(max_bytes) // (4 * xt.size))
    buf = np.empty((min(rows, max(xq.size, 1)), xt.size), dtype=np.float32)
    for start in range(0, xq.size, rows):
        stop = min(start + rows, xq.size)
        block = buf[: stop - start]
        pred = _fill_weights(block, xq[start:stop], xt, yt, kernel, float(bandwidth))
        yield start, stop, pred, block


def predict_chunked(x_train: np.ndarray, y_train: np.ndarray, x_query: np.ndarray, kernel: str = "gaussian",
                    bandwidth: float = 1.0, max_bytes: int = _DEFAULT_CHUNK_BYTES,
                    weights_out: np.ndarray | None = None) -> np.ndarray:
    """Predictions (Q,) for large inputs (e.g. 10,000 × 10,000) computed in blocks of ~`max_bytes`.

    The full weight matrix is not built; pass `weights_out` (a float32 (Q, N) array, e.g. an
    `np.memmap`) to have the weights written there block by block.
    """
    pred = np.empty(np.asarray(x_query).shape[0], dtype=np.float32)
    for start, stop, p, w in iter_chunks(x_train, y_train, x_query, kernel, bandwidth, max_bytes):
        pred[start:stop] = p
        if weights_out is not None:
            weights_out[start:stop] = w
    return pred


def bandwidth_from_w(w: float) -> float:
    """The Gaussian bandwidth equivalent to the book's learnable w: exp(−((x − xᵢ)w)²/2) ⇒ h = 1/|w|."""
    return math.inf if w == 0 else 1.0 / abs(w)


def leave_one_out(values: np.ndarray) -> np.ndarray:
    """(N,) → (N, N−1): row i holds every entry except the i-th (the book's training keys/values)."""
    v = np.asarray(values)
    n = v.shape[0]
    keep = ~np.eye(n, dtype=bool)  # (N, N)
    return np.broadcast_to(v, (n, n))[keep].reshape(n, n - 1)  # (N, N-1)


def _nw_forward(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """The book's NWKernelRegression forward: queries (Q,), keys/values (Q, K) → (Q,)."""
    import torch

    scores = -((queries[:, None] - keys) * w) ** 2 / 2  # (Q, K)
    attn = torch.softmax(scores, dim=1)  # (Q, K)
    return (attn * values).sum(dim=1)


def train_parametric(data: RegressionData, lr: float = 0.5, num_epochs: int = 5, seed: int = 0,
                     w_init: float | None = None) -> Iterator[ParametricEpoch]:
    """Train the book's parametric Nadaraya–Watson model (one learnable w) with SGD, epoch by epoch.

    As the book: each training x is a query against the other N−1 points (leave-one-out keys),
    loss = Σ squared error, full-batch SGD with `lr`; w starts U[0, 1) from `seed` unless `w_init`.
    Yields a `ParametricEpoch` per epoch with the test-set fit `softmax(−((x − xᵢ)w)²/2)` over all keys.
    """
    import torch

    if data.x_train.size < 2:
        raise KernelRegressionError("The parametric model needs at least two training points (leave-one-out).")
    if not (math.isfinite(lr) and lr > 0):
        raise KernelRegressionError(f"The learning rate must be > 0, not {lr}.")
    if int(num_epochs) < 1:
        raise KernelRegressionError(f"The number of epochs must be at least 1, not {num_epochs}.")
    gen = torch.Generator().manual_seed(int(seed))
    start = torch.rand(1, generator=gen) if w_init is None else torch.tensor([float(w_init)])
    w = start.clone().requires_grad_(True)
    x = torch.from_numpy(np.ascontiguousarray(data.x_train, dtype=np.float32))
    y = torch.from_numpy(np.ascontiguousarray(data.y_train, dtype=np.float32))
    keys = torch.from_numpy(leave_one_out(data.x_train).astype(np.float32))  # (N, N-1)
    values = torch.from_numpy(leave_one_out(data.y_train).astype(np.float32))  # (N, N-1)
    # Plain SGD written out (w ← w − lr·∂loss/∂w, what torch.optim.SGD does without momentum): the
    # first torch.optim optimizer imports torch._dynamo, measured at 1–4 s here, for one scalar.
    for epoch in range(1, int(num_epochs) + 1):
        w.grad = None
        loss = ((_nw_forward(x, keys, values, w) - y) ** 2).sum()
        loss.backward()
        with torch.no_grad():
            w -= float(lr) * w.grad
        w_now = float(w.detach()[0])
        if not math.isfinite(w_now):
            raise KernelRegressionError("Training diverged (w is no longer finite); lower the learning rate.")
        pred, weights = nadaraya_watson(data.x_train, data.y_train, data.x_test, "gaussian", bandwidth_from_w(w_now))
        yield ParametricEpoch(epoch, float(loss.detach()), w_now, pred, weights)
