"""Attention rollout and flow speed (Abnar & Zuidema 2020) on maps of the book's model (2 layers, 4 heads) and of a
12-layer, 12-head model, at 128 and 512 tokens; flow at 32 tokens. Side by side in the same run: the paper's own
rollout code (numpy, as in its repository) and networkx's max flow (which the paper's code uses; timed on a few
output tokens and scaled to all); for the 2-layer model, whose flow we compute in closed form, also scipy's max flow
(the general path, which it used before) on the same maps; for 3 to 12 layers, max flow with many pairs solved in
one call against one pair a call, as before. Maps are random row-stochastic arrays of the models'
shapes: the time depends on the shapes, not the values. Ends with one JSON line.

    python bench/rollout_speed.py [--repeats 9] [--nx-outputs 2]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

# one BLAS thread: the figures compare code, not how many cores a shared machine lends at that moment
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
import numpy as np  # noqa: E402

SHAPES = {"book": (2, 4), "12-layer": (12, 12)}  # (layers, heads)
#: (layers, tokens) where flow is a max-flow problem: the studio's large model with the book's probe, up to 32 tokens
BATCHED_SHAPES = ((3, 4), (6, 4), (6, 8), (6, 12), (12, 8), (6, 16), (12, 16), (6, 24), (12, 32))


def _maps(layers: int, heads: int, tokens: int, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).random((layers, heads, tokens, tokens), dtype=np.float32)
    return m / m.sum(-1, keepdims=True)


def paper_rollout(maps: np.ndarray) -> np.ndarray:
    """The paper's ``compute_joint_attention`` (residual added, rows renormalised, products layer by layer)."""
    att = maps.mean(axis=1)
    aug = att + np.eye(att.shape[1])[None]
    aug = aug / aug.sum(axis=-1)[..., None]
    joint = np.zeros(aug.shape)
    joint[0] = aug[0]
    for i in range(1, len(joint)):
        joint[i] = aug[i].dot(joint[i - 1])
    return joint[-1]


def _medians_s(fns, repeats: int) -> list[float]:
    """Median seconds of each of ``fns``, called in turn (interleaved, so a busy moment hits them alike)."""
    times: list[list[float]] = [[] for _ in fns]
    for fn in fns:  # warm up
        fn()
    for _ in range(repeats):
        for fn, spent in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - t0)
    return [statistics.median(spent) for spent in times]


