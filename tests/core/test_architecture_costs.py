"""CNN vs RNN vs self-attention (book §11.6.2): the formulas equal multiply–adds counted on real torch layers
(``FlopCounterMode``), path lengths equal breadth-first search on the layer graphs, sequential operations equal
the longest chain inside one layer, and the crossover is the first n where self-attention costs the most."""
from __future__ import annotations

import itertools

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from explorer.core.chapter.architecture_costs import (ARCHITECTURES, CostError, compare, computational_cost, crossover,
                                              max_path_length, sequential_operations)
from explorer.core.model.attention import DotProductAttention, MultiHeadAttention
from explorer.core.chapter.layer_graphs import (attention_graph, cnn_graph, first_to_last, hops, longest_chain, rnn_graph,
                                        shortest_path)

SIZES = [(2, 1, 3), (5, 3, 3), (7, 4, 5), (12, 6, 7), (9, 8, 3)]


def macs(fn) -> int:
    """Multiply–adds of ``fn()`` as torch counts them (FlopCounterMode counts 2 flops per multiply–add)."""
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        fn()
    flops = counter.get_total_flops()
    assert flops % 2 == 0
    return flops // 2


@pytest.mark.parametrize(("n", "d", "k"), SIZES)
def test_costs_equal_counted_multiply_adds_of_real_layers(n: int, d: int, k: int) -> None:
    x = torch.randn(1, n, d)  # (B, n, d)
    conv = nn.Conv1d(d, d, k, padding="same", bias=False)
    cell = nn.RNNCell(d, d)
    rnn = nn.RNN(d, d, batch_first=True)

    def run_cell() -> None:
        h = torch.zeros(1, d)
        for t in range(n):  # one step at a time: n sequential steps
            h = cell(x[:, t], h)

    projections = [nn.Linear(d, d, bias=False) for _ in range(4)]

    def attention_with_projections() -> None:
        W_q, W_k, W_v, W_o = projections
        out, _ = DotProductAttention()(W_q(x), W_k(x), W_v(x))
        W_o(out)

    book = computational_cost(n, d, k)
    assert macs(lambda: conv(x.transpose(1, 2))) == book["CNN"] == k * n * d * d  # (B, d, n) channels first
    assert macs(run_cell) == macs(lambda: rnn(x)) == book["RNN"] == 2 * n * d * d
    assert macs(lambda: DotProductAttention()(x, x, x)) == book["self-attention"] == 2 * n * n * d
    full = computational_cost(n, d, k, projections=True)["self-attention"]
    assert macs(attention_with_projections) == full == 4 * n * d * d + 2 * n * n * d
    one_head = MultiHeadAttention(d, 1, bias=False).eval()
    assert macs(lambda: one_head(x, x, x)) == full  # the book's multi-head layer with one head


@pytest.mark.parametrize(("n", "k"), [(n, k) for n in range(2, 26) for k in (3, 5, 7, 9)])
def test_path_lengths_equal_breadth_first_search(n: int, k: int) -> None:
    closed = max_path_length(n, k)
    for name in ARCHITECTURES:
        graph, path = first_to_last(name, n, k)
        assert path[0] == (0, 0) and path[-1][1] == n - 1 and path[-1][0] >= 1
        assert all(b in graph.edges[a] for a, b in zip(path, path[1:]))  # a real path of the graph
        assert hops(path) == closed[name], (name, n, k)
    graph = cnn_graph(n, k, closed["CNN"] - 1)
    assert shortest_path(graph, (0, 0), n - 1) == [] or closed["CNN"] == 1  # one layer fewer is not enough


@pytest.mark.parametrize("n", [2, 3, 8, 17])
def test_sequential_operations_are_the_longest_chain_of_one_layer(n: int) -> None:
    book = sequential_operations(n)
    assert longest_chain(cnn_graph(n, 3, 1)) == book["CNN"] == 1
    assert longest_chain(rnn_graph(n)) == book["RNN"] == n
    assert longest_chain(attention_graph(n)) == book["self-attention"] == 1


@pytest.mark.parametrize(("d", "k", "projections"), list(itertools.product((1, 4, 32, 100), (3, 5, 9), (False, True))))
def test_crossover_is_where_self_attention_becomes_the_most_expensive(d: int, k: int, projections: bool) -> None:
    n_star = crossover(d, k, projections)

    def dearest(n: int) -> bool:
        c = computational_cost(n, d, k, projections)
        return c["self-attention"] > max(c["CNN"], c["RNN"])

    assert dearest(n_star) and all(dearest(n) for n in range(n_star, n_star + 50))
    assert n_star == 1 or not any(dearest(n) for n in range(1, n_star))
    if not projections:
        assert n_star == max(k * d // 2, d) + 1  # the book: faster than an RNN while n < d


def test_compare_table_and_curves() -> None:
    r = compare(100, 64, 3)
    assert r.cost == {"CNN": 3 * 100 * 64**2, "RNN": 2 * 100 * 64**2, "self-attention": 2 * 100**2 * 64}
    assert r.sequential == {"CNN": 1, "RNN": 100, "self-attention": 1}
    assert r.path == {"CNN": 99, "RNN": 100, "self-attention": 1}
    assert r.crossover == 97 and r.most_expensive == "self-attention"
    assert r.n_axis[0] == 1 and r.n_axis[-1] >= 4 * r.crossover
    assert set(r.curves) == set(ARCHITECTURES) and r.curves["RNN"].shape == r.n_axis.shape
    assert compare(10, 64, 3).most_expensive == "CNN"
    for bad in ((1, 4, 3), (10, 0, 3), (10, 4, 4), (10, 4, 1)):
        with pytest.raises(CostError):
            compare(*bad)
