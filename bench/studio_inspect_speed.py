"""Inspecting real-size models in the model inspector: the real InspectorPanel, offscreen at 1024×700, opens a
random-weight folder built from a config (no download) and reads one text, while a 16 ms precise QTimer records
how late each tick fires (event-loop stalls, as bench/gui_responsiveness.py does).

Cases, each in its own process (so its peak memory is its own):
  bert-128, bert-512  BERT-base shape (12 layers × 12 heads, d=768): the worker's forward pass + every map +
                      pooled thumbnails (``inspect_s``: the first text after opening; ``inspect_again_s``: the
                      same text again, the model warm), the grid of 144 heads drawn on the GUI thread once the
                      result arrives (``grid_draw_ms``: thumbnails set, layout, paint; the grid was built in stages
                      while the worker ran, ``grid_cold_ms`` builds it at the same time), a thumbnail opened in the
                      detail view, the grid scrolled and the detail hovered cell by cell, one step per tick
  gpt2-4096           a decoder-only model for 4,096 positions (12 × 12) on a 4,096-token text: pooled thumbnails only
                      (full maps would be 9.66 GB), a head opened at full resolution on demand, the detail view
                      zoomed and panned one step per tick
Each phase reports its longest stall; memory is what the inspection holds, the detail's map and the peak RSS.

    python bench/studio_inspect_speed.py [--cases bert-128,bert-512,gpt2-4096]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")  # no message boxes
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hf_attention_speed import WORDS, build_bert, build_gpt2  # noqa: E402

CASES = ("bert-128", "bert-512", "gpt2-4096")
TICK_MS = 16
STEPS = 40  # scroll / hover / zoom steps, one per tick


class Stalls:
    """How late each 16 ms tick fires, by phase."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, Qt, QTimer

        self.phase = "idle"
        self.worst: dict[str, float] = {}
        self.long: list[tuple[str, float, float]] = []  # (phase, seconds into it, ms late) for ticks > 100 ms late
        self._clock = QElapsedTimer()
        self._clock.start()
        self._last = self._entered = self._clock.nsecsElapsed()
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_tick)
        self._timer.start()

    def _on_tick(self) -> None:
        now = self._clock.nsecsElapsed()
        late = max(0.0, (now - self._last) / 1e6 - TICK_MS)
        self._last = now
        self.worst[self.phase] = max(self.worst.get(self.phase, 0.0), late)
        if late > 100:
            self.long.append((self.phase, round((now - self._entered) / 1e9, 2), round(late)))

    def enter(self, phase: str) -> None:
        self.phase = phase
        self._last = self._entered = self._clock.nsecsElapsed()


def wait_until(app, condition, timeout_s: float) -> None:  # type: ignore[no-untyped-def]
    """Run the event loop (ticks included) until ``condition()`` holds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(5)
    poll.timeout.connect(lambda: loop.quit() if condition() else None)
    poll.start()
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    loop.exec()
    poll.stop()
    if not condition():
        raise TimeoutError(f"not done after {timeout_s} s")


def per_tick(app, steps: list) -> list[float]:  # type: ignore[no-untyped-def]
    """Run each step on its own timer tick; returns each step's own time (ms)."""
    from PySide6.QtCore import QTimer

    times: list[float] = []
    pending = list(steps)

    def one() -> None:
        if pending:
            t0 = time.perf_counter()
            pending.pop(0)()
            times.append((time.perf_counter() - t0) * 1000)

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(one)
    timer.start()
    wait_until(app, lambda: not pending and len(times) == len(steps), 120)
    timer.stop()
    wait_until(app, lambda: True, 1)
    return times


def settle(app) -> None:  # type: ignore[no-untyped-def]
    for _ in range(3):
        app.processEvents()


