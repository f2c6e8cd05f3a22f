"""Benchmark: resident memory (RSS) of the desktop app when idle, after the shell alone and after
visiting every panel in the book's order (each built and settled, as a user clicking through).

Runs the real main window in this process (offscreen unless QT_QPA_PLATFORM says otherwise, a
throw-away settings folder). RSS is read from /proc/self/status (Linux); elsewhere the peak RSS
from `resource` is reported instead. Prints figures and ends with one JSON line.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def rss_mb() -> float:
    """Current resident set size in MiB (peak RSS where /proc is missing)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def main() -> None:
    app = QApplication([sys.argv[0]])
    from explorer.ui.shell.about_dialog import device_description
    from explorer.ui.shell.panel_walker import PanelWalker
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.settings import AppSettings

    readings: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as settings_dir:
        window = MainWindow(AppSettings(settings_dir), device_probe=device_description)
        window.resize(1280, 820)

        def painted() -> None:
            readings["shell"] = rss_mb()
            walker.start()

        def settled(key: str) -> None:
            readings[key] = rss_mb()

        def done() -> None:
            QTimer.singleShot(1000, app.quit)  # a second of idling, then the final reading

        walker = PanelWalker(window, window.keys(), settled, done, min_wait_ms=300)
        window.first_painted.connect(painted)
        window.show()
        app.exec()
        readings["idle_after_all"] = rss_mb()
        errors = {k: window.panel_error(k) for k in window.keys() if window.panel_error(k)}
        window.shutdown(save=False)

    previous = 0.0
    print(f"{'after':<22}{'RSS MiB':>10}{'+ MiB':>10}")
    for name, value in readings.items():
        print(f"{name:<22}{value:10.1f}{value - previous:10.1f}")
        previous = value
    for key, message in errors.items():
        print(f"note: {key} shows an error page: {message}")
    print(json.dumps({"rss_shell_mb": round(readings["shell"], 1),
                      "rss_idle_all_panels_mb": round(readings["idle_after_all"], 1),
                      "rss_after_panel_mb": {k: round(v, 1) for k, v in readings.items()
                                             if k not in ("shell", "idle_after_all")},
                      "panels_failed": sorted(errors)}))


if __name__ == "__main__":
    main()
