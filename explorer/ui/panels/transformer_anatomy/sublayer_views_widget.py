"""The anatomy panel's two sublayer views (book §11.7.2–11.7.3): the position-wise FFN on a sentence with a repeated
word, and LayerNorm against BatchNorm (the book's 2×2 tensor, then a padded batch of sentences) with the axes each
one averages over outlined."""
from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from explorer.core.chapter.sublayer_demos import BatchNorms, BookNorms, FFNDemo
from explorer.ui.panels.transformer_anatomy.cell_outlines import CellNumbers, CellOutlines
from explorer.ui.panels.transformer_anatomy.stage_view_widget import DIVERGING, symmetric_levels
from explorer.ui.widgets.heatmap_grid_widget import HeatmapGridWidget
from explorer.ui.widgets.heatmap_widget import HeatmapWidget

OUTLINE = {False: "#111111", True: "#f5f5f5"}  # by theme (dark?): black or white over any colour of the map


def _caption() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


class FFNView(QWidget):
    """X and FFN(X) side by side; the rows of the repeated word outlined in both."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.demo: FFNDemo | None = None
        self.caption = _caption()
        self.x_map = HeatmapWidget(colormap=DIVERGING, title="X")
        self.y_map = HeatmapWidget(colormap=DIVERGING, title="FFN(X)")
        self.outlines = [CellOutlines(m.plot) for m in (self.x_map, self.y_map)]
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 0)
        grid.addWidget(self.caption, 0, 0, 1, 2)
        for col, heatmap in enumerate((self.x_map, self.y_map)):
            heatmap.plot.max_ticks = 12
            grid.addWidget(heatmap, 1, col)
        grid.setRowStretch(1, 1)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force (at build and on ``LanguageChange``)."""
        for heatmap in (self.x_map, self.y_map):
            heatmap.set_axis_labels("", self.tr("feature"))
        self._show_caption()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def show_demo(self, r: FFNDemo) -> None:
        features = [str(j) for j in range(r.X.shape[1])]
        labels = [f"{i + 1} {t}" for i, t in enumerate(r.tokens)]
        self.x_map.set_matrix(r.X, labels, features, levels=symmetric_levels(r.X))
        self.y_map.set_matrix(r.Y, labels, features, levels=symmetric_levels(r.Y))
        rows = sorted({i for pair in r.repeats for i in pair})
        for outline, m in zip(self.outlines, (r.X, r.Y)):
            outline.rows(rows, m.shape[1])
        self.demo = r
        self._show_caption()

    def _show_caption(self) -> None:
        """What the demo shows about the repeated word, worded from its numbers."""
        r = self.demo
        if r is None:
            return
        if not r.repeats:
            self.caption.setText(self.tr("No word occurs twice: type a sentence that repeats one (e.g. “he's calm , "
                                         "she's calm .”) to compare its two rows."))
            return
        i, j = r.repeats[0]
        made = self.tr("embedding × √d + P") if r.positions else self.tr("embedding × √d, no positions")
        if r.input_gap == 0:
            text = self.tr("X = {made}. “{word}” at positions {i} and {j}: the input rows are equal, max "
                           "|x<sub>{i}</sub> − x<sub>{j}</sub>| = {input_gap:.3g}; the output rows differ by at most "
                           "<b>{output_gap:.2g}</b> (float32 rounding): the FFN treats every position alike.")
        else:
            text = self.tr("X = {made}. “{word}” at positions {i} and {j}: the input rows are different (positions "
                           "were added), max |x<sub>{i}</sub> − x<sub>{j}</sub>| = {input_gap:.3g}; the output rows "
                           "differ by at most <b>{output_gap:.2g}</b>.")
        self.caption.setText(text.format(made=made, word=escape(r.tokens[i]), i=i + 1, j=j + 1, input_gap=r.input_gap,
                                         output_gap=r.output_gap))

    def apply_theme(self, dark: bool) -> None:
        for heatmap in (self.x_map, self.y_map):
            heatmap.apply_theme(dark)
        for outline in self.outlines:
            outline.set_colour(OUTLINE[dark])


