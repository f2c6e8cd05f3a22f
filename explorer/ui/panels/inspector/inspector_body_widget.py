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
        self._state = state
        # the large view is made when its tab is first shown (or asked for); until then the body keeps what it
        # would have been given: the model's info, the newest inspection, the head chosen since
        self.detail_page = lazy_page(self._make_detail)
        self.detail_page.built.connect(self._on_detail_page_built)
        self._model_info: Any = None
        self._inspection: Any = None
        self._selected_head: tuple[str, int, int] | None = None
        self.debug = DebugTabs(state.debug, self.grid, lazy_page=lazy_page)  # its views made when first shown
        for page in (self.inspect_view, self.detail_page, self.debug):
            self.addTab(page, "")
        state.inspect.inspected.connect(self._on_inspect_inspected)
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
        """Give the large view made just now what it would have been given so far, then subscribe it."""
        detail = self.detail
        self.debug.watch_detail(detail)
        self._give_model_info(detail, self._model_info)
        if self._inspection is not None:
            detail.show_snapshot(self._inspection)
        if self._selected_head is not None:
            detail.select(*self._selected_head)
        self._state.inspect.inspected.connect(detail.show_snapshot)
        self._state.head_selected.connect(detail.select)

    @Slot(object)
    def _on_inspect_inspected(self, inspection: Any) -> None:
        self._inspection = inspection
        if inspection is None:  # the large view forgets its chosen map with a cleared snapshot
            self._selected_head = None

    @Slot(str, int, int)
    def _on_state_head_selected(self, kind: str, layer: int, head: int) -> None:
        self._selected_head = (kind, layer, head)
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
