"""Main window: lazy navigation, error pages, menus, drops, themes, settings round-trip, careful close."""
from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMenu

from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_stack import ErrorPage
from explorer.ui.shell.panel_registry import PANELS, PanelSpec
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.settings import AppSettings

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
FAKE_MODULE = "fake_explorer_panels_for_tests"


class FakePanel(BasePanel):
    """Records every hook the shell calls; holds one plot and one remembered value."""

    key = "alpha"
    title = "Alpha"
    formula_html = "softmax(<b>q</b>·<b>k</b>)"
    explanation_html = "An explanation."
    built: list[str] = []

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        type(self).built.append(self.key)
        self.value = 1
        self.calls: list[tuple] = []
        self.busy: str | None = None
        self.plot = pg.PlotWidget()
        self.plot.plot([0, 1, 2], [1, 3, 2])
        self.body_layout.addWidget(self.plot)
        self.menu = QMenu(f"{self.title} tools", self)

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue(self.settings_key("value"), self.value)

    def restore_settings(self, settings: QSettings) -> None:
        self.value = int(settings.value(self.settings_key("value"), 1))

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("curve", self.plot, lambda: (["x"], np.arange(3.0)))]

    def panel_menu(self) -> QMenu:
        return self.menu

    def handle_drop(self, paths: list[str]) -> bool:
        self.calls.append(("drop", paths))
        return True

    def busy_reason(self) -> str | None:
        return self.busy

    def shutdown(self, timeout_ms: int) -> None:
        self.calls.append(("shutdown", timeout_ms))

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.calls.append(("theme", dark))


class BetaPanel(FakePanel):
    key, title = "beta", "Beta"


class ExplodingPanel(BasePanel):
    key, title = "boom", "Boom"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        raise RuntimeError("constructor failed")


FAKES = (
    PanelSpec("alpha", "Alpha", f"{FAKE_MODULE}:FakePanel"),
    PanelSpec("beta", "Beta", f"{FAKE_MODULE}:BetaPanel"),
    PanelSpec("missing", "Missing", "explorer.ui.panels.no_such_panel:Nothing"),
    PanelSpec("boom", "Boom", f"{FAKE_MODULE}:ExplodingPanel"),
)


@pytest.fixture
def fake_module(monkeypatch: pytest.MonkeyPatch):
    module = types.ModuleType(FAKE_MODULE)
    module.FakePanel, module.BetaPanel, module.ExplodingPanel = FakePanel, BetaPanel, ExplodingPanel
    monkeypatch.setitem(sys.modules, FAKE_MODULE, module)
    FakePanel.built = []
    return module


@pytest.fixture
def make_window(qtbot, fake_module, tmp_path: Path):
    def make(panels=FAKES) -> MainWindow:
        window = MainWindow(AppSettings(tmp_path), panels=panels, device_probe=lambda: "test-device",
                            probe_after_module=None)
        qtbot.addWidget(window)
        window.confirm_close = lambda reasons: True
        return window

    return make


def test_panels_are_built_lazily_and_once(make_window) -> None:
    window = make_window()
    assert window.current_key() == "alpha" and FakePanel.built == []
    window.show_panel("beta")
    assert FakePanel.built == ["beta"]
    assert window.stack.currentWidget() is window.panel("beta")
    window.show_panel("alpha")
    window.show_panel("beta")
    assert FakePanel.built == ["beta", "alpha"]
    assert window.nav.currentRow() == 1


def test_broken_panels_become_error_pages(make_window) -> None:
    window = make_window()
    window.build_all_panels()
    assert isinstance(window.page("missing"), ErrorPage)
    assert "no_such_panel" in window.panel_error("missing")
    assert window.panel_error("boom") == "RuntimeError: constructor failed"
    assert window.panel("boom") is None and window.panel("alpha") is not None
    window.show_panel("boom")
    assert window.stack.currentWidget() is window.page("boom")


def test_navigation_list_and_shortcut_actions_switch_panels(qtbot, make_window) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.panel("alpha") is not None, timeout=3000)  # built after first paint
    with qtbot.waitSignal(window.panel_changed, timeout=1000) as blocker:
        window.nav.setCurrentRow(1)
    assert blocker.args == ["beta"] and window.panel("beta") is None  # "Opening Beta…" paints first
    assert window.stack.currentWidget().text() == "Opening Beta…"
    qtbot.waitUntil(lambda: window.panel("beta") is not None, timeout=3000)
    assert window.stack.currentWidget() is window.panel("beta")
    action = window.menu_actions.panels[0]
    assert action.shortcut().toString() == "Ctrl+1"
    action.trigger()
    assert window.current_key() == "alpha" and window.nav.currentRow() == 0
    assert window.stack.currentWidget() is window.panel("alpha")
    qtbot.waitUntil(lambda: window.device_label.name == "test-device", timeout=3000)
    assert "test-device" in window.device_label.text()


