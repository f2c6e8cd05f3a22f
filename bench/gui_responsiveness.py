"""Does the studio stay responsive while it trains (book §11.7 settings, live attention snapshots)?

The real studio panel, offscreen and shown, trains for ~20 s (in its training process) while a 16 ms precise
QTimer records how late each tick fires (event-loop stalls). Training speed in the GUI is compared with the
engine alone (the core Trainer iterated in a plain loop on the main thread, as the CLI does) on the same data
and settings, with torch's default threads and with the training process's, the better of the two counting.

By default the two take turns (``--window`` seconds each): the studio trains while the event loop runs, then
is paused (its own Pause) while the engine trains, and so on, so both meet the same machine, second by second
(this machine's speed drifts by tens of per cent within a minute). The GUI's rate is the run's own clock (pauses
excluded) over its windows; the engine runs in a process of its own, as the CLI does, and keeps one trainer per
thread count across its windows. ``--sequential``
measures as before: the engine before and after one unbroken GUI run, averaged. The Start call's own duration
and the worst stall of the first two seconds are reported. Ends with one JSON line.

    python bench/gui_responsiveness.py [--size book|large] [--seconds 20] [--window 2.5] [--sequential]
                                       [--engine-seconds 6]

``large`` is 6 layers x 8 heads x 64 wide (FFN 128) with 20 time steps.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

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
    """Engine tokens/s with torch's default threads and with every core but one (the other count the studio's
    training process may train with)."""
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


class EngineTurns:
    """The engine alone in a process of its own (as the CLI runs it), one Trainer per thread count, each advanced
    ``seconds`` at a time when asked (lock-step turns). Not in this process: a thread of the GUI's pool that ran a
    parallel torch operation keeps an OpenMP team, and the engine beside it would train throttled
    (``bench/omp_side_thread.py``), a reference lower than the CLI's."""

    def __init__(self, panel, counts: list[int]) -> None:
        import multiprocessing

        config = panel.form.config().validate()
        self.counts = counts
        self._conn, child = multiprocessing.get_context("spawn").Pipe()
        self._process = multiprocessing.get_context("spawn").Process(
            target=engine_server, args=(child, config, list(panel.source.pairs), panel.data.probe(), counts),
            daemon=True)
        self._process.start()
        self.tokens = {n: 0 for n in counts}
        self.seconds = {n: 0.0 for n in counts}
        self.windows: dict[int, list[float]] = {n: [] for n in counts}

    def warm_up(self, seconds: float) -> None:
        """Train each for ``seconds``, unmeasured (its first steps allocate and start its thread team), as the
        studio's first turn comes after its start."""
        for count in self.counts:
            self.run(count, seconds)
        self.tokens = {n: 0 for n in self.counts}
        self.seconds = {n: 0.0 for n in self.counts}
        self.windows = {n: [] for n in self.counts}

    def run(self, count: int, seconds: float) -> None:
        """Train with ``count`` threads for ``seconds`` of wall time (whole steps); this process waits."""
        self._conn.send((count, seconds))
        tokens, spent = self._conn.recv()
        self.tokens[count] += tokens
        self.seconds[count] += spent
        self.windows[count].append(round(tokens / spent, 1))

    def rates(self) -> dict[str, float]:
        return {f"{n} threads": round(self.tokens[n] / max(self.seconds[n], 1e-9), 1) for n in self.counts}

    def close(self) -> None:
        self._conn.send(None)
        self._process.join(10)


def engine_server(conn, config, pairs, probe, counts: list[int]) -> None:
    """The engine's process: answers each ``(threads, seconds)`` with ``(tokens, seconds spent)``; None ends it."""
    import torch

    from explorer.core.data.text import build_dataset
    from explorer.core.training.trainer import Trainer

    dataset = build_dataset(pairs, config.num_steps, config.min_freq)
    runs = {n: iter(Trainer(config, dataset, probe=probe)) for n in counts}
    while (ask := conn.recv()) is not None:
        count, seconds = ask
        torch.set_num_threads(count)
        tokens, t0 = 0, time.perf_counter()
        for event in runs[count]:
            if event.kind == "step":
                tokens += event.tokens
                if time.perf_counter() - t0 >= seconds:
                    break
        conn.send((tokens, time.perf_counter() - t0))


