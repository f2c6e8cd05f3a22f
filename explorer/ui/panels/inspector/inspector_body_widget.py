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
from explorer.ui.widgets.lazy_detail import LazyDetail
from explorer.ui.widgets.lazy_page import LazyPage


class InspectorBody(QTabWidget):
    """Inspect | Attention detail | Debug; a model opened shows Inspect, a thumbnail clicked shows its detail."""

    def __init__(self, state: InspectorState, lazy_page: Callable[[Callable[[], QWidget]], LazyPage] = LazyPage,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid_view = InspectionGrid(state)  # subscribed before the debug tabs: drawn before they dim heads
        self.grid = self.grid_view.grid
        self.inspect_view = InspectView(state.inspect, self.grid_view)
        self._state = state
        # the large view is made when its tab is first shown (or asked for); until then the body keeps the model's
        # info, and the lazy detail the newest inspection and the head chosen since (given after the info)
        self.detail_page = lazy_page(self._make_detail)
        self.detail_page.built.connect(self._on_detail_page_built)
        self._model_info: Any = None
        self.lazy_detail = LazyDetail(self.detail_page, self)
        self.debug = DebugTabs(state.debug, self.grid, lazy_page=lazy_page)  # its views made when first shown
        for page in (self.inspect_view, self.detail_page, self.debug):
            self.addTab(page, "")
        state.inspect.inspected.connect(self.lazy_detail.show_snapshot)
        state.head_selected.connect(self.lazy_detail.select)
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

    @property
    def detail(self) -> AttentionDetail:
        """The "Attention detail" tab's large view, explain-a-cell under it (made now if it was not yet)."""
        return self.detail_page.content()

    def _make_detail(self) -> AttentionDetail:
        detail = AttentionDetail(self._state.inspect)
        detail.layout().addWidget(self.debug.explain)  # explain-a-cell under the large map (restyled with it)
        return detail

    @Slot(QWidget)
    def _on_detail_page_built(self, _detail: QWidget) -> None:
        """The large view made just now: the debug tabs watch it and it gets the model's info."""
        self.debug.watch_detail(self.detail)
        self._give_model_info(self.detail, self._model_info)

    @Slot(str, int, int)
    def _on_state_head_selected(self, _kind: str, _layer: int, _head: int) -> None:
        self.setCurrentWidget(self.detail_page)  # makes the large view the first time

    @Slot(object)
    def _on_inspect_model_changed(self, info: Any) -> None:
        self._model_info = info
        if self.detail_page.is_built():
            self._give_model_info(self.detail, info)

    @staticmethod
    def _give_model_info(detail: AttentionDetail, info: Any) -> None:
        """The large view draws a sliding window's band as masked and names shared key/value heads, as the grid does."""
        detail.windows = dict(getattr(info, "windows", None) or {})
        detail.model_info = info

    @Slot(bool)
    def _on_inspect_open_finished(self, opened: bool) -> None:
        if opened:
            self.setCurrentWidget(self.inspect_view)
