"""The studio's live attention (book §11.7): the snapshot history, the thumbnail grid and the scrubber.

Snapshots are stored as they arrive (O(1)); the panel's redraw timer calls :meth:`LiveAttention.refresh`,
which draws only the newest one, and only while the scrubber is live.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QVBoxLayout, QWidget

from explorer.core.snapshot_history import SnapshotHistory
from explorer.core.tasks import alignment_scores, ideal_alignment
from explorer.core.text import DatasetError
from explorer.ui.panels.studio.attention_grid_widget import AttentionGrid
from explorer.ui.panels.studio.history_scrubber_widget import HistoryScrubber


def snapshot_caption(snap: Any) -> str:
    return f"step {snap.step}, epoch {snap.epoch}"


class LiveAttention(QWidget):
    """History of attention snapshots drawn as a grid, with a slider to replay them.

    Signals
    -------
    snapshot_shown(object): the snapshot now drawn in the grid (for the detail view and the loss marker).
    thumbnail_clicked(str, int, int): kind, layer, head.
    """

    snapshot_shown = Signal(object)
    thumbnail_clicked = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history = SnapshotHistory()
        self.grid = AttentionGrid(self)
        self.scrubber = HistoryScrubber(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.grid, 1)
        layout.addWidget(self.scrubber)
        self.task: str | None = None
        self.shown_index: int | None = None
        self._new = False
        self._ideal: tuple[Any, np.ndarray | None] | None = None
        self.grid.thumbnail_clicked.connect(self._on_grid_thumbnail_clicked)
        self.scrubber.index_chosen.connect(self._on_scrubber_index_chosen)
        self.scrubber.live_toggled.connect(self._on_scrubber_live_toggled)

    def clear(self, task: str | None = None, keep_grid: bool = False) -> None:
        """Forget every snapshot; ``task`` names the synthetic task whose alignment to score (or None).

        ``keep_grid`` keeps the thumbnails (a new run of the same shape reuses them).
        """
        self.history.clear()
        self.task = task
        self.shown_index = None
        self._new = False
        if not keep_grid:
            self.grid.clear_grid()
        self.scrubber.set_live(True)
        self.scrubber.set_count(0)
        self.scrubber.label.setText("no snapshots yet")

    def add_snapshot(self, snap: Any) -> None:
        """Keep a snapshot (drawn at the next :meth:`refresh` if live)."""
        self.history.append(snap.step, snap)
        self._new = True

    def refresh(self) -> None:
        """Called by the redraw timer: update the slider and draw the newest snapshot when live."""
        if not self._new:
            return
        self._new = False
        self.scrubber.set_count(len(self.history))
        if self.scrubber.live and len(self.history):
            self.show_index(len(self.history) - 1)

    def current(self) -> Any:
        """The snapshot on display, or None."""
        if self.shown_index is None or self.shown_index >= len(self.history):
            return None
        return self.history[self.shown_index]

    def show_index(self, index: int) -> None:
        """Draw history snapshot ``index``."""
        snap = self.history[index]
        self.grid.set_snapshot(snap, self.alignment(snap))
        self.shown_index = index
        self.scrubber.show_index(index, f"snapshot {index + 1}/{len(self.history)} · {snapshot_caption(snap)}")
        self.snapshot_shown.emit(snap)

    def jump_to_step(self, step: float) -> bool:
        """Stop following live and show the snapshot nearest training ``step``; False if there is none."""
        index = self.history.nearest_index(step)
        if index is None:
            return False
        self.scrubber.set_live(False)
        self.show_index(index)
        return True

    def alignment(self, snap: Any) -> np.ndarray | None:
        """Cross-attention alignment ``(L, h)`` of each head against the task's ideal, or None."""
        if not self.task:
            return None
        key = (self.task, tuple(snap.src_tokens), tuple(snap.tgt_tokens))
        if self._ideal is None or self._ideal[0] != key:
            try:  # the tokens end with <eos>; the ideal adds its own <eos> row and column
                ideal = ideal_alignment(self.task, snap.src_tokens[:-1], snap.tgt_tokens[:-1])
            except (DatasetError, ValueError):
                ideal = None  # the probe is not a pair of this task
            self._ideal = (key, ideal)
        if self._ideal[1] is None:
            return None
        try:
            return alignment_scores(snap.maps["cross"], self._ideal[1])  # (L, h)
        except ValueError:
            return None

    @Slot(str, int, int)
    def _on_grid_thumbnail_clicked(self, kind: str, layer: int, head: int) -> None:
        self.thumbnail_clicked.emit(kind, layer, head)

    @Slot(int)
    def _on_scrubber_index_chosen(self, index: int) -> None:
        if 0 <= index < len(self.history):
            self.show_index(index)

    @Slot(bool)
    def _on_scrubber_live_toggled(self, live: bool) -> None:
        if live and len(self.history):
            self.show_index(len(self.history) - 1)
