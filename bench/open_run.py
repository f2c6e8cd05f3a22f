"""Opening a long run in the studio: a run directory of 200 epochs (written by the CLI here, book
settings on the bundled corpus) opened with Model → Open run: time until the whole history is drawn, and the
longest stall of the GUI thread meanwhile (a 16 ms precise QTimer). Ends with one JSON line.

    python bench/open_run.py [--epochs 200] [--run DIR]   (DIR: reuse an existing run)
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

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")


def write_run(run_dir: Path, epochs: int) -> float:
    """Train with the CLI into ``run_dir``; returns the seconds it took."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "explorer.cli", "train", "--epochs", str(epochs), "--device", "cpu",
                    "--snapshot-every", "20", "--run-dir", str(run_dir)], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--run", type=Path, help="an existing run directory to open instead of training one")
    args = parser.parse_args()
    run_dir = args.run
    if run_dir is None:
        run_dir = Path(tempfile.mkdtemp(prefix="open-run-")) / "book"
        print(f"training {args.epochs} epochs into {run_dir} … {write_run(run_dir, args.epochs):.0f} s")

    from PySide6.QtCore import QElapsedTimer, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from explorer.core.runs.run_dir import read_metrics

    app = QApplication.instance() or QApplication(sys.argv)
    from explorer.ui.panels.studio.studio_panel import StudioPanel

    steps = sum(1 for r in read_metrics(run_dir) if r["type"] == "step")
    panel = StudioPanel()
    panel.resize(1280, 820)
    panel.show()
    for _ in range(50):
        app.processEvents()
    late: list[float] = []
    clock = QElapsedTimer()
    last = [0]

    def on_tick() -> None:
        now = clock.nsecsElapsed()
        late.append(max(0.0, (now - last[0]) / 1e6 - 16))
        last[0] = now

    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setInterval(16)
    ticker.timeout.connect(on_tick)
    clock.start()
    last[0] = clock.nsecsElapsed()
    ticker.start()
    t0 = time.perf_counter()
    assert panel.open_run(str(run_dir)), panel.inline_message()
    call_ms = (time.perf_counter() - t0) * 1000
    first_draw = all_drawn = None
    while time.perf_counter() - t0 < 60:
        app.processEvents()
        x, _ = panel.loss_plot.step_curve.getData()
        n = 0 if x is None else len(x)
        if n and first_draw is None:
            first_draw = time.perf_counter() - t0
        if n == steps and panel.record is not None:
            all_drawn = time.perf_counter() - t0
            break
        time.sleep(0.001)
    for _ in range(30):  # the last redraws land
        app.processEvents()
        time.sleep(0.005)
    ticker.stop()
    panel.shutdown(2000)
    worst = max(late[1:] or [0.0])
    print(f"{steps} steps, {len(panel.history)} snapshots: open call {call_ms:.1f} ms, first draw "
          f"{(first_draw or float('nan')) * 1000:.0f} ms, whole history and model {(all_drawn or float('nan')) * 1000:.0f} ms; "
          f"longest GUI stall {worst:.1f} ms over {len(late)} ticks")
    print(json.dumps({"steps": steps, "snapshots": len(panel.history), "open_call_ms": round(call_ms, 1),
                      "first_draw_ms": round((first_draw or float("nan")) * 1000, 1),
                      "history_and_model_ms": round((all_drawn or float("nan")) * 1000, 1),
                      "max_stall_ms": round(worst, 1), "ticks": len(late)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
