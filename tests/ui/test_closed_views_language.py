"""A pyqtgraph view that was closed (its scene cleared, its items deleted) may still receive a posted language
change before Qt destroys it; its handler must not touch the deleted items (PySide6 6.11 crashes on the error)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent

from explorer.ui.panels.architecture_comparison.layer_drawing_widget import LayerDrawing
from explorer.ui.panels.inspector.model_diff_widget import DiffGrid
from explorer.ui.panels.studio.loss_plot_widget import LossPlotWidget
from explorer.ui.pyqtgraph_compat import view_closed
from explorer.ui.widgets.attention_grid_widget import AttentionGrid


@pytest.mark.parametrize("view_class", [AttentionGrid, DiffGrid, LayerDrawing, LossPlotWidget],
                         ids=lambda c: c.__name__)
def test_a_closed_view_ignores_a_late_language_change(qtbot, view_class) -> None:
    view = view_class()
    qtbot.addWidget(view)
    view.changeEvent(QEvent(QEvent.Type.LanguageChange))  # open: words its texts again
    assert not view_closed(view)
    view.close()  # pyqtgraph's close(): the scene is cleared
    assert view_closed(view)
    view.changeEvent(QEvent(QEvent.Type.LanguageChange))  # raised "already deleted" before
