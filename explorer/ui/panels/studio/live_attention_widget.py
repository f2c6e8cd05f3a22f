"""The studio's live attention view (book §11.7): the thumbnail grid over the history scrubber.

A view of :class:`StudioState`: it draws the snapshot the state selects (or the inspection of a model, issue 12)
and calls the state's methods when the user scrubs, toggles "live" or clicks a thumbnail; it keeps no history of
its own.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, Slot
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from explorer.core.inspect.interface import SNAPSHOT_NAMES

from explorer.ui.panels.studio.attention_grid_widget import AttentionGrid, GridLayout, grid_layout, uniform_layout
from explorer.ui.panels.studio.history_scrubber_widget import HistoryScrubber
from explorer.ui.panels.studio.studio_state import StudioState
from explorer.ui.widgets.hint_stack_widget import HintStack

GRID_HINT = QT_TRANSLATE_NOOP("LiveAttention",
                              "Start training (or open a saved model) to see every layer's and head's attention here.")
#: Below this many pixels a thumbnail is unreadable: the grid scrolls instead of shrinking further.
MIN_THUMBNAIL_PX = 44


def snapshot_caption(snap: Any) -> str:
    return QCoreApplication.translate("LiveAttention", "step {step}, epoch {epoch}").format(step=snap.step,
                                                                                           epoch=snap.epoch)


def is_inspection(snap: Any) -> bool:
    """An inspected model's maps (``core.inspection.Inspection``) rather than a training snapshot."""
    return getattr(snap, "thumbnails", None) is not None


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
        self.stack = HintStack(self.scroll, self.tr(GRID_HINT), self)
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
        state.inspect.model_changed.connect(self._on_inspect_model_changed)

    def _fit_grid(self, layout: GridLayout) -> None:
        """Thumbnails shrink with the window down to :data:`MIN_THUMBNAIL_PX`; below that the grid scrolls."""
        width = sum(heads * (MIN_THUMBNAIL_PX + 4) + 24 for _, _, heads in layout) + 70
        height = max(layers for _, layers, _ in layout) * (MIN_THUMBNAIL_PX + 22) + 40
        if self.grid.layout == tuple(layout):  # built: its titles and labels may need more (a long block title)
            self.grid.setMinimumSize(self.grid.content_minimum().expandedTo(QSize(width, height)))
        else:
            self.grid.setMinimumSize(width, height)

    # ---- state slots -------------------------------------------------------------------------
    @Slot(object)
    def _on_attention_snapshot_shown(self, snap: Any) -> None:
        if snap is None:
            if self.state.run_state == "idle":  # a new run keeps the thumbnails it can reuse
                self.stack.show_hint()
            return
        self._fit_grid(grid_layout(snap))
        self.stack.show_content()
        scores = None if is_inspection(snap) else self.state.attention.alignment.scores(self.state.data.task(), snap)
        self.grid.set_snapshot(snap, scores)

    @Slot()
    def _on_attention_history_changed(self) -> None:
        attention = self.state.attention
        count = len(attention.history)
        self.scrubber.set_live(attention.live and attention.inspection is None)
        self.scrubber.set_count(count)
        snap = attention.current_snapshot()
        if is_inspection(snap):
            self.scrubber.label.setText((self.tr("inspecting {name} · tick live (or pick a snapshot) for the training "
                                                 "history") if count else self.tr("inspecting {name}")).format(
                name=snap.model_name))
        elif snap is None:
            self.scrubber.label.setText(self.tr("no snapshots yet"))
        else:
            self.scrubber.show_index(attention.shown_index, self.tr("snapshot {number}/{count} · {when}").format(
                number=attention.shown_index + 1, count=count, when=snapshot_caption(snap)))

    def prebuild(self, layers: int, heads: int) -> None:
        """Build the thumbnails for a model of this shape while nothing runs (one block per event-loop turn,
        behind the hint), so that Start and the first snapshot find them ready. Not while an inspection is shown:
        its thumbnails stay until Start replaces them."""
        if not is_inspection(self.state.attention.current_snapshot()):
            self.prebuild_layout(uniform_layout(layers, heads))

    def prebuild_layout(self, layout: GridLayout) -> None:
        """As :meth:`prebuild`, for any kinds, layers and heads (an inspected model's)."""
        self._fit_grid(layout)
        self.grid.prepare_layout(layout, staged=True)

    @Slot(object)
    def _on_inspect_model_changed(self, info: Any) -> None:
        """Build an opened model's grid while its first text is read, unless a training snapshot is on display."""
        shown = self.state.attention.current_snapshot()
        if info is not None and (shown is None or is_inspection(shown)):
            self.prebuild_layout(tuple((SNAPSHOT_NAMES[k], info.layers[k], info.heads[k]) for k in info.kinds))

    @Slot(str)
    def _on_state_run_state_changed(self, run_state: str) -> None:
        config = self.state.run_config
        if run_state == "starting" and config is not None:
            self.prebuild(config.model.num_layers, config.model.num_heads)