def test_torch_library_loads_ahead_once_the_first_panel_has_settled(qtbot, make_window) -> None:
    from explorer.ui.shell.torch_warmup import TorchWarmup

    window = make_window()
    loads: list[bool] = []
    # One that records that it would load (on the worker: no Qt object touched), whether or not this test process has
    # imported torch yet
    window.torch_warmup = TorchWarmup(lambda: window.stack.panel(window.current_key()), window,
                                      load=lambda: loads.append(True) or True, needed=lambda: True)
    window.show()
    qtbot.waitUntil(window.torch_warmup.done.is_set, timeout=3000)
    assert loads == [True] and window.current_key() == "alpha" and window.panel("alpha") is not None


def test_panel_menu_is_shown_only_with_its_panel(make_window) -> None:
    window = make_window()
    window.show_panel("alpha")
    assert "Alpha tools" in window.shell_menus.panel_menu_titles()
    window.show_panel("beta")
    titles = window.shell_menus.panel_menu_titles()
    assert "Beta tools" in titles and "Alpha tools" not in titles
    assert titles[-1] == "&Help"


def test_status_messages_and_drops_reach_the_right_place(make_window) -> None:
    window = make_window()
    window.show_panel("beta")
    window.panel("beta").status_message.emit("fitted in 3 ms")
    assert window.statusBar().currentMessage() == "fitted in 3 ms"
    assert window.drop_paths(["/tmp/fra.txt"]) is True
    assert ("drop", ["/tmp/fra.txt"]) in window.panel("beta").calls
    window.show_panel("missing")
    assert window.drop_paths(["/tmp/fra.txt"]) is False
    assert "does not open" in window.statusBar().currentMessage()


def test_theme_switch_restyles_loaded_panels(qtbot, make_window) -> None:
    window = make_window()
    window.show_panel("alpha")
    window.appearance.set_theme_mode("dark")
    panel = window.panel("alpha")
    assert panel.dark and ("theme", True) in panel.calls
    assert panel.plot.backgroundBrush().color().lightness() < 80
    qtbot.waitUntil(lambda: window.palette().window().color().lightness() < 100, timeout=1000)
    window.appearance.set_theme_mode("light")
    assert panel.plot.backgroundBrush().color().lightness() > 200
    assert window.settings.theme == "light"
    window.show_panel("beta")  # built later: gets the current theme at once
    assert ("theme", False) in window.panel("beta").calls


def test_explanation_toggle_applies_to_every_panel(make_window) -> None:
    window = make_window()
    window.build_all_panels()
    window.menu_actions.explanation.setChecked(False)
    assert not window.panel("alpha").explanation_visible()
    assert not window.panel("beta").explanation_visible()
    window.panel("beta").explanation_box.toggleButton().click()  # unfolding one box by hand: the others follow
    assert window.menu_actions.explanation.isChecked() and window.panel("alpha").explanation_visible()


