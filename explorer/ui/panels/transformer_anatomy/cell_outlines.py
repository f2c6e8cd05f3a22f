"""Outlines of whole rows or columns and numbers written in cells, drawn over a `HeatmapPlotItem` (the axes a
normalization averages over, the rows of a repeated word, the book's 2×2 example)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QGraphicsRectItem

from explorer.ui.widgets.heatmap_plot_item import HeatmapPlotItem


class CellOutlines:
    """Rectangles over one heatmap plot, created as needed and reused; ``show`` replaces the set drawn.

    Told apart by line style (solid rows, dashed columns), not by colour, so they read in every palette; the colour
    follows the theme (`set_colour`).
    """

    def __init__(self, plot: HeatmapPlotItem, dashed: bool = False, width: float = 2.5) -> None:
        self.plot = plot
        self.style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
        self.pen = pg.mkPen("#111111", width=width, style=self.style)
        self.items: list[QGraphicsRectItem] = []
        self.rects: list[tuple[float, float, float, float]] = []

    def show(self, rects: list[tuple[float, float, float, float]]) -> None:
        """Outline ``(x, y, width, height)`` rectangles in cell units (x = column, y = row)."""
        while len(self.items) < len(rects):
            item = QGraphicsRectItem()
            item.setZValue(12)
            self.plot.addItem(item)
            self.items.append(item)
        for i, item in enumerate(self.items):
            item.setVisible(i < len(rects))
            if i < len(rects):
                item.setRect(QRectF(*rects[i]))
                item.setPen(self.pen)
        self.rects = list(rects)

    def rows(self, rows: list[int], num_cols: int) -> None:
        self.show([(0, r, num_cols, 1) for r in rows])

    def columns(self, cols: list[int], num_rows: int) -> None:
        self.show([(c, 0, 1, num_rows) for c in cols])

    def set_colour(self, colour: str) -> None:
        self.pen = pg.mkPen(colour, width=self.pen.widthF(), style=self.style)
        for item in self.items:
            item.setPen(self.pen)


class CellNumbers:
    """One text item per cell of a small matrix (the book's 2×2 example), centred in its cell."""

    def __init__(self, plot: HeatmapPlotItem) -> None:
        self.plot = plot
        self.items: list[pg.TextItem] = []

    def show(self, matrix: np.ndarray, colour: str, decimals: int = 2) -> None:
        rows, cols = matrix.shape
        while len(self.items) < rows * cols:
            item = pg.TextItem(anchor=(0.5, 0.5))
            item.setZValue(14)
            self.plot.addItem(item)
            self.items.append(item)
        for i, item in enumerate(self.items):
            item.setVisible(i < rows * cols)
            if i < rows * cols:
                r, c = divmod(i, cols)
                value = float(matrix[r, c])
                item.setText(f"{0.0 if abs(value) < 10 ** -decimals else value:.{decimals}g}", color=colour)
                item.setPos(c + 0.5, r + 0.5)
