"""Attention rollout and flow (Abnar & Zuidema 2020) against hand computations on 3-token maps and the paper's
definitions: rows sum to 1, r = 1 is the plain product, a flow never passes a capacity, a one-layer flow is the
min cut (the one edge), and scipy's max flow agrees with networkx's on random layered graphs."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from explorer.core.debug import rollout as ro
from explorer.core.inspect.interface import ModelError

# Layer 1: token 0 keeps to itself, 1 and 2 look half back. Layer 2: every token looks at the next (a cycle).
A1 = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
A2 = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
# With r = 0.5 (by hand): Ã1 = 0.5·A1 + 0.5·I, Ã2 = 0.5·A2 + 0.5·I.
T1 = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.0, 0.25, 0.75]])
T2 = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])


def _two_layers() -> list[np.ndarray]:
    """Two layers of two heads each, whose head means are A1 and A2."""
    swap = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return [np.stack([A1 + 0.5 * (A1 @ swap - A1), A1 - 0.5 * (A1 @ swap - A1)]), np.stack([A2, A2])]


def _random_maps(rng: np.random.Generator, layers: int, heads: int, tokens: int, causal: bool = False) -> np.ndarray:
    maps = rng.random((layers, heads, tokens, tokens))
    if causal:
        maps *= np.tril(np.ones((tokens, tokens)))
    return maps / maps.sum(-1, keepdims=True)


def test_residual_layers_by_hand() -> None:
    layers = ro.residual_layers(_two_layers(), 0.5)
    np.testing.assert_allclose(layers, np.stack([T1, T2]), atol=1e-12)


def test_rollout_by_hand() -> None:
    # R = Ã2 · Ã1, row by row: 0.5·[1,0,0] + 0.5·[.25,.75,0]; 0.5·[.25,.75,0] + 0.5·[0,.25,.75]; 0.5·[1,0,0] + 0.5·[0,.25,.75]
    expected = np.array([[0.625, 0.375, 0.0], [0.125, 0.5, 0.375], [0.5, 0.125, 0.375]])
    np.testing.assert_allclose(ro.rollout(_two_layers()), expected, atol=1e-6)


def test_rollout_with_r_one_is_the_plain_product_and_r_zero_the_identity() -> None:
    maps = _two_layers()
    np.testing.assert_allclose(ro.rollout(maps, residual=1.0), A2 @ A1, atol=1e-6)
    np.testing.assert_allclose(ro.rollout(maps, residual=0.0), np.eye(3), atol=1e-6)
    stacked = _random_maps(np.random.default_rng(1), 3, 2, 5)
    means = stacked.mean(axis=1)
    np.testing.assert_allclose(ro.rollout(stacked, 1.0), means[2] @ means[1] @ means[0], atol=1e-6)


def test_rows_sum_to_one_and_rows_are_renormalised() -> None:
    rng = np.random.default_rng(0)
    for causal in (False, True):
        result = ro.rollout(_random_maps(rng, 4, 3, 7, causal), 0.3)
        np.testing.assert_allclose(result.sum(axis=-1), 1.0, atol=1e-5)
        if causal:  # a causal decoder's outputs never draw on later inputs
            assert np.all(np.triu(result, k=1) == 0)
    half = [np.array([[[0.5, 0.0], [0.25, 0.25]]])]  # rows summing to 0.5: renormalised after the residual
    layer = ro.residual_layers(half, 0.5)[0]
    np.testing.assert_allclose(layer, [[1.0, 0.0], [0.125 / 0.75, 0.625 / 0.75]], atol=1e-12)
    empty = [np.zeros((1, 2, 2))]  # r = 1 and a query that sees nothing: zeros, never NaN
    assert np.all(ro.rollout(empty, 1.0) == 0)


def test_flow_of_one_layer_is_its_min_cut() -> None:
    # One layer: the only path from input k to output q is the edge k -> q, so the min cut is that edge: Ã1[q, k].
    result = ro.flow([A1[None]], 0.5)
    np.testing.assert_allclose(result.values, T1, atol=1e-5)
    np.testing.assert_allclose(result.normalised, T1, atol=1e-5)


def test_flow_of_two_layers_by_hand() -> None:
    # Two layers: the paths k -> m -> q through different middle tokens m share no edge, so the flow from k to q is
    # Σ_m min(Ã1[m, k], Ã2[q, m]). Output 0 from input 0: min(1, .5) + min(.25, .5) + min(0, 0) = 0.75.
    result = ro.flow(_two_layers(), 0.5)
    expected = np.array([[sum(min(T1[m, k], T2[q, m]) for m in range(3)) for k in range(3)] for q in range(3)])
    assert expected[0, 0] == 0.75 and expected[0, 2] == 0.0
    np.testing.assert_allclose(result.values, expected, atol=1e-5)
    np.testing.assert_allclose(result.normalised.sum(axis=-1), 1.0, atol=1e-5)


def test_flow_never_passes_a_capacity_and_agrees_with_networkx() -> None:
    rng = np.random.default_rng(3)
    maps = _random_maps(rng, 3, 2, 4)
    layers = ro.residual_layers(maps, 0.5)
    result = ro.flow(maps, 0.5)
    graph = nx.DiGraph()
    for depth, layer in enumerate(layers):
        for q in range(4):
            for k in range(4):
                graph.add_edge((depth, k), (depth + 1, q), capacity=float(layer[q, k]))
    for q in range(4):
        for k in range(4):
            expected = nx.maximum_flow_value(graph, (0, k), (3, q))
            assert result.values[q, k] == pytest.approx(expected, abs=1e-4)
            # into output q: capacity Σ_m Ã3[q, m] = 1; out of input k: Σ_m Ã1[m, k]
            assert result.values[q, k] <= 1.0 + 1e-5
            assert result.values[q, k] <= layers[0][:, k].sum() + 1e-5


def test_flow_that_would_take_too_long_is_refused_with_the_estimate() -> None:
    with pytest.raises(ro.FlowTooLongError) as caught:
        ro.check_flow_time(12, 512, limit_s=30)
    assert caught.value.seconds > 3600
    assert "512 tokens and 12 layers" in str(caught.value) and "h (the limit is 30 s)" in str(caught.value)
    with pytest.raises(ro.FlowTooLongError, match=r"about \d+(\.\d)? ms \(the limit is 0.1 ms\)"):
        ro.check_flow_time(6, 8, limit_s=1e-4)  # a tiny limit is said in milliseconds, not "0.00 s"
    assert [ro.describe_seconds(s) for s in (0.004, 0.35, 42, 600)] == ["4 ms", "0.35 s", "42 s", "10.0 min"]
    assert ro.check_flow_time(2, 10) < 1
    maps = _random_maps(np.random.default_rng(0), 3, 1, 40)
    with pytest.raises(ro.FlowTooLongError):
        ro.flow(maps, limit_s=0.01)
    assert ro.estimate_flow_seconds(12, 64) > 8 * ro.estimate_flow_seconds(12, 32)
    # one or two layers: the closed form, well within the limit even for a long text
    assert ro.check_flow_time(2, 512) < 1 and ro.check_flow_time(1, 512) < 1
    # no tokens at all: nothing to solve, no call, no error
    assert ro.estimate_flow_seconds(3, 0) == 0.0 and ro.flow(np.ones((3, 1, 0, 0))).values.shape == (0, 0)


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize(("causal", "residual"), [(False, 0.4), (True, 0.4), (True, 1.0)])
def test_closed_form_flow_equals_max_flow(count: int, causal: bool, residual: float) -> None:
    # The closed form for one or two layers against scipy's max flow on the same graph (whole-number capacities:
    # precision ~1e-6 per edge) and networkx's (floats), on random maps with and without masked (zero) edges; with
    # r = 1 a query that sees nothing (a padded one) leaves a row of zeros.
    rng = np.random.default_rng(7 + count)
    maps = _random_maps(rng, count, 3, 6, causal)
    if residual == 1.0:
        maps[:, :, 4] = 0.0
    layers = ro.residual_layers(maps, residual)
    closed = ro.closed_form_flows(layers)
    np.testing.assert_allclose(closed, ro.layered_max_flows(layers), atol=2e-5)
    graph = nx.DiGraph()
    for depth, layer in enumerate(layers):
        for q in range(6):
            for k in range(6):
                graph.add_edge((depth, k), (depth + 1, q), capacity=float(layer[q, k]))
    for q, k in [(0, 0), (5, 0), (3, 4), (5, 5)]:
        assert closed[q, k] == pytest.approx(nx.maximum_flow_value(graph, (0, k), (count, q)), abs=1e-9)
    if residual == 1.0:
        assert np.all(closed[4] == 0)
    with pytest.raises(ValueError, match="one or two layers"):
        ro.closed_form_flows(np.stack([layers[0]] * 3))
    assert [ro.has_closed_form(n) for n in (0, 1, 2, 3)] == [False, True, True, False]


def _networkx_flows(layers: np.ndarray) -> np.ndarray:
    """Every pair's maximum flow by networkx (float capacities), as an independent reference."""
    count, size = layers.shape[0], layers.shape[-1]
    graph = nx.DiGraph()
    for depth, layer in enumerate(layers):
        for q in range(size):
            for k in range(size):
                graph.add_edge((depth, k), (depth + 1, q), capacity=float(layer[q, k]))
    return np.array([[nx.maximum_flow_value(graph, (0, k), (count, q)) for k in range(size)] for q in range(size)])


