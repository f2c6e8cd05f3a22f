"""The inspector's attention grid (book §11.7): every head of the inspected text's model, the kinds it has, each
with its own layers and heads; scrolls when the thumbnails would be too small. A view of :class:`InspectorState`."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Slot
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from explorer.ui.panels.inspector.inspect_widget import GRID_ROOM
from explorer.ui.panels.inspector.inspector_state import InspectorState
from explorer.ui.widgets.attention_grid_widget import AttentionGrid, grid_layout
from explorer.ui.widgets.hint_stack_widget import HintStack


class InspectionGrid(QWidget):
    """The grid of the newest inspection behind a hint until the first one; a click selects a head."""

    def __init__(self, state: InspectorState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = AttentionGrid()
        self.scroll = QScrollArea(self)
        self.scroll.setWidget(self.grid)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.stack = HintStack(self.scroll, "", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.grid.thumbnail_clicked.connect(state.select_head)
        state.inspect.inspected.connect(self._on_inspect_inspected)
        state.inspect.model_changed.connect(self._on_inspect_model_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """The hint in the language in force (the grid re-words itself)."""
        self.stack.hint_label.setText(QCoreApplication.translate("InspectView", GRID_ROOM))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @Slot(object)
    def _on_inspect_inspected(self, inspection: Any) -> None:
        self.grid.fit_minimum(grid_layout(inspection))
        self.stack.show_content()
        self.grid.set_snapshot(inspection)

    @Slot(object)
    def _on_inspect_model_changed(self, info: Any) -> None:
        """Build a model's grid (one block per event-loop turn) while its first text is read."""
        if info is not None:
            self.grid.set_head_info(info.kv_heads, info.windows)
            layout = tuple((k, info.layers[k], info.heads[k]) for k in info.kinds)
            self.grid.fit_minimum(layout)
            self.grid.prepare_layout(layout, staged=True)