def test_settings_round_trip(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    window.show_panel("beta")
    window.resize(700, 500)  # the offscreen screen is 800 x 600; restoring clamps to it
    window.appearance.set_theme_mode("dark")
    window.menu_actions.explanation.setChecked(False)
    window.panel("beta").value = 7
    window.close()
    again = make_window()
    assert again.current_key() == "beta"
    assert (again.width(), again.height()) == (700, 500)
    assert again.settings.theme == "dark" and again.appearance.dark
    again.show_panel("beta")
    assert again.panel("beta").value == 7
    assert not again.panel("beta").explanation_visible()


def test_close_asks_when_busy_and_shuts_panels_down_once(make_window) -> None:
    window = make_window()
    window.build_all_panels()
    asked: list[list[str]] = []
    window.panel("beta").busy = "Training is running (epoch 3 of 200)."
    window.confirm_close = lambda reasons: asked.append(reasons) or False
    event = QCloseEvent()
    window.closeEvent(event)
    assert not event.isAccepted() and asked == [["Training is running (epoch 3 of 200)."]]
    assert ("shutdown", 1000) not in window.panel("beta").calls
    window.confirm_close = lambda reasons: True
    window.closeEvent(QCloseEvent())
    window.closeEvent(QCloseEvent())
    for key in ("alpha", "beta"):
        assert window.panel(key).calls.count(("shutdown", 1000)) == 1


def test_about_dialog_names_versions_and_device(qtbot, make_window) -> None:
    from explorer.ui.shell.about_dialog import AboutDialog

    window = make_window()
    dialog = AboutDialog("cuda:0 (Test GPU)", window)
    text = dialog.label.text()
    for name in ("Python", "Qt", "PySide6", "pyqtgraph", "torch", "cuda:0 (Test GPU)"):
        assert name in text


@pytest.mark.parametrize("spec", PANELS, ids=[spec.key for spec in PANELS])
def test_real_registry_panel_builds(make_window, spec: PanelSpec) -> None:
    window = make_window(PANELS)
    window.show_panel(spec.key)
    assert window.panel_error(spec.key) is None
    panel = window.panel(spec.key)
    assert isinstance(panel, BasePanel) and panel.key == spec.key
    assert panel.title and window.stack.currentWidget() is panel
    for target in panel.export_targets():
        assert isinstance(target, ExportTarget)
    window.close()


def test_keyboard_shortcuts_are_declared(make_window) -> None:
    window = make_window()
    assert window.menu_actions.export.shortcut().toString() == "Ctrl+E"
    shortcuts = {a.shortcut().toString() for m in window.menuBar().findChildren(QMenu) for a in m.actions()}
    assert {"Ctrl+Q", "Ctrl+E", "Ctrl+1", "Ctrl+2", "Ctrl+I"} <= shortcuts
    assert window.nav.count() == len(FAKES)
    assert window.nav.item(0).text() == "1. Alpha"
    assert Qt.ColorScheme.Dark != Qt.ColorScheme.Light  # the enum the theme follows exists


def test_export_action_offers_the_current_panels_targets(make_window, monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    import explorer.ui.widgets.export as export

    seen: list[tuple[list[str], str]] = []

    def fake_dialog(targets, panel_key, settings, parent):
        seen.append(([t.name for t in targets], panel_key))
        return tmp_path / "x.png"

    monkeypatch.setattr(export, "run_export_dialog", fake_dialog)
    window = make_window()
    window.show_panel("missing")
    window.menu_actions.export.trigger()
    assert seen == [] and "no plot" in window.statusBar().currentMessage()
    window.show_panel("beta")
    window.menu_actions.export.trigger()
    assert seen == [(["curve"], "beta")]
    assert "x.png" in window.statusBar().currentMessage()


def test_dropping_files_on_the_window_reaches_the_panel(make_window, tmp_path: Path) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    window = make_window()
    window.show_panel("alpha")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path / "fra-eng.zip"))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert ("drop", [str(tmp_path / "fra-eng.zip")]) in window.panel("alpha").calls


def test_system_theme_follows_the_platform_scheme(make_window) -> None:
    window = make_window()
    window.show_panel("alpha")
    window.appearance.set_theme_mode("system")
    window.appearance._on_style_hints_color_scheme_changed(Qt.ColorScheme.Dark)
    assert window.appearance.dark and window.panel("alpha").dark
    window.appearance.set_theme_mode("light")
    window.appearance._on_style_hints_color_scheme_changed(Qt.ColorScheme.Dark)  # an explicit choice wins
    assert not window.appearance.dark


def test_device_probe_waits_for_its_module_unless_forced(qtbot) -> None:
    from explorer.ui.shell.about_dialog import DeviceStatus

    label = DeviceStatus(lambda: "cuda:0 (Fake)", after_module="module_nobody_imports_xyz")
    qtbot.addWidget(label)
    label.maybe_start()
    qtbot.wait(20)
    assert label.text() == "Device: not detected yet"
    with qtbot.waitSignal(label.detected, timeout=3000) as blocker:
        label.maybe_start(force=True)
    assert blocker.args == ["cuda:0 (Fake)"] and label.text() == "Device: cuda:0 (Fake)"
    failing = DeviceStatus(lambda: 1 / 0, after_module=None)
    qtbot.addWidget(failing)
    with qtbot.waitSignal(failing.detected, timeout=3000):
        failing.maybe_start()
    assert failing.name.startswith("unknown (")


def test_device_description_names_a_real_device() -> None:
    from explorer.ui.shell.about_dialog import device_description

    assert device_description().split(":")[0].split(" ")[0] in {"cpu", "cuda", "mps"}
