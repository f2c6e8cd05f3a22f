"""A panel's column of controls that scrolls vertically and is exactly as wide as its widest control, so
a short window scrolls the controls instead of squeezing them (the app stays usable down to 1024×700)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

MIN_HEIGHT = 120  # below this the column is a letterbox, even with its scroll bar


class SideColumn(QScrollArea):
    """Stack widgets top to bottom (`add_widget`); never scrolls sideways, never clips a control.

    Its width is ``width`` or, if more, the content's minimum width, plus room for the vertical scroll
    bar, kept up to date when rows are shown or hidden; its height is whatever the panel can spare.
    """

    def __init__(self, parent: QWidget | None = None, width: int = 0) -> None:
        super().__init__(parent)
        self._wanted_width = width
        self.content = QWidget(self)
        self.content_layout = QVBoxLayout(self.content)
        self.content_layout.setContentsMargins(0, 0, 4, 0)
        self.content_layout.addStretch(1)
        self.setWidget(self.content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.content.installEventFilter(self)

    def add_widget(self, widget: QWidget, stretch: int = 0) -> None:
        """Append ``widget`` below the others (above the trailing stretch)."""
        self.content_layout.insertWidget(self.content_layout.count() - 1, widget, stretch)

    def _width(self) -> int:
        bar = self.verticalScrollBar().sizeHint().width()
        content = max(self._wanted_width, self.content.minimumSizeHint().width())
        return content + bar + 2 * self.frameWidth()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self._width(), self.content.sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self._width(), MIN_HEIGHT)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.content and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # a row shown or hidden: the column may need another width
        return super().eventFilter(watched, event)
