"""Presenter mode (full screen, fonts and pens scaled, remembered scale), the colour-blind-safe palette on every
map, and View → Lock controls (inputs ignore clicks, the view and shortcuts stay)."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from classroom_fakes import make_window
from explorer.render.colormaps import resolve
from explorer.ui.settings import AppSettings

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def test_presenter_mode_scales_fonts_and_pens_and_restores_them(qtbot, monkeypatch, tmp_path: Path) -> None:
    window = make_window(qtbot, monkeypatch, tmp_path)
    window.show()
    window.show_panel("maps")
    panel = window.panel("maps")
    app_pt = QApplication.font().pointSizeF()
    label_pt = panel.big_label.font().pointSizeF()
    action = window.menu_actions.classroom.presenter
    assert action.shortcut().toString() == "F11"
    window.classroom.set_presenter_scale(2.0)
    action.setChecked(True)
    assert window.isFullScreen()
    assert QApplication.font().pointSizeF() == pytest.approx(2 * app_pt)
    assert panel.big_label.font().pointSizeF() == pytest.approx(2 * label_pt)  # a font of its own
    assert panel.curve_item.opts["pen"].widthF() == pytest.approx(4.0)
    window.show_panel("other")  # built while presenting: scaled at once
    assert window.panel("other").big_label.font().pointSizeF() == pytest.approx(2 * label_pt)
    window.classroom.set_presenter_scale(1.5)
    assert panel.curve_item.opts["pen"].widthF() == pytest.approx(3.0)
    action.setChecked(False)
    assert not window.isFullScreen()
    assert QApplication.font().pointSizeF() == pytest.approx(app_pt)
    assert panel.big_label.font().pointSizeF() == pytest.approx(label_pt)
    assert panel.curve_item.opts["pen"].widthF() == pytest.approx(2.0)
    assert AppSettings(tmp_path).presenter_scale == 1.5  # remembered
    assert [a.isChecked() for a in window.menu_actions.classroom.scale_group.actions()] == [False, True, False, False]


def test_colour_blind_palette_reaches_every_map_and_is_remembered(qtbot, monkeypatch, tmp_path: Path) -> None:
    window = make_window(qtbot, monkeypatch, tmp_path)
    window.show_panel("maps")
    panel = window.panel("maps")
    assert panel.heatmap.image_item.getColorMap().name == "viridis"
    window.menu_actions.classroom.colour_blind.setChecked(True)
    assert panel.heatmap.image_item.getColorMap().name == "cividis"
    assert panel.heatmap.color_bar.colorMap().name == "cividis"
    assert panel.grid.color_bar.colorMap().name == "cividis"
    assert all(p.image_item.getColorMap().name == "cividis" for p in panel.grid.plots)
    panel.grid.set_matrices([[[0.1, 0.9]]] * 3, titles=list("abc"))  # tiles built later keep the palette
    assert all(p.image_item.getColorMap().name == "cividis" for p in panel.grid.plots)
    window.appearance.set_theme_mode("dark")  # a theme change never loses it
    assert panel.heatmap.image_item.getColorMap().name == "cividis"
    window.show_panel("other")
    assert window.panel("other").heatmap.image_item.getColorMap().name == "cividis"
    assert AppSettings(tmp_path).palette == "colour_blind"
    window.menu_actions.classroom.colour_blind.setChecked(False)
    assert panel.heatmap.image_item.getColorMap().name == "viridis"
    assert panel.grid.color_bar.colorMap().name == "viridis"


def test_palette_table_switches_both_ways() -> None:
    assert resolve("viridis", "colour_blind") == "cividis" and resolve("cividis", "standard") == "viridis"
    assert resolve("CET-D1", "colour_blind") == "CET-CBD1" and resolve("CET-CBD1", "colour_blind") == "CET-CBD1"
    assert resolve("magma", "colour_blind") == "magma"  # no partner: unchanged


def test_locked_controls_ignore_input_but_the_view_and_scrolling_stay(qtbot, monkeypatch, tmp_path: Path) -> None:
    window = make_window(qtbot, monkeypatch, tmp_path)
    window.show()
    qtbot.waitExposed(window)
    window.show_panel("maps")
    panel = window.panel("maps")
    lock = window.classroom.lock
    window.menu_actions.classroom.lock.setChecked(True)
    assert lock.locked and lock.indicator.isVisible()
    assert lock.indicator.text() == "Controls locked"
    qtbot.mouseClick(panel.check, Qt.MouseButton.LeftButton, pos=QPoint(8, panel.check.height() // 2))
    assert not panel.check.isChecked()
    assert "locked" in window.statusBar().currentMessage()
    panel.text.setFocus()
    qtbot.keyClicks(panel.text, "xyz")
    assert panel.text.text() == "hello"
    assert panel.spin.isEnabled() and panel.check.isEnabled()  # they look as they did: nothing is disabled
    assert not lock.is_locked_control(panel.scroll.verticalScrollBar())
    assert not lock.is_locked_control(panel.heatmap)  # plots stay interactive (hover readouts)
    assert not lock.is_locked_control(window.nav)  # navigation stays
    window.menu_actions.classroom.lock.setChecked(False)
    assert not lock.indicator.isVisible()
    qtbot.mouseClick(panel.check, Qt.MouseButton.LeftButton, pos=QPoint(8, panel.check.height() // 2))
    assert panel.check.isChecked()