@pytest.mark.parametrize("batch_edges", [10**9, 5 * 3 * 25, 3 * 25 * 2, 1])
def test_pairs_solved_together_equal_each_pair_alone(monkeypatch: pytest.MonkeyPatch, batch_edges: int) -> None:
    # Three causal layers of 5 tokens (75 edges a copy of the graph, fewer where the mask leaves none), with r = 1 an
    # output with no way in (a query that sees nothing) and an input with no way out (a key no query of the first
    # layer sees). Whether every pair goes in one call, one output row per call, two pairs per call or each pair
    # alone, each flow equals networkx's.
    rng = np.random.default_rng(11)
    maps = _random_maps(rng, 3, 2, 5, causal=True)
    maps[:, :, 3] = 0.0  # query 3 sees nothing: its row of each Ã is zero
    maps[0, :, :, 2] = 0.0  # no query of the first layer sees key 2 (rows renormalised)
    layers = ro.residual_layers(maps, 1.0)
    expected = _networkx_flows(layers)
    monkeypatch.setattr(ro, "BATCH_EDGES", batch_edges)
    found = ro.layered_max_flows(layers)
    np.testing.assert_allclose(found, expected, atol=2e-5)
    assert np.all(found[3] == 0) and np.all(found[:, 2] == 0)  # nothing reaches output 3 or leaves input 2
    assert np.any(found > 0.1)
    rows, pairs = ro._calls(3, 5)
    assert (rows, pairs) == {10**9: (10**9 // 375, 10**9 // 75), 375: (1, 5), 150: (1, 2), 1: (1, 1)}[batch_edges]


@pytest.mark.parametrize(("count", "tokens", "batch_edges"), [(3, 4, 20_000), (6, 6, 20_000), (3, 6, 300),
                                                              (3, 6, 120), (4, 5, 250), (3, 3, 1)])
def test_the_estimate_counts_the_solver_calls_made(monkeypatch: pytest.MonkeyPatch, count: int, tokens: int,
                                                   batch_edges: int) -> None:
    # all pairs in one call, rows grouped, a row split over calls, each pair alone: the estimate's count is real
    import scipy.sparse.csgraph as csgraph

    calls: list[int] = []
    real = csgraph.maximum_flow
    monkeypatch.setattr(csgraph, "maximum_flow", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(ro, "BATCH_EDGES", batch_edges)
    ro.layered_max_flows(ro.residual_layers(_random_maps(np.random.default_rng(3), count, 2, tokens), 0.5))
    assert len(calls) == ro.solver_calls(count, tokens)
    assert ro.estimate_flow_seconds(count, tokens) >= ro.SECONDS_PER_CALL * len(calls)


@pytest.mark.parametrize("count", [2, 3])  # the closed form and scipy's max flow
def test_flow_can_be_stopped_between_outputs(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    monkeypatch.setattr(ro, "BATCH_EDGES", 3 * 9 * 3)  # max flow: one output row (3 pairs of 27 edges) per call
    asked: list[int] = []

    def stop() -> bool:  # let the first output through, then stop
        asked.append(1)
        return len(asked) > 1

    maps = _two_layers() if count == 2 else _random_maps(np.random.default_rng(4), 3, 2, 3)
    result = ro.flow(maps, stop=stop)
    assert np.any(result.values[0] > 0) and np.all(result.values[1:] == 0)


def test_bad_input_is_refused_in_words() -> None:
    with pytest.raises(ModelError, match="between 0 and 1"):
        ro.rollout(_two_layers(), residual=1.5)
    with pytest.raises(ModelError, match="self-attention"):
        ro.rollout([np.ones((1, 2, 3)) / 3])
    with pytest.raises(ModelError, match="not cross"):
        ro.self_attention({"cross": [np.ones((1, 2, 2))]}, "cross")
    with pytest.raises(ModelError, match="no decoder self-attention .it has: encoder"):
        ro.self_attention({"encoder": [np.ones((1, 2, 2))]}, "decoder")


def test_follow_all_gives_each_self_kind_and_refuses_long_flow() -> None:
    # the decoder has three layers: no closed form, and its 30 tokens would take too long
    rng = np.random.default_rng(2)
    maps = {"encoder": list(_random_maps(rng, 2, 2, 5)), "decoder": _random_maps(rng, 3, 2, 30, causal=True),
            "cross": list(rng.random((2, 2, 30, 5)))}
    followed = ro.follow_all(maps, flow_limit_s=0.1)
    assert set(followed.maps["rollout"]) == {"encoder", "decoder"}
    assert set(followed.maps["flow"]) == {"encoder"} and set(followed.refused) == {"decoder"}
    np.testing.assert_allclose(followed.maps["rollout"]["encoder"], ro.rollout(maps["encoder"]), atol=1e-6)
    assert followed.maps["rollout"]["decoder"].shape == (30, 30)
