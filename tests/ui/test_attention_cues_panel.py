"""Attention cues panel (book §11.1): dragging the query redraws bars, lines and heatmap with the softmax of the
chosen scores; the temperature's limits; the identity heatmap; settings, export, dark theme, 1024×700."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPointF, QSettings, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from explorer.core.chapter.attention_cues import cue_set, pooling_field, scores
from explorer.ui.panels.attention_cues.attention_cues_panel import AttentionCuesPanel
from explorer.ui.widgets.export import export_target
from layout_checks import settled_problems, window_around


@pytest.fixture
def panel(qtbot):
    p = AttentionCuesPanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown(1000)


def expected_weights(panel: AttentionCuesPanel, query: tuple[float, float]) -> np.ndarray:
    cues = cue_set(panel.keys_spin.value(), panel.seed_spin.value())
    a = scores(np.array([query]), cues, panel.scorer_combo.currentText())[0] / panel.temperature_slider.value()
    e = np.exp(a - a.max())
    return e / e.sum()


def bar_heights(panel: AttentionCuesPanel) -> np.ndarray:
    return np.asarray(panel.bars.opts["height"], dtype=float)


def test_defaults_and_query_moves(panel, qtbot) -> None:
    assert panel.scorer_combo.currentText() == "gaussian" and len(panel.cues.keys) == 6
    qtbot.waitUntil(lambda: panel.plane.field.image is not None and not panel.field_runner.is_busy(), timeout=5000)
    field = pooling_field(panel.cues, "gaussian", panel.temperature_slider.value())  # computed off the GUI thread
    np.testing.assert_allclose(panel.plane.field.image, field[::-1], rtol=1e-5)  # image row 0 = top of the plane
    np.testing.assert_allclose(bar_heights(panel), expected_weights(panel, (0.5, -0.5)), rtol=1e-9)
    panel.plane.move_query(-1.25, 2.0)  # as a drag or a click on the plane does
    assert (panel.x_spin.value(), panel.y_spin.value()) == (-1.25, 2.0)
    w = expected_weights(panel, (-1.25, 2.0))
    np.testing.assert_allclose(bar_heights(panel), w, rtol=1e-9)
    np.testing.assert_allclose(panel.heatmap.matrix[0], w, rtol=1e-6)  # row q of the heatmap
    assert panel.heatmap.row_labels[:2] == ["q", "q=k0"] and panel.heatmap.highlighted_row == 0
    sizes = panel.plane.keys_item.data["size"]
    assert np.argmax(sizes) == np.argmax(w)  # the biggest key is the heaviest
    assert f"{panel.result.output:.2f}" in panel.bars_plot.getPlotItem().titleLabel.text
    panel.plane.move_query(10, -10)  # never leaves the plane
    assert (panel.x_spin.value(), panel.y_spin.value()) == (3.0, -3.0)
    panel.x_spin.setValue(0.25)  # typing moves the target
    assert panel.plane.query.pos().x() == pytest.approx(0.25)


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_dragging_the_target_with_the_mouse(qtbot) -> None:
    panel = AttentionCuesPanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    view = panel.plane
    vb = view.getPlotItem().vb

    def to_widget(x: float, y: float) -> QPointF:
        return QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(x, y))))

    start, end = to_widget(0.5, -0.5), to_widget(-1.0, 1.0)
    viewport = view.viewport()
    for kind, pos, buttons in ((QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton),
                               (QEvent.Type.MouseMove, (start + end) / 2, Qt.MouseButton.LeftButton),
                               (QEvent.Type.MouseMove, end, Qt.MouseButton.LeftButton),
                               (QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)):
        event = QMouseEvent(kind, pos, viewport.mapToGlobal(pos), Qt.MouseButton.LeftButton, buttons,
                            Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(viewport, event)
    assert panel.x_spin.value() == pytest.approx(-1.0, abs=0.05)
    assert panel.y_spin.value() == pytest.approx(1.0, abs=0.05)
    np.testing.assert_allclose(bar_heights(panel), expected_weights(panel, panel.query()), rtol=1e-9)
    click = to_widget(2.0, -2.0)  # a click elsewhere on the plane puts the query there
    for kind, buttons in ((QEvent.Type.MouseButtonPress, Qt.MouseButton.LeftButton),
                          (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton)):
        QApplication.sendEvent(viewport, QMouseEvent(kind, click, viewport.mapToGlobal(click), Qt.MouseButton.LeftButton,
                                                     buttons, Qt.KeyboardModifier.NoModifier))
    assert panel.query() == pytest.approx((2.0, -2.0), abs=0.05)
    panel.shutdown(1000)


@pytest.mark.parametrize("scorer", ["dot product", "scaled dot product", "additive", "gaussian"])
def test_scorer_and_temperature_limits(panel, scorer: str) -> None:
    panel.scorer_combo.setCurrentText(scorer)
    np.testing.assert_allclose(bar_heights(panel), expected_weights(panel, panel.query()), rtol=1e-9)
    a = scores(np.array([panel.query()]), panel.cues, scorer)[0]
    panel.temperature_slider.set_value(0.01)
    panel.recompute()
    assert bar_heights(panel)[np.argmax(a)] > 0.99  # T → 0: one-hot on the best key
    panel.temperature_slider.slider.setValue(panel.temperature_slider.slider.maximum())  # T = 100, as a drag does
    panel._recompute_throttled.flush()
    assert panel.temperature_slider.value() == pytest.approx(100)
    assert np.ptp(bar_heights(panel)) < 0.1  # T → ∞: nearly uniform


def test_identity_heatmap_and_keys(panel) -> None:
    panel.heatmap_combo.setCurrentIndex(1)
    np.testing.assert_array_equal(panel.heatmap.matrix, np.eye(6))
    assert panel.heatmap.row_labels == [f"q{i}" for i in range(6)] and panel.heatmap.highlighted_row is None
    panel.keys_spin.setValue(9)
    assert panel.heatmap.matrix.shape == (9, 9) and len(bar_heights(panel)) == 9
    assert sum(label.isVisible() for label in panel.plane.labels) == 9
    panel.keys_spin.setValue(3)
    assert sum(label.isVisible() for label in panel.plane.labels) == 3
    panel.field_check.setChecked(False)
    assert not panel.plane.field.isVisible()


def test_settings_round_trip(panel, qtbot, tmp_path) -> None:
    panel.scorer_combo.setCurrentText("additive")
    panel.keys_spin.setValue(8)
    panel.seed_spin.setValue(5)
    panel.plane.move_query(-2.0, 1.5)
    panel.temperature_slider.set_value(0.3)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    other = AttentionCuesPanel()
    qtbot.addWidget(other)
    other.restore_settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert (other.scorer_combo.currentText(), other.keys_spin.value(), other.seed_spin.value()) == ("additive", 8, 5)
    assert other.query() == (-2.0, 1.5) and other.temperature_slider.value() == pytest.approx(0.3, rel=0.02)
    np.testing.assert_allclose(bar_heights(other), expected_weights(other, (-2.0, 1.5)), rtol=1e-9)
    assert other.plane.query.pos().x() == pytest.approx(-2.0)
    other.shutdown(1000)


def test_export_and_dark_theme(panel, tmp_path) -> None:
    targets = panel.export_targets()
    assert [t.name for t in targets] == ["plane", "weights", "heatmap"]
    for t in targets:
        for fmt in ("png", "svg", "csv"):
            assert export_target(t, tmp_path / f"{t.name}.{fmt}", fmt).stat().st_size > 50
    header, data = targets[0].csv()
    assert header == ["key", "x", "y", "value", "score", "weight"] and data.shape == (6, 6)
    np.testing.assert_allclose(data[:, 5].sum(), 1.0)
    panel.apply_theme(True)
    assert panel.plane.backgroundBrush().color().lightness() < 50
    assert panel.bars_plot.backgroundBrush().color().lightness() < 50


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_fits_a_1024x700_window(qtbot) -> None:
    p = AttentionCuesPanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    for keys, mode in ((6, 0), (12, 0), (12, 1)):
        p.keys_spin.setValue(keys)
        p.heatmap_combo.setCurrentIndex(mode)
        assert settled_problems(qtbot, window, p) == [], (keys, mode)
    p.shutdown(1000)


def test_colour_blind_palette_recolours_field_and_keys(panel) -> None:
    from explorer.ui.palette import restyle_maps

    restyle_maps(panel, "colour_blind")
    assert panel.plane.field.getColorMap().name == "CET-CBL2"
    values = panel.cues.values
    top = int(np.argmax(values))
    expected = pg.colormap.get("CET-CBL2").map(1.0, mode="qcolor")
    assert panel.plane.keys_item.points()[top].brush().color().name() == expected.name()
    restyle_maps(panel, "standard")
    assert panel.plane.field.getColorMap().name == "CET-L17"
