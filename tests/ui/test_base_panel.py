"""BasePanel at a projector's size: inline messages appear in a banner below the body, without moving or covering
any control."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLineEdit, QSpinBox, QTabWidget, QWidget

from explorer.ui.panels.base_panel import BasePanel
from layout_checks import settled_problems, window_around

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")  # offscreen windows cannot pass size hints on


class FormPanel(BasePanel):
    """A formula box and a form, as every panel has."""

    key = "form"
    title = "Form"
    formula_html = "softmax(<b>q</b>·<b>k</b>)"
    explanation_html = "An explanation that is long enough to wrap. " * 8

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout()
        self.fields = [QSpinBox(), QLineEdit("text"), QSpinBox()]
        for i, field in enumerate(self.fields):
            form.addRow(f"field {i}", field)
        self.plots = QTabWidget()  # where a panel's plots are
        self.plots.addTab(QWidget(), "one")
        self.plots.addTab(QWidget(), "two")
        row = QHBoxLayout()
        row.addLayout(form)
        row.addWidget(self.plots, 1)
        self.body_layout.addLayout(row)


def _geometries(panel: BasePanel) -> list[tuple]:
    return [f.mapTo(panel, f.rect().topLeft()).toTuple() for f in panel.fields]


def _covers_a_control(panel: FormPanel) -> bool:
    banner = panel.message_banner.geometry()
    tabs = panel.plots.tabBar()
    rects = [QRect(w.mapTo(panel, w.rect().topLeft()), w.size()) for w in [*panel.fields, tabs]]
    return any(banner.intersects(r) for r in rects)


def test_messages_do_not_move_or_cover_controls(qtbot):
    panel = FormPanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    before = _geometries(panel)
    long = "num_hiddens = 10 is not divisible by num_heads = 4: choose 1, 2, 5 or 10 heads. " * 3
    for text in ("Bad value.", long):
        panel.show_inline_message(text)
        qtbot.wait(10)
        assert panel.inline_message() == text and panel.message_banner.isVisible()
        assert _geometries(panel) == before
        assert panel.message_label.height() >= panel.message_label.heightForWidth(panel.message_label.width())
        assert panel.rect().contains(panel.message_banner.geometry()) and not _covers_a_control(panel)
    panel.set_explanation_visible(False)
    qtbot.wait(10)
    moved = _geometries(panel)  # folding the formula box moves the form up, by design
    assert not _covers_a_control(panel)  # and the message with it
    panel.plots.setCurrentIndex(1)
    assert not _covers_a_control(panel)
    panel.clear_inline_message()
    assert panel.inline_message() == "" and not panel.message_banner.isVisible()
    assert _geometries(panel) == moved


def test_a_long_formula_wraps_instead_of_widening_the_window(qtbot):
    panel = FormPanel()
    panel.formula_label.setText("a(<b>q</b>, <b>k</b>) = <b>w</b><sup>⊤</sup> tanh(<b>W</b>q + <b>W</b>k) | " * 6)
    window = window_around(panel)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    assert settled_problems(qtbot, window, panel) == []
