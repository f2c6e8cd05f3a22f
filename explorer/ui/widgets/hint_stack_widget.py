"""A view that shows a short hint in place of its content until it has data (no empty axes, no "×0.001")."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget


class HintStack(QStackedWidget):
    """Either ``content`` or a centred, word-wrapped hint; starts on the hint."""

    def __init__(self, content: QWidget, hint: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.content = content
        self.hint_label = QLabel(hint, self)
        self.hint_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint_label.setWordWrap(True)
        self.hint_label.setEnabled(False)  # drawn in the palette's muted text colour
        self.addWidget(self.hint_label)
        self.addWidget(content)
        self.setCurrentWidget(self.hint_label)

    def show_hint(self, text: str | None = None) -> None:
        """Hide the content behind the hint (``text`` replaces it when given)."""
        if text is not None:
            self.hint_label.setText(text)
        self.setCurrentWidget(self.hint_label)

    def show_content(self) -> None:
        self.setCurrentWidget(self.content)

    @property
    def showing_hint(self) -> bool:
        return self.currentWidget() is self.hint_label
