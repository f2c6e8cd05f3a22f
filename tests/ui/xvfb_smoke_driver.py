"""Drive the real app on an X server (run by ``test_xvfb_smoke.py`` under Xvfb with the xcb platform).

Starts the app as ``attention-explorer`` does (``explorer.ui.app.start``), visits every panel, presses
Ctrl+E in a text field, trains the Transformer studio for one tiny epoch, saves a screenshot of each
panel and of the trained studio into DIR, and prints a JSON summary as its last line.

Usage: python xvfb_smoke_driver.py DIR
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit

import explorer.ui.widgets.export as export
from explorer.ui.shell.panel_walker import PanelWalker
from explorer.ui.app import start

#: One small epoch: the studio form's fields only (the studio's internals are being rewritten).
TINY_RUN = dict(num_hiddens=16, num_layers=1, num_heads=2, ffn_num_hiddens=32, dropout=0.0, batch_size=64,
                num_epochs=1, snapshot_every=2, lr=0.005, device="cpu", seed=0)
TRAIN_TIMEOUT_S = 60.0


def wait(ms: int) -> None:
    """Run the event loop for ``ms``. Not ``QTest.qWait``: PySide6 6.11 keeps the GIL through it, which
    starves worker threads (a torch import in a worker did not finish in 15 s of qWait; 1 s otherwise)."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main(directory: Path) -> int:
    started = start(["--theme", "light"])
    if isinstance(started, int):
        return started
    app, window = started.app, started.window
    directory.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"platform": app.platformName(), "panels": {}, "exports": []}
    export.run_export_dialog = lambda targets, key, settings, parent: summary["exports"].append(key)

    def visited(key: str) -> None:
        window.grab().save(str(directory / f"{key}.png"), "PNG")
        summary["panels"][key] = window.panel_error(key) or "ok"

    def press_ctrl_e() -> None:
        """Ctrl+E with a text field focused exports (the X11 key scheme gives Ctrl+E to text fields)."""
        fields = [w for w in window.findChildren(QAbstractSpinBox) + window.findChildren(QLineEdit)
                  if w.isVisible() and w.isEnabled() and w.focusPolicy() != Qt.FocusPolicy.NoFocus]
        focused = None
        if fields:
            window.activateWindow()
            fields[0].setFocus()
            wait(100)
            focused = QApplication.focusWidget()  # keys go where X sends them: the focus widget
            if focused is not None:
                QTest.keyClick(focused, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
        summary["ctrl_e_field"] = type(focused).__name__ if focused is not None else None

    def train() -> None:
        window.show_panel("studio")  # the walk ends on the last panel (the model inspector)
        press_ctrl_e()
        studio = window.panel("studio")
        studio.form.set_values(TINY_RUN)
        deadline = time.monotonic() + TRAIN_TIMEOUT_S
        while not studio.start_training():  # the bundled corpus may still be loading
            if time.monotonic() > deadline:
                summary["studio"] = "could not start"
                return finish(1)
            wait(100)
        while studio.state != "finished" and time.monotonic() < deadline:
            wait(100)
        summary["studio"] = studio.state
        wait(300)  # the last redraw
        window.grab().save(str(directory / "studio-trained.png"), "PNG")
        finish(0 if studio.state == "finished" else 1)

    def finish(code: int) -> None:
        window.shutdown(save=False)
        print(json.dumps(summary), flush=True)
        app.exit(code)

    walker = PanelWalker(window, window.keys(), visited, lambda: QTimer.singleShot(0, train))
    window.show()
    QTimer.singleShot(0, walker.start)
    return app.exec()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(Path(sys.argv[1])))
