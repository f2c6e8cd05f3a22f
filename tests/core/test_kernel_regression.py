"""Tests for Nadaraya–Watson kernel regression (book §11.2) against plain reference evaluations."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.chapter import kernel_regression as kr
from explorer.core.chapter.kernel_regression import KERNELS, KernelRegressionError, make_data, nadaraya_watson


def reference_nw(x_train, y_train, x_query, name, h):
    """The formula written out in float64, one query at a time, with no stabilisation tricks."""
    kernels = {
        "gaussian": lambda u: np.exp(-u ** 2 / 2),
        "boxcar": lambda u: (np.abs(u) < 1).astype(float),
        "constant": lambda u: np.ones_like(u),
        "epanechnikov": lambda u: np.maximum(1 - u ** 2, 0),
    }
    preds, rows = [], []
    for x in np.asarray(x_query, dtype=np.float64):
        k = kernels[name]((x - np.asarray(x_train, dtype=np.float64)) / h)
        rows.append(k / k.sum())
        preds.append(rows[-1] @ np.asarray(y_train, dtype=np.float64))
    return np.array(preds), np.array(rows)


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("h", [0.3, 1.0, 2.5])
def test_matches_plain_formula(name: str, h: float) -> None:
    d = make_data(seed=3)
    pred, w = nadaraya_watson(d.x_train, d.y_train, d.x_test, name, h)
    ref_pred, ref_w = reference_nw(d.x_train, d.y_train, d.x_test, name, h)
    assert pred.shape == (50,) and w.shape == (50, 50)
    assert pred.dtype == np.float32 and w.dtype == np.float32
    np.testing.assert_allclose(w, ref_w, atol=2e-6, rtol=1e-4)
    np.testing.assert_allclose(pred, ref_pred, atol=1e-5, rtol=1e-4)


def test_kernel_shapes() -> None:
    u = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(kr.kernel("gaussian", u), np.exp(-u ** 2 / 2), rtol=1e-6)
    np.testing.assert_array_equal(kr.kernel("boxcar", u), [0, 0, 1, 1, 1, 0, 0])
    np.testing.assert_array_equal(kr.kernel("constant", u), np.ones(7))
    np.testing.assert_allclose(kr.kernel("epanechnikov", u), [0, 0, 0.75, 1, 0.75, 0, 0])
    with pytest.raises(KernelRegressionError, match="Unknown kernel"):
        kr.kernel("cosine", u)


@pytest.mark.parametrize("name", ["gaussian", "boxcar", "epanechnikov"])
def test_tiny_bandwidth_interpolates_nearest_point(name: str) -> None:
    rng = np.random.default_rng(1)
    x = np.sort(rng.uniform(0, 5, 40))
    y = rng.normal(size=40)
    q = rng.uniform(-1, 6, 200)
    nearest = np.abs(q[:, None] - x[None, :]).argmin(axis=1)
    for h in (1e-4, 1e-12, 1e-40):
        pred, w = nadaraya_watson(x, y, q, name, h)
        np.testing.assert_allclose(pred, y[nearest].astype(np.float32), rtol=1e-6)
        np.testing.assert_array_equal(w.argmax(axis=1), nearest)
        np.testing.assert_allclose(w.max(axis=1), 1.0)
    pred, _ = nadaraya_watson(x, y, x, name, 1e-6)  # at the training points: the training targets
    np.testing.assert_allclose(pred, y.astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("name", KERNELS)
def test_huge_bandwidth_gives_mean(name: str) -> None:
    d = make_data(n_train=80, seed=5)
    for h in (1e7, np.inf):
        pred, w = nadaraya_watson(d.x_train, d.y_train, d.x_test, name, h)
        np.testing.assert_allclose(pred, d.y_train.astype(np.float64).mean(), rtol=1e-5)
        np.testing.assert_allclose(w, 1 / 80, rtol=1e-5)


def test_gaussian_far_from_data_is_stable() -> None:
    x = np.array([0.0, 1.0, 2.0])
    y = np.array([5.0, 6.0, 7.0])
    pred, w = nadaraya_watson(x, y, np.array([1000.0, -1000.0]), "gaussian", 0.1)  # exp(-u²/2) underflows
    assert np.isfinite(w).all()
    np.testing.assert_allclose(pred, [7.0, 5.0])


@pytest.mark.parametrize("name", ["boxcar", "epanechnikov"])
def test_zero_mass_rows_fall_back_to_nearest(name: str) -> None:
    x = np.array([0.0, 1.0, 2.0])
    y = np.array([5.0, 6.0, 7.0])
    pred, w = nadaraya_watson(x, y, np.array([1.1, 10.0, -3.0]), name, 0.5)
    assert not np.isnan(w).any()
    np.testing.assert_allclose(pred, [6.0, 7.0, 5.0])
    np.testing.assert_array_equal(w[1], [0, 0, 1])
    np.testing.assert_array_equal(w[2], [1, 0, 0])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 30),
    q=st.integers(1, 30),
    name=st.sampled_from(KERNELS),
    log_h=st.floats(-6, 6),
    seed=st.integers(0, 2**16),
)
def test_weights_are_a_convex_combination(n: int, q: int, name: str, log_h: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y, xq = rng.uniform(-10, 10, n), rng.normal(size=n) * 10, rng.uniform(-20, 20, q)
    pred, w = nadaraya_watson(x, y, xq, name, 10.0 ** log_h)
    assert w.shape == (q, n) and (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-5)
    tol = 1e-4 * (1 + np.abs(y).max())
    assert (pred >= y.min() - tol).all() and (pred <= y.max() + tol).all()


def test_out_buffer_is_filled_and_checked() -> None:
    d = make_data()
    buf = np.empty((50, 50), np.float32)
    pred, w = nadaraya_watson(d.x_train, d.y_train, d.x_test, "gaussian", 0.7, out=buf)
    assert w is buf
    np.testing.assert_allclose(pred, nadaraya_watson(d.x_train, d.y_train, d.x_test, "gaussian", 0.7)[0])
    with pytest.raises(KernelRegressionError, match="shape"):
        nadaraya_watson(d.x_train, d.y_train, d.x_test, out=np.empty((50, 49), np.float32))


def test_chunked_equals_full_and_stays_small() -> None:
    rng = np.random.default_rng(2)
    x, y, q = rng.uniform(0, 5, 3000), rng.normal(size=3000), rng.uniform(0, 5, 1500)
    full_pred, full_w = nadaraya_watson(x, y, q, "epanechnikov", 0.05)
    weights = np.zeros_like(full_w)
    tracemalloc.start()
    pred = kr.predict_chunked(x, y, q, "epanechnikov", 0.05, max_bytes=1 << 20, weights_out=weights)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    np.testing.assert_allclose(pred, full_pred, rtol=1e-5, atol=1e-6)  # BLAS may sum in another order
    np.testing.assert_allclose(weights, full_w, rtol=1e-5, atol=1e-7)
    assert peak < 3 << 20, peak  # one 1 MiB block (+ small vectors), not the 18 MB matrix
    blocks = [(a, b) for a, b, _, w in kr.iter_chunks(x, y, q, max_bytes=1 << 20) if w.nbytes <= 1 << 20]
    assert blocks[0][0] == 0 and blocks[-1][1] == 1500 and len(blocks) == 18


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([0.0, 1.0], [1.0], [0.5]), "differ in length"),
        (([0.0, np.nan], [1.0, 2.0], [0.5]), "NaN"),
        (([], [], [0.5]), "at least one"),
        (([[0.0, 1.0]], [1.0, 2.0], [0.5]), "1-D"),
    ],
)
def test_bad_input_has_clear_message(args, message: str) -> None:
    with pytest.raises(KernelRegressionError, match=message):
        nadaraya_watson(*args)


def test_bad_kernel_and_bandwidth() -> None:
    with pytest.raises(KernelRegressionError, match="Unknown kernel"):
        nadaraya_watson([0.0], [1.0], [0.0], "triangle")
    for h in (0.0, -1.0, float("nan")):
        with pytest.raises(KernelRegressionError, match="bandwidth"):
            nadaraya_watson([0.0], [1.0], [0.0], "gaussian", h)


def test_make_data_is_the_books_setting() -> None:
    d = make_data()
    assert d.x_train.shape == (50,) and d.x_test.shape == (50,)
    assert all(a.dtype == np.float32 for a in (d.x_train, d.y_train, d.x_test, d.y_truth))
    assert (np.diff(d.x_train) >= 0).all() and d.x_train.min() >= 0 and d.x_train.max() < 5
    np.testing.assert_allclose(d.x_test, np.arange(0, 5, 0.1), atol=1e-6)
    np.testing.assert_allclose(d.y_truth, 2 * np.sin(d.x_test) + d.x_test ** 0.8, rtol=1e-6)
    again, other = make_data(seed=0), make_data(seed=1)
    np.testing.assert_array_equal(d.y_train, again.y_train)
    assert not np.array_equal(d.x_train, other.x_train)
    clean = make_data(n_train=20, noise=0.0)
    np.testing.assert_allclose(clean.y_train, 2 * np.sin(clean.x_train) + clean.x_train ** 0.8, rtol=1e-6)
    big = make_data(n_train=20000, noise=0.5, n_test=1000)
    assert big.x_test.shape == (1000,) and big.x_test[-1] < 5
    resid = big.y_train - kr.true_function(big.x_train)
    assert 0.48 < resid.std() < 0.52


@pytest.mark.parametrize("kwargs", [{"n_train": 0}, {"noise": -1.0}, {"n_test_step": 0.0}, {"n_test": 0}])
def test_make_data_rejects_bad_settings(kwargs) -> None:
    with pytest.raises(KernelRegressionError):
        make_data(**kwargs)


def test_leave_one_out() -> None:
    v = np.arange(4)
    np.testing.assert_array_equal(kr.leave_one_out(v), [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])


def book_style_training(x, y, w0, lr, epochs):
    """An independent reference: the book's model written with repeat_interleave and bmm."""
    n = len(x)
    x, y = torch.tensor(x), torch.tensor(y)
    mask = (1 - torch.eye(n)).bool()
    keys = x.repeat((n, 1))[mask].reshape((n, -1))
    values = y.repeat((n, 1))[mask].reshape((n, -1))
    w = torch.tensor([w0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=lr)
    losses, ws = [], []
    for _ in range(epochs):
        opt.zero_grad()
        queries = x.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
        attn = torch.nn.functional.softmax(-((queries - keys) * w) ** 2 / 2, dim=1)
        out = torch.bmm(attn.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)
        loss = torch.nn.MSELoss(reduction="none")(out, y)
        loss.sum().backward()
        opt.step()
        losses.append(float(loss.detach().sum()))
        ws.append(float(w.detach()[0]))
    return losses, ws


def test_parametric_matches_book_training() -> None:
    d = make_data(seed=4)
    epochs = list(kr.train_parametric(d, lr=0.5, num_epochs=5, w_init=0.8))
    losses, ws = book_style_training(d.x_train, d.y_train, 0.8, 0.5, 5)
    assert [e.epoch for e in epochs] == [1, 2, 3, 4, 5]
    np.testing.assert_allclose([e.loss for e in epochs], losses, rtol=1e-4)
    np.testing.assert_allclose([e.w for e in epochs], ws, rtol=1e-4)
    last = epochs[-1]
    assert last.pred.shape == (50,) and last.weights.shape == (50, 50)
    scores = -((d.x_test[:, None].astype(float) - d.x_train[None, :]) * last.w) ** 2 / 2  # (Q, N)
    ref = np.exp(scores - scores.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(last.weights, ref, atol=1e-5)
    np.testing.assert_allclose(last.pred, ref @ d.y_train, atol=1e-4)


def test_parametric_seed_and_learning() -> None:
    d = make_data()
    a = list(kr.train_parametric(d, seed=7))
    b = list(kr.train_parametric(d, seed=7))
    c = list(kr.train_parametric(d, seed=8))
    assert [e.w for e in a] == [e.w for e in b]
    assert a[0].w != c[0].w
    assert a[-1].loss < a[0].loss  # the book's run: the loss falls and w grows (a sharper kernel)
    assert a[-1].w > float(torch.rand(1, generator=torch.Generator().manual_seed(7))[0])
    with pytest.raises(KernelRegressionError, match="two training points"):
        next(kr.train_parametric(make_data(n_train=1)))
