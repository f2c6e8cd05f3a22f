"""A panel's message banner: one line of what went wrong (or right) with a close button, laid out below the panel's
body like any widget, so it never lies over a control and never takes its clicks."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

#: Banner colours: (error, dark) -> (background, text, border).
COLOURS = {(True, False): ("#fdecea", "#8e1b10", "#c0392b"), (True, True): ("#4a1f1c", "#ffb4a9", "#e06c5f"),
           (False, False): ("#e8f5e9", "#1b5e20", "#2e7d32"), (False, True): ("#1e3b22", "#a5d6a7", "#66bb6a")}


class MessageBanner(QFrame):
    """A message and its close button; hidden until :meth:`show_message`.

    Signals
    -------
    closed(): the user closed the banner (it is hidden already).
    """

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inline_message")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.close_button = QToolButton(self)
        self.close_button.setObjectName("inline_message_close")
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setCursor(Qt.CursorShape.PointingHandCursor)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 2, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.close_button.clicked.connect(self._on_close_button_clicked)
        self.setVisible(False)
        self.restyle(error=True, dark=False)
        self.retranslate()

    def retranslate(self) -> None:
        tip = self.tr("Close this message")
        self.close_button.setToolTip(tip)
        self.close_button.setAccessibleName(tip)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def restyle(self, error: bool, dark: bool) -> None:
        """Colours for an error (or a note) on a light (or dark) theme."""
        background, text, border = COLOURS[(error, dark)]
        self.setStyleSheet(
            f"QFrame#inline_message {{ background: {background}; border: 1px solid {border}; border-radius: 4px; }}"
            f" QFrame#inline_message QLabel {{ color: {text}; font-weight: bold; background: transparent;"
            f" border: none; }} QToolButton#inline_message_close {{ color: {text}; border: none; }}")

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self.setVisible(True)

    def clear(self) -> None:
        self.label.clear()
        self.setVisible(False)

    def text(self) -> str:
        """The message shown ('' when hidden)."""
        return self.label.text() if not self.isHidden() else ""

    @Slot()
    def _on_close_button_clicked(self) -> None:
        self.clear()
        self.closed.emit()
