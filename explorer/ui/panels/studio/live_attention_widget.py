"""The studio's live attention view (book §11.7): the thumbnail grid over the history scrubber.

A view of :class:`StudioState`: it draws the snapshot the state selects and calls the state's methods when
the user scrubs, toggles "live" or clicks a thumbnail; it keeps no history of its own.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from explorer.ui.panels.studio.attention_grid_widget import AttentionGrid
from explorer.ui.panels.studio.history_scrubber_widget import HistoryScrubber
from explorer.ui.panels.studio.studio_state import StudioState
from explorer.ui.widgets.hint_stack_widget import HintStack

GRID_HINT = "Start training (or open a saved model) to see every layer's and head's attention here."
#: Below this many pixels a thumbnail is unreadable: the grid scrolls instead of shrinking further.
MIN_THUMBNAIL_PX = 44


def snapshot_caption(snap: Any) -> str:
    return f"step {snap.step}, epoch {snap.epoch}"


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
        self.stack = HintStack(self.scroll, GRID_HINT, self)
        self.scrubber = HistoryScrubber(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.scrubber)
        self.grid.thumbnail_clicked.connect(state.select_head)
        self.scrubber.index_chosen.connect(self._on_scrubber_index_chosen)
        self.scrubber.live_toggled.connect(state.set_live)
        state.snapshot_shown.connect(self._on_state_snapshot_shown)
        state.history_changed.connect(self._on_state_history_changed)
        state.run_state_changed.connect(self._on_state_run_state_changed)

    def _fit_grid(self, layers: int, heads: int) -> None:
        """Thumbnails shrink with the window down to :data:`MIN_THUMBNAIL_PX`; below that the grid scrolls."""
        self.grid.setMinimumSize(3 * (heads * (MIN_THUMBNAIL_PX + 4) + 24) + 70,
                                 layers * (MIN_THUMBNAIL_PX + 22) + 40)

    # ---- state slots -------------------------------------------------------------------------
    @Slot(object)
    def _on_state_snapshot_shown(self, snap: Any) -> None:
        if snap is None:
            if self.state.run_state == "idle":  # a new run keeps the thumbnails it can reuse
                self.stack.show_hint()
            return
        layers, heads = snap.maps["cross"].shape[:2]
        self._fit_grid(layers, heads)
        self.stack.show_content()
        self.grid.set_snapshot(snap, self.state.alignment.scores(self.state.data.task(), snap))

    @Slot()
    def _on_state_history_changed(self) -> None:
        state = self.state
        count = len(state.history)
        self.scrubber.set_live(state.live)
        self.scrubber.set_count(count)
        snap = state.current_snapshot()
        if snap is None:
            self.scrubber.label.setText("no snapshots yet")
        else:
            self.scrubber.show_index(state.shown_index, f"snapshot {state.shown_index + 1}/{count} · "
                                                        f"{snapshot_caption(snap)}")

    def prebuild(self, layers: int, heads: int) -> None:
        """Build the thumbnails for a model of this shape while nothing runs (one block per event-loop turn,
        behind the hint), so that Start and the first snapshot find them ready."""
        self._fit_grid(layers, heads)
        self.grid.prepare(layers, heads, staged=True)

    @Slot(str)
    def _on_state_run_state_changed(self, run_state: str) -> None:
        config = self.state.run_config
        if run_state == "starting" and config is not None:
            self.prebuild(config.model.num_layers, config.model.num_heads)

    @Slot(int)
    def _on_scrubber_index_chosen(self, index: int) -> None:
        if index != len(self.state.history) - 1:
            self.state.live = False
        self.state.show_index(index)
