"""Positional panel: P, chosen columns, binary analogy, M(δ) check and P Pᵀ follow the controls."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from explorer.ui.panels.positional.positional_panel import PositionalPanel
from explorer.ui.widgets.export import export_target
from layout_checks import settled_problems, window_around


def closed_form_p(steps: int, d: int) -> np.ndarray:
    i = np.arange(steps)[:, None]
    w = 1.0 / 10000 ** (np.arange(0, d, 2) / d)
    P = np.zeros((steps, d))
    P[:, 0::2] = np.sin(i * w)
    P[:, 1::2] = np.cos(i * w[: d // 2])
    return P


@pytest.fixture
def panel(qtbot):
    p = PositionalPanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown(1000)


def _flush(panel: PositionalPanel) -> None:
    panel._recompute_throttled.flush()  # sliders redraw throttled; take the pending call now


def test_defaults_follow_the_book(panel):
    P = closed_form_p(60, 32)
    np.testing.assert_allclose(panel.p_map.image_item.image, P, atol=1e-6)
    np.testing.assert_allclose(panel.p_map.image_item.getLevels(), [-1, 1])
    visible = [c for c in panel.curves if c.isVisible()]
    assert len(visible) == 4
    for k, curve in enumerate(visible):
        x, y = curve.getData()
        np.testing.assert_allclose(y, P[:, 6 + k], atol=1e-6)
    assert [label.text for _, label in panel.curves_legend.items] == ["col 6", "col 7", "col 8", "col 9"]
    np.testing.assert_allclose(panel.offsets.sim_map.image_item.image, P @ P.T, atol=1e-4)
    # the binary analogy: bits of 0..7 beside the first rows of P
    bits, prows = panel.binary_grid.matrices
    np.testing.assert_array_equal(bits, [[(n >> j) & 1 for j in range(3)] for n in range(8)])
    np.testing.assert_allclose(prows, P[:8], atol=1e-6)
    assert panel.binary_grid.plots[0].row_labels[5] == "5 = 101"


def test_dimension_and_steps_change_p(panel):
    panel.dim_spin.setValue(16)
    panel.steps_spin.setValue(30)
    np.testing.assert_allclose(panel.p_map.image_item.image, closed_form_p(30, 16), atol=1e-6)
    assert panel.offsets.sim_map.image_item.image.shape == (30, 30)
    assert panel.offsets.m_map.image_item.image.shape == (16, 16)
    assert panel.row_slider.maximum() == 29 - panel.delta_slider.value()  # i + δ stays a row too


def test_column_choice(panel):
    panel.first_col_spin.setValue(0)
    panel.last_col_spin.setValue(20)  # capped at 8 curves
    assert panel.columns() == list(range(8))
    assert sum(c.isVisible() for c in panel.curves) == 8
    np.testing.assert_allclose(panel.curves[0].getData()[1], np.sin(np.arange(60)), atol=1e-6)
    panel.dim_spin.setValue(4)  # columns clamp to the encoding
    assert panel.columns() == [0, 1, 2, 3]


def test_offset_map_reproduces_shifted_rows(panel):
    panel.delta_slider.setValue(7)
    panel.row_slider.setValue(20)
    _flush(panel)
    P = closed_form_p(60, 32)
    np.testing.assert_allclose(panel.offsets.target_curve.getData()[1], P[27], atol=1e-6)
    np.testing.assert_allclose(panel.offsets.mapped_curve.getData()[1], P[27], atol=1e-5)
    np.testing.assert_allclose(panel.offsets.start_curve.getData()[1], P[20], atol=1e-6)
    M = panel.offsets.m_map.image_item.image
    np.testing.assert_allclose(M @ P[3], P[10], atol=1e-5)  # the same M works from any row
    assert "P[27] vs M(7)P[20]" in panel.offsets.check_plot.getPlotItem().titleLabel.text
    assert "max" in panel.offset_label.text()
    assert panel.p_map.highlighted_row == 20


def test_odd_dimensions_are_explained(panel):
    panel.dim_spin.setValue(31)
    assert "even" in panel.offset_label.text()
    assert panel.offsets.mapped_curve.getData()[1] is None or len(panel.offsets.mapped_curve.getData()[1]) == 0
    assert panel.p_map.image_item.image.shape == (60, 31)  # P itself still drawn
    panel.dim_spin.setValue(32)
    assert "max" in panel.offset_label.text()


def _in_matrix(panel: PositionalPanel) -> bool:
    steps, i, d = panel.steps_spin.value(), panel.row_slider.value(), panel.delta_slider.value()
    return 0 <= i < steps and 0 <= i + d < steps


def test_offset_sliders_keep_i_plus_delta_in_the_matrix(panel):
    """Issue 10: i + δ could leave P and the panel reported an error; now each slider's range follows the other."""
    panel.row_slider.setValue(58)  # with δ = 5 the last possible row is 54
    _flush(panel)
    assert panel.row_slider.value() == 54 and _in_matrix(panel)
    assert panel.delta_slider.maximum() == 5 and panel.delta_slider.minimum() == -54
    panel.delta_slider.setValue(-3)  # a negative offset frees the last rows ...
    panel.row_slider.setValue(59)
    _flush(panel)
    assert (panel.row_slider.value(), panel.delta_slider.value()) == (59, -3) and _in_matrix(panel)
    assert panel.delta_slider.maximum() == 0 and panel.row_slider.minimum() == 3
    panel.delta_slider.setValue(-70)  # ... but not the rows before 0
    _flush(panel)
    assert panel.delta_slider.value() == -59 and _in_matrix(panel)
    panel.steps_spin.setValue(20)  # fewer positions clamp both
    _flush(panel)
    assert _in_matrix(panel) and panel.row_slider.maximum() <= 19
    assert "max" in panel.offset_label.text() and panel.inline_message() == ""
    for steps in (2, 7, 60):
        panel.steps_spin.setValue(steps)
        for i, d in ((0, -5), (steps - 1, 3), (steps // 2, steps), (1, -1)):
            panel.row_slider.setValue(i)
            panel.delta_slider.setValue(d)
            _flush(panel)
            assert _in_matrix(panel), (steps, i, d)
            assert "must both lie" not in panel.offset_label.text()


def test_settings_round_trip(panel, qtbot, tmp_path):
    panel.dim_spin.setValue(64)  # beyond the default ranges of the columns and rows
    panel.steps_spin.setValue(100)
    panel.first_col_spin.setValue(40)
    panel.last_col_spin.setValue(44)
    panel.delta_slider.setValue(-4)
    panel.row_slider.setValue(83)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    other = PositionalPanel()
    qtbot.addWidget(other)
    other.restore_settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    values = [w.value() for w in other.controls.values()]
    assert values == [64, 100, 40, 44, -4, 83]
    np.testing.assert_allclose(other.p_map.image_item.image, closed_form_p(100, 64), atol=1e-6)
    np.testing.assert_allclose(other.offsets.target_curve.getData()[1], closed_form_p(100, 64)[79], atol=1e-6)
    assert other.columns() == [40, 41, 42, 43, 44]
    other.shutdown(1000)


def test_export_all_plots_and_dark_theme(panel, tmp_path):
    targets = panel.export_targets()
    assert [t.name for t in targets] == ["P", "columns", "binary", "offset_matrix", "offset_check", "similarity"]
    for t in targets:
        for fmt in ("png", "svg", "csv"):
            assert export_target(t, tmp_path / f"{t.name}.{fmt}", fmt).stat().st_size > 50
    header, data = targets[1].csv()
    assert header == ["position", "col6", "col7", "col8", "col9"] and data.shape == (60, 5)
    panel.apply_theme(True)
    assert panel.curves_plot.backgroundBrush().color().lightness() < 50
    assert panel.p_map.backgroundBrush().color().lightness() < 50


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_both_tabs_fit_a_1024x700_window(qtbot):
    """Issue 10: the panel needed 1220 px and squeezed six plots into slivers."""
    p = PositionalPanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    for tab in range(p.tabs.count()):
        p.tabs.setCurrentIndex(tab)
        for dim in (32, 128, 31):
            p.dim_spin.setValue(dim)
            assert settled_problems(qtbot, window, p) == [], (tab, dim)
    p.shutdown(1000)
