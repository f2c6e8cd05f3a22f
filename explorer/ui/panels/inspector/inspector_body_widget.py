"""The inspector's widget tree (book §11.7 on any model): tabs "Inspect" (model, text, and the attention grid),
"Attention detail" (one head large, explain-a-cell under it) and "Debug". Builds the views on the state they show."""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QEvent, Slot
from PySide6.QtWidgets import QTabWidget, QWidget

from explorer.ui.panels.inspector.debug_widget import DebugTabs
from explorer.ui.panels.inspector.inspect_widget import InspectView
from explorer.ui.panels.inspector.inspection_grid_widget import InspectionGrid
from explorer.ui.panels.inspector.inspector_state import InspectorState
from explorer.ui.widgets.attention_detail_widget import AttentionDetail
from explorer.ui.widgets.lazy_page import LazyPage


class InspectorBody(QTabWidget):
    """Inspect | Attention detail | Debug; a model opened shows Inspect, a thumbnail clicked shows its detail."""

    def __init__(self, state: InspectorState, lazy_page: Callable[[Callable[[], QWidget]], LazyPage] = LazyPage,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid_view = InspectionGrid(state)  # subscribed before the debug tabs: drawn before they dim heads
        self.grid = self.grid_view.grid
        self.inspect_view = InspectView(state.inspect, self.grid_view)
        self.detail = AttentionDetail(state.inspect)
        self.debug = DebugTabs(state.debug, self.grid, self.detail, lazy_page)  # its views made when first shown
        self.detail.layout().addWidget(self.debug.explain)  # explain-a-cell under the large map
        for page in (self.inspect_view, self.detail, self.debug):
            self.addTab(page, "")
        state.inspect.inspected.connect(self.detail.show_snapshot)
        state.head_selected.connect(self.detail.select)
        state.head_selected.connect(self._on_state_head_selected)
        state.inspect.open_finished.connect(self._on_inspect_open_finished)
        state.inspect.model_changed.connect(self._on_inspect_model_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """The tabs' names in the language in force (at build and on ``LanguageChange``)."""
        for index, name in enumerate((self.tr("Inspect"), self.tr("Attention detail"), self.tr("Debug"))):
            self.setTabText(index, name)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @Slot(str, int, int)
    def _on_state_head_selected(self, _kind: str, _layer: int, _head: int) -> None:
        self.setCurrentWidget(self.detail)

    @Slot(object)
    def _on_inspect_model_changed(self, info: Any) -> None:
        """The large view draws a sliding window's band as masked and names shared key/value heads, as the grid does."""
        self.detail.windows = dict(getattr(info, "windows", None) or {})
        self.detail.model_info = info

    @Slot(bool)
    def _on_inspect_open_finished(self, opened: bool) -> None:
        if opened:
            self.setCurrentWidget(self.inspect_view)
