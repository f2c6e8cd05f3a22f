"""Cost of writing one attention snapshot into a run's ``snapshots/`` folder, by how many files it already holds.

A run beside the studio writes a snapshot every 10 steps (~18 a second for the book's model on 2 cores), on the
training thread. Each write is atomic (a temp file renamed over the target). Until this change, each write then also
looked for stale temp files of earlier saves to the same name, which lists the whole folder: its cost grew with the
folder (up to ``DEFAULT_MAX_SNAPSHOTS`` files). "swept" times that old write (``sweep=True``), "now" the snapshot
writer as it is; both write the same bytes, in turns, into folders filled with the same number of files.

    python bench/snapshot_write.py [--writes 200] [--sizes 0 256 512 1024]

Prints one line per folder size, then one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from explorer.core.runs.run_dir import encode_snapshot, snapshot_path, write_snapshot
from explorer.core.runs.snapshot_history import DEFAULT_MAX_SNAPSHOTS
from explorer.core.training.checkpoint import _atomic_write
from explorer.core.training.events import SnapshotEvent


def book_snapshot(step: int) -> SnapshotEvent:
    """A snapshot the size of the book model's (2 layers, 4 heads, a 4-token probe)."""
    rng = np.random.default_rng(step)
    maps = {"encoder": rng.random((2, 4, 4, 4), dtype=np.float32), "decoder": rng.random((2, 4, 5, 5), dtype=np.float32),
            "cross": rng.random((2, 4, 5, 4), dtype=np.float32)}
    return SnapshotEvent(step=step, epoch=step // 10, maps=maps, src_tokens=["go", ".", "<eos>", "x"],
                         tgt_tokens=["va", "!", "<eos>", "y", "z"], tgt_input_tokens=["<bos>", "va", "!", "y", "z"])


def fill(folder: Path, count: int) -> None:
    """Put ``count`` snapshot files in ``folder`` (steps far above those the bench writes)."""
    for i in range(count):
        write_snapshot(folder, book_snapshot(10_000_000 + i))


def time_writes(folder: Path, writes: int, first_step: int, swept: bool) -> float:
    """Median seconds of one write of ``writes``; each written file is removed again so the folder keeps its size."""
    seconds = []
    for i in range(writes):
        event = book_snapshot(first_step + i)
        start = time.perf_counter()
        if swept:
            path, _ = write_snapshot_swept(folder, event)
        else:
            path, _ = write_snapshot(folder, event)
        seconds.append(time.perf_counter() - start)
        path.unlink()
    return statistics.median(seconds)


def write_snapshot_swept(folder: Path, event: SnapshotEvent) -> tuple[Path, int]:
    """``write_snapshot`` as it was: the same bytes written the same way, then the folder searched for stale temps."""
    data = encode_snapshot(event)
    path = snapshot_path(folder, event.step)
    _atomic_write(path, data, durable=False, sweep=True)
    return path, len(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 256, DEFAULT_MAX_SNAPSHOTS, 1024])
    args = parser.parse_args()
    if args.writes < 4:
        parser.error("--writes must be at least 4 (four turns of each side)")
    rows = []
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            fill(folder, size)
            now, swept = [], []
            for turn in range(4):  # in turns, so both meet the same machine
                now.append(time_writes(folder, args.writes // 4, 1000 * turn, swept=False))
                swept.append(time_writes(folder, args.writes // 4, 1000 * turn + 500, swept=True))
            row = {"files": size, "now_ms": round(statistics.median(now) * 1e3, 3),
                   "swept_ms": round(statistics.median(swept) * 1e3, 3)}
            rows.append(row)
            print(f"{size:5d} files: a snapshot write now {row['now_ms']:.3f} ms; "
                  f"with the folder swept as before {row['swept_ms']:.3f} ms")
    print(json.dumps({"writes": args.writes, "rows": rows, "load_average": list(os.getloadavg()[:2])}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
