"""Does the studio stay responsive while it trains (book §11.7 settings, live attention snapshots)?

The real studio panel, offscreen and shown, trains for ~20 s (in its training process) while a 16 ms precise
QTimer records how late each tick fires (event-loop stalls). Training speed in the GUI is compared with the
engine alone (the core Trainer iterated in a plain loop on the main thread, as the CLI does) on the same data
and settings, measured before and after the GUI run (the machine is shared, so the two are averaged). The
Start call's own duration and the worst stall of the first two seconds are reported. Ends with one JSON line.

    python bench/gui_responsiveness.py [--size book|large] [--seconds 20] [--engine-seconds 6]

``large`` is 6 layers x 8 heads x 64 wide (FFN 128) with 20 time steps.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")  # no message boxes

import numpy as np  # noqa: E402

TICK_MS = 16


def descendants_cpu_s() -> dict[int, float]:
    """CPU seconds (user + system) of each process descending from this one (the fork server, the training
    process), read from /proc; empty where there is no /proc."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks
    mine, grew = {os.getpid()}, True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in mine} - mine
        grew = bool(found)
        mine |= found
    return {pid: cpu[pid] for pid in mine if pid != os.getpid()}


def engine_tokens_per_s(panel, seconds: float) -> float:
    """Iterate the core Trainer (no Qt) on the panel's data and settings for ``seconds``; tokens/s."""
    from explorer.core.data.text import build_dataset
    from explorer.core.training.trainer import Trainer

    config = panel.form.config().validate()
    dataset = build_dataset(panel.source.pairs, config.num_steps, config.min_freq)
    trainer = Trainer(config, dataset, probe=panel.data.probe())
    t0 = time.perf_counter()
    rate = float("nan")
    for event in trainer:
        if event.kind == "step":
            rate = event.tokens_per_s
            if time.perf_counter() - t0 > seconds:
                trainer.stop()
    return rate


