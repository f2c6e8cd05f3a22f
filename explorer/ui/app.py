"""Start-up of the desktop app: arguments, QApplication, the main window; ``--screenshots`` renders each panel.

Only Qt is imported before the window is shown; panels (and torch) load on the next event-loop turns.
"""
from __future__ import annotations

import argparse
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Slot
from PySide6.QtWidgets import QApplication

from explorer.ui.settings import APPLICATION, ORGANIZATION, THEMES, AppSettings

if TYPE_CHECKING:
    from explorer.ui.main_window import MainWindow

SCREENSHOT_SIZE = (1280, 820)
SETTLE_POLL_MS = 50
DEVICE_PROBE_PATIENCE_MS = 20_000


def _window_size(text: str) -> tuple[int, int]:
    """``"1024x700"`` -> ``(1024, 700)``."""
    width, sep, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        size = (0, 0)
    if not sep or min(size) < 200:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels, e.g. 1024x700, not {text!r}")
    return size


def build_parser() -> argparse.ArgumentParser:
    """Command-line options of ``attention-explorer``."""
    parser = argparse.ArgumentParser(prog="attention-explorer",
                                     description="The attention chapter of Dive into Deep Learning, made visible.")
    parser.add_argument("--screenshots", metavar="DIR", type=Path,
                        help="render every panel to DIR/<panel>.png and exit")
    parser.add_argument("--panel", metavar="KEY", help="panel to open first (e.g. positional)")
    parser.add_argument("--theme", choices=THEMES, help="colour theme (remembered)")
    parser.add_argument("--size", metavar="WxH", type=_window_size, default=SCREENSHOT_SIZE,
                        help="window size for --screenshots (default 1280x820)")
    parser.add_argument("--bench-startup", action="store_true", help=argparse.SUPPRESS)
    return parser


class PanelWalker(QObject):
    """Visits panels one per event-loop turn, waits for each to settle, then calls ``on_settled(key)``.

    A panel has settled when none of its ``LatestOnlyRunner`` children is busy, no single-shot
    ``QTimer`` child (a pending debounce) is running and at least ``min_wait_ms`` have passed (so
    throttled redraws land), or after ``max_wait_ms``.
    """

    def __init__(self, window, keys: list[str], on_settled: Callable[[str], None],
                 on_done: Callable[[], None], min_wait_ms: int = 300, max_wait_ms: int = 10_000) -> None:
        super().__init__(window)
        self._window = window
        self._keys = list(keys)
        self._on_settled = on_settled
        self._on_done = on_done
        self._min_wait_ms = min_wait_ms
        self._max_wait_ms = max_wait_ms
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(SETTLE_POLL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        """Begin with the first key on the next event-loop turn."""
        QTimer.singleShot(0, self._next)

    @Slot()
    def _next(self) -> None:
        if not self._keys:
            self._on_done()
            return
        self._window.show_panel(self._keys[0])
        self._clock.start()
        self._timer.start()

    @Slot()
    def _on_timer_timeout(self) -> None:
        from explorer.ui.worker import LatestOnlyRunner

        key = self._keys[0]
        panel = self._window.panel(key)
        busy = panel is not None and (
            any(r.is_busy() for r in panel.findChildren(LatestOnlyRunner))
            or any(t.isActive() and t.isSingleShot() for t in panel.findChildren(QTimer))  # debounces
        )
        elapsed = self._clock.elapsed()
        if elapsed < self._max_wait_ms and (busy or elapsed < self._min_wait_ms):
            return
        self._timer.stop()
        self._keys.pop(0)
        self._on_settled(key)
        QTimer.singleShot(0, self._next)


def _run_screenshots(app: QApplication, window: MainWindow, directory: Path,
                     size: tuple[int, int] = SCREENSHOT_SIZE) -> int:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"attention-explorer: cannot create {directory}: {exc}", file=sys.stderr)
        return 2
    failures: list[str] = []

    def save(key: str) -> None:
        path = directory / f"{key}.png"
        if not window.grab().save(str(path), "PNG"):
            failures.append(f"could not write {path}")
        error = window.panel_error(key)
        if error:
            print(f"attention-explorer: panel {key} shows an error page: {error}", file=sys.stderr)
        else:
            print(f"wrote {path}")

    def done() -> None:
        window.shutdown(save=False)
        app.exit(1 if failures else 0)

    def begin() -> None:
        if not window.isVisible():  # once: the probe answered or its time ran out
            window.show()
            walker.start()

    window.resize(*size)
    walker = PanelWalker(window, window.keys(), save, done)
    # Name the device first (this imports torch while nothing else runs), so every picture shows it.
    window.device_label.detected.connect(begin)
    window.device_label.maybe_start(force=True)
    QTimer.singleShot(DEVICE_PROBE_PATIENCE_MS, begin)
    code = app.exec()
    for failure in failures:
        print(f"attention-explorer: {failure}", file=sys.stderr)
    return code


def _run_bench(app: QApplication, window) -> int:
    """Print wall-clock times of the first paint and of 'every panel built and settled', then exit."""

    def painted() -> None:
        print(f"BENCH first_paint {time.time():.6f}", flush=True)
        walker.start()

    def done() -> None:
        print(f"BENCH ready {time.time():.6f}", flush=True)
        window.shutdown(save=False)
        app.exit(0)

    walker = PanelWalker(window, window.keys(), lambda key: None, done, min_wait_ms=0)
    window.first_painted.connect(painted)
    window.show()
    return app.exec()


@dataclass
class Startup:
    """A started app: the QApplication, its main window (not shown yet) and the parsed options."""

    app: QApplication
    window: MainWindow
    args: argparse.Namespace


def start(argv: list[str] | None = None) -> Startup | int:
    """Parse options, check the display, create the QApplication and the main window.

    Returns an exit code instead when the app cannot start (no display, a missing system library, a
    bad option). Test drivers use this to run the same start-up as ``main``.
    """
    args, qt_args = build_parser().parse_known_args(sys.argv[1:] if argv is None else argv)
    if QApplication.instance() is None:
        from explorer.ui.display_check import startup_problem

        problem = startup_problem(qt_args)
        if problem:
            print(problem, file=sys.stderr)
            return 2
    from explorer.ui.qt_compat import guard_pyside_refcounts

    guard_pyside_refcounts()  # a no-op unless this PySide6 leaks references to None/True (6.12.0)
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setDesktopFileName("attention-explorer")

    from explorer.ui import theme
    from explorer.ui.about_dialog import device_description
    from explorer.ui.main_window import MainWindow

    settings = AppSettings()
    if args.theme:
        settings.theme = args.theme
    theme.apply_app_theme(theme.resolve_dark(settings.theme))
    window = MainWindow(settings, device_probe=device_description)
    if args.panel:
        if args.panel not in window.keys():
            print(f"attention-explorer: unknown panel {args.panel!r}; choose one of {', '.join(window.keys())}",
                  file=sys.stderr)
            return 2
        window.select_panel(args.panel)
    return Startup(app, window, args)


def main(argv: list[str] | None = None) -> int:
    """Run the app; returns the process exit code."""
    started = start(argv)
    if isinstance(started, int):
        return started
    app, window, args = started.app, started.window, started.args
    if args.screenshots is not None:
        return _run_screenshots(app, window, args.screenshots, args.size)
    if args.bench_startup:
        return _run_bench(app, window)

    # Let Ctrl+C in the terminal close the window: Python handles signals only when it runs.
    signal.signal(signal.SIGINT, lambda *_: window.close())
    heartbeat = QTimer(window)
    heartbeat.timeout.connect(lambda: None)
    heartbeat.start(250)
    window.show()
    return app.exec()
