#!/usr/bin/env python3
"""Resume equality: the book's §11.7 run trained N epochs at once vs K epochs into a run directory
then resumed to N (``train --resume DIR --epochs N``), through the real CLI in fresh processes.

Prints the per-epoch losses side by side and the largest relative difference, for each dropout asked for
(dropout needs no saved RNG state: its stream is reseeded per epoch). The last line is JSON.

Usage: python bench/resume_equality.py [--epochs 8] [--stop-after 4] [--dropouts 0 0.1]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cli(*argv: str) -> dict:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "explorer.cli", *argv, "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"train {' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - t0
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--stop-after", type=int, default=4)
    ap.add_argument("--dropouts", type=float, nargs="+", default=[0.0, 0.1])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    summary = {}
    for dropout in args.dropouts:
        common = ["--device", "cpu", "--threads", str(args.threads), "--dropout", str(dropout)]
        whole = cli("train", *common, "--epochs", str(args.epochs))
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp) / "run"
            cli("train", *common, "--epochs", str(args.stop_after), "--run-dir", str(run))
            resumed = cli("train", "--resume", str(run), "--epochs", str(args.epochs), "--threads", str(args.threads))
            lines = (run / "metrics.jsonl").read_text().splitlines()
        a, b = whole["epoch_losses"], resumed["epoch_losses"]
        rel = [abs(x - y) / abs(x) for x, y in zip(a, b)]
        print(f"dropout {dropout}: {args.stop_after} epochs, then resumed to {args.epochs}")
        print(f"{'epoch':>5} {'uninterrupted':>14} {'resumed':>14} {'rel diff':>9}")
        for e, (x, y, d) in enumerate(zip(a, b, rel), start=1):
            mark = "  <- resumed here" if e == args.stop_after + 1 else ""
            print(f"{e:5d} {x:14.8f} {y:14.8f} {d:9.1e}{mark}")
        print(f"max relative difference {max(rel):.2e}; metrics.jsonl: {len(lines)} lines in one file\n")
        summary[str(dropout)] = {"max_rel_diff": max(rel), "epochs": len(b), "metrics_lines": len(lines)}
    print(json.dumps({"epochs": args.epochs, "stop_after": args.stop_after, "results": summary,
                      "pass": all(v["max_rel_diff"] <= 1e-4 and v["epochs"] == args.epochs for v in summary.values())}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
