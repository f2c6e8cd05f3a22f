#!/usr/bin/env python3
"""Where one training step's time goes: ``torch.profiler`` over a few steps of the trainer.

Trains the book's model on the bundled corpus (or ``--big``: the 18k recombined corpus), skips the warm-up
steps, profiles ``--steps`` steps and prints the median step time, the operator calls per step and the
operators with the most self time per step, grouped as the profiler sees them. ``--root DIR`` profiles the
trainer of another checkout (e.g. ``git archive`` of an older commit) for a before/after. The last line is
JSON. A shared machine makes single figures noisy: read the shares, not the microseconds.

Usage: python bench/step_profile.py [--big] [--steps 30] [--threads 2] [--top 15] [--root DIR]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--root", type=Path, default=ROOT)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.root))
    import torch
    from torch.profiler import ProfilerActivity, profile

    from explorer.core.data.readers import preprocess_nmt, read_pairs
    from explorer.core.data.text import build_dataset
    from explorer.core.training.trainer import Trainer
    from explorer.core.training.config import TrainingConfig

    torch.set_num_threads(args.threads)
    if args.big:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import big_corpus

        pairs = [(preprocess_nmt(e), preprocess_nmt(f)) for e, f in big_corpus.build_for_vocab(18001, 3500)]
    else:
        pairs = read_pairs(ROOT / "resources" / "eng_fra.tsv", num_examples=601).pairs
    dataset = build_dataset(pairs, 10, min_freq=2)
    config = TrainingConfig(num_epochs=10_000, snapshot_every=0, device="cpu")
    events = iter(Trainer(config, dataset))
    seconds, done, last = [], 0, time.perf_counter()
    prof = profile(activities=[ProfilerActivity.CPU])
    for event in events:
        if event.kind != "step":
            continue
        now = time.perf_counter()
        seconds.append(now - last)
        last = now
        done += 1
        if done == args.warmup:
            prof.__enter__()
        elif done == args.warmup + args.steps:
            prof.__exit__(None, None, None)
            break
    averages = prof.key_averages()
    ops = [e for e in averages if e.key.startswith("aten::")]
    total = sum(e.self_cpu_time_total for e in averages)
    top = sorted(averages, key=lambda e: e.self_cpu_time_total, reverse=True)[:args.top]
    step_ms = statistics.median(seconds[5:args.warmup]) * 1e3
    print(f"{len(dataset)} pairs, vocab {len(dataset.src_vocab)}/{len(dataset.tgt_vocab)}, {args.threads} thread(s), "
          f"trainer of {args.root}")
    print(f"median step {step_ms:.2f} ms (unprofiled); {sum(e.count for e in ops) / args.steps:.0f} aten calls per "
          f"step; profiled self time {total / args.steps / 1e3:.2f} ms per step")
    print(f"{'operator':45s} {'ms/step':>8s} {'share':>6s} {'calls/step':>10s}")
    rows = []
    for e in top:
        rows.append({"op": e.key, "ms_per_step": round(e.self_cpu_time_total / args.steps / 1e3, 3),
                     "share": round(e.self_cpu_time_total / total, 3), "calls_per_step": e.count / args.steps})
        print(f"{e.key[:45]:45s} {rows[-1]['ms_per_step']:8.3f} {rows[-1]['share']:6.1%} {e.count / args.steps:10.1f}")
    print(json.dumps({"pairs": len(dataset), "tgt_vocab": len(dataset.tgt_vocab), "threads": args.threads,
                      "step_ms": round(step_ms, 3),
                      "aten_calls_per_step": round(sum(e.count for e in ops) / args.steps),
                      "top": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
