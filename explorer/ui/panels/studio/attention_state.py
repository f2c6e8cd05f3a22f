"""The studio's attention history as state (book §11.7 probes): every kept snapshot, the one shown, whether it
follows the newest, and the head chosen for the large view. Part of :class:`StudioState`; views subscribe."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from explorer.core.runs.snapshot_history import SnapshotHistory
from explorer.ui.panels.studio.snapshot_alignment import AlignmentCache


class AttentionState(QObject):
    """Snapshots of the probe's attention and what is selected among them.

    Signals
    -------
    history_changed(): the number of snapshots, the one shown or the live flag changed.
    snapshot_shown(object): the ``SnapshotEvent`` now selected (None when the history is empty).
    head_selected(str, int, int): kind, layer, head chosen for the detail view.
    """

    history_changed = Signal()
    snapshot_shown = Signal(object)
    head_selected = Signal(str, int, int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.history = SnapshotHistory()
        self.alignment = AlignmentCache()
        self.shown_index: int | None = None
        self.live = True
        self.selected_head: tuple[str, int, int] | None = None

    def current_snapshot(self) -> Any:
        """The snapshot selected for display, or None."""
        if self.shown_index is None or self.shown_index >= len(self.history):
            return None
        return self.history[self.shown_index]

    def add(self, snapshot: Any) -> None:
        """Keep a snapshot (O(1); shown by :meth:`show_latest` when live)."""
        self.history.append(snapshot.step, snapshot)

    def clear(self) -> None:
        self.history.clear()
        self.shown_index, self.live = None, True

    def show_index(self, index: int) -> None:
        """Select history snapshot ``index``."""
        if 0 <= index < len(self.history):
            self.shown_index = index
            self.snapshot_shown.emit(self.history[index])
            self.history_changed.emit()

    def show_latest(self) -> None:
        """Show the newest snapshot when live (or say the history is empty); else just report the count."""
        if not len(self.history):
            self.shown_index = None
            self.snapshot_shown.emit(None)
            self.history_changed.emit()
        elif self.live:
            self.show_index(len(self.history) - 1)
        else:
            self.history_changed.emit()

    def set_live(self, live: bool) -> None:
        """Follow the newest snapshot (True) or stay on the one chosen."""
        self.live = bool(live)
        self.show_latest()

    def choose_index(self, index: int) -> None:
        """The user picked snapshot ``index``: stop following unless it is the newest."""
        self.live = index == len(self.history) - 1 and self.live
        self.show_index(index)

    def jump_to_step(self, step: float) -> bool:
        """Stop following live and show the snapshot nearest training ``step``; False if there is none."""
        index = self.history.nearest_index(step)
        if index is None:
            return False
        self.live = False
        self.show_index(index)
        return True

    def select_head(self, kind: str, layer: int, head: int) -> None:
        self.selected_head = (kind, layer, head)
        self.head_selected.emit(kind, layer, head)
