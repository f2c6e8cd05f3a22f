#!/usr/bin/env python3
"""Follow latency: how long after the CLI writes a metrics line or a snapshot a ``RunFollower`` polling
every P ms has it, and what one ``poll()`` costs.

A real ``attention-explorer-cli train --run-dir`` (book settings, a snapshot every 10 steps) runs in a child
process; this process follows the run directory. Latency = the time the follower returned the event minus the
line's ``wall`` time (or the snapshot file's mtime). Prints p50/p95 per poll interval; the last line is JSON.

Usage: python bench/follow_latency.py [--epochs 15] [--poll-ms 20 100]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from explorer.core.runs.run_dir import read_metrics, snapshot_path
from explorer.core.runs.follower import RunFollower


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def follow_once(epochs: int, poll_s: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        cmd = [sys.executable, "-m", "explorer.cli", "train", "--device", "cpu", "--threads", "1",
               "--epochs", str(epochs), "--run-dir", str(run), "--snapshot-every", "10"]
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not (run / "run.json").is_file():
            if child.poll() is not None:
                raise SystemExit("the training run ended before writing run.json")
            time.sleep(0.01)
        follower = RunFollower(run)
        seen: dict[tuple[str, int], float] = {}
        costs: list[float] = []
        finished = False
        while not finished:
            t0 = time.perf_counter()
            events = follower.poll()
            costs.append(time.perf_counter() - t0)
            now = time.time()
            for e in events:
                if e.kind in ("step", "epoch", "snapshot"):
                    seen.setdefault((e.kind, e.step), now)
                finished = finished or e.kind in ("finished", "error")
            if child.poll() is not None and not events and not finished:
                finished = True
            time.sleep(poll_s)
        child.wait()
        walls = {(r["type"], r["step"]): r["wall"] for r in read_metrics(run) if r["type"] in ("step", "epoch")}
        lines = [seen[k] - w for k, w in walls.items() if k in seen]
        snaps = []
        for (kind, step), t in seen.items():
            path = snapshot_path(run / "snapshots", step)
            if kind == "snapshot" and path.exists():
                snaps.append(t - os.stat(path).st_mtime_ns / 1e9)
    return {"poll_ms": poll_s * 1000, "lines": len(lines), "snapshots": len(snaps),
            "line_p50_ms": pct(lines, 50) * 1000, "line_p95_ms": pct(lines, 95) * 1000,
            "line_max_ms": max(lines) * 1000 if lines else float("nan"),
            "snapshot_p50_ms": pct(snaps, 50) * 1000, "snapshot_p95_ms": pct(snaps, 95) * 1000,
            "poll_cost_p50_ms": pct(costs, 50) * 1000, "poll_cost_p95_ms": pct(costs, 95) * 1000,
            "poll_cost_max_ms": max(costs) * 1000}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--poll-ms", type=float, nargs="+", default=[20.0, 100.0])
    args = ap.parse_args(argv)
    out = []
    for poll_ms in args.poll_ms:
        r = follow_once(args.epochs, poll_ms / 1000)
        out.append({k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()})
        print(f"poll every {poll_ms:5.0f} ms: {r['lines']} metrics lines p50 {r['line_p50_ms']:6.1f} ms, "
              f"p95 {r['line_p95_ms']:6.1f} ms (max {r['line_max_ms']:.1f}); {r['snapshots']} snapshots p50 "
              f"{r['snapshot_p50_ms']:6.1f} ms, p95 {r['snapshot_p95_ms']:6.1f} ms; one poll() p50 "
              f"{r['poll_cost_p50_ms']:.2f} ms, p95 {r['poll_cost_p95_ms']:.2f} ms", flush=True)
    print(json.dumps({"epochs": args.epochs, "results": out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
