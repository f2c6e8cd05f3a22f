"""A heatmap and its token-line view behind one "Heatmap | Token lines" choice, sharing one token selection: the large
attention view, the studio's Translate tab, a generation step. The lines are asked of the owner only when their view
is shown; either view is exported as shown."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import numpy as np
from PySide6.QtCore import QEvent, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QStackedWidget, QTabBar, QVBoxLayout, QWidget

from explorer.ui.widgets.export import export_target
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.hint_stack_widget import HintStack
from explorer.ui.widgets.token_lines_widget import TokenLinesView
from explorer.ui.widgets.token_selection import TokenSelection

if TYPE_CHECKING:
    from explorer.ui.panels.base_panel import ExportTarget

#: Above this many tokens the lines are not drawn (their picture would pass Qt's 32k-pixel limit): the heatmap shows
#: them, and ``lines_refused`` says so.
LINES_LIMIT = 1500
#: What the owner gives for the lines: ``(weights (h, q, k), query tokens, key tokens, head labels, heads shown)``,
#: or None while there is no map.
LinesData = Optional[tuple[np.ndarray, Sequence[str], Sequence[str], Sequence[str], Sequence[int]]]


class MapViews(QWidget):
    """``heatmap`` or its token lines (``token_lines``), chosen with ``tabs``. ``rows_are_queries``: the heatmap's
    rows are the query tokens (a click chooses the row); else its columns are the key tokens (a click chooses the
    column: a generation step's rows are heads). ``lines_source`` gives the lines' data; call :meth:`refresh`
    when it changes. ``hint``: the views start hidden behind this hint (``stack``), the tabs stay above it.
    ``lead``: a widget before the tabs that takes the row's spare width (else the spare width follows the tabs).

    Signals: ``lines_refused(int)`` when the lines are not drawn for having this many tokens (``LINES_LIMIT``)."""

    lines_refused = Signal(int)

    def __init__(self, heatmap: HeatmapWidget, lines_source: Callable[[], LinesData],
                 rows_are_queries: bool = True, parent: QWidget | None = None, *, hint: str | None = None,
                 lead: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heatmap = heatmap
        self._source = lines_source
        self._rows_are_queries = rows_are_queries
        self.selection = TokenSelection(self)
        self.token_lines = TokenLinesView(self.selection)
        self.tabs = QTabBar(self)
        self.tabs.addTab("")
        self.tabs.addTab("")
        self.views = QStackedWidget(self)
        self.views.addWidget(heatmap)
        self.views.addWidget(self.token_lines)
        self.stack = None if hint is None else HintStack(self.views, hint, self)
        self.bar = QHBoxLayout()  # the tabs, and any control the owner adds after them
        if lead is not None:
            self.bar.addWidget(lead, 1)
        self.bar.addWidget(self.tabs)
        if lead is None:
            self.bar.addStretch(1)
        self._layout = layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.bar)
        layout.addWidget(self.views if self.stack is None else self.stack, 1)
        self._stale = True
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        heatmap.cell_clicked.connect(self._on_heatmap_cell_clicked)
        self.selection.changed.connect(self._on_selection_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """Texts in the language in force (at build and on ``LanguageChange``)."""
        self.tabs.setTabText(0, self.tr("Heatmap"))
        self.tabs.setTabText(1, self.tr("Token lines"))
        self.tabs.setTabToolTip(1, self.tr("A line from each query token to each key token, its opacity the "
                                           "weight; hover a token to see its lines alone"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @property
    def showing_lines(self) -> bool:
        return self.tabs.currentIndex() == 1

    def show_view(self, which: str) -> None:
        """Show the ``"heatmap"`` or the ``"lines"``."""
        self.tabs.setCurrentIndex(1 if which == "lines" else 0)

    def refresh(self) -> None:
        """The map changed: the lines are drawn again now if shown, else when their view is."""
        self._stale = True
        self._draw_lines()

    def add_below(self, widget: QWidget, stretch: int, views_stretch: int = 1) -> None:
        """Put ``widget`` under the views (and their hint): it takes ``stretch`` parts of the height, the views
        ``views_stretch``."""
        self._layout.setStretch(1, views_stretch)
        self._layout.addWidget(widget, stretch)

    def apply_theme(self, dark: bool) -> None:
        self.heatmap.apply_theme(dark)
        self.token_lines.apply_theme(dark)

    def export_to(self, path: str | Path, fmt: str, target: ExportTarget) -> Path:
        """Write the view shown: the token lines as SVG or PNG, else ``target`` (the heatmap's, the owner's label
        on it) in ``fmt``; raises ``ExportError``."""
        if self.showing_lines and fmt in ("svg", "png"):
            self._draw_lines()
            return self.token_lines.export_to(path, fmt)
        return export_target(target, path, fmt)

    def _draw_lines(self) -> None:
        if not self._stale or not self.showing_lines:
            return
        self._stale = False
        data = self._source()
        if data is None:
            self.token_lines.clear()
            return
        count = max(len(data[1]), len(data[2]))
        if count > LINES_LIMIT:
            self.token_lines.clear()
            self.lines_refused.emit(count)
            return
        self.token_lines.set_maps(*data)

    @Slot(int)
    def _on_tabs_current_changed(self, index: int) -> None:
        self.views.setCurrentIndex(index)
        self._draw_lines()

    @Slot(int, int)
    def _on_heatmap_cell_clicked(self, row: int, col: int) -> None:
        if self._rows_are_queries:
            self.selection.select_query(row)
        else:
            self.selection.select_key(col)

    @Slot()
    def _on_selection_changed(self) -> None:
        if self._rows_are_queries:
            self.heatmap.highlight_row(self.selection.query)
