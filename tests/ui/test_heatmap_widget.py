"""HeatmapWidget: data held by the image item, masked cells, row highlight, hover/click signals."""
from __future__ import annotations

import importlib

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QFontMetricsF, QMouseEvent
from PySide6.QtWidgets import QApplication

import tooltip_checks

from explorer.ui.widgets.heatmap_widget import HeatmapWidget

from explorer.ui.widgets.heatmap_plot_item import hatch_overlay


@pytest.fixture
def heatmap(qtbot):
    w = HeatmapWidget(title="weights")
    qtbot.addWidget(w)
    w.resize(500, 400)
    return w


def _weights(q: int = 4, k: int = 6, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).random((q, k))
    return m / m.sum(axis=1, keepdims=True)


def test_set_matrix_holds_float32_copy_with_default_levels(heatmap):
    m = _weights().astype(np.float64)
    heatmap.set_matrix(m)
    img = heatmap.image_item.image
    assert img.dtype == np.float32 and img.flags["C_CONTIGUOUS"]
    np.testing.assert_allclose(img, m, rtol=1e-6)
    m[0, 0] = 99.0  # the widget must not hold a view of the caller's array
    assert heatmap.image_item.image[0, 0] != 99.0
    np.testing.assert_allclose(heatmap.image_item.getLevels(), [0.0, 1.0])
    assert heatmap.color_bar.levels() == (0.0, 1.0)


def test_new_matrix_replaces_image_and_labels(heatmap):
    heatmap.set_matrix(_weights(seed=0), row_labels=list("abcd"), col_labels=list("uvwxyz"))
    first = heatmap.image_item.image.copy()
    heatmap.set_matrix(_weights(3, 5, seed=1), levels=(0.0, 0.5))
    assert heatmap.image_item.image.shape == (3, 5)
    assert not np.array_equal(first[:3, :5], heatmap.image_item.image)
    assert heatmap.row_labels == ["0", "1", "2"]
    np.testing.assert_allclose(heatmap.image_item.getLevels(), [0.0, 0.5])
    ticks = heatmap.plot.getAxis("bottom")._tickLevels[0]
    assert [t[1] for t in ticks] == ["0", "1", "2", "3", "4"] and ticks[0][0] == 0.5


def test_auto_levels_follow_data(heatmap):
    heatmap.set_matrix(np.array([[-2.0, 0.0], [1.0, 3.0]]), levels=None)
    np.testing.assert_allclose(heatmap.image_item.getLevels(), [-2.0, 3.0])


def test_masked_cells_are_flagged_and_hatched(heatmap):
    keep = np.arange(6)[None, :] < np.array([2, 6, 3, 1])[:, None]
    heatmap.set_matrix(np.where(keep, _weights(), 0.0), mask=keep)
    assert heatmap.mask_item.isVisible()
    np.testing.assert_array_equal(heatmap.mask, keep)
    overlay = heatmap.mask_item.image
    s = overlay.shape[0] // 4
    alpha = overlay[::s, ::s, 3]  # one pixel per cell
    np.testing.assert_array_equal(alpha > 0, ~keep)
    heatmap.set_matrix(_weights())
    assert heatmap.mask is None and not heatmap.mask_item.isVisible()


def test_hatch_overlay_draws_two_tones_only_on_masked():
    masked = np.array([[True, False], [False, True]])
    rgba = hatch_overlay(masked)
    s = rgba.shape[0] // 2
    cell = rgba[:s, :s]
    assert (cell[..., 3] == 255).all() and len(np.unique(cell[..., 0])) == 2
    assert (rgba[:s, s:, 3] == 0).all()


def test_bad_labels_raise_clear_error(heatmap):
    with pytest.raises(ValueError, match="labels"):
        heatmap.set_matrix(_weights(), row_labels=["only one"])
    with pytest.raises(ValueError, match="2-D"):
        heatmap.set_matrix(np.zeros(5))


def test_highlight_row(heatmap):
    heatmap.set_matrix(_weights())
    heatmap.highlight_row(2)
    rect = heatmap.plot.highlight_item.rect()
    assert heatmap.plot.highlight_item.isVisible() and (rect.top(), rect.height(), rect.width()) == (2, 1, 6)
    heatmap.highlight_row(None)
    assert not heatmap.plot.highlight_item.isVisible()


def _view_pos(w: HeatmapWidget, row: int, col: int):
    scene_pos = w.image_item.mapToScene(QPointF(col + 0.5, row + 0.5))
    return w.mapFromScene(scene_pos)


