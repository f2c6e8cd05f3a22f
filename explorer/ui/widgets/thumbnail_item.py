"""One thumbnail of the attention grid: a bare layout item whose pixels are coloured once in numpy (no axes, no
per-paint colour table), so a grid of dozens repaints in a few milliseconds while training runs."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QSizePolicy

#: The colour of cells a mask hides from the query (a causal decoder's later keys, a sliding window's far keys).
MASKED_RGBA = (176, 176, 176, 255)


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


class Thumbnail(pg.GraphicsWidget):
    """One small heatmap stretched over its cell of the layout: ``matrix`` (Q, K) in [0, 1], drawn through a colour
    LUT, row 0 at the top. A bare layout item with its image scaled to fit (no view box: a third of the cost to
    build and lay out, which counts for the 144 heads of a BERT)."""

    def __init__(self, lut: np.ndarray) -> None:
        super().__init__()
        self.lut = lut  # (256, 4) uint8
        self.matrix: np.ndarray | None = None
        self.image_item = _ThumbnailImage()
        self.image_item.setParentItem(self)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(8, 8)

    def set_matrix(self, m: np.ndarray, masked: np.ndarray | None = None) -> None:
        """Show ``m`` (Q, K); values outside [0, 1] are clipped to the ends of the colour scale. Cells where
        ``masked`` (bool (Q, K)) is True are keys the query may not see: drawn in a neutral grey, not as zeros."""
        reshaped = self.matrix is None or self.matrix.shape != np.shape(m)
        self.matrix = np.array(m, dtype=np.float32, copy=True)
        index = np.clip(np.rint(self.matrix * 255.0), 0, 255).astype(np.uint8)  # (Q, K)
        colours = self.lut[index]  # (Q, K, 4) uint8, a fresh array
        if masked is not None and masked.shape == index.shape:
            colours[masked] = MASKED_RGBA
        self.image_item.setImage(colours, autoLevels=False)
        if reshaped:
            self._fit()

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(ev)
        self._fit()

    def _fit(self) -> None:
        """Scale the image's cells (one per token, or per pooled bin) onto this item's rectangle."""
        if self.matrix is not None:
            q, k = self.matrix.shape
            rect = self.rect()
            self.image_item.setTransform(QTransform.fromScale(rect.width() / k, rect.height() / q))
