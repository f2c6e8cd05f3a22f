"""One heatmap plot for attention weights (book §11.1–11.6): token axes, masked cells, hover and click.

`HeatmapPlotItem` is used alone by `HeatmapWidget` and as the tiles of `HeatmapGridWidget`.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFont

from explorer.ui.widgets.fitting_title import install_fitting_title
from explorer.ui.widgets.token_axis_item import TickLayout, TickRoom, TickSync, TokenAxisItem, label_extents

DEFAULT_COLORMAP = "viridis"
_MAX_TICKS = 40  # up to this many labels an axis shows them all (smaller or vertical text)
_UNSIZED = 1e9  # a view not laid out yet: judge labels as if there were room
_MAX_OVERLAY_PIXELS = 2_000_000
_ALL_LABELS = 200  # up to this many labels an axis places them all; beyond (a zoomed long axis), those in view


def _as_image(m: np.ndarray, owned: bool = False) -> np.ndarray:
    """A fresh float32, C-contiguous 2-D copy (ImageItem keeps a view of what it gets); ``owned``: ``m`` is never
    written by anyone else, so a float32 C-contiguous one is kept as it is (a 4,096² map: no 64 MB copy)."""
    a = np.asarray(m, dtype=np.float32, order="C") if owned else np.array(m, dtype=np.float32, order="C", copy=True)
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
        # No context menu: asked for here, so its view box never builds the menu that turning it off later drops.
        super().__init__(axisItems={"left": TokenAxisItem("left"), "bottom": TokenAxisItem("bottom")}, enableMenu=False)
        install_fitting_title(self)  # a long title shrinks rather than pushing the colour bar away
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
        self.hideButtons()
        self.matrix: np.ndarray | None = None
        self.mask: np.ndarray | None = None  # bool (Q, K), True = kept (as in masked_softmax)
        self.row_labels: list[str] = []
        self.col_labels: list[str] = []
        self.highlighted_row: int | None = None
        self.levels: tuple[float, float] = (0.0, 1.0)
        self.tick_sync = TickSync(self)  # a grid replaces it with one shared by all its tiles
        self.tick_sync.members.append(self)
        self._applied: tuple | None = None
        self._tick_layout: TickLayout | None = None
        # Until a matrix arrives the plot shows a hint, not numbered axes of nothing ("-400 … 400 (x0.001)")
        self.empty_hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.empty_hint.setPos(0.5, 0.5)
        self.addItem(self.empty_hint, ignoreBounds=True)
        for name in ("left", "bottom"):
            self.getAxis(name).enableAutoSIPrefix(False)  # token positions, never scaled numbers
        if compact:
            self.hideAxis("left")
            self.hideAxis("bottom")
        self._show_empty(True)
        self._apply_pens()

    def set_matrix(
        self,
        m: np.ndarray,
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        mask: np.ndarray | None = None,
        levels: tuple[float, float] | None = (0.0, 1.0),
        owned: bool = False,
    ) -> None:
        """Show matrix `m` (Q, K); `mask` bool (Q, K) with True = kept, False = drawn hatched.

        `levels=None` scales colours to the data's range; `owned=True`: `m` is never written again (not copied).
        """
        img = _as_image(m, owned)
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
        if self.matrix is None:
            self._show_empty(False)
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

    def setTitle(self, title: str | None = None, **args) -> None:  # noqa: N802 (pyqtgraph override)
        """As `PlotItem.setTitle`, with a title row only as tall as its text (pyqtgraph reserves 30 px)."""
        super().setTitle(title, **args)
        if title is not None:
            height = min(30.0, self.titleLabel.item.boundingRect().height())
            self.titleLabel.setMaximumHeight(height)
            self.layout.setRowFixedHeight(0, height)

    def clear_matrix(self) -> None:
        """Show nothing again: no image, no numbered axes, the hint (see :meth:`set_empty_hint`)."""
        self.matrix, self.mask, self.row_labels, self.col_labels = None, None, [], []
        self.image_item.clear()
        self.mask_item.setVisible(False)
        self.highlight_row(None)
        self._show_empty(True)

    def set_empty_hint(self, text: str) -> None:
        """What the plot says while it has no matrix (e.g. what to do to fill it)."""
        self.empty_hint.setText(text, color="#9e9e9e")

    def is_empty(self) -> bool:
        """True while no matrix is shown."""
        return self.matrix is None

    def _show_empty(self, empty: bool) -> None:
        self.empty_hint.setVisible(empty)
        if empty:
            for name in ("left", "bottom"):
                self.getAxis(name).setTicks([[]])  # the token labels come with the matrix
        self.image_item.setVisible(not empty)
        if empty:
            self._applied = None
            (x0, x1), (y0, y1) = self.vb.viewRange()
            self.empty_hint.setPos((x0 + x1) / 2, (y0 + y1) / 2)

    def _update_ticks(self) -> None:
        """Place the token labels again (the decision is shared with the other plots of `tick_sync`)."""
        if self.matrix is not None and not self.compact:
            self.tick_sync.update()

    def tick_font(self) -> QFont:
        """The font labels start from before any shrinking."""
        return QFont(self.getAxis("bottom").font())

    def tick_room(self) -> TickRoom | None:
        """The labels and the room this plot has for them now (None: no labels to place)."""
        if self.matrix is None or self.compact:
            return None
        left, bottom = self.getAxis("left"), self.getAxis("bottom")
        rect = self.vb.viewRect()
        sized = self.vb.width() > 1 and self.vb.height() > 1
        return TickRoom(rows=tuple(self.row_labels) if left.isVisible() else (),
                        cols=tuple(self.col_labels) if bottom.isVisible() else (),
                        view_width=self.vb.width() if sized else _UNSIZED,
                        view_height=self.vb.height() if sized else _UNSIZED,
                        rows_in_view=max(rect.height(), 1e-9), cols_in_view=max(rect.width(), 1e-9),
                        left_extent=left.extent(), bottom_extent=bottom.extent())

    def apply_tick_layout(self, layout: TickLayout) -> None:
        """Label every ``row_step``-th row and ``col_step``-th column at cell centres in the layout's font."""
        self._tick_layout = layout
        self._place_ticks()

    @staticmethod
    def _span(n: int, view: Sequence[float], step: int) -> tuple[int, int, int]:
        """``(start, stop, step)`` of the labels to place: all of them, or on a long zoomed axis those in view (on
        whole steps, so labels do not jump while panning); never more than a few hundred, even when the layout
        was decided for a smaller view than the one just set."""
        if math.ceil(n / step) <= _ALL_LABELS:
            return 0, n, step
        start, stop = max(0, int(math.floor(view[0]))), min(n, int(math.ceil(view[1])) + 1)
        step = max(step, math.ceil((stop - start) / _ALL_LABELS))
        return start // step * step, stop, step

    def _place_ticks(self) -> None:
        layout = self._tick_layout
        if layout is None:
            return
        x_view, y_view = self.vb.viewRange()
        row_span = self._span(len(self.row_labels), y_view, layout.row_step)  # (start, stop, step)
        col_span = self._span(len(self.col_labels), x_view, layout.col_step)
        key = (layout, self.row_labels, self.col_labels, row_span, col_span)
        if key == self._applied:
            return
        self._applied = key
        font = self.tick_font()
        font.setPointSizeF(layout.point_size)
        rows = [(i + 0.5, self.row_labels[i]) for i in range(*row_span)]
        cols = [(j + 0.5, self.col_labels[j]) for j in range(*col_span)]
        every = (row_span[:2], col_span[:2]) == ((0, len(self.row_labels)), (0, len(self.col_labels)))
        # a long axis measures all its labels (once per font), so its width does not change while panning
        left = [t for _, t in rows] if every else self.row_labels
        bottom = [t for _, t in cols] if every else self.col_labels
        self.getAxis("left").set_token_ticks(rows, font, False, label_extents(left, font, True))
        self.getAxis("bottom").set_token_ticks(cols, font, layout.rotated, label_extents(bottom, font, layout.rotated))

    def _on_view_resized(self, *_args) -> None:
        if self.matrix is not None and not self.compact:
            self.tick_sync.schedule()
            self._place_ticks()  # a pan along a long axis: the labels in view

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


