"""The studio's live attention view (book §11.7): the thumbnail grid over the history scrubber.

A view of :class:`StudioState`: it draws the snapshot the state selects and calls the state's methods when the user
scrubs, toggles "live" or clicks a thumbnail; it keeps no history of its own.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Slot
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from explorer.ui.panels.studio.history_scrubber_widget import HistoryScrubber
from explorer.ui.panels.studio.studio_state import StudioState
from explorer.ui.widgets.attention_grid_widget import AttentionGrid, grid_layout, uniform_layout
from explorer.ui.widgets.hint_stack_widget import HintStack

GRID_HINT = QT_TRANSLATE_NOOP("LiveAttention",
                              "Start training (or open a saved model) to see every layer's and head's attention here.")


def snapshot_caption(snap: Any) -> str:
    return QCoreApplication.translate("LiveAttention", "step {step}, epoch {epoch}").format(step=snap.step,
                                                                                           epoch=snap.epoch)


class LiveAttention(QWidget):
    """Grid of every layer's and head's attention (scrolls when it cannot fit) and the history slider."""

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.grid = AttentionGrid()
        self.scroll = QScrollArea(self)
        self.scroll.setWidget(self.grid)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.stack = HintStack(self.scroll, "", self)
        self.scrubber = HistoryScrubber(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.scrubber)
        attention = state.attention
        self.grid.thumbnail_clicked.connect(attention.select_head)
        self.scrubber.index_chosen.connect(attention.choose_index)
        self.scrubber.live_toggled.connect(attention.set_live)
        attention.snapshot_shown.connect(self._on_attention_snapshot_shown)
        attention.history_changed.connect(self._on_attention_history_changed)
        state.run_state_changed.connect(self._on_state_run_state_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """The hint and the snapshot's line in the language in force (at build and on ``LanguageChange``)."""
        self.stack.hint_label.setText(self.tr(GRID_HINT))
        self._on_attention_history_changed()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # ---- state slots -------------------------------------------------------------------------
    @Slot(object)
    def _on_attention_snapshot_shown(self, snap: Any) -> None:
        if snap is None:
            if self.state.run_state == "idle":  # a new run keeps the thumbnails it can reuse
                self.stack.show_hint()
            return
        self.grid.fit_minimum(grid_layout(snap))
        self.stack.show_content()
        self.grid.set_snapshot(snap, self.state.attention.alignment.scores(self.state.data.task(), snap))

    @Slot()
    def _on_attention_history_changed(self) -> None:
        attention = self.state.attention
        count = len(attention.history)
        self.scrubber.set_live(attention.live)
        self.scrubber.set_count(count)
        snap = attention.current_snapshot()
        if snap is None:
            self.scrubber.label.setText(self.tr("no snapshots yet"))
        else:
            self.scrubber.show_index(attention.shown_index, self.tr("snapshot {number}/{count} · {when}").format(
                number=attention.shown_index + 1, count=count, when=snapshot_caption(snap)))

    def prebuild(self, layers: int, heads: int, ahead: bool = False) -> None:
        """Build the thumbnails for a model of this shape (one block per event-loop turn, behind the hint), so
        that Start and the first snapshot find them ready. ``ahead``: while nothing runs, after the panel's own
        view has been drawn (``AttentionGrid.prepare_layout``)."""
        layout = uniform_layout(layers, heads)
        self.grid.fit_minimum(layout)
        self.grid.prepare_layout(layout, staged=True, ahead=ahead)

    @Slot(str)
    def _on_state_run_state_changed(self, run_state: str) -> None:
        config = self.state.run_config
        if run_state == "starting" and config is not None:
            self.prebuild(config.model.num_layers, config.model.num_heads)
