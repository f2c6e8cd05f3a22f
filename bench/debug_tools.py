"""Benchmark: head-ablation sweep over all 24 heads of the book's model (§11.7 settings:
d=32, 2 layers, 4 heads) on 100 pairs of the bundled corpus (target ≤ 5 s), explain-a-cell latency, and
one sampled / beam-tree decode. The model is trained for a few epochs first so that greedy decoding ends
like a real model's (an untrained one always runs to the length limit). One torch thread (tiny tensors gain
nothing from more); the load average is printed because a shared machine's load dominates the spread.
Prints figures, then one JSON line.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from explorer.core.debug.ablation import load_pairs, sweep  # noqa: E402
from explorer.core.debug.beam_tree import beam_tree  # noqa: E402
from explorer.core.training.checkpoint import save_model  # noqa: E402
from explorer.core.data.sources import load_source  # noqa: E402
from explorer.core.debug.explain_cell import explain_cell  # noqa: E402
from explorer.core.inspect.opening import open_model  # noqa: E402
from explorer.core.debug.sampling import DecodeChoice, decode_steps  # noqa: E402
from explorer.core.inspect.opening import step_model  # noqa: E402
from explorer.core.data.text import build_dataset  # noqa: E402
from explorer.core.training.trainer import Trainer  # noqa: E402
from explorer.core.training.config import TrainingConfig

EPOCHS = 20


def main() -> None:
    torch.set_num_threads(1)
    threads = torch.get_num_threads()
    config = TrainingConfig(num_epochs=EPOCHS, device="cpu", snapshot_every=0)  # the book's settings
    ds = build_dataset(load_source("builtin", num_examples=600).pairs, config.num_steps)
    trainer = Trainer(config, ds)
    for _ in trainer:
        pass
    with tempfile.TemporaryDirectory() as tmp:
        path = save_model(Path(tmp) / "book.safetensors", trainer.model.eval(), config, ds.src_vocab, ds.tgt_vocab)
        model = open_model(path)
    pairs = load_pairs("builtin", 100)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        result = sweep(model, pairs)
        times.append(time.perf_counter() - t0)
    explain = []
    for i in range(30):
        t0 = time.perf_counter()
        explain_cell(model, "he's calm .", "il est calme .", "cross", 1, i % 4, 2, 1)
        explain.append(time.perf_counter() - t0)
    sm = step_model(model)
    sample, beam = [], []
    for seed in range(11):  # the first call of each pays one-off warm-up costs: the median leaves it out
        t0 = time.perf_counter()
        decode_steps(sm, "he's calm .", DecodeChoice("sample", temperature=0.8, top_p=0.9, seed=seed))
        sample.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        tree = beam_tree(sm, "he's calm .", 4)
        beam.append(time.perf_counter() - t0)
    sample_s, beam_s = statistics.median(sample), statistics.median(beam)
    figures = {"heads": len(result.rows), "pairs": len(pairs), "sweep_s_median": statistics.median(times),
               "sweep_s_all": times, "baseline_bleu": result.baseline.bleu, "baseline_loss": result.baseline.loss,
               "explain_ms_median": 1000 * statistics.median(explain), "sample_decode_ms": 1000 * sample_s,
               "beam_tree_ms": 1000 * beam_s, "beam_tree_nodes": len(tree.nodes), "torch_threads": threads,
               "load_average_1min": os.getloadavg()[0],
               "train_epochs": EPOCHS}
    print(f"ablation sweep: {len(result.rows)} heads × {len(pairs)} pairs in {figures['sweep_s_median']:.2f} s "
          f"(median of 5; target ≤ 5 s), baseline BLEU {result.baseline.bleu:.3f}, loss {result.baseline.loss:.3f}")
    print(f"explain a cell: {figures['explain_ms_median']:.1f} ms (median of 30; one teacher-forced pass)")
    print(f"sampled decode: {figures['sample_decode_ms']:.1f} ms; beam tree (k=4): {figures['beam_tree_ms']:.1f} ms, "
          f"{len(tree.nodes)} nodes (medians of 11); torch threads {threads}, load {os.getloadavg()[0]:.1f}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
