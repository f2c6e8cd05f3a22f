"""Several attention heatmaps side by side sharing one colour bar (book §11.3 scorers, §11.5 heads)."""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from explorer.ui.widgets.heatmap_plot_item import DEFAULT_COLORMAP, HeatmapPlotItem
from explorer.ui.widgets.token_axis_item import TickSync


class HeatmapGridWidget(pg.GraphicsLayoutWidget):
    """A grid of `HeatmapPlotItem` tiles, one shared `ColorBarItem` and a hover readout.

    Signals: ``cell_clicked(tile, row, col)``, ``cell_hovered(tile, row, col, value)``.
    """

    cell_clicked = Signal(int, int, int)
    cell_hovered = Signal(int, int, int, float)

    def __init__(self, parent=None, colormap: str = DEFAULT_COLORMAP, max_columns: int = 3,
                 max_ticks: int = 40) -> None:
        super().__init__(parent)
        self.colormap = colormap
        self.max_columns = max_columns
        self.max_ticks = max_ticks
        self.dark = False
        self.plots: list[HeatmapPlotItem] = []
        self.titles: list[str] = []
        self.color_bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get(colormap),
                                         interactive=False, width=14)
        self.readout = pg.LabelItem("", justify="left")
        self._columns = 0
        self.tick_sync = TickSync(self)  # every tile labels its axes alike (same font, same labels)
        self.setMinimumSize(240, 180)
        self.apply_theme(False)

    # --- data -------------------------------------------------------------------------------
    def set_matrices(self, matrices: Sequence[np.ndarray] | np.ndarray, titles: Sequence[str] | None = None,
                     row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
                     mask: np.ndarray | None = None, levels: tuple[float, float] | None = (0.0, 1.0),
                     columns: int | None = None,
                     tile_col_labels: Sequence[Sequence[str] | None] | None = None) -> None:
        """Show ``matrices`` (n, Q, K) as n tiles; ``mask`` bool (Q, K) or (n, Q, K), True = kept.

        ``levels=None`` uses the common range of all tiles. ``tile_col_labels`` gives each tile its own
        column labels (tiles may then differ in width K).
        """
        mats = [np.asarray(m) for m in matrices]
        if not mats:
            raise ValueError("a heatmap grid needs at least one matrix")
        n = len(mats)
        titles = list(titles) if titles is not None else [f"{i}" for i in range(n)]
        if len(titles) != n:
            raise ValueError(f"{len(titles)} titles for {n} heatmaps")
        if levels is None:
            lo = min(float(np.nanmin(m)) for m in mats)
            hi = max(float(np.nanmax(m)) for m in mats)
            levels = (lo, hi if hi > lo else lo + 1.0)
        cols = columns or min(n, self.max_columns)
        if n != len(self.plots) or cols != self._columns:
            self._rebuild(n, cols)
        masks = np.broadcast_to(mask, (n,) + np.shape(mask)[-2:]) if mask is not None else [None] * n
        per_tile = list(tile_col_labels) if tile_col_labels is not None else [col_labels] * n
        with self.tick_sync.batch():
            for i, plot in enumerate(self.plots):
                plot.set_matrix(mats[i], row_labels, per_tile[i], masks[i], levels)
                plot.setTitle(titles[i], color=self._fg())
        self.titles = titles
        self.color_bar.setLevels(tuple(levels))

    def set_titles(self, titles: Sequence[str]) -> None:
        """Re-title the tiles shown (e.g. in another language) without redrawing them."""
        for plot, title in zip(self.plots, titles):
            plot.setTitle(title, color=self._fg())
        self.titles = list(titles)

    @property
    def matrices(self) -> list[np.ndarray]:
        """The float32 (Q, K) matrices on display, one per tile."""
        return [p.matrix for p in self.plots]

    def highlight_row(self, row: int | None) -> None:
        """Outline the same row in every tile (None: none)."""
        for plot in self.plots:
            plot.highlight_row(row)

    def set_colormap(self, name: str) -> None:
        self.colormap = name
        self.color_bar.setColorMap(pg.colormap.get(name))
        for plot in self.plots:
            plot.set_colormap(name)

    def apply_palette(self, palette: str) -> None:
        """Use the ``standard`` or ``colour_blind`` partner of this grid's colour map, tiles built later too."""
        from explorer.render.colormaps import resolve

        self.set_colormap(resolve(self.colormap, palette))

    def csv_table(self) -> tuple[list[str], np.ndarray]:
        """Long format for CSV export: one line per (tile, row, col) with its value."""
        rows = []
        for t, m in enumerate(self.matrices):
            r, c = np.indices(m.shape)
            rows.append(np.column_stack([np.full(m.size, t), r.ravel(), c.ravel(), m.ravel()]))
        data = np.concatenate(rows).astype(np.float64) if rows else np.zeros((0, 4))
        return ["tile", "row", "col", "value"], data

    def apply_theme(self, dark: bool) -> None:
        self.dark = dark
        self.setBackground("k" if dark else "w")
        for plot, title in zip(self.plots, self.titles):
            plot.apply_theme(dark)
            plot.setTitle(title, color=self._fg())
        self.color_bar.axis.setPen(pg.mkPen(self._fg()))
        self.color_bar.axis.setTextPen(pg.mkPen(self._fg()))
        self.readout.setText(self.readout.text, color=self._fg())

    # --- layout -----------------------------------------------------------------------------
    def _fg(self) -> str:
        return "#dddddd" if self.dark else "#222222"

    def _rebuild(self, n: int, cols: int) -> None:
        """Lay out n tiles in `cols` columns; tiles are reused, created or dropped as needed."""
        for item in [*self.plots, self.color_bar, self.readout]:
            if item.scene() is not None:
                self.ci.removeItem(item)
        while len(self.plots) < n:
            plot = HeatmapPlotItem(self.colormap)
            plot.max_ticks = self.max_ticks
            plot.tick_sync = self.tick_sync
            plot.apply_theme(self.dark)
            index = len(self.plots)
            plot.image_item.cell_clicked.connect(lambda r, c, i=index: self.cell_clicked.emit(i, r, c))
            plot.image_item.cell_hovered.connect(lambda r, c, v, i=index: self._on_tile_cell_hovered(i, r, c, v))
            plot.image_item.hover_left.connect(self._on_tile_hover_left)
            self.plots.append(plot)
        del self.plots[n:]
        self.tick_sync.members[:] = self.plots
        rows = (n + cols - 1) // cols
        for i, plot in enumerate(self.plots):
            self.addItem(plot, row=i // cols, col=i % cols)
            # tiles share their row labels: only the first column shows them, the others get the width
            plot.showAxis("left", i % cols == 0)
        self.addItem(self.color_bar, row=0, col=cols, rowspan=rows)
        self.addItem(self.readout, row=rows, col=0, colspan=cols + 1)
        self.color_bar.setImageItem([p.image_item for p in self.plots])
        self._columns = cols
        self._share_width()

    def _share_width(self) -> None:
        """Give every tile column the same width, whatever its axes need: a tile's room then does not
        depend on the size of its labels (which is chosen from that room)."""
        if not getattr(self, "_columns", 0):
            return  # still being built (Qt resizes the view from its constructor)
        layout = self.ci.layout
        left, _, right, _ = layout.getContentsMargins()
        spacing = layout.horizontalSpacing() if layout.horizontalSpacing() >= 0 else 0
        free = self.viewport().width() - left - right - self.color_bar.minimumWidth() - self._columns * spacing
        width = max(40.0, free / self._columns)
        for col in range(self._columns):
            layout.setColumnFixedWidth(col, width)

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(ev)
        self._share_width()

    # --- slots -----------------------------------------------------------------------------
    def _on_tile_cell_hovered(self, tile: int, row: int, col: int, value: float) -> None:
        plot = self.plots[tile]
        if plot.mask is not None and not plot.mask[row, col]:
            text = self.tr("{title}: {row} → {col} = {value:.4g} (masked)")
        else:
            text = "{title}: {row} → {col} = {value:.4g}"
        # the readout is rich text: a token such as <eos> would vanish as an unknown tag
        text = text.format(title=self.titles[tile], row=escape(plot.row_labels[row]), col=escape(plot.col_labels[col]),
                           value=value)
        self.readout.setText(text, color=self._fg())
        self.cell_hovered.emit(tile, row, col, value)

    def _on_tile_hover_left(self) -> None:
        self.readout.setText("", color=self._fg())
