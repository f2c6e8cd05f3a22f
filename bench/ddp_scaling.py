#!/usr/bin/env python3
"""1 rank vs N ranks (``torchrun``, gloo on the CPU or nccl on GPUs) on the book's §11.7 run: tokens/s and the
per-epoch losses side by side, the same global batch everywhere.

Each configuration runs the real CLI in fresh processes (``attention-explorer-cli train --json``), alternating
over rounds because the machine is shared. Tokens/s counts the target tokens of every rank. Beside the losses of
N ranks, those of one process with N threads show the noise floor: float sums in another order drift the same
way over many epochs (training amplifies last-bit differences). The last line is JSON.

Usage: python bench/ddp_scaling.py [--epochs 20] [--rounds 2] [--ranks 2] [--device cpu] [--dropout 0]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys


def run_cli(ranks: int, threads: int, args: argparse.Namespace) -> dict:
    """One training run; ``ranks`` > 1 goes through torchrun."""
    train = ["train", "--epochs", str(args.epochs), "--device", args.device, "--dropout", str(args.dropout),
             "--threads", str(threads), "--seed", str(args.seed), "--json"]
    if ranks == 1:
        cmd = [sys.executable, "-m", "explorer.cli", *train]
    else:
        torchrun = shutil.which("torchrun") or "torchrun"
        cmd = [torchrun, "--standalone", f"--nproc_per_node={ranks}", "-m", "explorer.cli", *train]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    # (label, ranks, torch threads per rank): on N cores, 1 rank may use them all or just one
    configs = [("1 rank x 1 thread", 1, 1), (f"1 rank x {args.ranks} threads", 1, args.ranks),
               (f"{args.ranks} ranks x 1 thread", args.ranks, 1)]
    results: dict[str, list[dict]] = {label: [] for label, _, _ in configs}
    print(f"book settings, {args.epochs} epochs, global batch 64, dropout {args.dropout}, device {args.device}, "
          f"{args.rounds} round(s)", flush=True)
    for r in range(args.rounds):
        for label, ranks, threads in (configs if r % 2 == 0 else configs[::-1]):
            res = run_cli(ranks, threads, args)
            results[label].append(res)
            print(f"round {r} {label:22s}: {res['tokens_per_s']:9,.0f} tokens/s, final loss {res['loss']:.4f}",
                  flush=True)
    base = results[configs[0][0]][0]["epoch_losses"]
    threads = results[configs[1][0]][0]["epoch_losses"]
    multi = results[configs[2][0]][0]["epoch_losses"]
    # the float-level noise floor: the same single process with another thread count (other summation orders)
    print(f"\n{'epoch':>5} {'1 rank':>10} {f'{args.ranks} ranks':>10} {'rel diff':>9}   "
          f"{f'1 rank x {args.ranks} thr':>14} {'rel diff':>9}")
    for e, (a, b, c) in enumerate(zip(base, multi, threads), start=1):
        print(f"{e:5d} {a:10.5f} {b:10.5f} {abs(a - b) / abs(a):9.2e}   {c:14.5f} {abs(a - c) / abs(a):9.2e}")
    rel = [abs(a - b) / abs(a) for a, b in zip(base, multi)]
    rel_threads = [abs(a - c) / abs(a) for a, c in zip(base, threads)]
    max_rel = max(rel)
    within = next((e for e, r in enumerate(rel) if r > 0.01), len(rel))
    medians = {label: statistics.median(x["tokens_per_s"] for x in runs) for label, runs in results.items()}
    for label, value in medians.items():
        print(f"median {label:22s}: {value:9,.0f} tokens/s")
    print(json.dumps({"epochs": args.epochs, "ranks": args.ranks, "device": args.device, "dropout": args.dropout,
                      "tokens_per_s": {k: round(v) for k, v in medians.items()},
                      "speedup_vs_1_thread": round(medians[configs[2][0]] / medians[configs[0][0]], 3),
                      "speedup_vs_all_threads": round(medians[configs[2][0]] / medians[configs[1][0]], 3),
                      "epoch_losses_1_rank": [round(x, 6) for x in base],
                      f"epoch_losses_{args.ranks}_ranks": [round(x, 6) for x in multi],
                      "max_rel_diff": max_rel, "epochs_within_1pct": within,
                      "max_rel_diff_threads_1_vs_n": max(rel_threads)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
