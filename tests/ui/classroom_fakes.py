"""Fake panels and a window factory for the classroom tests (presenter mode, palette, lock, lessons, exports)."""
from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (QCheckBox, QLabel, QLineEdit, QScrollArea, QSlider, QSpinBox, QTabWidget, QVBoxLayout,
                               QWidget)

from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_registry import PanelSpec
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.settings import AppSettings, coerce
from explorer.ui.widgets.heatmap_grid_widget import HeatmapGridWidget
from explorer.ui.widgets.heatmap_widget import HeatmapWidget

MODULE = "fake_classroom_panels_for_tests"


class MapsPanel(BasePanel):
    """A heatmap, a heatmap grid, a curve on a hidden tab, and controls in a scrolling column."""

    key, title = "maps", "Maps"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heatmap = HeatmapWidget(title="weights")
        self.heatmap.set_matrix(np.eye(4, dtype=np.float32) * 0.8 + 0.05, list("abcd"), list("wxyz"))
        self.grid = HeatmapGridWidget()
        self.grid.set_matrices(np.full((2, 3, 3), 0.5, dtype=np.float32), titles=["one", "two"])
        self.curve = pg.PlotWidget()
        self.curve_item = self.curve.plot([0, 1, 2], [1, 3, 2], pen=pg.mkPen("r", width=2))
        self.tabs = QTabWidget()
        self.tabs.addTab(self.heatmap, "Heatmap")
        self.tabs.addTab(self.curve, "Curve")  # not current: Export all must bring it forward to draw it
        self.spin, self.check, self.text, self.slider = QSpinBox(), QCheckBox("on"), QLineEdit("hello"), QSlider()
        self.spin.setRange(0, 99)
        self.spin.setValue(7)
        self.slider.setOrientation(Qt.Orientation.Horizontal)
        self.big_label = QLabel("Big")
        font = self.big_label.font()
        font.setPointSizeF(20)
        self.big_label.setFont(font)
        column = QWidget()
        layout = QVBoxLayout(column)
        for widget in (self.spin, self.check, self.text, self.slider, self.big_label):
            layout.addWidget(widget)
        self.scroll = QScrollArea()
        self.scroll.setWidget(column)
        self.scroll.setWidgetResizable(True)
        self.body_layout.addWidget(self.scroll)
        self.body_layout.addWidget(self.tabs, 1)
        self.body_layout.addWidget(self.grid, 1)

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue(self.settings_key("spin"), self.spin.value())
        settings.setValue(self.settings_key("check"), self.check.isChecked())
        settings.setValue(self.settings_key("text"), self.text.text())

    def restore_settings(self, settings: QSettings) -> None:
        self.spin.setValue(coerce(settings.value(self.settings_key("spin")), self.spin.value()))
        self.check.setChecked(coerce(settings.value(self.settings_key("check")), self.check.isChecked()))
        self.text.setText(coerce(settings.value(self.settings_key("text")), self.text.text()))

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("weights", self.heatmap, self.heatmap.csv_table),
                ExportTarget("curve", self.curve.getPlotItem(), lambda: (["y"], np.array([1.0, 3.0, 2.0]))),
                ExportTarget("grid", self.grid, None)]


class OtherPanel(MapsPanel):
    key, title = "other", "Other"


SPECS = (PanelSpec("maps", "Maps", f"{MODULE}:MapsPanel"), PanelSpec("other", "Other", f"{MODULE}:OtherPanel"))


def install_module(monkeypatch, extra: dict[str, type] | None = None) -> None:
    module = types.ModuleType(MODULE)
    module.MapsPanel, module.OtherPanel = MapsPanel, OtherPanel
    for name, cls in (extra or {}).items():
        setattr(module, name, cls)
    monkeypatch.setitem(sys.modules, MODULE, module)


def make_window(qtbot, monkeypatch, folder: Path, specs: tuple[PanelSpec, ...] = SPECS,
                extra: dict[str, type] | None = None) -> MainWindow:
    """A main window over the fake panels (and ``extra`` classes), its settings in ``folder``, no dialogs."""
    install_module(monkeypatch, extra)
    window = MainWindow(AppSettings(folder), panels=specs, device_probe=lambda: "test-device",
                        probe_after_module=None)
    qtbot.addWidget(window)
    window.confirm_close = lambda reasons: True
    window.classroom.show_dialogs = False
    window.resize(1000, 700)
    return window
