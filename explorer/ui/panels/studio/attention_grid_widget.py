"""The studio's grid of attention thumbnails (book §11.7): encoder self, decoder self and cross attention.

Rows are layers, columns heads, one shared colour scale; for synthetic tasks each cross-attention
thumbnail carries its alignment score against the ideal pattern. Clicking a thumbnail asks for a large view.
Thumbnails are bare view boxes showing pixels coloured once in numpy (no axes, no per-paint colour table),
so a grid of dozens repaints in a few milliseconds while training runs.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QGraphicsItem, QWidget

from explorer.ui.palette import lookup_table, resolve
from explorer.ui.widgets.heatmap_widget import DEFAULT_COLORMAP

KINDS = ("encoder_self", "decoder_self", "cross")
ALIGNMENT_TIP = ("Alignment score of this cross-attention head: the mean weight it puts on the source position "
                 "the task says each output should look at (1 = the ideal pattern, 0 = none of it)")
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


class _ThumbnailImage(pg.ImageItem):
    """Row-major RGBA pixels of one attention map that report a left click."""

    clicked = Signal()

    def __init__(self) -> None:
        super().__init__(axisOrder="row-major")

    def hoverEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        if not ev.isExit():
            ev.acceptClicks(Qt.MouseButton.LeftButton)

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.clicked.emit()


class Thumbnail(pg.ViewBox):
    """One small heatmap in a fixed view: ``matrix`` (Q, K) in [0, 1], drawn through a colour LUT."""

    def __init__(self, lut: np.ndarray) -> None:
        super().__init__(enableMouse=False, enableMenu=False, invertY=True, defaultPadding=0.0)
        self.lut = lut  # (256, 4) uint8
        self.image_item = _ThumbnailImage()
        self.addItem(self.image_item)
        self.matrix: np.ndarray | None = None

    def set_matrix(self, m: np.ndarray) -> None:
        """Show ``m`` (Q, K); values outside [0, 1] are clipped to the ends of the colour scale."""
        reshaped = self.matrix is None or self.matrix.shape != np.shape(m)
        self.matrix = np.array(m, dtype=np.float32, copy=True)
        index = np.clip(np.rint(self.matrix * 255.0), 0, 255).astype(np.uint8)  # (Q, K)
        self.image_item.setImage(self.lut[index], autoLevels=False)  # (Q, K, 4) uint8
        if reshaped:
            q, k = self.matrix.shape
            self.setRange(xRange=(0, k), yRange=(0, q), padding=0.0)


class AttentionGrid(pg.GraphicsLayoutWidget):
    """Three blocks of ``layers × heads`` thumbnails sharing one colour bar.

    Signals
    -------
    thumbnail_clicked(str, int, int): kind, layer, head of the thumbnail clicked.
    """

    thumbnail_clicked = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = False
        self._palette = "default"
        self._lut = pg.colormap.get(DEFAULT_COLORMAP).getLookupTable(0.0, 1.0, 256, alpha=True)  # (256, 4)
        self._last: tuple[Any, np.ndarray | None] | None = None
        self._stage_timer = QTimer(self)  # a child: it dies with the grid, so no stage runs after that
        self._stage_timer.setSingleShot(True)
        self._stage_timer.setInterval(0)
        self._stage_timer.timeout.connect(self._on_stage_timer)
        self.clear_grid()
        self.setBackground("w")
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
            self._last = None
        self.plots: dict[str, list[list[Thumbnail]]] = {k: [] for k in KINDS}
        self.score_labels: list[list[pg.LabelItem]] = []
        self.scores: dict[str, np.ndarray] = {}
        self._shape: tuple[int, int] | None = None
        self._staged_shape: tuple[int, int] | None = None
        self._stages: list[Callable[[], None]] = []  # the rest of a staged build
        self.color_bar: pg.ColorBarItem | None = None

    def prepare(self, layers: int, heads: int, staged: bool = False) -> None:
        """Build the thumbnails for ``layers × heads`` unless they exist: now, or (``staged``) one layer of one
        kind per event-loop turn, so that no single turn holds the GUI thread for the whole build (~100 ms for
        the book's model in pyqtgraph, ~180 ms for 6 × 8). A snapshot drawn meanwhile finishes the build first."""
        if self._shape == (layers, heads) or self._staged_shape == (layers, heads) and staged:
            return
        self.clear_grid(hint=False)
        self._staged_shape = (layers, heads)
        self._stages = [partial(self._build_block, col, kind, layers, heads) for col, kind in enumerate(KINDS)]
        self._stages.append(partial(self._finish_build, layers, heads))
        if staged:
            self._stage_timer.start()
        else:
            self._run_stages()

    def _run_stages(self) -> None:
        while self._stages:
            self._stages.pop(0)()

    @Slot()
    def _on_stage_timer(self) -> None:
        if self._stages:
            self._stages.pop(0)()
            if self._stages:
                self._stage_timer.start()

    def _build_block(self, col: int, kind: str, layers: int, heads: int) -> None:
        """One kind's block: its title and head labels now, then one stage per layer (≈10 ms each for 8 heads)."""
        fg = "#dddddd" if self._dark else "#222222"
        block = self.ci.addLayout(row=0, col=col)
        block.setSpacing(2)
        block.addLabel(KIND_TITLES[kind], colspan=heads + 1, color=fg, size="9pt")
        block.nextRow()
        block.addLabel("", color=fg)
        for h in range(heads):
            block.addLabel(f"head {h + 1}", color=fg, size="8pt")
        layer_stages = [partial(self._build_layer, block, kind, layer, heads) for layer in range(layers)]
        self._stages[:0] = layer_stages  # next, before the other blocks

    def _build_layer(self, block: Any, kind: str, layer: int, heads: int) -> None:
        fg = "#dddddd" if self._dark else "#222222"
        if kind == "cross":  # a row for the alignment scores of synthetic tasks
            block.nextRow()
            block.addLabel("align.", color=fg, size="7pt").setToolTip(ALIGNMENT_TIP)
            labels = [block.addLabel("", color=fg, size="8pt") for _ in range(heads)]
            for label in labels:
                label.setToolTip(ALIGNMENT_TIP)
            self.score_labels.append(labels)
        block.nextRow()
        block.addLabel(f"layer {layer + 1}", angle=-90, color=fg, size="8pt")
        row = []
        for h in range(heads):
            thumb = Thumbnail(self._lut)
            thumb.image_item.clicked.connect(partial(self._on_thumbnail_clicked, kind, layer, h))
            thumb.image_item.setToolTip(f"{KIND_TITLES[kind]}, layer {layer + 1}, head {h + 1}: "
                                        "click for a large view")
            block.addItem(thumb)
            row.append(thumb)
        self.plots[kind].append(row)

    def _finish_build(self, layers: int, heads: int) -> None:
        colormap = pg.colormap.get(resolve(DEFAULT_COLORMAP, self._palette))
        self.color_bar = pg.ColorBarItem(values=(0, 1), colorMap=colormap, interactive=False, width=12)
        self.ci.addItem(self.color_bar, row=0, col=len(KINDS))
        # titles, head/layer labels and the colour-bar axis never change during a run: draw them from a cache
        for item in self.scene().items():
            if isinstance(item, (pg.LabelItem, pg.AxisItem)):
                item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._shape = (layers, heads)
        self._staged_shape = None

    def set_snapshot(self, snapshot: Any, scores: np.ndarray | None = None) -> None:
        """Draw a ``SnapshotEvent``-like object (``maps`` of ``(L, h, Tq, Tk)``, token lists).

        ``scores`` ``(L, h)``: alignment score of each cross-attention head, or None.
        """
        layers, heads = snapshot.maps["cross"].shape[:2]
        if self._staged_shape == (layers, heads):
            self._run_stages()  # a build in progress: finish it now
        self.prepare(layers, heads)
        self._last = (snapshot, scores)
        for kind in KINDS:
            maps = snapshot.maps[kind]  # (L, h, Tq, Tk)
            for layer in range(layers):
                for h in range(heads):
                    self.plots[kind][layer][h].set_matrix(maps[layer, h])
        had_scores = bool(self.scores)
        self.scores = {} if scores is None else {"cross": np.asarray(scores)}
        if scores is not None or had_scores:
            color = "#dddddd" if self._dark else "#222222"
            for layer in range(layers):
                for h in range(heads):
                    text = "" if scores is None else f"{float(scores[layer, h]):.2f}"
                    self.score_labels[layer][h].setText(text, color=color, size="8pt")

    def matrix(self, kind: str, layer: int, head: int) -> np.ndarray | None:
        """The matrix a thumbnail shows, or None."""
        if not self.plots[kind]:
            return None
        return self.plots[kind][layer][head].matrix

    def apply_palette(self, palette: str) -> None:
        """Colour the thumbnails and the colour bar with the app's palette (e.g. colour-blind safe); redrawn."""
        self._palette = palette
        self._lut = lookup_table(DEFAULT_COLORMAP, palette)
        self.apply_theme(self._dark)

    def apply_theme(self, dark: bool) -> None:
        """Background and label colours (the grid is rebuilt and redrawn)."""
        self._dark = dark
        self.setBackground("k" if dark else "w")
        last, shape = self._last, self._shape
        if shape is not None:
            self._shape = None
            self.prepare(*shape)
            if last is not None:
                self.set_snapshot(*last)

    def _on_thumbnail_clicked(self, kind: str, layer: int, head: int) -> None:
        self.thumbnail_clicked.emit(kind, layer, head)
