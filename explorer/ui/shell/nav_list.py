"""The navigation list: numbered panel titles, narrowed to the numbers alone (titles as tool tips) while presenter
mode needs the room on a small screen, and given back its titles and width afterwards."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QListWidget, QSplitter, QWidget

_NORMAL_MIN_WIDTH = 180
_WIDEST = 16777215  # QWIDGETSIZE_MAX: no maximum width


class NavigationList(QListWidget):
    """One row per panel; :meth:`set_entries` gives the titles, :meth:`set_compact` narrows it to the numbers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.compact = False
        self._entries: list[tuple[str, str]] = []  # (title, book section) per row
        self._sizes_before: list[int] | None = None  # the splitter's sizes before narrowing, given back after
        self.setMinimumWidth(_NORMAL_MIN_WIDTH)
        self.setStyleSheet("QListWidget::item { padding: 6px 4px; }")

    def set_entries(self, entries: list[tuple[str, str]]) -> None:
        """One ``(title, book section)`` per row, in the language in force."""
        self._entries = list(entries)
        while self.count() < len(self._entries):
            self.addItem("")
        self._show_entries()

    def set_compact(self, compact: bool) -> None:
        """Show only the row numbers, in a list just wide enough for them (True), or the titles in the width the
        list had before (False)."""
        if compact == self.compact:
            return
        self.compact = compact
        splitter = self.parentWidget() if isinstance(self.parentWidget(), QSplitter) else None
        if compact and splitter is not None:
            self._sizes_before = splitter.sizes()
        self._show_entries()
        if not compact:
            self.setMaximumWidth(_WIDEST)
            self.setMinimumWidth(_NORMAL_MIN_WIDTH)
            if splitter is not None and self._sizes_before is not None:
                splitter.setSizes(self._sizes_before)
            self._sizes_before = None

    def fit_numbers(self) -> None:
        """While compact, make the list exactly as wide as its widest number (the font may have changed)."""
        if not self.compact:
            return
        self.ensurePolished()
        widest = max((self.fontMetrics().horizontalAdvance(f" {row + 1} ") for row in range(self.count())),
                     default=0)
        margins = self.contentsMargins()
        # the items' padding (4 px each side, from the style sheet) and the frame
        width = widest + 8 + margins.left() + margins.right() + 2 * self.frameWidth()
        self.setFixedWidth(width)
        splitter = self.parentWidget()
        if isinstance(splitter, QSplitter) and splitter.count() > 1:  # the width let go goes to the panels
            sizes, index = splitter.sizes(), splitter.indexOf(self)
            other = index + 1 if index + 1 < len(sizes) else index - 1
            sizes[other] += sizes[index] - width
            sizes[index] = width
            splitter.setSizes(sizes)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presenter mode scales the application font
            self.fit_numbers()

    def _show_entries(self) -> None:
        for row, (title, section) in enumerate(self._entries):
            item = self.item(row)
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter if self.compact else
                                  Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            if self.compact:
                item.setText(str(row + 1))
                item.setToolTip(f"{row + 1}. {title}\n{section}" if section != title else f"{row + 1}. {title}")
            else:
                item.setText(f"{row + 1}. {title}")
                item.setToolTip(section)
        self.fit_numbers()
