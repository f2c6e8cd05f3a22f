"""One thumbnail of the attention grid: a bare layout item whose pixels are coloured once in numpy (no axes, no
per-paint colour table) and drawn as one opaque premultiplied image, so a grid of dozens repaints in a few
milliseconds while training runs."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QImage, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QSizePolicy

#: The colour of cells a mask hides from the query (a causal decoder's later keys, a sliding window's far keys).
MASKED_RGBA = (176, 176, 176, 255)


def opaque_argb32(rgba: np.ndarray) -> np.ndarray:
    """``(Q, K, 4)`` RGBA bytes as the bytes of an opaque ``QImage.Format_ARGB32_Premultiplied`` (B, G, R, 255 in
    memory on a little-endian machine; A, R, G, B on a big-endian one): the raster engine's own format, which it
    draws without a conversion."""
    out = np.empty(rgba.shape[:2] + (4,), dtype=np.uint8)
    order = (2, 1, 0) if np.little_endian else (0, 1, 2)
    alpha, colour = (3, slice(0, 3)) if np.little_endian else (0, slice(1, 4))
    out[..., colour] = rgba[..., order]
    out[..., alpha] = 255
    return out


MASKED_PIXEL = opaque_argb32(np.array([[MASKED_RGBA]], dtype=np.uint8))[0, 0]


class ThumbnailImage(QGraphicsObject):
    """The pixels of one map, one cell per pixel (the parent scales them), that report a left click.

    Drawn with ``drawImage`` from a premultiplied ARGB32 image and no smoothing: through pyqtgraph's ``ImageItem``
    (an RGBA8888 image), an antialiased painter clipped to the region of every changed thumbnail took ~50 µs a
    thumbnail; this ~4 µs (with the grid's one-rectangle updates). A redraw of 144: bench/grid_redraw.py."""

    clicked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._pixels: np.ndarray | None = None  # kept alive: the QImage reads this buffer
        self._image: QImage | None = None
        self._rect = QRectF()  # one cell per pixel: (0, 0, K, Q); asked for many times per paint

    @property
    def image(self) -> np.ndarray | None:
        """The ``(Q, K, 4)`` premultiplied ARGB32 bytes on display, or None when cleared."""
        return self._pixels

    def set_pixels(self, pixels: np.ndarray) -> None:
        """Show ``pixels``: ``(Q, K, 4)`` uint8 bytes of an opaque premultiplied ARGB32 image (:func:`opaque_argb32`),
        row 0 at the top; kept, not copied."""
        pixels = np.ascontiguousarray(pixels)
        height, width = pixels.shape[:2]
        resized = self._pixels is None or self._pixels.shape != pixels.shape
        if resized:
            self.prepareGeometryChange()
            self._rect = QRectF(0.0, 0.0, float(width), float(height))
        self._pixels = pixels
        self._image = QImage(pixels.data, width, height, width * 4, QImage.Format.Format_ARGB32_Premultiplied)
        self.update()

    def clear(self) -> None:
        """Show nothing."""
        if self._pixels is not None:
            self.prepareGeometryChange()
        self._pixels = self._image = None
        self._rect = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt override)
        return self._rect

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: ANN001 (Qt override)
        if self._image is None:
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)  # crisp cells: one per token pair
        painter.drawImage(self._rect, self._image)

    def hoverEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph scene event)
        if not ev.isExit():
            ev.acceptClicks(Qt.MouseButton.LeftButton)

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph scene event)
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.clicked.emit()


class Thumbnail(pg.GraphicsWidget):
    """One small heatmap stretched over its cell of the layout: ``matrix`` (Q, K) in [0, 1], drawn through a colour
    LUT, row 0 at the top. A bare layout item with its image scaled to fit (no view box: a third of the cost to
    build and lay out, which counts for the 144 heads of a BERT)."""

    def __init__(self, lut: np.ndarray) -> None:
        super().__init__()
        self.lut = lut  # (256, 4) uint8 RGBA
        self._pixel_lut = opaque_argb32(np.asarray(lut)[None])[0]  # the same colours as the image's bytes
        self.matrix: np.ndarray | None = None
        self.image_item = ThumbnailImage()
        self.image_item.setParentItem(self)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)  # only its image paints
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(8, 8)

    def set_matrix(self, m: np.ndarray, masked: np.ndarray | None = None) -> None:
        """Show ``m`` (Q, K); values outside [0, 1] are clipped to the ends of the colour scale. Cells where
        ``masked`` (bool (Q, K)) is True are keys the query may not see: drawn in a neutral grey, not as zeros."""
        reshaped = self.matrix is None or self.matrix.shape != np.shape(m)
        self.matrix = np.array(m, dtype=np.float32, copy=True)
        index = np.clip(np.rint(self.matrix * 255.0), 0, 255).astype(np.uint8)  # (Q, K)
        pixels = self._pixel_lut[index]  # (Q, K, 4) uint8, a fresh array
        if masked is not None and masked.shape == index.shape:
            pixels[masked] = MASKED_PIXEL
        self.image_item.set_pixels(pixels)
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