def engine_rates(panel, seconds: float) -> dict[str, float]:
    """Engine tokens/s with torch's default threads and with the studio's training-process threads."""
    import torch

    from explorer.ui.process_settings import training_threads

    default = torch.get_num_threads()
    rates = {f"{default} threads": engine_tokens_per_s(panel, seconds)}
    child = training_threads() or default
    if child != default:
        torch.set_num_threads(child)
        try:
            rates[f"{child} threads"] = engine_tokens_per_s(panel, seconds)
        finally:
            torch.set_num_threads(default)
    return {k: round(v, 1) for k, v in rates.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="GUI training time")
    parser.add_argument("--engine-seconds", type=float, default=6.0,
                        help="engine-only time per measurement (before and after the GUI run)")
    parser.add_argument("--size", choices=("book", "large"), default="book", help="model size")
    args = parser.parse_args()

    from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    from explorer.ui.panels.studio.studio_panel import StudioPanel
    from explorer.ui.process_settings import freeze_long_lived_objects
    from explorer.ui.theme import configure_pyqtgraph

    configure_pyqtgraph(dark=False)  # as the main window does before it builds a panel (its pyqtgraph patches too)
    panel = StudioPanel()
    panel.resize(1400, 900)
    panel.show()
    panel.form.apply_preset("book (§11.7)")
    if args.size == "large":
        panel.form.set_values({"num_layers": 6, "num_heads": 8, "num_hiddens": 64, "ffn_num_hiddens": 128,
                               "num_steps": 20})
    while panel.is_loading():
        app.processEvents()
    # as the main window does once it has built a panel: what lives now is out of the collector's walks, so a full
    # collection while training does not stall the GUI for the whole heap (~0.5 s measured without)
    freeze_long_lived_objects(collect_young=True)
    print(f"settings: {panel.form.config()}")
    print(f"data: {panel.data.info.text()}")

    engine_before = engine_rates(panel, args.engine_seconds)
    print(f"engine alone (before): {engine_before}")

    lateness: list[float] = []
    clock = QElapsedTimer()
    last = [0]

    def on_tick() -> None:
        now = clock.nsecsElapsed()
        lateness.append(max(0.0, (now - last[0]) / 1e6 - TICK_MS))
        last[0] = now

    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(on_tick)
    loop = QEventLoop()
    clock.start()
    last[0] = clock.nsecsElapsed()
    ticker.start()
    t_start = time.perf_counter()
    gui_cpu0, children_cpu0 = time.process_time(), descendants_cpu_s()
    assert panel.start_training(), panel.inline_message()
    start_call_ms = (time.perf_counter() - t_start) * 1000
    first_ticks: list[int] = []
    QTimer.singleShot(2000, lambda: first_ticks.append(len(lateness)))
    QTimer.singleShot(int(args.seconds * 1000), loop.quit)
    loop.exec()
    ticker.stop()
    gui_seconds = time.perf_counter() - t_start
    gui_cpu = (time.process_time() - gui_cpu0) / gui_seconds
    children_cpu = descendants_cpu_s()
    child_cpu = max((children_cpu[pid] - children_cpu0.get(pid, 0.0) for pid in children_cpu), default=float("nan"))
    child_cpu /= gui_seconds
    step = panel.studio_state.latest_step
    gui_rate = float(step.tokens_per_s) if step is not None else float("nan")
    steps_done = panel.loss_plot.step_count()
    snapshots = len(panel.history)
    t0 = time.perf_counter()
    panel.shutdown(1000)
    stop_ms = (time.perf_counter() - t0) * 1000
    print(f"GUI: {steps_done} steps, {snapshots} snapshots drawn live, {gui_rate:,.0f} tokens/s; "
          f"shutdown took {stop_ms:.0f} ms")
    print(f"CPU while training, in cores: the GUI process {gui_cpu:.2f}, the training process {child_cpu:.2f}")

    engine_after = engine_rates(panel, args.engine_seconds)
    print(f"engine alone (after): {engine_after}")
    # the CLI's rate is the better of its thread settings (torch's default, and the training process's): the GUI
    # gets no credit for a default that collapses on a busy machine
    per_setting = {k: statistics.mean([engine_before[k], engine_after[k]]) for k in engine_before}
    cli_rate = max(per_setting.values())
    start_stall = max(lateness[:first_ticks[0]] if first_ticks else lateness[:1] or [0.0])
    print(f"Start: the call took {start_call_ms:.1f} ms; worst stall in the first 2 s {start_stall:.1f} ms "
          f"(target <= 50 ms)")

    late = np.asarray(lateness[1:] or [0.0])
    p50, p95, p99 = (float(np.percentile(late, q)) for q in (50, 95, 99))
    print(f"event-loop lateness over {late.size} ticks of {TICK_MS} ms: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
          f"p99 {p99:.1f} ms, max {late.max():.1f} ms (target p99 <= 33 ms)")
    ratio = gui_rate / cli_rate if cli_rate > 0 else float("nan")
    print(f"GUI / engine tokens/s: {ratio:.2f} (target >= 0.90)")
    print(json.dumps({"p50_ms": round(p50, 2), "p95_ms": round(p95, 2), "p99_ms": round(p99, 2),
                      "max_ms": round(float(late.max()), 2), "gui_tokens_per_s": round(gui_rate, 1),
                      "cli_tokens_per_s": round(cli_rate, 1), "ratio": round(ratio, 3),
                      "engine_tokens_per_s": per_setting, "size": args.size, "start_call_ms": round(start_call_ms, 1),
                      "start_stall_ms": round(start_stall, 1), "ticks": int(late.size), "gui_steps": steps_done,
                      "snapshots": snapshots, "shutdown_ms": round(stop_ms, 1),
                      "gui_process_cores": round(gui_cpu, 2), "training_process_cores": round(child_cpu, 2)}))
    panel.deleteLater()
    return 0


if __name__ == "__main__":
    sys.exit(main())
