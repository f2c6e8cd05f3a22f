"""The shell's defects found walking through it on a classroom projector: window size, Ctrl+E in text fields,
stale status messages, the About box's device, and the dark theme of sidebar and menu bar."""
from __future__ import annotations

import sys
import threading
import types
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit, QWidget

from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_registry import PanelSpec
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.settings import AppSettings

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def available_geometry(window: QWidget):  # type: ignore[no-untyped-def]
    """The screen area a window may use (the offscreen test screen is 800 x 600)."""
    return window.screen().availableGeometry()
MODULE = "fake_panels_for_shell_fixes"


class X11LineEdit(QLineEdit):
    """A line edit that claims Ctrl+E for "end of line", as every QLineEdit does under the X11 key scheme
    (the offscreen test platform uses another scheme, so the claim is made here explicitly)."""

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if QKeySequence(event.keyCombination()) in (QKeySequence("Ctrl+E"), QKeySequence("Ctrl+A")):
                event.accept()
                return True
        return super().event(event)


class FieldPanel(BasePanel):
    key, title = "field", "Field"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.field = X11LineEdit("some text", self)
        self.plot = pg.PlotWidget()
        self.plot.plot([0, 1, 2], [1, 3, 2])
        self.body_layout.addWidget(self.field)
        self.body_layout.addWidget(self.plot)

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("curve", self.plot, lambda: (["x"], np.arange(3.0)))]


class OtherPanel(FieldPanel):
    key, title = "other", "Other"


SPECS = (PanelSpec("field", "Field", f"{MODULE}:FieldPanel"), PanelSpec("other", "Other", f"{MODULE}:OtherPanel"))


@pytest.fixture
def make_window(qtbot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    module = types.ModuleType(MODULE)
    module.FieldPanel, module.OtherPanel = FieldPanel, OtherPanel
    monkeypatch.setitem(sys.modules, MODULE, module)

    def make(settings_dir: Path = tmp_path, probe=lambda: "test-device") -> MainWindow:
        window = MainWindow(AppSettings(settings_dir), panels=SPECS, device_probe=probe, probe_after_module=None)
        qtbot.addWidget(window)
        return window

    return make


def test_window_opens_within_the_available_screen(make_window) -> None:
    window = make_window()
    available = available_geometry(window)
    assert available is not None and (available.width(), available.height()) < (1280, 820)
    assert window.width() <= available.width() and window.height() <= available.height()
    assert window.width() >= available.width() - 40 and window.height() >= available.height() - 80  # not tiny


def test_restored_geometry_is_clamped_to_the_screen(make_window, tmp_path: Path) -> None:
    big = make_window()
    big.setMinimumSize(0, 0)
    big.resize(1400, 1000)
    big.move(600, 500)
    big.save_settings()
    again = make_window(tmp_path)
    available = available_geometry(again)
    assert again.width() <= available.width() and again.height() <= available.height()
    assert available.contains(again.frameGeometry().topLeft())


def test_ctrl_e_exports_while_a_text_field_has_focus(qtbot, make_window, monkeypatch: pytest.MonkeyPatch) -> None:
    import explorer.ui.widgets.export as export

    calls: list[str] = []
    monkeypatch.setattr(export, "run_export_dialog", lambda targets, key, settings, parent: calls.append(key))
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    window.show_panel("field")
    field = window.panel("field").field
    window.activateWindow()
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=2000)
    QTest.keyClick(field, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert calls == ["field"]
    QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)  # editing keys stay the field's
    assert calls == ["field"]


def test_a_panels_status_message_stays_with_its_panel(make_window) -> None:
    window = make_window()
    window.show_panel("field")
    window.show_panel("other")
    window.show_panel("field")
    window.panel("field").status_message.emit("fitted in 3 ms")
    assert window.statusBar().currentMessage() == "fitted in 3 ms"
    window.show_panel("other")
    assert window.statusBar().currentMessage() == ""
    window.panel("field").status_message.emit("a background panel's news")  # not shown on another panel
    assert window.statusBar().currentMessage() == ""
    window.panel("other").status_message.emit("other is ready")
    window.show_panel("field")
    assert window.statusBar().currentMessage() == "a background panel's news"  # its own, still fresh


def test_about_box_shows_the_device_once_the_probe_answers(qtbot, make_window) -> None:
    release = threading.Event()

    def slow_probe() -> str:
        release.wait(10)
        return "cuda:0 (Slow GPU)"

    window = make_window(probe=slow_probe)
    dialog = window.shell_menus.about_dialog()
    qtbot.addWidget(dialog)
    assert "detecting" in dialog.label.text()
    release.set()
    qtbot.waitUntil(lambda: "cuda:0 (Slow GPU)" in dialog.label.text(), timeout=5000)
    assert "detecting" not in dialog.label.text()


def _mean_lightness(widget: QWidget) -> float:
    image = widget.grab().toImage()
    xs = np.linspace(0, image.width() - 1, 24).astype(int)
    ys = np.linspace(0, image.height() - 1, 12).astype(int)
    return float(np.mean([image.pixelColor(int(x), int(y)).lightness() for x in xs for y in ys]))


@pytest.mark.parametrize("start", ["light", "dark"])
def test_dark_theme_reaches_the_sidebar_and_the_menu_bar(qtbot, make_window, start: str) -> None:
    window = make_window()
    window.appearance.set_theme_mode(start)
    window.show()
    qtbot.waitExposed(window)
    window.appearance.set_theme_mode("dark")
    qtbot.wait(50)
    assert _mean_lightness(window.nav) < 100
    assert _mean_lightness(window.menuBar()) < 100
    window.appearance.set_theme_mode("light")
    qtbot.wait(50)
    assert _mean_lightness(window.nav) > 150
    assert _mean_lightness(window.menuBar()) > 150

