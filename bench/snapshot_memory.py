"""Memory of the studio's attention-snapshot history after a full run (book §11.7 settings and larger).

Snapshots come from the real trainer's probe forward pass (exact shapes and dtypes); the run's length is
replayed by appending a fresh copy per snapshot step, as the GUI does while training. Prints one line per
case, then one JSON line. Target: the book's 200-epoch run stays <= 200 MB.

    python bench/snapshot_memory.py
"""
from __future__ import annotations

import dataclasses
import json
import math
import time
import tracemalloc

from explorer.core.data.sources import load_source
from explorer.core.runs.snapshot_history import SnapshotHistory
from explorer.core.data.text import build_dataset
from explorer.core.training.trainer import Trainer
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import TransformerConfig

LONG_PROBE = ("i think that you should go home now and sleep well tonight", "je pense que tu devrais rentrer")


def run_case(name: str, model: TransformerConfig, num_steps: int, epochs: int, snapshot_every: int,
             probe: tuple[str, str] | None) -> dict:
    source = load_source("builtin", 600)
    dataset = build_dataset(source.pairs, num_steps, 2)
    config = TrainingConfig(model=model, num_steps=num_steps, num_epochs=epochs, snapshot_every=snapshot_every,
                            device="cpu")
    trainer = Trainer(config, dataset, probe=probe)
    first = trainer.snapshot()
    total_steps = trainer.total_steps
    n_snapshots = 1 + total_steps // snapshot_every + (1 if total_steps % snapshot_every else 0)
    history = SnapshotHistory()
    tracemalloc.start()
    t0 = time.perf_counter()
    for i in range(n_snapshots):
        step = min(i * snapshot_every, total_steps)
        maps = {k: v.copy() for k, v in first.maps.items()}  # a fresh array per snapshot, as the worker sends
        history.append(step, dataclasses.replace(first, step=step, maps=maps))
    append_s = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    one = sum(v.nbytes for v in first.maps.values())
    row = dict(case=name, steps=total_steps, snapshots_taken=n_snapshots, snapshots_kept=len(history),
               bytes_per_snapshot=one, history_mb=history.nbytes / 2**20, traced_peak_mb=peak / 2**20,
               append_us=1e6 * append_s / n_snapshots, first_step=int(history.steps[0]),
               last_step=int(history.steps[-1]))
    print(f"{name:<38} {n_snapshots:>6} taken {len(history):>4} kept  {one / 1024:8.1f} KiB each  "
          f"history {row['history_mb']:7.2f} MB  traced peak {row['traced_peak_mb']:7.2f} MB  "
          f"{row['append_us']:.1f} us/append")
    return row


def main() -> None:
    book = TransformerConfig()
    rows = [
        run_case("book, 200 epochs, every 10 steps", book, 10, 200, 10, None),
        run_case("book, 200 epochs, every step", book, 10, 200, 1, None),
        run_case("book, 200 epochs, every step, 10-token probe", book, 10, 200, 1, LONG_PROBE),
        run_case("6 layers x 8 heads, 50 steps, every step", TransformerConfig(num_hiddens=64, num_layers=6,
                 num_heads=8, ffn_num_hiddens=128), 50, 20, 1, LONG_PROBE),
    ]
    worst_book = max(r["traced_peak_mb"] for r in rows[:3])
    print(json.dumps({"book_200_epochs_mb": round(rows[0]["traced_peak_mb"], 3),
                      "book_every_step_worst_mb": round(worst_book, 3),
                      "large_model_mb": round(rows[3]["traced_peak_mb"], 3),
                      "max_snapshots": SnapshotHistory().max_snapshots,
                      "max_mb": SnapshotHistory().max_bytes / 2**20,
                      "target_mb": 200, "ok": bool(max(r["traced_peak_mb"] for r in rows) <= 200 and
                                                   math.isfinite(worst_book))}))


if __name__ == "__main__":
    main()
