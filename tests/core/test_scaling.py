"""The scaling demo: raw dot products have variance ≈ d, scaled ones ≈ 1; entropies as the book argues."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax
from scipy.stats import entropy

from explorer.core.chapter.attention_demos import DemoError
from explorer.core.chapter.scaling import entropy_sweep, scaling_demo, softmax_entropy


@pytest.mark.parametrize("d", [1, 16, 256])
def test_variance_raw_is_d_scaled_is_one(d):
    r = scaling_demo(d, num_rows=2000, seed=1)
    assert r.raw_var == pytest.approx(d, rel=0.12)
    assert r.scaled_var == pytest.approx(1.0, rel=0.12)
    np.testing.assert_allclose(r.scaled, r.raw / np.sqrt(d))
    assert r.raw_var == pytest.approx(np.var(r.raw))


def test_softmax_entropy_matches_scipy():
    x = np.random.default_rng(0).normal(scale=30.0, size=(50, 7))
    np.testing.assert_allclose(softmax_entropy(x), entropy(softmax(x, axis=-1), axis=-1), atol=1e-9)
    assert softmax_entropy(np.zeros((1, 4)))[0] == pytest.approx(np.log(4))


def test_entropies_and_histograms():
    r = scaling_demo(128, num_rows=500, num_keys=10)
    assert r.raw_entropy.shape == (500,) and r.max_entropy == pytest.approx(np.log(10))
    # unscaled scores saturate the softmax; scaled ones keep it spread out
    assert r.raw_entropy.mean() < 0.5 * r.scaled_entropy.mean()
    x, pdf = r.raw_theory
    assert pdf.max() == pytest.approx(1 / np.sqrt(2 * np.pi * 128), rel=1e-2)
    assert x[0] == r.raw_hist.edges[0] and x[-1] == r.raw_hist.edges[-1]
    for h in (r.raw_hist, r.scaled_hist, r.raw_entropy_hist, r.scaled_entropy_hist):
        assert len(h.edges) == len(h.counts) + 1
        assert float(np.sum(h.counts * np.diff(h.edges))) == pytest.approx(1.0)


def test_sweep_raw_entropy_falls_scaled_stays():
    s = entropy_sweep(dims=(1, 8, 64, 512), num_rows=300)
    assert (np.diff(s.raw_entropy) < 0).all()
    assert np.ptp(s.scaled_entropy) < 0.2
    np.testing.assert_allclose(s.raw_var / s.dims, 1.0, rtol=0.2)


def test_bad_dimension_explained():
    with pytest.raises(DemoError, match="between 1"):
        scaling_demo(0)