def run_case(case: str, folder: Path) -> dict:
    import numpy as np
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    from explorer.ui.panels.inspector.inspector_panel import InspectorPanel

    tokens = int(case.split("-")[1])
    if case.startswith("bert"):
        text = " ".join(WORDS[:tokens - 2])  # + [CLS] and [SEP]
    else:
        rng = np.random.default_rng(0)
        text = "".join(rng.choice(list("abcdefghij klmnopqrstuvwxyz.,"), size=tokens))  # one token per byte
    panel = InspectorPanel()
    panel.resize(1024, 700)
    panel.show()
    settle(app)
    inspect, grid_view = panel.inspector_state.inspect, panel.tabs.grid_view
    stalls = Stalls()
    draws: list[float] = []
    shown = grid_view._on_inspect_inspected

    def timed_show(inspection) -> None:  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        shown(inspection)
        settle(app)  # the layout and the paint it posted
        panel.grid.viewport().repaint()
        draws.append((time.perf_counter() - t0) * 1000)

    inspect.inspected.disconnect(shown)  # the grid's draw, timed
    inspect.inspected.connect(timed_show)
    row: dict = {"case": case, "tokens": tokens}

    stalls.enter("open+inspect")
    inspect.source = text
    t0 = time.perf_counter()
    panel.open_model(str(folder))
    wait_until(app, lambda: inspect.opened is not None, 600)
    row["open_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    wait_until(app, lambda: inspect.last is not None and draws, 900)
    ins = inspect.last
    row["inspect_s"] = ins.elapsed_s  # on the worker: forward pass, every map, thumbnails
    row["inspect_wall_s"] = time.perf_counter() - t1
    row["full_maps"] = ins.full
    row["grid_draw_ms"] = draws[-1]
    row["grid_layout"] = [list(x) for x in panel.grid.layout]
    row["inspection_mb"] = ins.nbytes() / 2**20
    row["thumbnails_mb"] = sum(t.nbytes for t in ins.thumbnails.values()) / 2**20
    row["stall_open_inspect_ms"] = stalls.worst.get("open+inspect", 0.0)

    if ins.full:  # the same text again: the model is warm (its first pass also pays one-time set-up)
        stalls.enter("inspect again")
        inspect.inspect(text)
        wait_until(app, lambda: inspect.last is not ins, 900)
        ins = inspect.last
        row["inspect_again_s"] = ins.elapsed_s
        row["grid_draw_again_ms"] = draws[-1]
        row["stall_inspect_again_ms"] = stalls.worst.get("inspect again", 0.0)

    stalls.enter("grid cold")  # the same draw with the grid built at the same time (no staged build)
    panel.grid.clear_grid(hint=False)
    timed_show(ins)
    row["grid_cold_ms"] = draws[-1]
    wait_until(app, lambda: True, 0.5)
    row["stall_grid_cold_ms"] = stalls.worst.get("grid cold", 0.0)

    stalls.enter("scroll grid")
    bar = grid_view.scroll.verticalScrollBar()
    row["scroll_range_px"] = bar.maximum()
    positions = np.linspace(0, bar.maximum(), STEPS).astype(int).tolist()
    scroll = per_tick(app, [lambda v=v: (bar.setValue(v), grid_view.scroll.viewport().repaint()) for v in positions])
    row["scroll_step_max_ms"] = max(scroll)
    row["stall_scroll_ms"] = stalls.worst.get("scroll grid", 0.0)

    stalls.enter("open head")
    name, layers, heads = panel.grid.layout[-1]
    t0 = time.perf_counter()
    panel.grid.plots[name][layers - 1][heads - 1].image_item.clicked.emit()
    wait_until(app, lambda: panel.detail.has_map and not panel.detail.computing, 600)
    settle(app)
    panel.detail.heatmap.viewport().repaint()
    row["head_open_s"] = time.perf_counter() - t0
    row["head_map_mb"] = panel.detail.current_matrix().nbytes / 2**20
    wait_until(app, lambda: True, 0.5)
    row["stall_open_head_ms"] = stalls.worst.get("open head", 0.0)

    stalls.enter("hover detail")
    view = panel.detail.heatmap
    vb = view.plot.vb
    rect = vb.mapRectToScene(vb.boundingRect())
    points = [view.mapFromScene(rect.left() + rect.width() * f, rect.top() + rect.height() * f)
              for f in np.linspace(0.05, 0.95, STEPS)]
    readouts: list[str] = []
    hover = per_tick(app, [lambda p=p: (QTest.mouseMove(view.viewport(), QPoint(p.x(), p.y())),
                                        readouts.append(panel.detail.readout.text())) for p in points])
    row["hover_step_max_ms"] = max(hover)
    row["hover_readouts"] = len({r for r in readouts if r})
    row["stall_hover_ms"] = stalls.worst.get("hover detail", 0.0)

    stalls.enter("zoom+pan detail")
    steps = [lambda: (vb.scaleBy((0.8, 0.8)), view.viewport().repaint())] * (STEPS // 2)
    steps += [lambda: (vb.translateBy((tokens / 60, tokens / 60)), view.viewport().repaint())] * (STEPS // 2)
    zoom = per_tick(app, steps)
    row["zoom_pan_step_max_ms"] = max(zoom)
    row["zoom_pan_step_median_ms"] = float(np.median(zoom))
    row["axis_labels_drawn"] = len(view.plot.getAxis("bottom").label_positions())
    row["stall_zoom_pan_ms"] = stalls.worst.get("zoom+pan detail", 0.0)

    row["long_stalls"] = stalls.long
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row["load_avg"] = os.getloadavg()[0]
    panel.shutdown(3000)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        import torch

        row = run_case(args.case, Path(args.folder))
        row["threads"] = torch.get_num_threads()
        print(json.dumps(row))
        return
    cases = [c for c in args.cases.split(",") if c]
    rows = []
    with tempfile.TemporaryDirectory(prefix="studio_inspect_") as tmp:
        t0 = time.perf_counter()
        if any(c.startswith("bert") for c in cases):
            build_bert(Path(tmp) / "bert")
        if "gpt2-4096" in cases:
            build_gpt2(Path(tmp) / "gpt2")
        print(f"built random-weight folders in {time.perf_counter() - t0:.1f} s", flush=True)
        for case in cases:
            folder = Path(tmp) / ("bert" if case.startswith("bert") else "gpt2")
            out = subprocess.run([sys.executable, __file__, "--case", case, "--folder", str(folder)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                print(out.stderr[-3000:], file=sys.stderr)
                raise SystemExit(f"case {case} failed")
            row = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(row)
            print("  ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
                            if k not in ("grid_layout", "long_stalls")), flush=True)
    print(json.dumps({"bench": "studio_inspect_speed", "cases": rows}))


if __name__ == "__main__":
    main()
