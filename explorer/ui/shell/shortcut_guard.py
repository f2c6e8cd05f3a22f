"""Keep the window's own shortcuts (Ctrl+E export, …) working while a text field has focus.

Text fields claim some key sequences for editing before any shortcut sees them: under the X11 key
scheme (every Linux desktop) Ctrl+E moves a line edit's or spin box's cursor to the end of the line,
so the File → Export shortcut did nothing while one had focus. A shortcut context (even
``ApplicationShortcut``) does not help: the focused widget's ``ShortcutOverride`` decides first.
"""
from __future__ import annotations

from typing import Iterable

from PySide6.QtCore import QEvent, QObject, Slot
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QPlainTextEdit, QTextEdit,
                               QWidget)

#: Widgets that claim editing key sequences through ``ShortcutOverride``.
_MARK = "explorer_shortcut_guard"  # dynamic property: the field is watched already
TEXT_INPUTS: tuple[type[QWidget], ...] = (QLineEdit, QAbstractSpinBox, QComboBox, QTextEdit, QPlainTextEdit)


class ShortcutGuard(QObject):
    """Declines a text field's claim on the shortcuts of ``actions`` when the field is inside ``window``.

    Watches only text inputs that get focus (an event filter on the focused field, installed once), so
    ordinary editing keys (Ctrl+A, Ctrl+Z, arrows …) still belong to the field.
    """

    def __init__(self, window: QWidget, actions: Iterable[QAction]) -> None:
        super().__init__(window)
        self._window = window
        self._actions = list(actions)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_app_focus_changed)

    def guarded(self) -> list[QKeySequence]:
        """The key sequences kept for the window (the actions' shortcuts as they are now)."""
        return [seq for action in self._actions for seq in action.shortcuts() if not seq.isEmpty()]

    def watch(self, widget: QWidget) -> None:
        """Guard ``widget`` (done automatically for text inputs of the window that get focus)."""
        if not widget.property(_MARK):
            widget.setProperty(_MARK, True)
            widget.installEventFilter(self)

    @Slot(QWidget, QWidget)
    def _on_app_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is not None and isinstance(new, TEXT_INPUTS) and self._window.isAncestorOf(new):
            self.watch(new)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            pressed = QKeySequence(event.keyCombination())
            if any(pressed.matches(seq) == QKeySequence.SequenceMatch.ExactMatch for seq in self.guarded()):
                event.ignore()  # not claimed by the field: the shortcut map triggers the action
                return True
        return False
