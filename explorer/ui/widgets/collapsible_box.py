"""A titled box whose content folds away behind an arrow button (used for each panel's formula)."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QFrame, QSizePolicy, QToolButton, QVBoxLayout, QWidget


class CollapsibleBox(QWidget):
    """A tool button with an arrow above a content frame that shows or hides.

    Put widgets into ``content_layout``. ``toggled(bool)`` is emitted with the new expanded state.
    """

    toggled = Signal(bool)

    def __init__(self, title: str, parent: QWidget | None = None, expanded: bool = True) -> None:
        super().__init__(parent)
        self._button = QToolButton(self)
        self._button.setText(title)
        self._button.setCheckable(True)
        self._button.setChecked(expanded)
        self._button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._button.setAutoRaise(True)
        self._button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._button.toggled.connect(self._on_button_toggled)

        self.content = QFrame(self)
        self.content.setFrameShape(QFrame.Shape.StyledPanel)
        self.content_layout = QVBoxLayout(self.content)
        self.content_layout.setContentsMargins(8, 6, 8, 6)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self._button)
        layout.addWidget(self.content)
        self._apply(expanded)

    def is_expanded(self) -> bool:
        """Whether the content is shown."""
        return self._button.isChecked()

    def set_expanded(self, expanded: bool) -> None:
        """Show or hide the content (emits ``toggled`` if the state changes)."""
        self._button.setChecked(expanded)

    def title(self) -> str:
        """The button's text."""
        return self._button.text()

    def setText(self, text: str) -> None:  # noqa: N802 (superqt QCollapsible's name, so either box fits)
        """Set the button's text."""
        self._button.setText(text)

    @Slot(bool)
    def _on_button_toggled(self, checked: bool) -> None:
        self._apply(checked)
        self.toggled.emit(checked)

    def _apply(self, expanded: bool) -> None:
        arrow = Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow
        self._button.setArrowType(arrow)
        self.content.setVisible(expanded)