def _mouse(w: HeatmapWidget, kind: QEvent.Type, pos, button=Qt.MouseButton.NoButton) -> None:
    """Send a mouse event straight to the viewport (QTest's helpers send no plain moves offscreen
    and warn when pyqtgraph's scene leaves a press unaccepted)."""
    local = QPointF(pos)
    buttons = button if kind == QEvent.Type.MouseButtonPress else Qt.MouseButton.NoButton
    ev = QMouseEvent(kind, local, w.viewport().mapToGlobal(local), button, buttons,
                     Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(w.viewport(), ev)


def test_click_and_hover_report_the_cell(heatmap, qtbot):
    m = _weights()
    heatmap.set_matrix(m, row_labels=list("abcd"), col_labels=list("uvwxyz"))
    heatmap.show()
    qtbot.waitExposed(heatmap)
    # the view box lays itself out lazily: wait until cell (1, 4) maps inside the viewport
    qtbot.waitUntil(lambda: heatmap.viewport().rect().contains(_view_pos(heatmap, 3, 5)), timeout=2000)
    with qtbot.waitSignal(heatmap.cell_hovered, timeout=2000) as hovered:
        _mouse(heatmap, QEvent.Type.MouseMove, _view_pos(heatmap, 1, 4))
    row, col, value = hovered.args
    assert (row, col) == (1, 4) and value == pytest.approx(m[1, 4], rel=1e-6)
    assert heatmap.readout.text.startswith("b → y")
    with qtbot.waitSignal(heatmap.cell_clicked, timeout=2000) as clicked:
        pos = _view_pos(heatmap, 3, 0)
        _mouse(heatmap, QEvent.Type.MouseMove, pos)
        _mouse(heatmap, QEvent.Type.MouseButtonPress, pos, Qt.MouseButton.LeftButton)
        _mouse(heatmap, QEvent.Type.MouseButtonRelease, pos, Qt.MouseButton.LeftButton)
    assert clicked.args == [3, 0]


def test_the_hover_tooltip_shows_tokens_as_they_are(heatmap):
    tokens = list(tooltip_checks.TOKENS)  # (T,) special tokens, a stray <, characters an HTML escape rewrites
    m = np.full((len(tokens), len(tokens)), 0.25)
    keep = np.ones(m.shape, bool)
    keep[0, 1] = False
    heatmap.set_matrix(m, row_labels=tokens, col_labels=tokens, mask=keep)
    for row, col in ((1, 2), (4, 5), (5, 6), (3, 0)):
        heatmap.image_item.cell_hovered.emit(row, col, 0.25)
        assert tooltip_checks.shown_tooltip(heatmap.toolTip()) == f"{tokens[row]} → {tokens[col]}: 0.25"
    heatmap.image_item.cell_hovered.emit(0, 1, 0.25)
    assert tooltip_checks.shown_tooltip(heatmap.toolTip()) == "<unk> → <s>: 0.25 (masked)"


def test_compact_mode_has_no_axes_or_colour_bar(qtbot):
    w = HeatmapWidget(compact=True)
    qtbot.addWidget(w)
    w.set_matrix(_weights())
    assert w.color_bar is None and not w.plot.getAxis("left").isVisible()


def test_csv_table_and_theme(heatmap):
    heatmap.set_matrix(_weights(), col_labels=list("uvwxyz"))
    header, data = heatmap.csv_table()
    assert header == ["row", *"uvwxyz"] and data.shape == (4, 7)
    np.testing.assert_allclose(data[:, 1:].sum(axis=1), 1.0, rtol=1e-6)
    heatmap.apply_theme(True)
    assert heatmap.backgroundBrush().color().lightness() < 50


def _shown(heatmap, qtbot) -> None:
    heatmap.show()
    qtbot.waitExposed(heatmap)
    qtbot.waitUntil(lambda: heatmap.plot.vb.width() > 100, timeout=2000)
    heatmap.plot._update_ticks()


def _no_overlap(axis) -> bool:
    """Drawn labels of a bottom axis keep apart: by their widths, or by their line height when vertical."""
    fm = QFontMetricsF(axis.style["tickFont"])
    drawn = axis.label_positions()
    if axis.rotated:
        return all(b[0] - a[0] >= 0.85 * fm.height() for a, b in zip(drawn, drawn[1:]))
    spans = [(x - fm.horizontalAdvance(t) / 2, x + fm.horizontalAdvance(t) / 2) for x, t in drawn]
    return all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_every_label_of_a_few_tokens_is_drawn_smaller_or_vertical(heatmap, qtbot):
    words = ["a", "longer-word", "b", "another-long-one", "c", "d", "e", "f"] * 3  # 24 tokens
    heatmap.set_matrix(np.random.default_rng(0).random((len(words), len(words))), words, words)
    _shown(heatmap, qtbot)
    bottom, left = heatmap.plot.getAxis("bottom"), heatmap.plot.getAxis("left")
    assert [t for _, t in bottom._tickLevels[0]] == words and [t for _, t in left._tickLevels[0]] == words
    assert [t for _, t in bottom.label_positions()] == words  # none dropped at the axis ends either
    assert [t for _, t in left.label_positions()] == words
    assert bottom.rotated and _no_overlap(bottom)
    assert bottom.style["tickFont"].pointSizeF() >= 6


def test_many_labels_are_thinned_evenly_without_overlap(heatmap, qtbot):
    words = [f"w{i}" for i in range(120)]
    heatmap.set_matrix(np.random.default_rng(0).random((3, len(words))), col_labels=words)
    _shown(heatmap, qtbot)
    bottom = heatmap.plot.getAxis("bottom")
    ticks = bottom._tickLevels[0]
    assert 1 < len(ticks) <= 40 and _no_overlap(bottom)
    steps = {round(b[0] - a[0]) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1  # every n-th label, not whatever happened to fit
    heatmap.plot.max_ticks = 4
    heatmap.plot._update_ticks()
    assert len(bottom._tickLevels[0]) <= 4


def test_heatmap_has_no_context_menu_and_builds_none(heatmap, monkeypatch, qtbot):
    plot = heatmap.plot
    assert not plot.menuEnabled() and not plot.vb.menuEnabled()
    assert plot.vb.menu is None and plot.getContextMenus(None) is None
    view_box_module = importlib.import_module("pyqtgraph.graphicsItems.ViewBox.ViewBox")  # the module, not the class
    built = []
    real = view_box_module.ViewBoxMenu
    monkeypatch.setattr(view_box_module, "ViewBoxMenu", lambda view: built.append(view) or real(view))
    from explorer.ui.widgets.heatmap_plot_item import HeatmapPlotItem

    view = pg.GraphicsLayoutWidget()  # a plot lives in a view: one left to the collector alone is freed out of order
    qtbot.addWidget(view)
    view.addItem(HeatmapPlotItem())
    assert built == []  # never built, rather than built and dropped (start-up time)