def shown_studio(app, size: str):
    """The studio panel, shown offscreen at 1400x900 with its data loaded, set to the book's model (``size`` "book")
    or the large one, for 100,000 epochs; and the temporary folder its runs are recorded in (keep it alive)."""
    from explorer.ui.panels.studio.studio_panel import StudioPanel
    from explorer.ui.process_settings import making_lasting_objects
    from explorer.ui.theme import configure_pyqtgraph

    configure_pyqtgraph(dark=False)  # as the main window does before it builds a panel (its pyqtgraph patches too)
    with making_lasting_objects():  # built as the main window builds a panel
        panel = StudioPanel()
    runs = tempfile.TemporaryDirectory()
    panel.studio_state.runs_root = Path(runs.name)  # recorded as the app records, but not among the user's runs
    panel.resize(1400, 900)
    panel.show()
    panel.form.apply_preset("book (§11.7)")
    panel.form.set_values({"num_epochs": 100_000})  # the book's 200 epochs end within the measurement at book size
    if size == "large":
        panel.form.set_values({"num_layers": 6, "num_heads": 8, "num_hiddens": 64, "ffn_num_hiddens": 128,
                               "num_steps": 20})
    while panel.is_loading():
        app.processEvents()
    # the data loaded lives as long as the panel: out of the collector's walks too, so a full collection while
    # training does not stall the GUI for the whole heap (~0.5 s measured without). The app does not freeze it (its
    # load runs on a worker, the collector only paused): its stalls may exceed this bench's by such a collection
    gc.collect(1)
    gc.freeze()
    return panel, runs


