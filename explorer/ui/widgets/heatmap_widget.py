"""Heatmap view for attention weights (book §11.1–11.6): token axes, masked cells, hover and click.

`HeatmapPlotItem` is one heatmap plot (reused by the grid widget); `HeatmapWidget` adds a colour bar
and a hover readout around it.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFontMetrics

DEFAULT_COLORMAP = "viridis"
_MAX_TICKS = 30
_MAX_OVERLAY_PIXELS = 2_000_000


def _as_image(m: np.ndarray) -> np.ndarray:
    """A fresh float32, C-contiguous 2-D copy (ImageItem keeps a view of what it gets)."""
    a = np.array(m, dtype=np.float32, order="C", copy=True)
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"a heatmap needs a non-empty 2-D matrix, got shape {a.shape}")
    return a


def hatch_overlay(masked: np.ndarray, dark: bool = False) -> np.ndarray:
    """RGBA image that hatches masked cells and is transparent elsewhere.

    Parameters
    ----------
    masked : bool array (Q, K), True where a cell is masked out.

    Returns
    -------
    uint8 array (Q*s, K*s, 4) with s pixels per cell (s ≤ 8, smaller for big matrices).
    """
    q, k = masked.shape
    s = int(max(1, min(8, np.sqrt(_MAX_OVERLAY_PIXELS / max(1, q * k)))))
    big = np.repeat(np.repeat(masked, s, axis=0), s, axis=1)  # (Q*s, K*s)
    yy, xx = np.indices(big.shape)
    stripe = ((yy + xx) % max(s, 2)) < max(1, s // 4)
    base, line = ((70, 70, 70), (125, 125, 125)) if dark else ((215, 215, 215), (160, 160, 160))
    rgba = np.zeros(big.shape + (4,), dtype=np.uint8)
    rgba[..., :3] = np.where(stripe[..., None], line, base)
    rgba[..., 3] = np.where(big, 255, 0)
    return rgba


def _ticks(labels: Sequence[str], max_ticks: int = _MAX_TICKS, step: int = 1) -> list[list[tuple[float, str]]]:
    """Tick list with labels at cell centres: every `step`-th, and at most `max_ticks` of them."""
    step = max(1, step, int(np.ceil(len(labels) / max_ticks)))
    return [[(i + 0.5, str(labels[i])) for i in range(0, len(labels), step)]]


class HeatmapImageItem(pg.ImageItem):
    """Row-major ImageItem in cell coordinates that reports the cell under the mouse."""

    cell_clicked = Signal(int, int)
    cell_hovered = Signal(int, int, float)
    hover_left = Signal()

    def __init__(self) -> None:
        super().__init__(axisOrder="row-major")

    def cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        """(row, col) of the cell at item coordinates `pos`, or None outside the image."""
        if self.image is None:
            return None
        r, c = int(np.floor(pos.y())), int(np.floor(pos.x()))
        q, k = self.image.shape[:2]
        return (r, c) if 0 <= r < q and 0 <= c < k else None

    def hoverEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        if ev.isExit():
            self.hover_left.emit()
            return
        ev.acceptClicks(Qt.MouseButton.LeftButton)
        cell = self.cell_at(ev.pos())
        if cell is None:
            self.hover_left.emit()
        else:
            self.cell_hovered.emit(cell[0], cell[1], float(self.image[cell]))

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        if ev.button() != Qt.MouseButton.LeftButton:
            super().mouseClickEvent(ev)
            return
        cell = self.cell_at(ev.pos())
        if cell is not None:
            ev.accept()
            self.cell_clicked.emit(*cell)


class HeatmapPlotItem(pg.PlotItem):
    """One heatmap: image, masked-cell overlay, row highlight and token tick labels."""

    def __init__(self, colormap: str = DEFAULT_COLORMAP, compact: bool = False) -> None:
        super().__init__()
        self.compact = compact
        self.dark = False
        self.max_ticks = _MAX_TICKS
        self.image_item = HeatmapImageItem()
        self.image_item.setColorMap(pg.colormap.get(colormap))
        self.mask_item = pg.ImageItem(axisOrder="row-major")
        self.mask_item.setZValue(5)
        self.mask_item.setVisible(False)
        self.highlight_item = pg.QtWidgets.QGraphicsRectItem()
        self.highlight_item.setZValue(10)
        self.highlight_item.setVisible(False)
        self.addItem(self.image_item)
        self.addItem(self.mask_item)
        self.addItem(self.highlight_item)
        self.vb.sigResized.connect(self._on_view_resized)
        self.vb.sigRangeChanged.connect(self._on_view_resized)
        self.invertY(True)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.matrix: np.ndarray | None = None
        self.mask: np.ndarray | None = None  # bool (Q, K), True = kept (as in masked_softmax)
        self.row_labels: list[str] = []
        self.col_labels: list[str] = []
        self.highlighted_row: int | None = None
        self.levels: tuple[float, float] = (0.0, 1.0)
        self._tick_key: tuple | None = None
        if compact:
            self.hideAxis("left")
            self.hideAxis("bottom")
        self._apply_pens()

    def set_matrix(
        self,
        m: np.ndarray,
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        mask: np.ndarray | None = None,
        levels: tuple[float, float] | None = (0.0, 1.0),
    ) -> None:
        """Show matrix `m` (Q, K); `mask` bool (Q, K) with True = kept, False = drawn hatched.

        `levels=None` scales colours to the data's range.
        """
        img = _as_image(m)
        q, k = img.shape
        rows = [str(x) for x in row_labels] if row_labels is not None else [str(i) for i in range(q)]
        cols = [str(x) for x in col_labels] if col_labels is not None else [str(j) for j in range(k)]
        if len(rows) != q or len(cols) != k:
            raise ValueError(f"{len(rows)} row / {len(cols)} column labels for a {q}×{k} matrix")
        if levels is None:
            finite = img[np.isfinite(img)]
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            levels = (lo, hi if hi > lo else lo + 1.0)
        reshaped = self.matrix is None or self.matrix.shape != img.shape
        self.matrix, self.row_labels, self.col_labels = img, rows, cols
        self.levels = (float(levels[0]), float(levels[1]))
        self.image_item.setImage(img, autoLevels=False)
        self.image_item.setLevels(self.levels)  # after setImage: a colour bar may have deferred levels
        self._set_mask(mask)
        self._update_ticks()
        if reshaped:
            self.setLimits(xMin=0, xMax=k, yMin=0, yMax=q)
            self.setRange(xRange=(0, k), yRange=(0, q), padding=0)
        if self.highlighted_row is not None:
            self.highlight_row(self.highlighted_row if self.highlighted_row < q else None)

    def _update_ticks(self) -> None:
        """Label as many cells as fit: a column label is skipped when it would overlap the previous one."""
        if self.matrix is None:
            return
        rect = self.vb.viewRect()
        key = (self.vb.width(), self.vb.height(), rect.left(), rect.width(), rect.height(),
               self.max_ticks, self.row_labels, self.col_labels)
        if key == self._tick_key:
            return  # nothing that places labels changed (e.g. a new matrix of the same shape)
        self._tick_key = key
        metrics = QFontMetrics(self.getAxis("bottom").font())
        row_step, cols = 1, _ticks(self.col_labels, self.max_ticks)
        if self.vb.width() > 1 and rect.width() > 0:
            px_per_col = self.vb.width() / rect.width()
            cols, right, j = [[]], 0.0, max(0, int(rect.left()))  # pyqtgraph drops labels outside the axis
            min_step = max(1, math.ceil(len(self.col_labels) / self.max_ticks))
            while j < len(self.col_labels):
                label = self.col_labels[j]
                half = metrics.horizontalAdvance(label) / 2 + 3
                centre = (j + 0.5 - rect.left()) * px_per_col
                if centre + half > self.vb.width():
                    break
                if centre - half >= right:
                    cols[0].append((j + 0.5, label))
                    right = centre + half
                    # skip cells whose centre lies left of the free space (labels are at least 6 px)
                    j = max(j + min_step, int((right + 3) / px_per_col + rect.left() - 0.5))
                else:
                    j += 1
        if self.vb.height() > 1 and rect.height() > 0:
            row_step = math.ceil((metrics.height() + 2) * rect.height() / self.vb.height())
        self.getAxis("left").setTicks(_ticks(self.row_labels, self.max_ticks, row_step))
        self.getAxis("bottom").setTicks(cols)

    def _on_view_resized(self, *_args) -> None:
        self._update_ticks()

    def _set_mask(self, mask: np.ndarray | None) -> None:
        if mask is None:
            self.mask = None
            self.mask_item.setVisible(False)
            return
        keep = np.asarray(mask, dtype=bool)
        if keep.shape != self.matrix.shape:
            keep = np.broadcast_to(keep, self.matrix.shape)
        self.mask = keep.copy()
        self.mask_item.setImage(hatch_overlay(~self.mask, self.dark), autoLevels=False, levels=(0, 255))
        self.mask_item.setRect(QRectF(0, 0, keep.shape[1], keep.shape[0]))
        self.mask_item.setVisible(bool((~self.mask).any()))

    def highlight_row(self, row: int | None) -> None:
        """Outline row `row` (e.g. the clicked query); None removes the outline."""
        self.highlighted_row = row
        if row is None or self.matrix is None:
            self.highlight_item.setVisible(False)
            return
        self.highlight_item.setRect(QRectF(0, row, self.matrix.shape[1], 1))
        self.highlight_item.setVisible(True)

    def set_colormap(self, name: str) -> None:
        """Use pyqtgraph colour map `name` (e.g. ``"viridis"``, ``"CET-D1"``)."""
        self.image_item.setColorMap(pg.colormap.get(name))

    def apply_theme(self, dark: bool) -> None:
        """Axis, outline and hatch colours for a light or dark background."""
        self.dark = dark
        self._apply_pens()
        if self.mask is not None:
            self._set_mask(self.mask)

    def _apply_pens(self) -> None:
        fg = "#dddddd" if self.dark else "#222222"
        for name in ("left", "bottom"):
            axis = self.getAxis(name)
            axis.setPen(pg.mkPen(fg))
            axis.setTextPen(pg.mkPen(fg))
        self.highlight_item.setPen(pg.mkPen("#ff4040" if not self.dark else "#ff7070", width=2))
        self.titleLabel.setText(self.titleLabel.text, color=fg)


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

    def set_colormap(self, name: str) -> None:
        self.plot.set_colormap(name)
        if self.color_bar is not None:
            self.color_bar.setColorMap(pg.colormap.get(name))

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
        text = f"{self.row_labels[row]} → {self.col_labels[col]}: {value:.4g}"
        if self.mask is not None and not self.mask[row, col]:
            text += " (masked)"
        if not self.compact:
            self.readout.setText(text, color="#dddddd" if self.plot.dark else "#222222")
        self.setToolTip(text)
        self.cell_hovered.emit(row, col, value)

    def _on_image_hover_left(self) -> None:
        if not self.compact:
            self.readout.setText("")
        self.setToolTip("")
