"""The scoring / multi-head / positional demo numbers against plain numpy recomputations."""
from __future__ import annotations

import numpy as np
import pytest

from explorer.core.chapter.attention_demos import (
    DemoError, check_heads, head_choices, multihead_demo, parse_lengths, positional_demo, scoring_demo,
    tokenize_sentence,
)


def _softmax_masked(scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    z = np.where(keep, scores, -np.inf)
    z = z - np.where(keep.any(-1, keepdims=True), z.max(-1, keepdims=True), 0.0)
    e = np.where(keep, np.exp(z), 0.0)
    s = e.sum(-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def test_additive_weights_equal_hand_computation():
    r = scoring_demo(batch_size=2, num_queries=3, num_keys=7, dim=5, num_hiddens=6, seed=3, valid_lens=[2, 7])
    q, k = r.queries.astype(np.float64), r.keys.astype(np.float64)
    # a(q, k) = w_vᵀ tanh(W_q q + W_k k), looped per pair to stay independent of the vectorised code
    scores = np.empty((2, 3, 7))
    for b in range(2):
        for i in range(3):
            for j in range(7):
                scores[b, i, j] = r.w_v @ np.tanh(r.W_q @ q[b, i] + r.W_k @ k[b, j])
    keep = np.arange(7)[None, None, :] < np.array([2, 7])[:, None, None]
    np.testing.assert_allclose(r.additive_scores, scores, atol=1e-5)
    np.testing.assert_allclose(r.additive_weights, _softmax_masked(scores, keep), atol=1e-6)
    np.testing.assert_allclose(r.additive_output, r.additive_weights @ r.values, atol=1e-5)
    np.testing.assert_array_equal(r.keep, np.broadcast_to(keep, (2, 3, 7)))


def test_dot_product_weights_with_per_query_lengths():
    lens = [[1, 2, 3], [0, 4, 4]]
    r = scoring_demo(batch_size=2, num_queries=3, num_keys=4, dim=8, seed=1, valid_lens=lens)
    scores = np.einsum("bqd,bkd->bqk", r.queries.astype(np.float64), r.keys) / np.sqrt(8)
    keep = np.arange(4)[None, None, :] < np.array(lens)[:, :, None]
    np.testing.assert_array_equal(r.keep, keep)
    np.testing.assert_allclose(r.dot_weights, _softmax_masked(scores, keep), atol=1e-6)
    assert (r.dot_weights[~keep] == 0).all() and (r.additive_weights[~keep] == 0).all()
    np.testing.assert_array_equal(r.dot_weights[1, 0], 0.0)  # no valid key: zeros, not NaN


def test_seed_fixes_the_data():
    a, b, c = scoring_demo(seed=4), scoring_demo(seed=4), scoring_demo(seed=5)
    np.testing.assert_array_equal(a.additive_weights, b.additive_weights)
    assert not np.allclose(a.queries, c.queries)
    np.testing.assert_allclose(a.dot_weights.sum(-1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("lens, match", [([1, 2, 3], "shape"), ([11, 2], "between"), ([-1, 2], "between"),
                                         ([1.5, 2.0], "whole")])
def test_bad_valid_lengths_are_explained(lens, match):
    with pytest.raises(DemoError, match=match):
        scoring_demo(batch_size=2, num_keys=10, valid_lens=lens)


def test_bad_sizes_are_explained():
    with pytest.raises(DemoError, match="number of keys"):
        scoring_demo(num_keys=0)


def test_parse_lengths():
    assert parse_lengths("1, 2 3;4", 4, 5) == [1, 2, 3, 4]
    assert parse_lengths("3", 4, 5) == [3, 3, 3, 3]
    for text, match in (("1 2", "4 numbers"), ("1 x 2 3", "whole"), ("1 2 3 9", "between")):
        with pytest.raises(DemoError, match=match):
            parse_lengths(text, 4, 5)


def test_head_checks():
    assert head_choices(12) == [1, 2, 3, 4, 6, 12]
    check_heads(16, 4)
    with pytest.raises(DemoError, match=r"not divisible.*Try num_heads = 2, 3, 5"):
        check_heads(30, 4)
    with pytest.raises(DemoError, match="between"):
        check_heads(16, 0)


def test_multihead_random_input():
    r = multihead_demo(num_hiddens=12, num_heads=3, num_tokens=5, seed=2)
    assert r.weights.shape == (3, 5, 5) and r.tokens == ["x0", "x1", "x2", "x3", "x4"]
    np.testing.assert_allclose(r.weights.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(r.average, r.weights.mean(0), rtol=1e-6)
    assert not np.allclose(r.weights[0], r.weights[1])  # heads differ
    np.testing.assert_array_equal(multihead_demo(12, 3, num_tokens=5, seed=2).weights, r.weights)


def test_multihead_sentence_equal_words_attend_alike():
    r = multihead_demo(num_hiddens=16, num_heads=4, sentence="The cat saw the dog.")
    assert r.tokens == ["the", "cat", "saw", "the", "dog", "."]
    # without positions both "the" rows are identical and every query weighs both "the" keys equally
    np.testing.assert_allclose(r.weights[:, 0], r.weights[:, 3], atol=1e-6)
    np.testing.assert_allclose(r.weights[:, :, 0], r.weights[:, :, 3], atol=1e-6)
    p = multihead_demo(num_hiddens=16, num_heads=4, sentence="The cat saw the dog.", add_positions=True)
    assert not np.allclose(p.weights[:, 0], p.weights[:, 3], atol=1e-3)


def test_multihead_bad_input_explained():
    with pytest.raises(DemoError, match="not divisible"):
        multihead_demo(num_hiddens=10, num_heads=4)
    with pytest.raises(DemoError, match="at least one word"):
        tokenize_sentence("   ")
    with pytest.raises(DemoError, match="at most"):
        tokenize_sentence("a " * 50)


def test_positional_demo_matches_closed_form():
    r = positional_demo(num_steps=20, encoding_dim=6, delta=3, row=4)
    i = np.arange(20)[:, None]
    w = 1.0 / 10000 ** (np.arange(0, 6, 2) / 6)
    P = np.empty((20, 6))
    P[:, 0::2], P[:, 1::2] = np.sin(i * w), np.cos(i * w)
    np.testing.assert_allclose(r.P, P, atol=1e-6)
    np.testing.assert_allclose(r.similarity, P @ P.T, atol=1e-5)
    np.testing.assert_allclose(r.target, P[7], atol=1e-6)
    np.testing.assert_allclose(r.mapped, P[7], atol=1e-5)
    np.testing.assert_allclose(r.M @ P[4], P[7], atol=1e-5)
    assert r.max_error < 1e-5 and "max" in r.offset_message
    np.testing.assert_array_equal(r.binary[5], [1, 0, 1])  # 5 = 0b101, bit 0 first


def test_positional_demo_explains_impossible_offsets():
    odd = positional_demo(num_steps=10, encoding_dim=5)
    assert odd.M is None and "even" in odd.offset_message and odd.P.shape == (10, 5)
    far = positional_demo(num_steps=10, encoding_dim=4, delta=5, row=6)
    assert far.mapped is None and "0..9" in far.offset_message
    back = positional_demo(num_steps=10, encoding_dim=4, delta=-3, row=6)
    assert back.max_error < 1e-5
    with pytest.raises(DemoError, match="num_steps"):
        positional_demo(num_steps=1)
