"""Attention cues (book §11.1): scores in closed form, softmax with a temperature and its limits, the identity heatmap,
and the additive and dot-product scorers equal to the book's torch modules."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from explorer.core.model.attention import AdditiveAttention, DotProductAttention
from explorer.core.chapter.attention_cues import (SCORERS, CuesError, clamp_to_plane, cue_set, cues_demo, scores,
                                          softmax_with_temperature)

QUERY = (0.7, -1.2)


def closed_form_scores(q: np.ndarray, cues, scorer: str) -> np.ndarray:
    k = cues.keys
    if scorer == "dot product":
        return np.array([q @ ki for ki in k])
    if scorer == "scaled dot product":
        return np.array([q @ ki / np.sqrt(2) for ki in k])
    if scorer == "additive":
        return np.array([cues.w_v @ np.tanh(cues.W_q @ q + cues.W_k @ ki) for ki in k])
    return np.array([-0.5 * np.sum((q - ki) ** 2) for ki in k])


@pytest.mark.parametrize("scorer", SCORERS)
@pytest.mark.parametrize("temperature", [0.1, 1.0, 7.5])
def test_weights_are_the_softmax_of_the_chosen_scores(scorer: str, temperature: float) -> None:
    cues = cue_set(7, seed=3)
    r = cues_demo(cues, QUERY, scorer, temperature)
    a = closed_form_scores(np.array(QUERY), cues, scorer)
    np.testing.assert_allclose(r.scores, a, rtol=1e-12, atol=1e-12)
    e = np.exp(a / temperature)
    np.testing.assert_allclose(r.weights, e / e.sum(), rtol=1e-10)
    assert r.output == pytest.approx(float((e / e.sum()) @ cues.values))
    assert r.grid_weights.shape == (8, 7) and r.grid_rows[0] == "q"
    np.testing.assert_allclose(r.grid_weights[0], r.weights)  # the dragged query is the heatmap's first row
    np.testing.assert_allclose(r.grid_weights.sum(axis=1), 1.0)


@pytest.mark.parametrize("scorer", SCORERS)
def test_temperature_limits(scorer: str) -> None:
    cues = cue_set(6, seed=1)
    cold = cues_demo(cues, QUERY, scorer, 1e-3).weights
    a = scores(np.array([QUERY]), cues, scorer)[0]
    gap = np.sort(a)[-1] - np.sort(a)[-2]
    assert gap > 0.05  # distinct best key for these seeds
    np.testing.assert_allclose(cold, np.eye(6)[np.argmax(a)], atol=1e-12)  # T → 0: one-hot on the argmax
    hot = cues_demo(cues, QUERY, scorer, 1e3).weights
    np.testing.assert_allclose(hot, np.full(6, 1 / 6), atol=1e-2 * max(1.0, np.ptp(a)))  # T → ∞: uniform
    np.testing.assert_allclose(softmax_with_temperature(a, 1e12), np.full(6, 1 / 6), atol=1e-10)


def test_identity_is_the_books_first_heatmap_and_the_cold_gaussian_limit() -> None:
    cues = cue_set(5, seed=0)
    eye = cues_demo(cues, QUERY, identity=True)
    np.testing.assert_array_equal(eye.grid_weights, np.eye(5))
    assert eye.grid_rows == ["q0", "q1", "q2", "q3", "q4"]
    cold = cues_demo(cues, QUERY, "gaussian", 1e-3)
    np.testing.assert_allclose(cold.grid_weights[1:], np.eye(5), atol=1e-12)  # queries at the keys


def test_scorers_equal_the_books_torch_modules() -> None:
    cues = cue_set(6, seed=2)
    q = torch.tensor([[QUERY]], dtype=torch.float64)  # (1, 1, 2)
    k = torch.from_numpy(cues.keys)[None]  # (1, K, 2)
    v = torch.from_numpy(cues.values)[None, :, None]  # (1, K, 1)
    additive = AdditiveAttention(key_size=2, query_size=2, num_hiddens=cues.W_q.shape[0]).double().eval()
    with torch.no_grad():
        additive.W_q.weight.copy_(torch.from_numpy(cues.W_q))
        additive.W_k.weight.copy_(torch.from_numpy(cues.W_k))
        additive.w_v.weight.copy_(torch.from_numpy(cues.w_v)[None])
        add_out, add_w = additive(q, k, v)
        dot_out, dot_w = DotProductAttention().eval()(q, k, v)
    np.testing.assert_allclose(cues_demo(cues, QUERY, "additive").weights, add_w[0, 0].numpy(), rtol=1e-10)
    scaled = cues_demo(cues, QUERY, "scaled dot product")
    np.testing.assert_allclose(scaled.weights, dot_w[0, 0].numpy(), rtol=1e-10)
    assert scaled.output == pytest.approx(float(dot_out[0, 0, 0]))
    assert cues_demo(cues, QUERY, "additive").output == pytest.approx(float(add_out[0, 0, 0]))


def test_layout_and_errors() -> None:
    cues = cue_set(16, seed=4)
    assert cues.keys.shape == (16, 2) and np.abs(cues.keys).max() < 3
    gaps = np.linalg.norm(cues.keys[:, None] - cues.keys[None], axis=-1) + np.eye(16) * 9
    assert gaps.min() >= 0.8
    np.testing.assert_array_equal(cue_set(16, seed=4).keys, cues.keys)  # seeded
    assert clamp_to_plane(10, -10) == (3.0, -3.0)
    for bad in (lambda: cue_set(0), lambda: cues_demo(cues, QUERY, "cosine"),
                lambda: cues_demo(cues, QUERY, temperature=0.0)):
        with pytest.raises(CuesError):
            bad()


def test_pooling_field_is_the_output_at_every_grid_query() -> None:
    from explorer.core.chapter.attention_cues import PLANE, pooling_field

    cues = cue_set(4, seed=5)
    field = pooling_field(cues, "additive", 0.5, resolution=8)
    step = (PLANE[1] - PLANE[0]) / 8
    for r, c in ((0, 0), (3, 6), (7, 2)):
        q = (PLANE[0] + (c + 0.5) * step, PLANE[0] + (r + 0.5) * step)
        assert field[r, c] == pytest.approx(cues_demo(cues, q, "additive", 0.5).output)
    assert cues.values.min() <= field.min() and field.max() <= cues.values.max()
