"""Plot titles that fit their plot: a long title shrinks its font (then elides) instead of widening the plot
and pushing its neighbours (a heatmap's colour bar) out of view on a small projector screen."""
from __future__ import annotations

import html
import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF, QTextDocument

MIN_TITLE_PT = 7.0


def title_sizes(wanted: float) -> list[float]:
    """The font sizes a title may take, largest first: ``wanted``, then 1 pt less each time while above
    `MIN_TITLE_PT`, then `MIN_TITLE_PT` (only ``wanted`` when it is no larger)."""
    if not math.isfinite(wanted) or wanted <= MIN_TITLE_PT:
        return [wanted if math.isfinite(wanted) else MIN_TITLE_PT]
    return [wanted - k for k in range(math.ceil(wanted - MIN_TITLE_PT))] + [MIN_TITLE_PT]


class FittingTitle(pg.LabelItem):
    """A `LabelItem` for `PlotItem.titleLabel` whose minimum width is 0.

    ``text`` keeps the full title; ``shown_pt`` is the font size it is shown at; ``elided`` says whether even the
    smallest font was too wide.
    """

    def __init__(self, parent: pg.GraphicsItem | None = None, size_pt: float = 11.0) -> None:
        self.full_text = ""
        self.elided = False
        self._wanted_pt = size_pt
        self._fitted_width = -1.0
        self.shown_pt = size_pt
        self._natural_width = 0.0  # the title's width at the wanted size, as last rendered
        self._natural_font = ""  # the key of the font it was measured in: in another, the next resize fits it again
        super().__init__("", size=f"{size_pt:g}pt", parent=parent)

    def setText(self, text: str, **args: Any) -> None:  # noqa: N802 (pyqtgraph override)
        size = args.pop("size", None)
        if size is not None:
            self._wanted_pt = float(str(size).removesuffix("pt"))
        self.full_text = text
        self._render(args)

    def _render(self, args: dict[str, Any] | None = None) -> None:
        """Largest font ≤ the wanted one, in 1 pt steps down to `MIN_TITLE_PT`, at which the title fits the width;
        else elide. After the wanted size, the first size tried is the one the widths' ratio points to (a title's
        width grows with its font size), then the next ones up or down: about two layouts of the text instead of up
        to five."""
        width = self.width()
        self._fitted_width = width
        sizes = title_sizes(self._wanted_pt)
        fits = self._set_size(sizes[0], dict(args or {}), width)
        self._natural_width = self.item.boundingRect().width()
        self._natural_font = self.item.font().key()
        index = 0
        if not fits and len(sizes) > 1:
            guess = sizes[0] * width / self._natural_width  # where the width would fit, were it proportional
            index = max(1, next((i for i, pt in enumerate(sizes) if pt <= guess), len(sizes) - 1))
            fits = self._set_size(sizes[index], {}, width)
            while fits and index > 1 and self._set_size(sizes[index - 1], {}, width):
                index -= 1  # a larger size fits too
            if fits and self.shown_pt != sizes[index]:
                self._set_size(sizes[index], {}, width)
            while not fits and index < len(sizes) - 1:
                index += 1
                fits = self._set_size(sizes[index], {}, width)
        pt = self.shown_pt = sizes[index]
        self.elided = width > 1 and self.item.boundingRect().width() > width
        if self.elided:
            doc = QTextDocument()
            doc.setHtml(self.full_text)
            font = QFont(self.item.font())
            font.setPointSizeF(pt)
            plain = QFontMetricsF(font).elidedText(doc.toPlainText(), Qt.TextElideMode.ElideRight, width - 8)
            super().setText(html.escape(plain), size=f"{pt:g}pt")
        self.text = self.full_text  # re-colouring with ``setText(label.text, color=…)`` keeps the whole title

    def _set_size(self, pt: float, args: dict[str, Any], width: float) -> bool:
        """Show the title at ``pt`` (``args``: colour and friends, kept in ``opts`` for later calls); whether it
        fits ``width`` (no width yet: it does)."""
        super().setText(self.full_text, size=f"{pt:g}pt", **args)
        self.shown_pt = pt
        return width <= 1 or self.item.boundingRect().width() <= width

    def updateMin(self) -> None:  # noqa: N802 (pyqtgraph override)
        super().updateMin()
        height = self._sizeHint[Qt.SizeHint.MinimumSize][1]
        self._sizeHint[Qt.SizeHint.MinimumSize] = (0, height)
        self.setMinimumWidth(0)

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(ev)
        if ev is None or abs(self.width() - self._fitted_width) <= 0.5 or not self.full_text:
            return
        if (self.shown_pt == self._wanted_pt and not self.elided and self._natural_width <= self.width()
                and self.item.font().key() == self._natural_font):
            self._fitted_width = self.width()  # whole, at the wanted size, and it still fits
            return
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