def networkx_flow_seconds(maps: np.ndarray, outputs: int) -> float:
    """networkx (preflow-push, as in the paper's code) on ``outputs`` output tokens, scaled to every output."""
    import networkx as nx

    from explorer.core.debug.rollout import residual_layers

    layers = residual_layers(maps)
    count, size = layers.shape[0], layers.shape[-1]
    t0 = time.perf_counter()
    graph = nx.DiGraph()
    for depth, layer in enumerate(layers):
        for q in range(size):
            for k in range(size):
                if layer[q, k] > 0:
                    graph.add_edge((depth, k), (depth + 1, q), capacity=float(layer[q, k]))
    for q in range(outputs):
        for k in range(size):
            nx.maximum_flow_value(graph, (0, k), (count, q))
    return (time.perf_counter() - t0) * size / outputs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--nx-outputs", type=int, default=2, help="output tokens networkx is timed on")
    args = parser.parse_args()
    from explorer.core.debug import rollout as ro

    result: dict[str, object] = {"rollout_ms": {}, "paper_rollout_ms": {}, "flow_s": {}, "networkx_flow_s": {},
                                 "flow_estimate_s": {}}
    for name, (layers, heads) in SHAPES.items():
        for tokens in (128, 512):
            maps = _maps(layers, heads, tokens)
            ours, paper = _medians_s([lambda: ro.rollout(maps), lambda: paper_rollout(maps)], args.repeats)
            np.testing.assert_allclose(ro.rollout(maps), paper_rollout(maps), atol=1e-5)
            key = f"{name}@{tokens}"
            result["rollout_ms"][key] = round(ours * 1e3, 2)  # type: ignore[index]
            result["paper_rollout_ms"][key] = round(paper * 1e3, 2)  # type: ignore[index]
            print(f"rollout {name:8s} ({layers} layers × {heads} heads) at {tokens:3d} tokens: {ours * 1e3:8.2f} ms "
                  f"(the paper's code {paper * 1e3:8.2f} ms)")
        maps = _maps(layers, heads, 32)
        found = ro.flow(maps, limit_s=None)
        nx_s = networkx_flow_seconds(maps, args.nx_outputs)
        key = f"{name}@32"
        result["flow_s"][key] = round(found.seconds, 5)  # type: ignore[index]
        result["networkx_flow_s"][key] = round(nx_s, 2)  # type: ignore[index]
        result["flow_estimate_s"][key] = round(ro.estimate_flow_seconds(layers, 32), 5)  # type: ignore[index]
        how = "closed form" if ro.has_closed_form(layers) else "scipy Dinic"
        print(f"flow    {name:8s} at  32 tokens: {found.seconds:8.4f} s ({how}; networkx as the paper's code "
              f"≈ {nx_s:.1f} s, scaled from {args.nx_outputs} outputs; estimate "
              f"{ro.estimate_flow_seconds(layers, 32):.4f} s)")
        if ro.has_closed_form(layers):  # against the solver it replaced, at the studio's sizes
            result.setdefault("closed_form_flow_ms", {})
            result.setdefault("scipy_flow_ms", {})
            for tokens in (6, 12, 32):
                stacked = ro.residual_layers(_maps(layers, heads, tokens))
                closed, solved = _medians_s([lambda: ro.closed_form_flows(stacked),
                                             lambda: ro.layered_max_flows(stacked)], max(3, args.repeats // 3))
                np.testing.assert_allclose(ro.closed_form_flows(stacked), ro.layered_max_flows(stacked), atol=1e-4)
                result["closed_form_flow_ms"][f"{name}@{tokens}"] = round(closed * 1e3, 3)  # type: ignore[index]
                result["scipy_flow_ms"][f"{name}@{tokens}"] = round(solved * 1e3, 2)  # type: ignore[index]
                print(f"flow    {name:8s} at {tokens:3d} tokens: closed form {closed * 1e3:8.3f} ms, scipy's max flow "
                      f"{solved * 1e3:8.2f} ms ({solved / closed:,.0f}×)")
    # three layers or more: pairs solved together (ro.BATCH_EDGES edges a call) against one pair a call, as before
    result["batched_flow_ms"], result["pair_by_pair_flow_ms"] = {}, {}
    batch_edges = ro.BATCH_EDGES
    for layers, tokens in BATCHED_SHAPES:
        stacked = ro.residual_layers(_maps(layers, 2, tokens))

        def pair_by_pair() -> np.ndarray:
            ro.BATCH_EDGES = 1
            try:
                return ro.layered_max_flows(stacked)
            finally:
                ro.BATCH_EDGES = batch_edges

        repeats = max(3, args.repeats // 3) if layers * tokens**4 < 2_000_000 else 1
        batched, alone = _medians_s([lambda: ro.layered_max_flows(stacked), pair_by_pair], repeats)
        np.testing.assert_allclose(ro.layered_max_flows(stacked), pair_by_pair(), atol=1e-9)
        key = f"{layers}x{tokens}"
        result["batched_flow_ms"][key] = round(batched * 1e3, 3)  # type: ignore[index]
        result["pair_by_pair_flow_ms"][key] = round(alone * 1e3, 2)  # type: ignore[index]
        print(f"flow    {layers:2d} layers at {tokens:2d} tokens: pairs together {batched * 1e3:8.2f} ms, one pair a "
              f"call {alone * 1e3:8.2f} ms ({alone / batched:4.1f}×)")
    for layers, tokens in ((12, 128), (12, 512)):
        print(f"flow estimate {layers} layers at {tokens} tokens: "
              f"{ro.describe_seconds(ro.estimate_flow_seconds(layers, tokens))}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