class NormView(QWidget):
    """The book's 2×2 example, then a padded batch; click a cell to pick the token and feature outlined.

    Signal ``cell_chosen(row, col)`` of the batch heatmaps (row = batch × step, col = feature).
    """

    cell_chosen = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.batch: BatchNorms | None = None
        self.book: BookNorms | None = None
        self.chosen = (1, 5)  # (row of the flattened batch, feature)
        self.book_grid = HeatmapGridWidget(colormap=DIVERGING, max_columns=3)
        self.book_grid.setMinimumWidth(300)
        self.book_grid.setFixedHeight(120)  # a small inset: three 2×2 matrices
        self.x_map = HeatmapWidget(colormap=DIVERGING, title="X")
        self.norm_grid = HeatmapGridWidget(colormap=DIVERGING, max_columns=2, max_ticks=8)  # 32 features: a few numbers
        self.x_map.plot.max_ticks = 12
        self._book_numbers: list[CellNumbers] = []
        self._book_outlines: list[CellOutlines] = []
        self.x_outlines = (CellOutlines(self.x_map.plot), CellOutlines(self.x_map.plot, dashed=True))
        self._norm_outlines: list[CellOutlines] = []
        self.book_caption, self.batch_caption = _caption(), _caption()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        top, bottom = QHBoxLayout(), QHBoxLayout()
        top.addWidget(self.book_grid, 3)
        top.addWidget(self.book_caption, 2)
        bottom.addWidget(self.x_map, 2)
        bottom.addWidget(self.norm_grid, 3)
        layout.addLayout(top)
        layout.addWidget(self.batch_caption)
        layout.addLayout(bottom, 1)
        self.x_map.cell_clicked.connect(self._on_x_map_cell_clicked)
        self.norm_grid.cell_clicked.connect(self._on_norm_grid_cell_clicked)
        self._dark = False

    def retranslate(self) -> None:
        """Word the captions in the language in force, from the examples shown (on ``LanguageChange``)."""
        self._show_captions()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _show_captions(self) -> None:
        if self.book is not None:
            self.book_caption.setText(self.tr(
                "The book's X: <b>LayerNorm</b> normalizes each row (solid outline: one example, over its features), "
                "<b>BatchNorm</b> each column (dashed: one feature, over the batch)."))
        r = self.batch
        if r is None:
            return
        B, T, _ = r.X.shape
        pads = int((~r.valid).sum())
        self.batch_caption.setText(self.tr(
            "Below: {batch} sentences padded to {steps} steps ({pads} of {rows} rows are padding, hatched). BatchNorm "
            "averages a feature over all {rows} rows, padding included, which moves its output for real tokens by "
            "up to <b>{bn_shift:.2f}</b>; LayerNorm's moves by <b>{ln_shift:.0f}</b>. Click a cell to move the "
            "outlines.").format(batch=B, steps=T, pads=pads, rows=B * T, bn_shift=r.bn_shift,
                                ln_shift=r.ln_alone_shift))

    def show_book(self, r: BookNorms) -> None:
        self.book_grid.set_matrices([r.X, r.ln, r.bn], titles=["X", "LayerNorm", "BatchNorm"],
                                    row_labels=["0", "1"], col_labels=["0", "1"], levels=(-4.0, 4.0))
        plots = self.book_grid.plots
        if not self._book_numbers:
            self._book_numbers = [CellNumbers(p) for p in plots]
            self._book_outlines = [CellOutlines(plots[1]), CellOutlines(plots[2], dashed=True)]
            self._recolour()
        for numbers, m in zip(self._book_numbers, (r.X, r.ln, r.bn)):
            numbers.show(m, "#111111")
        self._book_outlines[0].rows([0, 1], 2)
        self._book_outlines[1].columns([0, 1], 2)
        self.book = r
        self._show_captions()

    def show_batch(self, r: BatchNorms) -> None:
        self.batch = r
        B, T, d = r.X.shape
        labels = [f"{b + 1} {t}" for b in range(B) for t in r.tokens[b]]
        features = [str(j) for j in range(d)]
        keep = np.repeat(r.valid.reshape(-1, 1), d, axis=1)  # (B·T, d): padding rows hatched
        self.x_map.set_matrix(r.X.reshape(B * T, d), labels, features, keep, levels=symmetric_levels(r.X))
        self.norm_grid.set_matrices([r.ln.reshape(B * T, d), r.bn.reshape(B * T, d)],
                                    titles=["LayerNorm(X)", "BatchNorm(X)"], row_labels=labels,
                                    col_labels=features, mask=keep, levels=symmetric_levels(r.ln, r.bn))
        if not self._norm_outlines:
            for plot in self.norm_grid.plots:
                plot.hideAxis("left")  # the same rows as X, labelled there
            self._norm_outlines = [CellOutlines(self.norm_grid.plots[0]),
                                   CellOutlines(self.norm_grid.plots[1], dashed=True)]
            self._recolour()
        self._show_captions()
        self._outline()

    def _outline(self) -> None:
        r = self.batch
        if r is None:
            return
        rows, d = r.X.shape[0] * r.X.shape[1], r.X.shape[2]
        row, col = min(self.chosen[0], rows - 1), min(self.chosen[1], d - 1)
        self.x_outlines[0].rows([row], d)
        self.x_outlines[1].columns([col], rows)
        self._norm_outlines[0].rows([row], d)
        self._norm_outlines[1].columns([col], rows)

    def choose(self, row: int, col: int) -> None:
        """Outline token row ``row`` (LayerNorm's set) and feature ``col`` (BatchNorm's set)."""
        self.chosen = (row, col)
        self._outline()
        self.cell_chosen.emit(row, col)

    def apply_theme(self, dark: bool) -> None:
        self._dark = dark
        self.book_grid.apply_theme(dark)
        self.x_map.apply_theme(dark)
        self.norm_grid.apply_theme(dark)
        self._recolour()

    def _recolour(self) -> None:
        for outline in (*self.x_outlines, *self._book_outlines, *self._norm_outlines):
            outline.set_colour(OUTLINE[self._dark])

    @Slot(int, int)
    def _on_x_map_cell_clicked(self, row: int, col: int) -> None:
        self.choose(row, col)

    @Slot(int, int, int)
    def _on_norm_grid_cell_clicked(self, _tile: int, row: int, col: int) -> None:
        self.choose(row, col)
