"""Keyboard control of the Transformer studio for live demos (book §11.7): Space pauses and resumes, → trains
one step while paused, Ctrl+← / Ctrl+→ walk through the attention history.

Shortcuts live on the panel (active while focus is inside it). Pause and step take the panel's own path, the one its
buttons take (so a key clears a stale banner as a click does); the history walk calls the state owner's methods.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QKeySequence, QShortcut

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from explorer.ui.panels.studio.studio_state import StudioState

TOGGLE_STATES = ("starting", "running", "paused")


class StudioKeys(QObject):
    """The studio's shortcuts; :func:`install_studio_keys` makes one for a panel. ``toggle`` pauses or resumes and
    ``step`` trains one step while paused, as the panel's buttons do.

    Space and → are enabled only when they can act, so that otherwise the key belongs to the focused widget
    (Space presses a focused button while idle, → moves a focused slider while training runs).
    """

    def __init__(self, panel: QWidget, state: StudioState, toggle: Callable[[], None],
                 step: Callable[[], None]) -> None:
        super().__init__(panel)
        self._state = state
        self._toggle, self._step = toggle, step
        self.toggle = self._shortcut(panel, Qt.Key.Key_Space, self._on_toggle_activated)
        self.step = self._shortcut(panel, Qt.Key.Key_Right, self._on_step_activated)
        self.back = self._shortcut(panel, Qt.Modifier.CTRL | Qt.Key.Key_Left, self._on_back_activated)
        self.forward = self._shortcut(panel, Qt.Modifier.CTRL | Qt.Key.Key_Right, self._on_forward_activated)
        state.run_state_changed.connect(self._on_state_run_state_changed)
        self._on_state_run_state_changed(state.run_state)

    @staticmethod
    def _shortcut(panel: QWidget, key: object, slot: object) -> QShortcut:
        shortcut = QShortcut(QKeySequence(key), panel)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(slot)
        return shortcut

    @Slot(str)
    def _on_state_run_state_changed(self, run_state: str) -> None:
        self.toggle.setEnabled(run_state in TOGGLE_STATES)
        self.step.setEnabled(run_state == "paused")

    @Slot()
    def _on_toggle_activated(self) -> None:
        self._toggle()

    @Slot()
    def _on_step_activated(self) -> None:
        self._step()

    @Slot()
    def _on_back_activated(self) -> None:
        self._walk(-1)

    @Slot()
    def _on_forward_activated(self) -> None:
        self._walk(+1)

    def _walk(self, delta: int) -> None:
        attention = self._state.attention
        count = len(attention.history)
        if not count:
            return
        shown = attention.shown_index if attention.shown_index is not None else count - 1
        index = min(max(shown + delta, 0), count - 1)
        if index != shown or attention.shown_index is None:
            attention.choose_index(index)


def install_studio_keys(panel: QWidget, state: StudioState, toggle: Callable[[], None],
                        step: Callable[[], None]) -> StudioKeys:
    """Give ``panel`` the studio's keyboard shortcuts: Space calls ``toggle``, → ``step`` (each enabled when
    ``state``'s run can take it), Ctrl+←/→ walk ``state``'s attention history."""
    return StudioKeys(panel, state, toggle, step)
