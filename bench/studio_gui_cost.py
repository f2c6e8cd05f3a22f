#!/usr/bin/env python3
"""What the studio's GUI process spends while a run trains live: CPU of its GUI thread and of its other threads
(rollout and flow, the event reader), per second, and what each live view's paints cost.

Each measurement is a fresh process: the real studio panel, offscreen and shown at 1400x900, trains (in its training
process, as the app does) for ``--warmup`` seconds, then is measured for ``--seconds``. CPU time comes from
``/proc`` per thread (GUI thread, other threads of the GUI process, the training process), so a noisy machine moves
it much less than it moves the tokens per second, which are reported too. ``--probe`` sets a longer probe pair: its
rollout and flow (computed for every live snapshot the grid shows) cost more than the book's three-word probe.
``--before DIR`` measures another checkout (``git archive`` of an older commit) in turns with this one, so both
meet the same load. Ends with one JSON line.

Usage: python bench/studio_gui_cost.py [--size large|book] [--seconds 15] [--warmup 5] [--rounds 2]
                                       [--probe long|book] [--before DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LONG_PROBE = ("he is a very good teacher and he is always kind to his young students .",
              "c'est un très bon professeur et il est toujours gentil avec ses jeunes élèves .")


def thread_cpu_s() -> dict[int, float]:
    """CPU seconds (user + system) of each thread of this process, by native id."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / ticks
    return out


def children_cpu_s() -> float:
    """CPU seconds of every process descending from this one (the fork server, the training process)."""
    from gui_responsiveness import descendants_cpu_s  # this folder's benchmark: the same /proc reading

    return sum(descendants_cpu_s().values())


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One live run of the studio in this process; the figures of its measured seconds."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")  # no message boxes
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    import pyqtgraph as pg

    from gui_responsiveness import shown_studio

    paints: dict[str, list[float]] = {}
    original = pg.GraphicsView.paintEvent

    def paint_event(view: Any, event: Any) -> Any:
        start = time.thread_time()
        try:
            return original(view, event)
        finally:
            paints.setdefault(type(view).__name__, []).append(time.thread_time() - start)

    pg.GraphicsView.paintEvent = paint_event

    def spin(seconds: float) -> None:
        loop = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()

    panel, runs = shown_studio(app, args.size)  # the same studio as bench/gui_responsiveness.py trains in
    if args.probe == "long":
        panel.data.probe_src.setText(LONG_PROBE[0])
        panel.data.probe_tgt.setText(LONG_PROBE[1])
    assert panel.start_training(), panel.inline_message()
    spin(args.warmup)
    main_id = threading.get_native_id()
    paints.clear()
    step0 = panel.studio_state.latest_step
    threads0, child0, wall0 = thread_cpu_s(), children_cpu_s(), time.perf_counter()
    spin(args.seconds)
    threads1, child1, wall = thread_cpu_s(), children_cpu_s(), time.perf_counter() - wall0
    step1 = panel.studio_state.latest_step
    panel.shutdown(2000)
    runs.cleanup()
    used = {tid: threads1[tid] - threads0.get(tid, 0.0) for tid in threads1}
    gui_thread = used.pop(main_id, 0.0)
    tokens = (step1.tokens_per_s if step1 is not None else float("nan"))
    return {"gui_thread_ms_per_s": round(gui_thread / wall * 1000, 1),
            "other_threads_ms_per_s": round(sum(used.values()) / wall * 1000, 1),
            "training_process_cores": round((child1 - child0) / wall, 2),
            "tokens_per_s": round(float(tokens), 1),
            "steps": (step1.step - step0.step) if step0 is not None and step1 is not None else 0,
            "paints": {name: {"per_s": round(len(times) / wall, 1), "ms_per_s": round(sum(times) / wall * 1000, 1)}
                       for name, times in sorted(paints.items())}}


def run_side(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One measurement of the checkout at ``root``, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--size", args.size, "--seconds",
           str(args.seconds), "--warmup", str(args.warmup), "--probe", args.probe]
    proc = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"measurement of {root} failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=("book", "large"), default="large")
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--probe", choices=("book", "long"), default="book")
    ap.add_argument("--before", type=Path, help="another checkout, measured in turns with this one")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args)), flush=True)
        return 0
    sides = {"after": ROOT} if args.before is None else {"before": args.before.resolve(), "after": ROOT}
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    for round_index in range(args.rounds):
        order = list(sides) if round_index % 2 == 0 else list(reversed(sides))
        for name in order:
            row = run_side(sides[name], args)
            rows[name].append(row)
            views = ", ".join(f"{view} {p['per_s']}/s {p['ms_per_s']} ms/s" for view, p in row["paints"].items())
            print(f"round {round_index} {name:6s}: GUI thread {row['gui_thread_ms_per_s']:5.1f} ms/s, other threads "
                  f"{row['other_threads_ms_per_s']:5.1f} ms/s, training {row['training_process_cores']:.2f} cores, "
                  f"{row['tokens_per_s']:,.0f} tokens/s; paints: {views}", flush=True)
    summary: dict[str, Any] = {}
    for name, measured in rows.items():
        summary[name] = {key: round(statistics.median(r[key] for r in measured), 2)
                         for key in ("gui_thread_ms_per_s", "other_threads_ms_per_s", "training_process_cores",
                                     "tokens_per_s")}
        print(f"median {name}: {summary[name]}")
    result: dict[str, Any] = {"size": args.size, "probe": args.probe, "seconds": args.seconds, **summary}
    if "before" in summary:
        for key in ("gui_thread_ms_per_s", "other_threads_ms_per_s"):
            result[f"{key}_before_over_after"] = round(summary["before"][key] / max(summary["after"][key], 1e-9), 2)
    result["load_average"] = [round(v, 2) for v in os.getloadavg()[:2]]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
