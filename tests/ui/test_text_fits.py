"""Text that must be readable whole: log-axis labels that never overlap, combos, titles, table columns and tabs that
show their text, in English and in 简体中文."""
from __future__ import annotations

from itertools import combinations

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def _texts(axis: pg.AxisItem) -> list:
    """The tick labels pyqtgraph would draw on ``axis`` now: (rect, flags, text)."""
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        return list(axis.generateDrawSpecs(painter)[2])
    finally:
        painter.end()


def axis_label_overlaps(axis: pg.AxisItem) -> list[str]:
    """Pairs of tick labels of ``axis`` drawn over each other."""
    shown = [(rect, text) for rect, _flags, text in _texts(axis) if text]
    return [f"{a!r} over {b!r}" for (ra, a), (rb, b) in combinations(shown, 2) if ra.intersects(rb)]


@pytest.mark.parametrize("width", [1024, 1280, 1920])
@pytest.mark.parametrize("n", [2, 64, 700, 2048])
def test_log_axis_labels_of_the_cost_plot_never_overlap(qtbot, width: int, n: int) -> None:
    from explorer.ui.panels.architecture_comparison.architecture_panel import ArchitecturePanel
    from layout_checks import window_around

    panel = ArchitecturePanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    window.resize(width, 760)
    panel.n_slider.setValue(n)
    qtbot.wait(150)
    plot = panel.cost_plot.getPlotItem()
    for name in ("bottom", "left"):
        axis = plot.getAxis(name)
        assert not axis_label_overlaps(axis), (name, axis_label_overlaps(axis))
    labels = [text for _rect, _flags, text in _texts(plot.getAxis("bottom")) if text]
    assert any("10" in text for text in labels)  # the decades stay labelled


def combo_text_cut(combo) -> bool:
    """Whether ``combo`` shows less than its current text (the field beside the arrow is too narrow)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    return combo.fontMetrics().horizontalAdvance(combo.currentText()) > field.width()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("width", [1024, 1280])
def test_the_studios_source_combo_shows_the_built_in_corpus_whole(qtbot, language: str, width: int) -> None:
    from explorer.ui.i18n.translators import language_manager
    from explorer.ui.panels.studio.data_box_widget import DataBox
    from explorer.ui.panels.studio.studio_panel import StudioPanel
    from layout_checks import window_around

    language_manager().apply(language)
    panel = StudioPanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    try:
        window.resize(width, 700)
        qtbot.wait(100)
        combo = panel.findChild(DataBox).source_combo
        assert combo.isVisibleTo(panel)
        assert not combo_text_cut(combo), (combo.currentText(), combo.width())
    finally:
        panel.shutdown(3000)


def cut_placeholders(root) -> list[str]:
    """Visible empty line edits under ``root`` whose placeholder is wider than their text field."""
    from PySide6.QtWidgets import QLineEdit

    cut = []
    for edit in root.findChildren(QLineEdit):
        text = edit.placeholderText()
        if edit.isVisible() and text and not edit.text():
            room = edit.contentsRect().width() - 8  # the frame's and the text's margins
            if edit.fontMetrics().horizontalAdvance(text) > room:
                cut.append(f"{text!r} in {room} px")
    return cut


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_placeholders_of_the_studios_translate_tab_are_read_whole(qtbot, language: str) -> None:
    from explorer.ui.i18n.translators import language_manager
    from explorer.ui.panels.studio.studio_panel import StudioPanel
    from explorer.ui.panels.studio.translate_widget import TranslateView
    from layout_checks import window_around

    language_manager().apply(language)
    panel = StudioPanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    try:
        window.resize(1024, 700)
        panel.tabs.setCurrentWidget(panel.translate_page)  # the tab is made when first shown
        view = panel.findChild(TranslateView)
        qtbot.wait(100)
        assert view.reference_edit.isVisible()
        assert cut_placeholders(view) == []
    finally:
        panel.shutdown(3000)
