"""Tests for the kernel regression panel (book §11.2): what its plot items hold after user actions."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtTest import QTest

from explorer.core.chapter.kernel_regression import make_data, nadaraya_watson
from explorer.ui.panels.kernel_regression.kernel_regression_panel import KernelRegressionPanel
from layout_checks import settled_problems, window_around


@pytest.fixture
def panel(qtbot):
    p = KernelRegressionPanel()
    qtbot.addWidget(p)
    p.resize(1200, 800)
    yield p
    p.shutdown(2000)


def shown(qtbot, p: KernelRegressionPanel) -> KernelRegressionPanel:
    p.show()
    qtbot.waitExposed(p)
    qtbot.wait(50)  # let the plots settle their layout and view ranges
    return p


def curve(item) -> tuple[np.ndarray, np.ndarray]:
    x, y = item.getData()
    return np.asarray(x), np.asarray(y)


def view_point(plot_widget, x: float, y: float) -> QPoint:
    """Widget pixel of data point (x, y) in a PlotWidget."""
    vb = plot_widget.getPlotItem().getViewBox()
    return plot_widget.mapFromScene(vb.mapViewToScene(QPointF(x, y)))


def test_default_view_is_the_books_fit(panel) -> None:
    d = make_data()
    pred, weights = nadaraya_watson(d.x_train, d.y_train, d.x_test, "gaussian", 1.0)
    x, y = curve(panel.fit_item)
    np.testing.assert_allclose(x, d.x_test)
    np.testing.assert_allclose(y, pred, rtol=1e-6)
    np.testing.assert_allclose(curve(panel.truth_item)[1], d.y_truth)
    np.testing.assert_allclose(panel.heatmap.matrix, weights, rtol=1e-6)
    assert panel.heatmap.matrix.shape == (50, 50)
    pts = panel.points_item.getData()
    np.testing.assert_allclose(pts[0], d.x_train)


def test_bandwidth_slider_refits_while_dragging(panel) -> None:
    before = curve(panel.fit_item)[1].copy()
    kernel_before = curve(panel.kernel_item)[1].copy()
    slider = panel.bandwidth_slider.slider
    slider.setSliderDown(True)  # as during a drag: every value change refits at once
    for step in (slider.value() - 40, slider.value() - 120):
        slider.setValue(step)
        d = make_data()
        ref, ref_w = nadaraya_watson(d.x_train, d.y_train, d.x_test, "gaussian", panel.bandwidth)
        np.testing.assert_allclose(curve(panel.fit_item)[1], ref, rtol=1e-5)
        np.testing.assert_allclose(panel.heatmap.matrix, ref_w, rtol=1e-5, atol=1e-7)
    slider.setSliderDown(False)
    assert panel.bandwidth < 0.6
    assert not np.allclose(curve(panel.fit_item)[1], before)
    # a narrower kernel in the inset: less mass away from 0
    assert curve(panel.kernel_item)[1].sum() < kernel_before.sum()
    assert panel.bandwidth_slider.label.text() == f"h = {panel.bandwidth:.3g}"


def test_kernel_choice_changes_weights(panel) -> None:
    panel.set_bandwidth(0.5)
    panel.kernel_combo.setCurrentText("boxcar")
    w = panel.heatmap.matrix
    d = make_data()
    inside = np.abs(d.x_test[:, None] - d.x_train[None, :]) < panel.bandwidth
    np.testing.assert_array_equal(w > 0, inside)
    np.testing.assert_allclose(w[inside], (1 / inside.sum(axis=1, keepdims=True)).repeat(50, 1)[inside], rtol=1e-5)
    kx, ky = curve(panel.kernel_item)
    np.testing.assert_array_equal(ky, (np.abs(kx / panel.bandwidth) < 1).astype(float))


def test_data_controls_regenerate(panel) -> None:
    panel.n_train_spin.setValue(80)
    panel.n_test_spin.setValue(30)
    assert panel.heatmap.matrix.shape == (30, 80)
    assert len(panel.points_item.getData()[0]) == 80
    y_before = panel.points_item.getData()[1].copy()
    panel.seed_spin.setValue(9)
    assert not np.allclose(panel.points_item.getData()[1], y_before)
    panel.noise_spin.setValue(0.0)
    x, y = panel.points_item.getData()
    np.testing.assert_allclose(y, 2 * np.sin(x) + x ** 0.8, rtol=1e-5)


@pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform's note when a window is shown
def test_dragging_a_training_point_moves_the_fit(qtbot, panel) -> None:
    shown(qtbot, panel)
    panel.set_bandwidth(0.3)
    i = 20
    x0, y0 = float(panel.x_train[i]), float(panel.y_train[i])
    before = curve(panel.fit_item)[1].copy()
    viewport = panel.fit_plot.viewport()
    start = view_point(panel.fit_plot, x0, y0)
    end = view_point(panel.fit_plot, x0, y0 + 3)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for k in range(1, 6):
        QTest.mouseMove(viewport, start + (end - start) * k / 5)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    moved = int(np.argmin(np.abs(panel.x_train - x0)))
    assert panel.y_train[moved] > y0 + 2  # followed the mouse (within a few pixels)
    after = curve(panel.fit_item)[1]
    near = np.abs(panel.x_test - x0) < 0.2
    assert (after[near] > before[near]).all()
    ref, _ = nadaraya_watson(panel.x_train, panel.y_train, panel.x_test, "gaussian", panel.bandwidth)
    np.testing.assert_allclose(after, ref, rtol=1e-5)


def test_drag_keeps_training_points_sorted(panel) -> None:
    panel._on_points_item_point_dragged(0, 4.9, 1.0)  # the leftmost point dragged to the far right
    panel._on_points_item_drag_finished()
    assert (np.diff(panel.x_train) >= 0).all()
    assert np.isclose(panel.x_train, 4.9).sum() == 1 and panel.x_train[0] > 0.0137
    np.testing.assert_allclose(panel.points_item.getData()[0], panel.x_train)


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_clicking_the_plot_selects_a_test_point(qtbot, panel) -> None:
    shown(qtbot, panel)
    target = 37
    x = float(panel.x_test[target])
    bottom, top = panel.fit_plot.getPlotItem().getViewBox().viewRange()[1]
    QTest.mouseClick(panel.fit_plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view_point(panel.fit_plot, x, bottom + 0.03 * (top - bottom)))
    assert panel.query_index == target
    assert panel.heatmap.highlighted_row == target
    xs, ys = curve(panel.stem_item)
    np.testing.assert_allclose(xs[::2], panel.x_train)
    np.testing.assert_allclose(ys[1::2], panel.weights[target], rtol=1e-6)
    np.testing.assert_array_equal(ys[::2], 0)
    assert panel.query_line.value() == pytest.approx(x)


def test_heatmap_click_and_query_line_select_rows(panel) -> None:
    panel.heatmap.cell_clicked.emit(5, 7)
    assert panel.query_index == 5 and panel.heatmap.highlighted_row == 5
    panel.query_line.setValue(float(panel.x_test[44]) + 0.01)  # snaps to the nearest test point
    assert panel.query_index == 44
    np.testing.assert_allclose(curve(panel.stem_tops)[1], panel.weights[44])


def test_train_w_runs_off_thread_and_draws(qtbot, panel) -> None:
    assert panel.learned_w is None
    qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    assert panel.is_training() or panel.losses  # started on a worker
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=20000)
    assert len(panel.losses) == 5 and panel.losses[-1] < panel.losses[0]
    assert panel.learned_w is not None and panel.learned_w > 1  # the book's run learns a narrow kernel
    np.testing.assert_allclose(curve(panel.loss_item)[1], panel.losses)
    x, y = curve(panel.param_item)
    d = make_data()
    ref, ref_w = nadaraya_watson(d.x_train, d.y_train, d.x_test, "gaussian", 1 / panel.learned_w)
    np.testing.assert_allclose(y, ref, rtol=1e-5)
    assert panel.shown_combo.currentText() == "parametric"
    np.testing.assert_allclose(panel.heatmap.matrix, ref_w, rtol=1e-5, atol=1e-7)
    assert "learned w" in panel.w_label.text()
    assert panel.train_button.isEnabled()
    header, table = panel.export_targets()[3].csv()
    assert header == ["epoch", "loss", "w"] and table.shape == (5, 3)


def test_train_w_with_one_point_explains(qtbot, panel) -> None:
    panel.n_train_spin.setValue(1)
    panel._on_train_button_clicked()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=20000)
    assert "two training points" in panel.inline_message()


def test_big_fits_run_off_the_gui_thread(qtbot, panel) -> None:
    panel.n_test_spin.setValue(1000)
    panel.n_train_spin.setValue(3000)  # 3M weights > SYNC_CELLS
    qtbot.waitUntil(lambda: panel.weights.shape == (1000, 3000), timeout=20000)
    np.testing.assert_allclose(panel.weights.sum(axis=1), 1, rtol=1e-4)
    # drawn as block averages: rows = mean over 4 test points, columns = sum over 12 training points
    shown = panel.heatmap.matrix
    assert shown.shape == (250, 250)
    np.testing.assert_allclose(shown[3, 7], panel.weights[12:16, 84:96].sum(axis=1).mean(), rtol=1e-4)
    assert panel.heatmap.note == "each cell: mean of 4 test points, sum of 12 training points"
    panel.heatmap.cell_clicked.emit(3, 7)  # a block row selects the test point in its middle
    assert panel.query_index == 13 and panel.heatmap.highlighted_row == 3


def test_settings_round_trip(qtbot, panel, tmp_path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    panel.n_train_spin.setValue(70)
    panel.n_test_spin.setValue(40)
    panel.noise_spin.setValue(0.2)
    panel.seed_spin.setValue(3)
    panel.kernel_combo.setCurrentText("epanechnikov")
    panel.set_bandwidth(0.25)
    panel.lr_spin.setValue(0.1)
    panel.epochs_spin.setValue(9)
    panel.select_query(11)
    panel.save_settings(settings)
    settings.sync()
    other = KernelRegressionPanel()
    qtbot.addWidget(other)
    other.restore_settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert (other.n_train_spin.value(), other.n_test_spin.value(), other.seed_spin.value()) == (70, 40, 3)
    assert other.noise_spin.value() == pytest.approx(0.2)
    assert other.kernel_name == "epanechnikov"
    assert other.bandwidth == pytest.approx(panel.bandwidth)
    assert (other.lr_spin.value(), other.epochs_spin.value()) == (pytest.approx(0.1), 9)
    assert other.query_index == 11 and other.heatmap.highlighted_row == 11
    np.testing.assert_allclose(curve(other.fit_item)[1], curve(panel.fit_item)[1])
    bad = QSettings(str(tmp_path / "bad.ini"), QSettings.Format.IniFormat)
    bad.setValue("panels/kernel_regression/n_train", "lots")
    bad.setValue("panels/kernel_regression/kernel", "nope")
    other.restore_settings(bad)  # bad values fall back to defaults
    assert other.n_train_spin.value() == 50 and other.kernel_name == "epanechnikov"


def test_exports_and_theme(panel) -> None:
    names = [t.name for t in panel.export_targets()]
    assert names == ["fit", "attention_weights", "query_weights", "parametric_loss"]
    header, table = panel.export_targets()[0].csv()
    assert header[:3] == ["x_test", "y_truth", "nonparametric_pred"] and table.shape == (50, 4)
    np.testing.assert_allclose(table[:, 2], panel.pred)
    header, table = panel.export_targets()[2].csv()
    assert table.shape == (50, 3) and table[:, 2].sum() == pytest.approx(1, rel=1e-5)
    light = panel.fit_item.opts["pen"].color().name()
    panel.apply_theme(True)
    assert panel.dark and panel.fit_item.opts["pen"].color().name() != light


# --------------------------------------------------------------------------- a projector's screen
@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_fits_a_1024x700_window_at_any_number_of_points(qtbot) -> None:
    p = KernelRegressionPanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    assert settled_problems(qtbot, window, p) == []
    for n in (500, 999, 50):  # block-averaged heatmaps, then back: the colour bar and the title stay in view
        p.n_train_spin.setValue(n)
        assert settled_problems(qtbot, window, p) == [], n
    assert p.heatmap.color_bar.isVisible()
    p.shutdown(2000)


@pytest.mark.parametrize("name, shows, hides", [
    ("gaussian", "softmax", "max(1"), ("boxcar", "if |<i>u</i>| &lt; 1", "softmax"),
    ("constant", "K(<i>u</i>) = 1,", "softmax"), ("epanechnikov", "max(1 &minus; <i>u</i><sup>2</sup>, 0)", "softmax<sub>"),
])
def test_formula_follows_the_kernel(panel, name, shows, hides) -> None:
    panel.kernel_combo.setCurrentText("constant" if name != "constant" else "boxcar")
    panel.kernel_combo.setCurrentText(name)
    text = panel.formula_label.text()
    assert shows in text and hides not in text.split("(parametric")[0]


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_status_bar_news_only_from_the_panel_on_screen(qtbot, panel) -> None:
    """A training that ends while another panel is shown must not write over that panel's status bar."""
    messages: list[str] = []
    panel.status_message.connect(messages.append)
    panel._on_train_button_clicked()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=20000)
    assert messages == [] and "learned w" in panel.w_label.text()
    shown(qtbot, panel)
    panel._on_train_button_clicked()
    qtbot.waitUntil(lambda: not panel.is_training(), timeout=20000)
    assert len(messages) == 1 and messages[0].startswith("Parametric kernel regression")
