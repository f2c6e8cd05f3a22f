"""The three sequence layers of d2l §11.6.2 as graphs over n tokens: who feeds whom. Breadth-first search gives
the path from the first token to the last position's output; the longest chain inside one layer gives its
sequential operations. These check (and draw) the closed forms of ``architecture_costs``.

A node is ``(level, position)``: level 0 holds the inputs x₁…xₙ, level ℓ ≥ 1 the outputs of layer ℓ (for the
RNN, level 1 holds the hidden states h₁…hₙ).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

Node = tuple[int, int]


@dataclass(frozen=True)
class LayerGraph:
    """A directed graph of one architecture over ``n`` tokens: ``edges[node]`` are the nodes it feeds."""

    name: str
    n: int
    levels: int  # levels above the inputs
    edges: dict[Node, list[Node]]

    def nodes(self) -> list[Node]:
        return [(level, i) for level in range(self.levels + 1) for i in range(self.n)]

    def edge_list(self) -> list[tuple[Node, Node]]:
        return [(a, b) for a, targets in self.edges.items() for b in targets]


def cnn_graph(n: int, k: int, layers: int) -> LayerGraph:
    """``layers`` stacked convolutions of odd kernel size ``k``, padded to keep n positions: output i of a
    layer reads positions i − (k−1)/2 … i + (k−1)/2 of the level below."""
    if k < 3 or k % 2 == 0:
        raise ValueError(f"kernel size must be odd and at least 3, got {k}")
    half = (k - 1) // 2
    edges: dict[Node, list[Node]] = {}
    for level in range(layers):
        for i in range(n):
            edges[(level, i)] = [(level + 1, j) for j in range(max(0, i - half), min(n, i + half + 1))]
    return LayerGraph("CNN", n, layers, edges)


def rnn_graph(n: int) -> LayerGraph:
    """x_t → h_t and h_{t-1} → h_t."""
    edges: dict[Node, list[Node]] = {(0, i): [(1, i)] for i in range(n)}
    for i in range(n - 1):
        edges[(1, i)] = [(1, i + 1)]
    return LayerGraph("RNN", n, 1, edges)


def attention_graph(n: int) -> LayerGraph:
    """Every input feeds every output (each query attends to all n keys)."""
    edges: dict[Node, list[Node]] = {(0, i): [(1, j) for j in range(n)] for i in range(n)}
    return LayerGraph("self-attention", n, 1, edges)


def shortest_path(graph: LayerGraph, source: Node, target_position: int) -> list[Node]:
    """Breadth-first search from ``source`` to the first node above the inputs at ``target_position``.

    Returns the nodes of one shortest path (source first); [] when no such node can be reached.
    """
    parent: dict[Node, Node | None] = {source: None}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        if node[0] >= 1 and node[1] == target_position:
            path = [node]
            while parent[path[-1]] is not None:
                path.append(parent[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for nxt in graph.edges.get(node, ()):
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return []


def hops(path: list[Node]) -> int:
    """Edges along a path (−1 for no path)."""
    return len(path) - 1


def longest_chain(graph: LayerGraph) -> int:
    """Computed nodes (level ≥ 1) on the longest dependency chain: the operations one layer must run one
    after another (nodes of one level that do not depend on each other can run at the same time)."""
    depth: dict[Node, int] = {}
    order = sorted(graph.nodes())  # levels first, then positions: every edge points forward in this order
    for node in order:
        depth.setdefault(node, 0)
        for nxt in graph.edges.get(node, ()):
            step = 1 if nxt[0] >= 1 else 0
            depth[nxt] = max(depth.get(nxt, 0), depth[node] + step)
    return max(depth.values(), default=0)


def first_to_last(name: str, n: int, k: int = 3) -> tuple[LayerGraph, list[Node]]:
    """The graph of architecture ``name`` with as many layers as the first token needs to reach the last
    position (a CNN grows layer by layer), and that shortest path."""
    if name == "RNN":
        graph = rnn_graph(n)
    elif name == "self-attention":
        graph = attention_graph(n)
    elif name == "CNN":
        graph = cnn_graph(n, k, max(1, n - 1))  # n − 1 layers always suffice: each reaches ≥ 1 further
        path = shortest_path(graph, (0, 0), n - 1)
        graph = cnn_graph(n, k, hops(path))  # only the layers the path needs
        return graph, path
    else:
        raise ValueError(f"unknown architecture {name!r}")
    return graph, shortest_path(graph, (0, 0), n - 1)
