"""The inspector's Debug tab: sub-tabs for head ablation, output probabilities, the beam tree, the model diff and
head summaries, all on the Inspect tab's model; and the explain-a-cell view the inspector body puts under the large
map."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import QEvent, Slot
from PySide6.QtWidgets import QTabWidget, QWidget

from explorer.ui.i18n.words import Words
from explorer.ui.panels.inspector.ablation_widget import mark_ablated
from explorer.ui.panels.inspector.debug_state import DebugState
from explorer.ui.panels.inspector.explain_widget import ExplainView
from explorer.ui.widgets.followed_maps import split_extra
from explorer.ui.widgets.lazy_page import LazyPage

if TYPE_CHECKING:
    from explorer.ui.panels.inspector.ablation_widget import AblationView
    from explorer.ui.panels.inspector.beam_tree_widget import BeamTreeView
    from explorer.ui.panels.inspector.decoding_widget import DecodingView
    from explorer.ui.panels.inspector.head_summary_widget import HeadSummaryView
    from explorer.ui.panels.inspector.model_diff_widget import ModelDiffView


def _ablation(state: DebugState) -> AblationView:
    from explorer.ui.panels.inspector.ablation_widget import AblationView

    return AblationView(state)


def _decoding(state: DebugState) -> DecodingView:
    from explorer.ui.panels.inspector.decoding_widget import DecodingView

    return DecodingView(state)


def _beam(state: DebugState) -> BeamTreeView:
    from explorer.ui.panels.inspector.beam_tree_widget import BeamTreeView

    return BeamTreeView(state)


def _diff(state: DebugState) -> ModelDiffView:
    from explorer.ui.panels.inspector.model_diff_widget import ModelDiffView

    return ModelDiffView(state)


def _summaries(state: DebugState) -> HeadSummaryView:
    from explorer.ui.panels.inspector.head_summary_widget import HeadSummaryView

    return HeadSummaryView(state)


class DebugTabs(QTabWidget):
    """Ablation, Output probabilities, Beam tree, Model diff, Head summaries; ``explain`` for the detail view's
    clicked cells. Each sub-tab's view is made when it is first shown or asked for (``lazy_page`` makes its page:
    the panel's, so the shell restyles what it makes)."""

    def __init__(self, state: DebugState, grid: Any, lazy_page: Callable[[Callable[[], QWidget]], LazyPage] = LazyPage,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state, self.grid = state, grid
        self.detail: Any = None  # the large view whose clicked cells are explained, once it is made
        self.pages = [lazy_page(lambda make=make: make(state)) for make in (_ablation, _decoding, _beam, _diff,
                                                                             _summaries)]
        self.explain = ExplainView(state)
        for page in self.pages:
            self.addTab(page, "")
        state.ablated_changed.connect(self._on_state_ablated_changed)
        state.inspect.inspected.connect(self._on_inspect_inspected)
        self.retranslate()

    def watch_detail(self, detail: Any) -> None:
        """Explain the cells clicked in ``detail``, the large view (made when its tab is first shown)."""
        self.detail = detail
        detail.heatmap.cell_clicked.connect(self._on_heatmap_cell_clicked)

    def retranslate(self) -> None:
        """The tabs' names in the language in force (at build and on ``LanguageChange``)."""
        names = (self.tr("Ablation"), self.tr("Output probabilities"), self.tr("Beam tree"), self.tr("Model diff"),
                 self.tr("Head summaries"))
        for index, name in enumerate(names):
            self.setTabText(index, name)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @property
    def ablation(self) -> AblationView:
        """The Ablation tab's view (made now if it was not yet; so are the four below)."""
        return self.pages[0].content()

    @property
    def decoding(self) -> DecodingView:
        return self.pages[1].content()

    @property
    def beam(self) -> BeamTreeView:
        return self.pages[2].content()

    @property
    def diff(self) -> ModelDiffView:
        return self.pages[3].content()

    @property
    def summaries(self) -> HeadSummaryView:
        return self.pages[4].content()

    def apply_theme(self, dark: bool) -> None:
        """The views made so far (a view made later is restyled then)."""
        if self.pages[2].is_built():
            self.beam.step_views.apply_theme(dark)  # the step's heatmap and token lines
        if self.pages[1].is_built():
            self.decoding.step_views.apply_theme(dark)
        if self.pages[3].is_built():
            self.diff.grid.setBackground("#202124" if dark else "w")

    @Slot()
    def _on_state_ablated_changed(self) -> None:
        mark_ablated(self.grid, self.state.ablated)

    @Slot(object)
    def _on_inspect_inspected(self, _inspection: Any) -> None:
        mark_ablated(self.grid, self.state.ablated)

    @Slot(int, int)
    def _on_heatmap_cell_clicked(self, row: int, col: int) -> None:
        d = self.detail
        if split_extra(d.kind) is not None:  # rollout or flow: all layers and heads at once, not one computation
            self.explain.show_steps(Words(lambda: self.tr(
                "Rollout and flow combine every head of every layer: click a head's thumbnail to explain one of its "
                "cells.")))
            return
        if self.state.inspect.last is None:
            self.explain.show_steps(Words(lambda: self.tr(
                "Cells are explained for a text read in the Inspect tab (a training snapshot's model is in another "
                "process).")))
            return
        self.explain.request(d.kind, d.layer, None if d.average_box.isChecked() else d.head, row, col)
