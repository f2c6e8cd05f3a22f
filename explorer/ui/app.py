"""Start-up of the desktop app: arguments, QApplication, the main window; ``--screenshots`` renders each panel.
A lesson file or a model (folder, run directory, ``.safetensors``) may be given as the positional argument.

Only Qt is imported before the window is shown; panels (and torch) load on the next event-loop turns.
"""
from __future__ import annotations

import argparse
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from explorer.ui.shell.open_argument import open_model_path, panel_for_path, path_problem, split_model_path
from explorer.ui.shell.panel_walker import PanelWalker
from explorer.ui.settings import APPLICATION, LANGUAGES, ORGANIZATION, THEMES, AppSettings

if TYPE_CHECKING:
    from explorer.ui.shell.main_window import MainWindow

__all__ = ["PanelWalker", "Startup", "build_parser", "main", "start"]

SCREENSHOT_SIZE = (1280, 820)
DEVICE_PROBE_PATIENCE_MS = 20_000
MODEL_OPEN_PATIENCE_MS = 90_000  # screenshots of a model given as PATH wait this long for it to open and be read


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
    parser = argparse.ArgumentParser(prog="attention-explorer", usage="%(prog)s [options] [LESSON.json | PATH]",
                                     description="The attention chapter of Dive into Deep Learning, made visible.",
                                     epilog="LESSON.json: open a lesson saved with File → Save lesson. PATH: open a "
                                            "model in the Transformer studio: a Hugging Face model folder "
                                            "(config.json) to inspect, a run directory (run.json) to follow, or a "
                                            ".safetensors model; with --screenshots only the studio is rendered.")
    parser.add_argument("--screenshots", metavar="DIR", type=Path,
                        help="render every panel to DIR/<panel>.png and exit")
    parser.add_argument("--panel", metavar="KEY", help="panel to open first (e.g. positional)")
    parser.add_argument("--theme", choices=THEMES, help="colour theme (remembered)")
    parser.add_argument("--language", choices=LANGUAGES,
                        help="language for this run: en (English), zh_CN (简体中文) or system (default: the one "
                             "chosen in View → Language)")
    parser.add_argument("--size", metavar="WxH", type=_window_size, default=SCREENSHOT_SIZE,
                        help="window size for --screenshots (default 1280x820)")
    parser.add_argument("--bench-startup", action="store_true", help=argparse.SUPPRESS)
    return parser


def _run_screenshots(app: QApplication, window: MainWindow, directory: Path,
                     size: tuple[int, int] = SCREENSHOT_SIZE, model_path: str | None = None) -> int:
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
            if model_path is not None:  # its panel reads it while the walker waits for that panel to settle
                open_model_path(window.panels, model_path, echo=True)
            walker.start()

    window.resize(*size)
    if model_path is None:
        walker = PanelWalker(window, window.keys(), save, done)
    else:
        walker = PanelWalker(window, [panel_for_path(model_path)], save, done, max_wait_ms=MODEL_OPEN_PATIENCE_MS)
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
        print(f"BENCH cpu {time.process_time():.6f}", flush=True)  # all threads of this process, start to ready
        window.shutdown(save=False)
        app.exit(0)

    # Look every 5 ms, not the default 50: the time printed is when the walker notices a panel settled, and a
    # coarse poll added up to 50 ms of waiting per panel to the figure.
    walker = PanelWalker(window, window.keys(), lambda key: None, done, min_wait_ms=0, poll_ms=5)
    window.first_painted.connect(painted)
    window.show()
    return app.exec()


def split_lesson(argv: list[str]) -> tuple[str | None, list[str]]:
    """Take the lesson file (the first argument ending in ``.json`` that is not an option) out of ``argv``.

    Found before argparse sees the arguments, so an option's value meant for Qt (``-platform offscreen``) is
    never mistaken for a file.
    """
    for i, arg in enumerate(argv):
        if not arg.startswith("-") and arg.lower().endswith(".json"):
            return arg, argv[:i] + argv[i + 1:]
    return None, list(argv)


