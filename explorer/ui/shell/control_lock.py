"""View → Lock controls: the panels' input widgets ignore clicks, wheel turns and typing, the view stays.

An application event filter rather than ``setEnabled(False)``: controls keep their look and their own enabled
state (panels enable and disable them as runs start and stop), navigation, menus, plots and keyboard
shortcuts keep working, and unlocking has nothing to restore. A status-bar label shows the lock.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from PySide6.QtWidgets import (QAbstractButton, QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox,
                               QApplication, QComboBox, QLabel, QLineEdit, QPlainTextEdit, QScrollBar, QTextEdit,
                               QWidget)

#: Widgets that change something when clicked, turned or typed into.
INPUT_WIDGETS: tuple[type[QWidget], ...] = (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox,
                                            QLineEdit, QTextEdit, QPlainTextEdit)
_BLOCKED = {QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick,
            QEvent.Type.Wheel, QEvent.Type.KeyPress, QEvent.Type.KeyRelease, QEvent.Type.ContextMenu}
_NOTICE = {QEvent.Type.MouseButtonPress, QEvent.Type.KeyPress}


class LockIndicator(QLabel):
    """The status bar's "Controls locked" while the lock is on."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force (at build and on ``LanguageChange``)."""
        self.setText(QCoreApplication.translate("ControlLock", "Controls locked"))
        self.setToolTip(QCoreApplication.translate(
            "ControlLock", "View → Lock controls: the panels' controls ignore clicks and keys."))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class ControlLock(QObject):
    """Locks the input widgets inside ``area`` (the panel stack) while :attr:`locked`.

    Signals
    -------
    locked_changed(bool): the lock was switched on or off.
    input_refused(): a click or key meant for a locked control was dropped.
    """

    locked_changed = Signal(bool)
    input_refused = Signal()

    def __init__(self, area: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._area = area
        self.locked = False
        self.indicator = LockIndicator()
        self.indicator.setObjectName("control_lock_indicator")
        self.indicator.setStyleSheet("QLabel#control_lock_indicator { font-weight: bold; padding: 0 6px;"
                                     " border: 1px solid #c77c02; border-radius: 3px; color: #c77c02; }")
        self.indicator.setVisible(False)

    def set_locked(self, locked: bool) -> None:
        """Lock (True) or unlock the controls."""
        locked = bool(locked)
        if locked == self.locked:
            return
        self.locked = locked
        app = QApplication.instance()
        if app is not None:
            if locked:
                app.installEventFilter(self)
            else:
                app.removeEventFilter(self)
        self.indicator.setVisible(locked)
        self.locked_changed.emit(locked)

    def is_locked_control(self, widget: QObject) -> bool:
        """True if ``widget`` is (or is inside) an input widget of the area while locked."""
        if not self.locked or not isinstance(widget, QWidget) or not self._area.isAncestorOf(widget):
            return False
        node: QWidget | None = widget
        while node is not None and node is not self._area:
            if isinstance(node, QScrollBar) or (isinstance(node, QAbstractScrollArea)
                                                and not isinstance(node, INPUT_WIDGETS)):
                return False  # scrolling a side column is looking, not changing
            if isinstance(node, INPUT_WIDGETS):
                return True
            node = node.parentWidget()
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() in _BLOCKED and self.is_locked_control(watched):
            if event.type() in _NOTICE:
                self.input_refused.emit()
            elif event.type() == QEvent.Type.Wheel:
                self._scroll_instead(watched, event)
            return True
        return False

    def _scroll_instead(self, widget: QWidget, event: QEvent) -> None:
        """A wheel turned over a locked control scrolls the column around it, as it would over a label."""
        node = widget.parentWidget()
        while node is not None and node is not self._area:
            if isinstance(node, QAbstractScrollArea) and not isinstance(node, INPUT_WIDGETS):
                QApplication.sendEvent(node.verticalScrollBar(), event)
                return
            node = node.parentWidget()
