"""Run cycles and window closes under load: 200 rapid start/pause/step/resume/stop/reset cycles of the
studio's training process on a tiny model, then closing the main window mid-epoch 20 times. Prints hangs,
threads and RSS before/after and the longest GUI stall (a 16 ms QTimer); ends with one JSON line.

Usage: python bench/robustness_cycles.py [--cycles 200] [--closes 20]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "robustness"))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from robust_helpers import StallMeter, configure_tiny_studio, os_thread_count, rss_mb  # noqa: E402


def spin(ms: int) -> None:
    """Run the Qt event loop for ``ms`` milliseconds."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_until(condition: Callable[[], bool], timeout_ms: int) -> bool:
    """Run the event loop until ``condition()`` holds (True) or ``timeout_ms`` passes (False)."""
    deadline = time.perf_counter() + timeout_ms / 1000
    while not condition():
        if time.perf_counter() > deadline:
            return False
        spin(5)
    return True


def worker_cycles(cycles: int, rng: random.Random) -> dict[str, Any]:
    """Start a tiny run in the studio (its training process) and end it in one of several rough ways."""
    from explorer.ui.panels.studio.studio_panel import StudioPanel

    panel = StudioPanel()
    configure_tiny_studio(panel, epochs=10_000)
    state = panel.studio_state
    hangs = 0
    steps_seen = 0
    orphans = 0
    ways: dict[str, int] = {}
    stop_ms: dict[str, float] = {}
    for _ in range(cycles):
        way = rng.choice(["stop_at_once", "pause_stop", "pause_step_resume_stop", "run_then_stop", "reset"])
        ways[way] = ways.get(way, 0) + 1
        if not panel.start_training():
            hangs += 1
            continue
        process = state.training_process
        if way == "pause_stop":
            state.pause()
            spin(rng.randint(0, 10))
        elif way == "pause_step_resume_stop":
            state.pause()
            state.request_step()
            spin(rng.randint(0, 10))
            state.resume()
        elif way == "run_then_stop":
            wait_until(lambda: panel.loss_plot.step_count() >= 1, 10_000)
        t0 = time.perf_counter()
        if way == "reset":
            state.reset()
            ended = True
        else:
            state.stop()
            ended = wait_until(lambda: panel.state == "finished", 10_000)
        stop_ms[way] = max(stop_ms.get(way, 0.0), (time.perf_counter() - t0) * 1000)
        hangs += not ended
        steps_seen += panel.loss_plot.step_count()
        orphans += bool(wait_until(lambda pr=process: not pr.is_alive(), 5000) is False)
    panel.shutdown(2000)
    panel.deleteLater()
    spin(50)
    return {"cycles": cycles, "hangs": hangs, "steps_seen": steps_seen, "ways": ways,
            "max_stop_ms": {k: round(v, 1) for k, v in sorted(stop_ms.items())}, "orphan_processes": orphans}


def window_closes(closes: int, meter: StallMeter) -> dict[str, Any]:
    """Open the main window on the studio, train, and close it mid-epoch ``closes`` times."""
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.panel_registry import panel_spec
    from explorer.ui.settings import AppSettings

    hangs = 0
    still_training = 0
    close_ms: list[float] = []
    with tempfile.TemporaryDirectory() as settings_dir:
        for _ in range(closes):
            meter.stop()  # building the window is start-up, not a stall under fault
            window = MainWindow(AppSettings(Path(settings_dir)), panels=(panel_spec("studio"),), device_probe=None)
            window.show_panel("studio")
            panel = window.panel("studio")
            configure_tiny_studio(panel, epochs=10_000)
            meter.start()
            panel.start_training()
            wait_until(lambda p=panel: p.loss_plot.step_count() >= 1, 20_000)
            window.confirm_close = lambda reasons: True  # type: ignore[method-assign]
            t0 = time.perf_counter()
            window.close()
            close_ms.append((time.perf_counter() - t0) * 1000)
            ended = not panel.is_training()
            spin(20)  # the first ticks after close() measure how long it held the GUI thread
            meter.stop()  # freeing the closed window is the app's exit, not a stall a user sees
            hangs += not ended
            still_training += bool(panel.is_training())
            window.deleteLater()
            spin(20)
    return {"closes": closes, "hangs": hangs, "still_training": still_training,
            "max_close_ms": round(max(close_ms), 1), "median_close_ms": round(sorted(close_ms)[len(close_ms) // 2], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--closes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    rng = random.Random(args.seed)
    meter = StallMeter()
    worker_cycles(5, rng)  # warm-up: torch's thread pools, Qt's first QThread, imports,
    window_closes(1, meter)  # the corpus, pyqtgraph and the studio's first build (~50 MB, once)
    gc.collect()
    spin(100)
    threads_before, rss_before = os_thread_count(), rss_mb()
    meter.worst_ms, meter.ticks = 0.0, 0
    meter.start()
    t0 = time.perf_counter()
    cycles = worker_cycles(args.cycles, rng)
    stall_cycles = meter.worst_ms
    gc.collect()
    spin(100)
    rss_after_cycles = rss_mb()
    meter.worst_ms = 0.0
    closes = window_closes(args.closes, meter)
    stall_closes = meter.worst_ms
    meter.stop()
    gc.collect()
    spin(200)
    threads_after, rss_after = os_thread_count(), rss_mb()
    figures = {
        **{f"worker_{k}": v for k, v in cycles.items()}, **{f"window_{k}": v for k, v in closes.items()},
        "threads_before": threads_before, "threads_after": threads_after,
        "rss_before_mb": round(rss_before, 1), "rss_after_cycles_mb": round(rss_after_cycles, 1),
        "rss_after_mb": round(rss_after, 1), "rss_drift_mb": round(rss_after - rss_before, 1),
        "max_gui_stall_ms": round(max(stall_cycles, stall_closes), 1), "stall_cycles_ms": round(stall_cycles, 1),
        "stall_closes_ms": round(stall_closes, 1), "stall_ticks": meter.ticks,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    print(f"worker cycles:   {cycles['cycles']} ({', '.join(f'{k} {v}' for k, v in cycles['ways'].items())}); "
          f"hangs {cycles['hangs']}; slowest stop (ms) {cycles['max_stop_ms']}; training processes left "
          f"{cycles['orphan_processes']}")
    print(f"window closes:   {closes['closes']} mid-epoch; hangs {closes['hangs']}; still training "
          f"{closes['still_training']}; close {closes['median_close_ms']} ms median, {closes['max_close_ms']} ms max")
    print(f"threads:         {threads_before} before, {threads_after} after")
    print(f"RSS:             {rss_before:.1f} MB before, {rss_after_cycles:.1f} MB after the cycles, "
          f"{rss_after:.1f} MB after the closes (drift {rss_after - rss_before:+.1f} MB)")
    print(f"longest GUI stall: {max(stall_cycles, stall_closes):.1f} ms over {meter.ticks} ticks of a 16 ms timer "
          f"({stall_cycles:.1f} ms in the worker cycles, {stall_closes:.1f} ms in the window closes)")
    print(json.dumps(figures))
    ok = (cycles["hangs"] == 0 and cycles["orphan_processes"] == 0 and closes["hangs"] == 0
          and closes["still_training"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
