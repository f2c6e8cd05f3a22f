"""The token chosen in an attention map, one object that the heatmap, the token-line view and the bar chart of the
large view all subscribe to: a query row (which output token) or a key column (which input token), or neither."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class TokenSelection(QObject):
    """``query`` / ``key``: the chosen row or column of the map on display (at most one of them), or None.

    Signals: ``changed()`` after either changes."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.query: int | None = None
        self.key: int | None = None

    def select_query(self, row: int | None) -> None:
        """Choose output token ``row`` (None: none); choosing the chosen one again clears it."""
        self._set(None if row == self.query else row, None)

    def select_key(self, col: int | None) -> None:
        """Choose input token ``col`` (None: none); choosing the chosen one again clears it."""
        self._set(None, None if col == self.key else col)

    def clear(self) -> None:
        self._set(None, None)

    def fit(self, rows: int, cols: int) -> None:
        """Forget a choice that the map now on display does not have (a shorter text)."""
        query = self.query if self.query is not None and self.query < rows else None
        key = self.key if self.key is not None and self.key < cols else None
        self._set(query, key)

    def _set(self, query: int | None, key: int | None) -> None:
        if (query, key) != (self.query, self.key):
            self.query, self.key = query, key
            self.changed.emit()
