"""Heatmap view for attention weights (book §11.1–11.6): one `HeatmapPlotItem` with a colour bar and a
hover readout (compact: the heatmap only).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from explorer.ui.panels.base_panel import ExportTarget

from explorer.ui.widgets.heatmap_plot_item import (DEFAULT_COLORMAP, HeatmapImageItem, HeatmapPlotItem,
                                                    hatch_overlay)

__all__ = ["DEFAULT_COLORMAP", "HeatmapImageItem", "HeatmapPlotItem", "HeatmapWidget", "hatch_overlay"]


class HeatmapWidget(pg.GraphicsLayoutWidget):
    """A heatmap with token axes, one colour bar and a hover readout (compact: the heatmap only).

    Signals: ``cell_clicked(row, col)``, ``cell_hovered(row, col, value)``.
    """

    cell_clicked = Signal(int, int)
    cell_hovered = Signal(int, int, float)

    def __init__(self, parent=None, colormap: str = DEFAULT_COLORMAP, compact: bool = False,
                 title: str = "", levels: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__(parent)
        self.compact = compact
        self.plot = HeatmapPlotItem(colormap, compact)
        self.image_item = self.plot.image_item
        self.mask_item = self.plot.mask_item
        self.addItem(self.plot, row=0, col=0)
        if title:
            self.plot.setTitle(title)
        self.color_bar: pg.ColorBarItem | None = None
        self.readout = pg.LabelItem("", justify="left")
        self.note = ""  # shown in the readout line while the mouse is not over a cell
        if compact:
            self.ci.setContentsMargins(1, 1, 1, 1)
            self.setMinimumSize(60, 60)
        else:
            self.color_bar = pg.ColorBarItem(values=levels, colorMap=pg.colormap.get(colormap),
                                             interactive=False, width=14)
            self.color_bar.setImageItem(self.image_item)
            self.addItem(self.color_bar, row=0, col=1)
            self.addItem(self.readout, row=1, col=0, colspan=2)
            self.setMinimumSize(200, 160)
        self.image_item.cell_clicked.connect(self.cell_clicked)
        self.image_item.cell_hovered.connect(self._on_image_cell_hovered)
        self.image_item.hover_left.connect(self._on_image_hover_left)
        self.apply_theme(False)

    # --- data -------------------------------------------------------------------------------
    def set_matrix(self, m: np.ndarray, row_labels: Sequence[str] | None = None,
                   col_labels: Sequence[str] | None = None, mask: np.ndarray | None = None,
                   levels: tuple[float, float] | None = (0.0, 1.0)) -> None:
        """Show `m` (Q, K); see `HeatmapPlotItem.set_matrix` (mask: True = kept)."""
        self.plot.set_matrix(m, row_labels, col_labels, mask, levels)
        if self.color_bar is not None:
            self.color_bar.setLevels(self.plot.levels)

    @property
    def matrix(self) -> np.ndarray | None:
        """The float32 (Q, K) matrix on display."""
        return self.plot.matrix

    @property
    def mask(self) -> np.ndarray | None:
        """Bool (Q, K), True = kept, or None when nothing is masked."""
        return self.plot.mask

    @property
    def row_labels(self) -> list[str]:
        return self.plot.row_labels

    @property
    def col_labels(self) -> list[str]:
        return self.plot.col_labels

    @property
    def highlighted_row(self) -> int | None:
        return self.plot.highlighted_row

    def highlight_row(self, row: int | None) -> None:
        """Outline one row (None: none)."""
        self.plot.highlight_row(row)

    def set_title(self, title: str) -> None:
        self.plot.setTitle(title, color="#dddddd" if self.plot.dark else "#222222")

    def set_axis_labels(self, rows: str = "", cols: str = "") -> None:
        """Axis captions, e.g. ``("queries", "keys")``."""
        self.plot.setLabel("left", rows)
        self.plot.setLabel("bottom", cols)

    def set_note(self, text: str) -> None:
        """A line below the heatmap (e.g. what one cell stands for) shown while no cell is hovered."""
        if text != self.note:
            self.note = text
            if not self.compact:
                self.readout.setText(text, color="#dddddd" if self.plot.dark else "#222222")

    def set_colormap(self, name: str) -> None:
        self.plot.set_colormap(name)
        if self.color_bar is not None:
            self.color_bar.setColorMap(pg.colormap.get(name))

    def token_export_target(self, name: str) -> ExportTarget:
        """This heatmap for File → Export with its CSV rows and columns named by their tokens (quoted as needed)."""
        return ExportTarget(name, self, self._token_table, self._token_row_labels)

    def _token_table(self) -> tuple[list[str], np.ndarray]:
        if self.matrix is None:
            return [], np.zeros((0, 0))
        return list(self.col_labels), self.matrix.astype(np.float64)

    def _token_row_labels(self) -> tuple[str, list[str]]:
        return "query \\ key", list(self.row_labels)

    def csv_table(self) -> tuple[list[str], np.ndarray]:
        """Header and numbers for CSV export: a `row` index column, then one column per key."""
        if self.matrix is None:
            return ["row"], np.zeros((0, 1))
        q = self.matrix.shape[0]
        data = np.column_stack([np.arange(q), self.matrix.astype(np.float64)])
        # CSV column names may not hold commas, quotes or line breaks (a token can be ",")
        names = [c if not re.search(r'[",\n\r]', c) else f"col{j}" for j, c in enumerate(self.col_labels)]
        return ["row", *names], data

    def apply_theme(self, dark: bool) -> None:
        self.setBackground("k" if dark else "w")
        self.plot.apply_theme(dark)
        fg = "#dddddd" if dark else "#222222"
        self.readout.setText(self.readout.text, color=fg)
        if self.color_bar is not None:
            self.color_bar.axis.setPen(pg.mkPen(fg))
            self.color_bar.axis.setTextPen(pg.mkPen(fg))

    # --- slots -----------------------------------------------------------------------------
    def _on_image_cell_hovered(self, row: int, col: int, value: float) -> None:
        if self.mask is not None and not self.mask[row, col]:
            text = self.tr("{row} → {col}: {value:.4g} (masked)")
        else:
            text = "{row} → {col}: {value:.4g}"
        # the readout and tool tip are rich text: a token such as <eos> would vanish as an unknown tag (Qt only
        # guesses whether a tool tip is rich text, and without a tag would show "it&#x27;s": <qt> says it is)
        text = text.format(row=escape(self.row_labels[row]), col=escape(self.col_labels[col]), value=value)
        if not self.compact:
            self.readout.setText(text, color="#dddddd" if self.plot.dark else "#222222")
        self.setToolTip(f"<qt>{text}</qt>")
        self.cell_hovered.emit(row, col, value)

    def _on_image_hover_left(self) -> None:
        if not self.compact:
            self.readout.setText(self.note)
        self.setToolTip("")
