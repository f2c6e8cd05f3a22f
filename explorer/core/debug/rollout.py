"""Attention rollout and attention flow (Abnar & Zuidema, ACL 2020, "Quantifying Attention Flow in Transformers"):
which input tokens each output token depends on across all layers of one kind of self-attention, for any model
the app opens (an ``AttentionResult``, an ``Inspection`` or a training snapshot: maps ``[layer] (heads, q, k)``)."""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from explorer.core.debug.rollout_settings import DEFAULT_RESIDUAL, FLOW_LIMIT_S, METHODS, SELF_KINDS
from explorer.core.inspect.interface import ModelError

if TYPE_CHECKING:
    from scipy.sparse import csr_array

#: scipy's max-flow takes whole-number capacities: weights are scaled by this (precision ≈ 1e-6 per edge).
CAPACITY_SCALE = 1 << 20
#: Seconds per edge of the layered graph per (input, output) pair, measured with scipy's Dinic on random maps
#: (2×32: 0.40 ms a pair, 12×32: 1.1 ms, 12×64: 5.2 ms on one core of a shared machine), for the estimate.
SECONDS_PER_EDGE_PAIR = 1.1e-7
#: The cost of one max-flow call whatever its size (scipy checks and converts the graph each time) ...
SECONDS_PER_CALL = 4e-4
#: ... so pairs are solved together, up to this many edges in one call (:func:`layered_max_flows`).
BATCH_EDGES = 20_000
#: Flow over at most this many layers has a closed form (:func:`closed_form_flows`) ...
CLOSED_FORM_MAX_LAYERS = 2
#: ... about this long per (output, input, middle token) triple and per output token (0.6 ns and 6 µs measured at
#: 128-512 tokens; rounded up).
SECONDS_PER_TRIPLE = 1e-9
SECONDS_PER_OUTPUT = 1e-5