def run_tokens(step) -> tuple[float, float]:
    """(target tokens so far, active seconds so far) of a run, from its newest StepEvent (zeros before one)."""
    if step is None:
        return 0.0, 0.0
    return float(step.tokens_per_s) * float(step.elapsed_s), float(step.elapsed_s)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="GUI training time")
    parser.add_argument("--window", type=float, default=2.5, help="seconds per turn (lock-step, the default)")
    parser.add_argument("--sequential", action="store_true",
                        help="the engine before and after one unbroken GUI run instead of turns")
    parser.add_argument("--engine-seconds", type=float, default=6.0,
                        help="--sequential: engine-only time per measurement (before and after the GUI run)")
    parser.add_argument("--size", choices=("book", "large"), default="book", help="model size")
    args = parser.parse_args()

    from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    import torch

    from explorer.ui.process_settings import training_threads

    panel, runs = shown_studio(app, args.size)
    print(f"settings: {panel.form.config()}")
    print(f"data: {panel.data.info.text()}")
    counts = sorted({torch.get_num_threads(), training_threads() or torch.get_num_threads()}, reverse=True)

    lateness: list[float] = []
    clock = QElapsedTimer()
    last = [0]
    measuring = [False]

    def on_tick() -> None:
        now = clock.nsecsElapsed()
        if measuring[0]:
            lateness.append(max(0.0, (now - last[0]) / 1e6 - TICK_MS))
        last[0] = now

    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(on_tick)

    def spin(seconds: float) -> None:
        loop = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()

    def gui_turn(seconds: float) -> tuple[float, float]:
        """Let the studio train for ``seconds`` with the event loop running; the lateness of its ticks is recorded."""
        last[0] = clock.nsecsElapsed()
        measuring[0] = True
        gui0, child0 = time.process_time(), descendants_cpu_s()
        spin(seconds)
        measuring[0] = False
        child1 = descendants_cpu_s()
        child = max((child1[pid] - child0.get(pid, 0.0) for pid in child1), default=float("nan"))
        return time.process_time() - gui0, child

    def settle_paused() -> None:
        """After Pause: run the event loop until no more steps arrive (the child stops at a step boundary)."""
        seen, quiet_since, t0 = None, time.perf_counter(), time.perf_counter()
        while time.perf_counter() - t0 < 3.0 and time.perf_counter() - quiet_since < 0.3:
            spin(0.05)
            step = panel.studio_state.latest_step
            if step is not seen:
                seen, quiet_since = step, time.perf_counter()

    clock.start()
    ticker.start()
    engine = EngineTurns(panel, counts) if not args.sequential else None
    if engine is not None:
        engine.warm_up(1.0)
    engine_before = None
    if args.sequential:
        engine_before = engine_rates(panel, args.engine_seconds)
        print(f"engine alone (before): {engine_before}")
    t_start = time.perf_counter()
    assert panel.start_training(), panel.inline_message()
    start_call_ms = (time.perf_counter() - t_start) * 1000
    measuring[0] = True
    last[0] = clock.nsecsElapsed()
    spin(2.0)  # the start: the process, the data, the first steps (its worst stall is reported alone)
    start_stall = max(lateness or [0.0])
    lateness.clear()
    gui_cpu = child_cpu = gui_seconds = 0.0
    gui_windows: list[float] = []
    if args.sequential:
        cpu = gui_turn(args.seconds - 2.0)
        gui_cpu, child_cpu, gui_seconds = cpu[0], cpu[1], args.seconds - 2.0
        gui_rate = float(panel.studio_state.latest_step.tokens_per_s)
    else:
        tokens0, active0 = run_tokens(panel.studio_state.latest_step)
        tokens_sum = active_sum = 0.0
        turn = 0
        while gui_seconds < args.seconds - 2.0 - 1e-6:
            window = min(args.window, args.seconds - 2.0 - gui_seconds)
            if turn:
                panel.studio_state.resume()
            cpu = gui_turn(window)
            gui_cpu, child_cpu, gui_seconds = gui_cpu + cpu[0], child_cpu + cpu[1], gui_seconds + window
            panel.studio_state.pause()
            settle_paused()
            tokens1, active1 = run_tokens(panel.studio_state.latest_step)
            gui_windows.append(round((tokens1 - tokens0) / max(active1 - active0, 1e-9), 1))
            tokens_sum, active_sum = tokens_sum + tokens1 - tokens0, active_sum + active1 - active0
            tokens0, active0 = tokens1, active1
            engine.run(counts[turn % len(counts)], window)
            turn += 1
        gui_rate = tokens_sum / max(active_sum, 1e-9)
    ticker.stop()
    gui_cpu /= gui_seconds
    child_cpu /= gui_seconds
    steps_done = panel.loss_plot.step_count()
    snapshots = len(panel.history)
    t0 = time.perf_counter()
    panel.shutdown(1000)
    stop_ms = (time.perf_counter() - t0) * 1000
    print(f"GUI: {steps_done} steps, {snapshots} snapshots drawn live, {gui_rate:,.0f} tokens/s; "
          f"shutdown took {stop_ms:.0f} ms")
    print(f"CPU while training, in cores: the GUI process {gui_cpu:.2f}, the training process {child_cpu:.2f}")
    if args.sequential:
        engine_after = engine_rates(panel, args.engine_seconds)
        print(f"engine alone (after): {engine_after}")
        per_setting = {k: statistics.mean([engine_before[k], engine_after[k]]) for k in engine_before}
    else:
        per_setting = engine.rates()
        engine.close()
        print(f"turns of {args.window} s: GUI {gui_windows}; engine {engine.windows}")
        print(f"engine alone (its turns): {per_setting}")
    # the CLI's rate is the better of its thread settings (torch's default, and the training process's): the GUI
    # gets no credit for a default that collapses on a busy machine
    cli_rate = max(per_setting.values())
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
                      "engine_tokens_per_s": per_setting, "size": args.size,
                      "mode": "sequential" if args.sequential else f"turns of {args.window} s",
                      "gui_turns_tokens_per_s": gui_windows,
                      "engine_turns_tokens_per_s": {f"{n} threads": w for n, w in engine.windows.items()} if engine else {},
                      "start_call_ms": round(start_call_ms, 1),
                      "start_stall_ms": round(start_stall, 1), "ticks": int(late.size), "gui_steps": steps_done,
                      "snapshots": snapshots, "shutdown_ms": round(stop_ms, 1),
                      "gui_process_cores": round(gui_cpu, 2), "training_process_cores": round(child_cpu, 2),
                      "load_average": [round(x, 2) for x in os.getloadavg()[:2]]}))
    panel.deleteLater()
    return 0


if __name__ == "__main__":
    sys.exit(main())