@dataclass
class Startup:
    """A started app: the QApplication, its main window (not shown yet) and the parsed options."""

    app: QApplication
    window: MainWindow
    args: argparse.Namespace
    lesson: str | None = None
    model_path: str | None = None


def start(argv: list[str] | None = None) -> Startup | int:
    """Parse options, check the display, create the QApplication and the main window.

    Returns an exit code instead when the app cannot start (no display, a missing system library, a
    bad option). Test drivers use this to run the same start-up as ``main``.
    """
    from explorer.ui.process_settings import making_lasting_objects

    with making_lasting_objects():  # the modules, classes and window it makes live as long as the app
        return _start(argv)


def _start(argv: list[str] | None) -> Startup | int:
    lesson, argv = split_lesson(sys.argv[1:] if argv is None else list(argv))
    model_path, argv = split_model_path(argv) if lesson is None else (None, argv)
    args, qt_args = build_parser().parse_known_args(argv)
    if model_path is not None and path_problem(model_path):
        print(path_problem(model_path), file=sys.stderr)
        return 2
    if QApplication.instance() is None:
        from explorer.ui.display_check import startup_problem

        problem = startup_problem(qt_args)
        if problem:
            print(problem, file=sys.stderr)
            return 2
    from explorer.ui.qt_compat import guard_pyside_refcounts, quicken_feature_scan

    quicken_feature_scan()  # before torch and pyqtgraph are imported: PySide's import hook reads each module
    guard_pyside_refcounts()  # a no-op unless this PySide6 leaks references to None/True (6.12.0)
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setDesktopFileName("attention-explorer")

    from explorer.ui import theme
    from explorer.ui.shell.about_dialog import device_description
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.panel_registry import PANELS

    settings = AppSettings()
    if args.theme:
        settings.theme = args.theme
    theme.apply_app_theme(theme.resolve_dark(settings.theme))
    from explorer.ui.i18n.translators import language_manager

    language_manager().apply(args.language or settings.language)  # before any text is made
    # Refused before the window exists: a window built and then dropped (never shown, never shut down) keeps
    # timers and workers that outlive it, and freeing it later crashed the process.
    if lesson is not None and not Path(lesson).is_file():
        print(f"attention-explorer: no lesson file {lesson}", file=sys.stderr)
        return 2
    keys = [spec.key for spec in PANELS]
    if args.panel and args.panel not in keys:
        print(f"attention-explorer: unknown panel {args.panel!r}; choose one of {', '.join(keys)}", file=sys.stderr)
        return 2
    window = MainWindow(settings, device_probe=device_description)
    if args.panel:
        window.select_panel(args.panel)
    if lesson is not None and args.screenshots is not None:  # headless: open now, print what was skipped
        window.classroom.show_dialogs = False
        opened = window.classroom.open_lesson(lesson)
        print(window.classroom.last_report, file=sys.stdout if opened else sys.stderr)
        if not opened:
            return 2
    return Startup(app, window, args, lesson, model_path)


def main(argv: list[str] | None = None) -> int:
    """Run the app; returns the process exit code."""
    started = start(argv)
    if isinstance(started, int):
        return started
    app, window, args = started.app, started.window, started.args
    if args.screenshots is not None:
        return _run_screenshots(app, window, args.screenshots, args.size, started.model_path)
    if args.bench_startup:
        return _run_bench(app, window)

    # Let Ctrl+C in the terminal close the window: Python handles signals only when it runs.
    signal.signal(signal.SIGINT, lambda *_: window.close())
    heartbeat = QTimer(window)
    heartbeat.timeout.connect(lambda: None)
    heartbeat.start(250)
    window.show()
    if started.lesson is not None:  # once the window is up, so its report can be a dialog over it
        QTimer.singleShot(0, lambda: window.classroom.open_lesson(started.lesson))
    if started.model_path is not None:
        QTimer.singleShot(0, lambda: open_model_path(window.panels, started.model_path))
    return app.exec()