class FlowTooLongError(ModelError):
    """Flow would take longer than allowed; ``seconds`` is the estimate."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


def head_means(maps: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """The mean over heads of each layer, in the maps' dtype (a few heads: float32 is exact enough, and 2-3× faster
    than summing in float64, which a 12 × 12 × 512² model would also need 300 MB for), then float64 for the products:
    ``(L, T, T)``; a map that is not square is refused."""
    means = [np.asarray(m).mean(axis=0).astype(np.float64) for m in maps]  # [L] (q, k)
    if not means or any(m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape != means[0].shape for m in means):
        shapes = sorted({np.shape(m) for m in maps})
        raise ModelError(f"rollout needs self-attention maps (layers, heads, T, T); got maps of shape {shapes}")
    return np.stack(means)


def check_residual(residual: float) -> float:
    """``residual`` r in [0, 1]: the share of the attention (1 − r is the share of the residual connection)."""
    r = float(residual)
    if not 0.0 <= r <= 1.0:
        raise ModelError(f"the residual weight must be between 0 and 1 (0.5 in the paper); got {residual}")
    return r


def residual_layers(maps: Sequence[np.ndarray] | np.ndarray, residual: float = DEFAULT_RESIDUAL) -> np.ndarray:
    """Ã per layer: ``r · mean over heads of A + (1 − r) · I``, rows renormalised to sum to 1 (a row that is
    all zeros, e.g. a padded query with r = 1, stays zero); float64 ``(L, T, T)``."""
    r = check_residual(residual)
    mixed = head_means(maps)  # (L, T, T), a fresh array
    mixed *= r
    diagonal = np.arange(mixed.shape[-1])
    mixed[:, diagonal, diagonal] += 1.0 - r  # + (1 − r)·I
    sums = mixed.sum(axis=-1, keepdims=True)  # (L, T, 1)
    sums[sums == 0] = 1.0  # a row that is all zeros stays zero
    mixed /= sums
    return mixed


def rollout(maps: Sequence[np.ndarray] | np.ndarray, residual: float = DEFAULT_RESIDUAL) -> np.ndarray:
    """Attention rollout R = Ã_L ⋯ Ã_1: row i says how much output token i draws on each input token, through all
    layers; float32 ``(T, T)``, rows sum to 1."""
    layers = residual_layers(maps, residual)  # (L, T, T)
    result = layers[0]
    for layer in layers[1:]:  # the first layer acts first: R = Ã_L · … · Ã_1
        result = layer @ result
    return result.astype(np.float32)


class LayeredGraph:
    """The paper's layered graph of ``layers`` (Ã, ``(L, T, T)``): node ``l·T + t`` is token t after layer l (0 = the
    inputs); an edge from key k of layer l−1 to query q of layer l with capacity Ã_l[q, k], scaled to whole numbers
    (:data:`CAPACITY_SCALE`) for scipy's max flow."""

    def __init__(self, layers: np.ndarray) -> None:
        self.count, self.size = layers.shape[0], layers.shape[-1]
        self.nodes = (self.count + 1) * self.size
        scaled = np.rint(layers * CAPACITY_SCALE).astype(np.int64)  # (L, T, T) [layer, query, key]
        tails, heads, capacities = [], [], []
        for depth, capacity in enumerate(scaled):
            query, key = np.nonzero(capacity)
            tails.append(depth * self.size + key)
            heads.append((depth + 1) * self.size + query)
            capacities.append(capacity[query, key])
        self.tails, self.heads = np.concatenate(tails), np.concatenate(heads)
        self.capacities = np.concatenate(capacities)
        self.out_of_input = scaled[0].sum(axis=0)  # (T,): what can leave each input token
        self.into_output = scaled[-1].sum(axis=1)  # (T,): what can reach each output token
        self._alone: csr_array | None = None  # the graph as scipy takes it, for pairs solved one at a time

    def max_flow(self, output: int, input_: int) -> float:
        """The maximum flow from input token ``input_`` to output token ``output``, solved alone on the graph."""
        from scipy.sparse import csr_array
        from scipy.sparse.csgraph import maximum_flow

        if self._alone is None:
            self._alone = csr_array((self.capacities.astype(np.int32), (self.tails, self.heads)),
                                    shape=(self.nodes, self.nodes))
        found = maximum_flow(self._alone, input_, self.count * self.size + output, method="dinic")
        return found.flow_value / CAPACITY_SCALE

    def max_flows(self, outputs: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """The maximum flow from ``inputs[i]`` to ``outputs[i]`` for each i, float64, in one call of scipy's Dinic
        (see :func:`layered_max_flows`); a pair whose input or output has no capacity is 0 without solving."""
        from scipy.sparse import csr_array
        from scipy.sparse.csgraph import maximum_flow

        values = np.zeros(len(outputs), dtype=np.float64)
        solvable = np.flatnonzero((self.out_of_input[inputs] > 0) & (self.into_output[outputs] > 0))
        if len(solvable) == 1:
            values[solvable[0]] = self.max_flow(int(outputs[solvable[0]]), int(inputs[solvable[0]]))
        elif len(solvable):
            copies = len(solvable)
            offset = np.arange(copies) * self.nodes  # copy c's nodes are offset + its own
            source, sink = copies * self.nodes, copies * self.nodes + 1
            into, out_of = inputs[solvable], outputs[solvable]
            tails = np.concatenate([(offset[:, None] + self.tails).ravel(), np.full(copies, source),
                                    offset + self.count * self.size + out_of])
            heads = np.concatenate([(offset[:, None] + self.heads).ravel(), offset + into, np.full(copies, sink)])
            capacities = np.concatenate([np.tile(self.capacities, copies), self.out_of_input[into],
                                         self.into_output[out_of]])
            union = csr_array((capacities.astype(np.int32), (tails, heads)), shape=(sink + 1, sink + 1))
            flows = maximum_flow(union, source, sink, method="dinic").flow
            first, end = flows.indptr[source], flows.indptr[source + 1]  # the source's edges, one per copy
            per_copy = np.zeros(copies)
            per_copy[flows.indices[first:end] // self.nodes] = flows.data[first:end]
            values[solvable] = per_copy / CAPACITY_SCALE
        return values


def has_closed_form(layers: int) -> bool:
    """True when flow over ``layers`` layers has a closed form (:func:`closed_form_flows`): one or two."""
    return 1 <= layers <= CLOSED_FORM_MAX_LAYERS


def _rows(size: int, row: Callable[[int], np.ndarray], stop: Callable[[], bool] | None) -> np.ndarray:
    """float64 ``(T, T)`` whose row q is ``row(q)``; ``stop()`` is asked before each row (the rest stay zero)."""
    values = np.zeros((size, size), dtype=np.float64)  # (outputs, inputs)
    for output in range(size):
        if stop is not None and stop():
            break
        values[output] = row(output)
    return values


def _calls(layers: int, tokens: int) -> tuple[int, int]:
    """``(output rows per call, pairs per call)`` of :func:`layered_max_flows`: as many as fit in
    :data:`BATCH_EDGES` edges (counted as L·T² a copy: a causal graph's calls are half full), at least one."""
    edges = max(1, layers * tokens * tokens)
    return max(1, BATCH_EDGES // (edges * max(1, tokens))), max(1, BATCH_EDGES // edges)


def solver_calls(layers: int, tokens: int) -> int:
    """How many times :func:`layered_max_flows` calls scipy's max flow for ``layers`` × ``tokens`` (every pair
    solvable; a pair whose input or output has no capacity is skipped)."""
    rows_per_call, pairs_per_call = _calls(layers, tokens)
    if rows_per_call > 1:
        return math.ceil(tokens / rows_per_call)
    return tokens * math.ceil(tokens / pairs_per_call)


def layered_max_flows(layers: np.ndarray, stop: Callable[[], bool] | None = None) -> np.ndarray:
    """The maximum flow from every input token k to every output token q through the layered graph of ``layers``
    (Ã, ``(L, T, T)``): float64 ``(T, T)`` [output, input]. ``stop()`` is asked before each group of whole output
    rows (one or more calls; the rows not done stay zero).

    One max-flow problem per pair, solved many at a time: the copies of the graph, one per pair, are joined by a
    super source that feeds each copy's input token and a super sink fed by each copy's output token. The copies
    share no node, so a maximum flow of the union restricted to one copy is a maximum flow of that copy (were it
    less, an augmenting path inside the copy, extended by its two super edges, would augment the union); the flow on
    a copy's super edge is its pair's. scipy checks and converts a graph at every call, which costs more than the
    flow of a small graph: up to :data:`BATCH_EDGES` edges go in one call (``bench/rollout_speed.py``).
    """
    size = layers.shape[-1]
    graph = LayeredGraph(layers)
    rows_per_call, pairs_per_call = _calls(graph.count, size)
    if pairs_per_call == 1:  # a graph too big to share a call: each pair alone, as scipy takes it
        return _rows(size, lambda output: [graph.max_flow(output, source) for source in range(size)], stop)
    values = np.zeros((size, size), dtype=np.float64)  # (outputs, inputs)
    for first in range(0, size, rows_per_call):
        if stop is not None and stop():
            break
        outputs = np.repeat(np.arange(first, min(size, first + rows_per_call)), size)
        inputs = np.tile(np.arange(size), len(outputs) // size)
        for start in range(0, len(outputs), pairs_per_call):
            chunk = slice(start, start + pairs_per_call)
            values[outputs[chunk], inputs[chunk]] = graph.max_flows(outputs[chunk], inputs[chunk])
    return values


def closed_form_flows(layers: np.ndarray, stop: Callable[[], bool] | None = None) -> np.ndarray:
    """:func:`layered_max_flows` of one or two layers, without solving a max-flow problem: one layer has a single
    path from k to q, the edge Ã1[q, k]; with two, the paths k → m → q through different middle tokens m share no
    edge, so the flow is Σ_m min(Ã1[m, k], Ã2[q, m]). Exact (no whole-number capacities), and ~T³ cheap steps
    instead of T² max-flow problems (18-539× scipy's max flow at 6-32 tokens, ``bench/rollout_speed.py``): the book's
    2-layer model, live in the studio."""
    count, size = layers.shape[0], layers.shape[-1]
    if not has_closed_form(count):
        raise ValueError(f"the closed form holds for one or two layers, not {count}")
    if count == 1:
        return _rows(size, lambda output: layers[0][output], stop)
    into_middle = layers[0].T  # (input k, middle m): Ã1[m, k]
    return _rows(size, lambda output: np.minimum(into_middle, layers[1][output]).sum(axis=1), stop)


def estimate_flow_seconds(layers: int, tokens: int) -> float:
    """About how long :func:`flow` takes: T² max-flow problems over a graph of L·T² edges, in calls of up to
    :data:`BATCH_EDGES` edges, or the closed form's T³ steps for one or two layers."""
    if has_closed_form(layers):
        return SECONDS_PER_TRIPLE * tokens**3 + SECONDS_PER_OUTPUT * tokens
    return SECONDS_PER_EDGE_PAIR * layers * tokens**4 + SECONDS_PER_CALL * solver_calls(layers, tokens)


def describe_seconds(seconds: float) -> str:
    """``4 ms``, ``0.35 s``, ``42 s``, ``3.5 min``, ``2.1 h``: how long, for a message."""
    if seconds < 0.1:
        return f"{seconds * 1000:.2g} ms"
    if seconds < 90:
        return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:.2f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def check_flow_time(layers: int, tokens: int, limit_s: float | None = FLOW_LIMIT_S) -> float:
    """The estimate of :func:`estimate_flow_seconds`; raises :class:`FlowTooLongError` saying how long it would
    take when it passes ``limit_s`` (None: no limit)."""
    seconds = estimate_flow_seconds(layers, tokens)
    if limit_s is not None and seconds > limit_s:
        raise FlowTooLongError(
            f"attention flow over {tokens} tokens and {layers} layers would take about {describe_seconds(seconds)} "
            f"(the limit is {describe_seconds(limit_s)}); use rollout, or a shorter text", seconds)
    return seconds


@dataclass(frozen=True)
class Flow:
    """``values`` float32 ``(T, T)``: the maximum flow from input token k (column) to output token q (row), at most
    the capacity into q (1); ``normalised``: each row divided by its sum, as the paper's code shows them."""

    values: np.ndarray
    normalised: np.ndarray
    seconds: float


def flow(maps: Sequence[np.ndarray] | np.ndarray, residual: float = DEFAULT_RESIDUAL,
         limit_s: float | None = FLOW_LIMIT_S, stop: Callable[[], bool] | None = None) -> Flow:
    """Attention flow: for every output token q (after the last layer) and input token k (before the first), the
    maximum flow from k to q through the layered graph whose capacities are Ã (see :func:`residual_layers`); in
    closed form for one or two layers (:func:`closed_form_flows`), else by max flow (:func:`layered_max_flows`).
    Refused with :class:`FlowTooLongError` when the estimate passes ``limit_s``; ``stop()`` is asked between
    output tokens (max flow: between groups of whole rows, each a few ms) and the rows done so far are returned, the
    rest zero."""
    layers = residual_layers(maps, residual)  # (L, T, T)
    count, size = layers.shape[0], layers.shape[-1]
    check_flow_time(count, size, limit_s)
    started = time.perf_counter()
    values = closed_form_flows(layers, stop) if has_closed_form(count) else layered_max_flows(layers, stop)
    sums = values.sum(axis=-1, keepdims=True)
    normalised = np.divide(values, sums, out=np.zeros_like(values), where=sums > 0)
    return Flow(values.astype(np.float32), normalised.astype(np.float32), time.perf_counter() - started)


def self_attention(maps: Mapping[str, Sequence[np.ndarray] | np.ndarray], kind: str) -> Sequence[np.ndarray]:
    """One kind's ``[layer] (h, T, T)`` maps (as given: no copy) from ``maps{kind: [layer] (h, q, k)}`` (an ``AttentionResult``'s, an
    inspection's full maps or a snapshot's); a kind the model lacks, or cross-attention, is refused."""
    if kind not in SELF_KINDS:
        raise ModelError(f"rollout and flow follow self-attention (encoder or decoder), not {kind}")
    if kind not in maps or len(maps[kind]) == 0:
        have = ", ".join(k for k in SELF_KINDS if k in maps) or "none"
        raise ModelError(f"this model has no {kind} self-attention (it has: {have})")
    layers = maps[kind]
    if np.ndim(layers[0]) != 3 or np.shape(layers[0])[-1] != np.shape(layers[0])[-2]:
        raise ModelError(f"rollout needs self-attention maps (heads, T, T) per layer; got {np.shape(layers[0])}")
    return layers


@dataclass(frozen=True)
class FollowedMaps:
    """What the grid shows beside the raw maps: ``maps[method][kind]`` float32 ``(T, T)`` for ``method`` in
    :data:`METHODS`; ``refused[kind]`` says why flow was not computed (too long), with ``flow_seconds`` its
    estimate."""

    maps: dict[str, dict[str, np.ndarray]]
    refused: dict[str, str]
    flow_seconds: dict[str, float]


def follow_all(maps: Mapping[str, Sequence[np.ndarray] | np.ndarray], residual: float = DEFAULT_RESIDUAL,
               flow_limit_s: float | None = FLOW_LIMIT_S) -> FollowedMaps:
    """Rollout and (when short enough) normalised flow of every self-attention kind in ``maps``."""
    out: dict[str, dict[str, np.ndarray]] = {method: {} for method in METHODS}
    refused: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for kind in SELF_KINDS:
        if kind not in maps or len(maps[kind]) == 0:
            continue
        stacked = self_attention(maps, kind)
        out["rollout"][kind] = rollout(stacked, residual)
        try:
            seconds[kind] = check_flow_time(len(stacked), np.shape(stacked[0])[-1], flow_limit_s)
        except FlowTooLongError as exc:
            refused[kind], seconds[kind] = str(exc), exc.seconds
            continue
        out["flow"][kind] = flow(stacked, residual, limit_s=None).normalised
    return FollowedMaps(out, refused, seconds)


@dataclass(frozen=True)
class Followed:
    """Rollout or flow of one kind of one text: ``matrix`` float32 ``(T, T)`` (rows: output tokens, columns: input
    tokens, rows sum to 1), ``tokens`` the map's tokens, ``values`` flow's raw maximum flows (None for rollout)."""

    method: str
    kind: str
    residual: float
    matrix: np.ndarray
    tokens: list[str]
    values: np.ndarray | None
    seconds: float

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The CLI's ``.npz``: ``rollout`` or ``flow`` (and ``flow_values``), ``source_tokens`` (encoder) or
        ``target_tokens`` (decoder: the tokens the decoder reads), ``kind``, ``method``, ``residual``."""
        arrays = {self.method: self.matrix, "kind": np.array(self.kind), "method": np.array(self.method),
                  "residual": np.array(self.residual, dtype=np.float32)}
        arrays["source_tokens" if self.kind == "encoder" else "target_tokens"] = np.array(self.tokens, dtype=str)
        if self.values is not None:
            arrays["flow_values"] = self.values
        return arrays


def default_kind(maps: Mapping[str, object]) -> str:
    """The encoder's self-attention when the model has one, else the decoder's."""
    return next((kind for kind in SELF_KINDS if kind in maps), "encoder")


def follow(result: object, kind: str | None = None, method: str = "rollout", residual: float = DEFAULT_RESIDUAL,
           limit_s: float | None = FLOW_LIMIT_S) -> Followed:
    """Rollout or flow of ``result`` (an ``AttentionResult``: ``maps``, ``query_tokens``) for ``kind`` (default:
    :func:`default_kind`)."""
    if method not in METHODS:
        raise ModelError(f"the method is one of {', '.join(METHODS)}, not {method}")
    maps = result.maps  # type: ignore[attr-defined]
    kind = kind or default_kind(maps)
    stacked = self_attention(maps, kind)
    tokens = [str(t) for t in result.query_tokens[kind]]  # type: ignore[attr-defined]
    started = time.perf_counter()
    if method == "rollout":
        return Followed(method, kind, residual, rollout(stacked, residual), tokens, None,
                        time.perf_counter() - started)
    found = flow(stacked, residual, limit_s=limit_s)
    return Followed(method, kind, residual, found.normalised, tokens, found.values, found.seconds)
