#!/usr/bin/env python3
"""Does a second thread that ran one parallel torch operation slow the training thread down?

Each variant trains the ``--size`` model (``large``: 6 layers x 8 heads x 64 wide, FFN 128, 20 steps; ``book``: §11.7)
with ``--threads`` intra-op threads in a fresh process, and reports its tokens/s after the first epoch:

  bare                 the trainer alone
  writer               the trainer recording a run (RunWriter: metrics, probe translations, a checkpoint at every
                       epoch's end, its file written on a helper thread)
  side thread          the trainer, beside a live thread that once copied a 1M-element tensor (a parallel operation)

The last is what the run writer's helper thread did until it was given bytes instead of tensors: that thread
keeps an OpenMP team of its own, and with more OpenMP threads than cores libgomp stops spinning at barriers, so
every parallel region of the training thread pays a sleep and a wake-up. Variants take turns, ``--rounds`` times,
the order alternating. Prints the median per variant and its ratio to ``bare``; the last line is JSON.

Usage: python bench/omp_side_thread.py [--size large|book] [--threads 2] [--rounds 3] [--seconds 6]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("bare", "writer", "side thread")


def worker(variant: str, size: str, threads: int, seconds: float) -> float:
    """Tokens/s of one variant, measured after the first epoch (this process only)."""
    sys.path.insert(0, str(ROOT))
    import torch

    from explorer.core.data.readers import read_pairs
    from explorer.core.data.text import build_dataset
    from explorer.core.model.transformer import TransformerConfig
    from explorer.core.runs.writer import RunWriter
    from explorer.core.training.config import TrainingConfig
    from explorer.core.training.trainer import Trainer

    torch.set_num_threads(threads)
    model, steps = TransformerConfig(), 10
    if size == "large":
        model, steps = TransformerConfig(num_layers=6, num_heads=8, num_hiddens=64, ffn_num_hiddens=128), 20
    config = TrainingConfig(model=model, num_steps=steps, num_epochs=100_000, snapshot_every=0, device="cpu")
    pairs = read_pairs(ROOT / "resources" / "eng_fra.tsv", num_examples=600).pairs
    trainer = Trainer(config, build_dataset(pairs, steps, 2), probe=pairs[0])
    writer, folder = None, tempfile.TemporaryDirectory()
    if variant == "writer":
        writer = RunWriter.create(Path(folder.name) / "run", trainer, {"spec": "builtin"}, probes=[pairs[0]])
    elif variant == "side thread":
        done, forever = threading.Event(), threading.Event()

        def copy_once() -> None:
            torch.ones(1 << 20).clone()
            done.set()
            forever.wait()

        threading.Thread(target=copy_once, daemon=True).start()
        done.wait()
    tokens, t0 = 0, None
    for event in trainer:
        if writer is not None:
            writer.on_event(event)
        if event.kind == "epoch" and t0 is None:
            t0 = time.perf_counter()
        elif event.kind == "step" and t0 is not None:
            tokens += event.tokens
            if time.perf_counter() - t0 >= seconds:
                break
    rate = tokens / (time.perf_counter() - t0)
    if writer is not None:
        writer.close()
    folder.cleanup()
    return rate


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=("large", "book"), default="large")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.size, args.threads, args.seconds)))
        return 0
    rates: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for r in range(args.rounds):
        for variant in VARIANTS if r % 2 == 0 else VARIANTS[::-1]:
            out = subprocess.run([sys.executable, __file__, "--worker", variant, "--size", args.size,
                                  "--threads", str(args.threads), "--seconds", str(args.seconds)],
                                 capture_output=True, text=True, check=True).stdout
            rates[variant].append(round(float(out.strip().splitlines()[-1]), 1))
            print(f"round {r + 1} {variant:12s} {rates[variant][-1]:9,.0f} tokens/s", flush=True)
    medians = {v: statistics.median(rates[v]) for v in VARIANTS}
    for v in VARIANTS:
        print(f"{v:12s} median {medians[v]:9,.0f} tokens/s  ratio to bare {medians[v] / medians['bare']:.2f}")
    print(json.dumps({"size": args.size, "threads": args.threads, "tokens_per_s": medians, "runs": rates,
                      "ratio_to_bare": {v: round(medians[v] / medians["bare"], 3) for v in VARIANTS},
                      "load_average": [round(x, 2) for x in os.getloadavg()[:2]]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
