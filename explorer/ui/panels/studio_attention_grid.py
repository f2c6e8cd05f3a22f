"""The studio's grid of attention thumbnails (book §11.7): encoder self, decoder self and cross attention.

Rows are layers, columns heads, one shared colour scale; for synthetic tasks each cross-attention
thumbnail carries its alignment score against the ideal pattern. Clicking a thumbnail asks for a large view.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGraphicsItem, QWidget

from explorer.ui.widgets.heatmap_widget import DEFAULT_COLORMAP, HeatmapPlotItem

KINDS = ("encoder_self", "decoder_self", "cross")
KIND_TITLES = {"encoder_self": "Encoder self-attention", "decoder_self": "Decoder self-attention",
               "cross": "Encoder–decoder (cross) attention"}


def axis_labels(kind: str, snapshot: Any) -> tuple[list[str], list[str]]:
    """Query and key token labels of one kind of map in a ``SnapshotEvent``-like object.

    Decoder queries of the cross map are labelled with the token each position predicts (as in a
    translation's cross-attention); decoder self-attention uses the decoder's input tokens.
    """
    if kind == "encoder_self":
        return list(snapshot.src_tokens), list(snapshot.src_tokens)
    if kind == "decoder_self":
        return list(snapshot.tgt_input_tokens), list(snapshot.tgt_input_tokens)
    return list(snapshot.tgt_tokens), list(snapshot.src_tokens)


class AttentionGrid(pg.GraphicsLayoutWidget):
    """Three blocks of ``layers × heads`` compact heatmaps sharing one colour bar.

    Signals
    -------
    thumbnail_clicked(str, int, int): kind, layer, head of the thumbnail clicked.
    """

    thumbnail_clicked = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self._dark = False
        self.clear_grid()
        self.setMinimumHeight(180)

    @property
    def shape(self) -> tuple[int, int] | None:
        """``(layers, heads)`` of the thumbnails on display, or None before the first snapshot."""
        return self._shape

    def clear_grid(self, hint: bool = True) -> None:
        """Remove every thumbnail (``hint``: say where they will come from)."""
        self.ci.clear()
        if hint:
            self.ci.addLabel("Start training (or open a model) to see every head's attention here.",
                             color="#dddddd" if self._dark else "#555555", size="10pt")
        self.plots: dict[str, list[list[HeatmapPlotItem]]] = {k: [] for k in KINDS}
        self.scores: dict[str, np.ndarray] = {}
        self._shape = None
        self._labels: dict[str, tuple[list[str], list[str]]] | None = None
        self.color_bar: pg.ColorBarItem | None = None

    def prepare(self, layers: int, heads: int) -> None:
        """Build the thumbnails for ``layers × heads`` now (e.g. when training starts), unless they exist."""
        if self._shape != (layers, heads):
            self._build(layers, heads)

    def _build(self, layers: int, heads: int) -> None:
        self.clear_grid(hint=False)
        fg = "#dddddd" if self._dark else "#222222"
        images = []
        for col, kind in enumerate(KINDS):
            block = self.ci.addLayout(row=0, col=col)
            block.setSpacing(2)
            block.addLabel(KIND_TITLES[kind], colspan=heads + 1, color=fg, size="9pt")
            block.nextRow()
            block.addLabel("", color=fg)
            for h in range(heads):
                block.addLabel(f"head {h + 1}", color=fg, size="8pt")
            for layer in range(layers):
                block.nextRow()
                block.addLabel(f"layer {layer + 1}", angle=-90, color=fg, size="8pt")
                row = []
                for h in range(heads):
                    plot = HeatmapPlotItem(DEFAULT_COLORMAP, compact=True)
                    plot.apply_theme(self._dark)
                    plot.setMouseEnabled(False, False)
                    plot.image_item.cell_clicked.connect(partial(self._on_thumbnail_clicked, kind, layer, h))
                    block.addItem(plot)
                    row.append(plot)
                    images.append(plot.image_item)
                self.plots[kind].append(row)
        self.color_bar = pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get(DEFAULT_COLORMAP),
                                         interactive=False, width=12)
        self.color_bar.setImageItem(images)
        self.ci.addItem(self.color_bar, row=0, col=len(KINDS))
        # titles, head/layer labels and the colour-bar axis never change during a run: draw them from a cache
        for item in self.scene().items():
            if isinstance(item, (pg.LabelItem, pg.AxisItem)):
                item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._shape = (layers, heads)

    def set_snapshot(self, snapshot: Any, scores: np.ndarray | None = None) -> None:
        """Draw a ``SnapshotEvent``-like object (``maps`` of ``(L, h, Tq, Tk)``, token lists).

        ``scores`` ``(L, h)``: alignment score of each cross-attention head, or None.
        """
        layers, heads = snapshot.maps["cross"].shape[:2]
        self.prepare(layers, heads)
        labels = {kind: axis_labels(kind, snapshot) for kind in KINDS}
        if labels != self._labels:  # new tokens: full update (ticks, ranges); else only the pixels
            self._labels = labels
            for kind in KINDS:
                rows, cols = labels[kind]
                for layer in range(layers):
                    for h in range(heads):
                        self.plots[kind][layer][h].set_matrix(snapshot.maps[kind][layer, h], rows, cols)
        else:
            for kind in KINDS:
                maps = snapshot.maps[kind]  # (L, h, Tq, Tk)
                for layer in range(layers):
                    for h in range(heads):
                        plot = self.plots[kind][layer][h]
                        plot.matrix = np.ascontiguousarray(maps[layer, h], dtype=np.float32)
                        plot.image_item.setImage(plot.matrix, autoLevels=False, levels=(0.0, 1.0))
        self.scores = {} if scores is None else {"cross": np.asarray(scores)}
        for layer in range(layers):
            for h in range(heads):
                plot = self.plots["cross"][layer][h]
                if scores is None:
                    plot.setTitle(None)
                else:
                    plot.setTitle(f"{float(scores[layer, h]):.2f}", size="8pt",
                                  color="#dddddd" if self._dark else "#222222")

    def matrix(self, kind: str, layer: int, head: int) -> np.ndarray | None:
        """The matrix a thumbnail holds (what its ImageItem draws), or None."""
        if not self.plots[kind]:
            return None
        return self.plots[kind][layer][head].image_item.image

    def apply_theme(self, dark: bool) -> None:
        """Background and label colours; thumbnails are rebuilt on the next snapshot."""
        self._dark = dark
        self.setBackground("k" if dark else "w")
        for kind in KINDS:
            for row in self.plots[kind]:
                for plot in row:
                    plot.apply_theme(dark)

    def _on_thumbnail_clicked(self, kind: str, layer: int, head: int, _row: int, _col: int) -> None:
        self.thumbnail_clicked.emit(kind, layer, head)
