"""Plot titles that fit their plot: a long title shrinks its font (then elides) instead of widening the plot
and pushing its neighbours (a heatmap's colour bar) out of view on a small projector screen."""
from __future__ import annotations

import html
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF, QTextDocument

MIN_TITLE_PT = 7.0


class FittingTitle(pg.LabelItem):
    """A `LabelItem` for `PlotItem.titleLabel` whose minimum width is 0.

    ``text`` keeps the full title; ``elided`` says whether even the smallest font was too wide.
    """

    def __init__(self, parent: pg.GraphicsItem | None = None, size_pt: float = 11.0) -> None:
        self.full_text = ""
        self.elided = False
        self._wanted_pt = size_pt
        self._fitted_width = -1.0
        super().__init__("", size=f"{size_pt:g}pt", parent=parent)

    def setText(self, text: str, **args: Any) -> None:  # noqa: N802 (pyqtgraph override)
        size = args.pop("size", None)
        if size is not None:
            self._wanted_pt = float(str(size).removesuffix("pt"))
        self.full_text = text
        self._render(args)

    def _render(self, args: dict[str, Any] | None = None) -> None:
        """Largest font ≤ the wanted one (≥ `MIN_TITLE_PT`) at which the title fits the width; else elide."""
        args = dict(args or {})
        width = self.width()
        self._fitted_width = width
        pt = self._wanted_pt
        while True:
            super().setText(self.full_text, size=f"{pt:g}pt", **args)
            args = {}  # colour and friends persist in self.opts
            if width <= 1 or self.item.boundingRect().width() <= width or pt <= MIN_TITLE_PT:
                break
            pt = max(MIN_TITLE_PT, pt - 1)
        self.elided = width > 1 and self.item.boundingRect().width() > width
        if self.elided:
            doc = QTextDocument()
            doc.setHtml(self.full_text)
            font = QFont(self.item.font())
            font.setPointSizeF(pt)
            plain = QFontMetricsF(font).elidedText(doc.toPlainText(), Qt.TextElideMode.ElideRight, width - 8)
            super().setText(html.escape(plain), size=f"{pt:g}pt")
        self.text = self.full_text  # re-colouring with ``setText(label.text, color=…)`` keeps the whole title

    def updateMin(self) -> None:  # noqa: N802 (pyqtgraph override)
        super().updateMin()
        height = self._sizeHint[Qt.SizeHint.MinimumSize][1]
        self._sizeHint[Qt.SizeHint.MinimumSize] = (0, height)
        self.setMinimumWidth(0)

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(ev)
        if ev is not None and abs(self.width() - self._fitted_width) > 0.5 and self.full_text:
            self._render()


def install_fitting_title(plot: pg.PlotItem) -> FittingTitle:
    """Replace ``plot``'s title label with a `FittingTitle` (same place, same visibility)."""
    old = plot.titleLabel
    title = FittingTitle(parent=plot)
    plot.layout.removeItem(old)
    if old.scene() is not None:
        old.scene().removeItem(old)
    old.setParentItem(None)
    plot.layout.addItem(title, 0, 1)
    title.setVisible(old.isVisible())
    title.setMaximumHeight(old.maximumHeight())
    if old.isVisible():
        title.setText(old.text)  # a title given to the constructor
    plot.titleLabel = title
    return title


def fit_titles(*widgets: pg.PlotWidget) -> None:
    """Give each plot widget's plot a `FittingTitle`, keeping the title it has."""
    for widget in widgets:
        install_fitting_title(widget.getPlotItem())
