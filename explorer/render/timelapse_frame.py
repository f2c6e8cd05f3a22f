"""Draw one frame of a training time-lapse (book §11.7) with QPainter: the head (or the tiled heads) on the left
with a colour bar, the run's loss curve on the right with a marker at the frame's step, a caption on top."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen, QPolygonF

from explorer.core.runs.timelapse import Timelapse, TimelapseFrame, colorize

KIND_TITLES = {"encoder": QT_TRANSLATE_NOOP("Timelapse", "Encoder self-attention"),
               "decoder": QT_TRANSLATE_NOOP("Timelapse", "Decoder self-attention"),
               "cross": QT_TRANSLATE_NOOP("Timelapse", "Encoder–decoder (cross) attention")}  # translate() them
translate = QCoreApplication.translate
COLOURS = {False: ("#ffffff", "#202020", "#1f77b4", "#d62728", "#c8c8c8"),  # background, text, curve, marker,
           True: ("#000000", "#d4d4d4", "#6ea6ff", "#ff6b6b", "#505050")}  # grid lines
MAX_TOKEN_LABELS = 24


def frame_caption(timelapse: Timelapse, frame: TimelapseFrame) -> tuple[str, str]:
    """The two caption lines of ``frame``: what is shown, and when (step, epoch, loss)."""
    title = translate("Timelapse", KIND_TITLES[timelapse.kind])
    if timelapse.head is not None:
        what = translate("Timelapse", "{map}, layer {layer}, head {head}").format(
            map=title, layer=timelapse.head[0] + 1, head=timelapse.head[1] + 1)
    else:
        what = translate("Timelapse", "{map}: every head (rows are layers, columns heads)").format(map=title)
    if math.isfinite(frame.loss):
        # the loss of the frame's step (what the curve beside it draws), not an epoch's mean: said so
        when = translate("Timelapse", "Step {step}, epoch {epoch}: this step's loss {loss:.3f} (per token)").format(
            step=frame.step, epoch=frame.epoch, loss=frame.loss)
    else:
        when = translate("Timelapse", "Step {step}, epoch {epoch}").format(step=frame.step, epoch=frame.epoch)
    return what, when


def render_frame(timelapse: Timelapse, frame: TimelapseFrame, lut: np.ndarray, size: tuple[int, int] = (960, 540),
                 dark: bool = False) -> QImage:
    """Frame ``frame`` of ``timelapse`` as an RGB32 image of ``size`` pixels, maps coloured through ``lut``."""
    width, height = size
    background, text, curve, marker, grid = (QColor(c) for c in COLOURS[dark])
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(background)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        scale = height / 540
        font = QFont()
        font.setPixelSize(max(10, round(16 * scale)))
        small = QFont(font)
        small.setPixelSize(max(8, round(12 * scale)))
        margin = round(14 * scale)
        what, when = frame_caption(timelapse, frame)
        bold = QFont(font)
        bold.setBold(True)
        line = QFontMetricsF(font).height()
        painter.setPen(text)
        painter.setFont(bold)
        painter.drawText(QRectF(margin, margin, width - 2 * margin, line), Qt.AlignmentFlag.AlignLeft, what)
        painter.setFont(font)
        painter.drawText(QRectF(margin, margin + line, width - 2 * margin, line), Qt.AlignmentFlag.AlignLeft, when)
        top = margin + 2 * line + margin
        body = QRectF(margin, top, width - 2 * margin, height - top - margin)
        split = body.left() + body.width() * 0.55
        _draw_map(painter, timelapse, frame, lut, QRectF(body.left(), body.top(), split - body.left(), body.height()),
                  small, text, background)
        _draw_loss(painter, timelapse, frame, QRectF(split + margin, body.top(), body.right() - split - margin,
                                                     body.height()), small, text, curve, marker, grid)
    finally:
        painter.end()
    return image


def _draw_map(painter: QPainter, timelapse: Timelapse, frame: TimelapseFrame, lut: np.ndarray, area: QRectF,
              font: QFont, text: QColor, background: QColor) -> None:
    """The map, as large as fits with room for token labels (one head) and a colour bar."""
    metrics = QFontMetricsF(font)
    rows, cols = timelapse.row_labels, timelapse.col_labels
    labelled = timelapse.head is not None and max(len(rows), len(cols)) <= MAX_TOKEN_LABELS
    left = max((metrics.horizontalAdvance(t) for t in rows), default=0.0) + 6 if labelled else 0.0
    bottom = max((metrics.horizontalAdvance(t) for t in cols), default=0.0) + 6 if labelled else 0.0
    bar = 12 + metrics.horizontalAdvance("0.0") + 10
    h, w = frame.image.shape
    room = QRectF(area.left() + left, area.top(), area.width() - left - bar, area.height() - bottom)
    cell = max(min(room.width() / w, room.height() / h), 1e-3)
    target = QRectF(room.left(), room.top(), cell * w, cell * h)
    gap = (background.red(), background.green(), background.blue(), 255)
    rgba = colorize(frame.image, lut, gap)  # (H, W, 4)
    picture = QImage(rgba.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()
    painter.drawImage(target, picture)
    painter.setFont(font)
    painter.setPen(text)
    if labelled:
        for i, token in enumerate(rows):
            painter.drawText(QRectF(area.left(), target.top() + i * cell, left - 6, cell),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, token)
        for j, token in enumerate(cols):  # written downwards under each column
            painter.save()
            painter.translate(target.left() + (j + 0.5) * cell + metrics.ascent() / 2, target.bottom() + 4)
            painter.rotate(90)
            painter.drawText(QPointF(0, 0), token)
            painter.restore()
    strip = QRectF(target.right() + 10, target.top(), 12, target.height())
    colours = colorize(np.linspace(1.0, 0.0, 128, dtype=np.float32).reshape(-1, 1), lut)  # (128, 1, 4), top = 1
    painter.drawImage(strip, QImage(colours.data, 1, 128, 4, QImage.Format.Format_RGBA8888).copy())
    painter.drawText(QPointF(strip.right() + 3, strip.top() + metrics.ascent()), "1")
    painter.drawText(QPointF(strip.right() + 3, strip.bottom()), "0")


@dataclass(frozen=True)
class LossLayout:
    """Where the loss plot sits in its area and what it shows: the plot rectangle, the step range ``x_range``
    (covering the curve and every frame, so a frame at step 0 sits on the axis), the loss range ``y_range``
    (``log10`` of the loss when ``log``), and each axis label's text, rectangle and alignment."""

    plot: QRectF
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    log: bool
    labels: list[tuple[str, QRectF, Qt.AlignmentFlag]]

    def point(self, step: float, loss: float) -> QPointF:
        """Where ``(step, loss)`` is drawn (``loss`` as stored, not yet on the log scale)."""
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        value = math.log10(loss) if self.log and loss > 0 else loss
        return QPointF(self.plot.left() + (step - x0) / (x1 - x0) * self.plot.width(),
                       self.plot.bottom() - (value - y0) / (y1 - y0) * self.plot.height())


def loss_layout(timelapse: Timelapse, area: QRectF, font: QFont) -> LossLayout | None:
    """The loss plot's layout in ``area``: the left margin is as wide as the widest y label (e.g. ``0.00717``)
    needs. None when the run has no finite, positive loss to draw."""
    steps, values = timelapse.loss_steps, timelapse.loss_values
    keep = np.isfinite(steps) & np.isfinite(values) & (values > 0)
    if not keep.any():
        return None
    x, y = steps[keep], values[keep]
    frame_steps = [float(f.step) for f in timelapse.frames]
    x0 = min([float(x.min()), *frame_steps])
    x1 = max([float(x.max()), *frame_steps, x0 + 1])
    log = bool(y.max() / y.min() >= 10)
    ty = np.log10(y) if log else y
    y0, y1 = float(ty.min()), float(ty.max())
    y0, y1 = (y0 - 0.5, y1 + 0.5) if y1 - y0 < 1e-9 else (y0, y1)
    y_texts = [f"{10 ** v if log else v:.3g}" for v in (y1, y0)]  # top, bottom
    metrics = QFontMetricsF(font)
    gap = 4.0  # between a y label and the plot, and at the area's left edge
    widest = max(metrics.horizontalAdvance(t) for t in y_texts)
    left = min(math.ceil(widest) + 2 * gap, area.width() / 2)
    line = metrics.height()
    plot = area.adjusted(left, 2 * line, -4, -2 * line - 4)
    label_width = plot.left() - area.left() - gap
    labels = [(text, QRectF(area.left(), where - metrics.ascent(), label_width, line), Qt.AlignmentFlag.AlignRight)
              for text, where in zip(y_texts, (plot.top() + metrics.ascent(), plot.bottom()))]
    labels += [(f"{v:.0f}", QRectF(plot.left(), plot.bottom() + 2, plot.width(), line), align)
               for v, align in ((x0, Qt.AlignmentFlag.AlignLeft), (x1, Qt.AlignmentFlag.AlignRight))]
    return LossLayout(plot, (x0, x1), (y0, y1), log, labels)


def peak_indices(values: np.ndarray, every: int) -> np.ndarray:
    """Indices of ``values`` ``(n,)`` that keep the lowest and the highest value of each run of ``every`` points
    (and the last point), in order. Taking every ``every``-th point would drop the spikes of a noisy per-step loss,
    and a frame's marker would then sit away from the drawn curve. This is pyqtgraph's ``'peak'`` downsampling."""
    n = len(values)
    if every <= 1 or n <= 2:
        return np.arange(n)
    chunks = -(-n // every)
    padded = np.full(chunks * every, np.nan)
    padded[:n] = values
    blocks = padded.reshape(chunks, every)  # (chunks, every)
    offsets = np.arange(chunks) * every
    picked = np.concatenate([offsets + np.nanargmin(blocks, axis=1), offsets + np.nanargmax(blocks, axis=1), [n - 1]])
    return np.unique(picked)


def _draw_loss(painter: QPainter, timelapse: Timelapse, frame: TimelapseFrame, area: QRectF, font: QFont,
               text: QColor, curve: QColor, marker: QColor, grid: QColor) -> None:
    """The run's loss curve with the frame's step marked; log scale when the loss spans a decade or more."""
    metrics = QFontMetricsF(font)
    painter.setFont(font)
    painter.setPen(text)
    layout = loss_layout(timelapse, area, font)
    plot = layout.plot if layout is not None else area.adjusted(
        metrics.horizontalAdvance("0.000") + 8, 2 * metrics.height(), -4, -2 * metrics.height() - 4)
    painter.drawText(QRectF(area.left(), area.top(), area.width(), metrics.height()),
                     Qt.AlignmentFlag.AlignLeft, translate("Timelapse", "Training loss (per token)"))
    painter.drawText(QRectF(plot.left(), plot.bottom() + metrics.height(), plot.width(), metrics.height()),
                     Qt.AlignmentFlag.AlignHCenter, translate("Timelapse", "step"))
    painter.setPen(QPen(grid, 1))
    painter.drawRect(plot)
    if layout is None:
        return
    steps, values = timelapse.loss_steps, timelapse.loss_values
    keep = np.isfinite(steps) & np.isfinite(values) & (values > 0)
    x, y = steps[keep], values[keep]
    every = max(1, len(x) // max(1, int(plot.width())))  # about one chunk per pixel
    line = QPolygonF([layout.point(x[0], y[0]), *(layout.point(x[i], y[i]) for i in peak_indices(y, every))])
    painter.save()
    # one crisp pixel, as pyqtgraph draws curves: a smoothed 1.5 px zigzag took ~20 ms a frame, and its shades of
    # blue made the GIF half as large again
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.setPen(QPen(curve, 1.0))
    painter.drawPolyline(line)
    painter.restore()
    painter.setPen(text)
    for label, rect, align in layout.labels:
        painter.drawText(rect, align, label)
    at = layout.point(frame.step, frame.loss)
    painter.setPen(QPen(marker, 1, Qt.PenStyle.DashLine))
    painter.drawLine(QPointF(at.x(), plot.top()), QPointF(at.x(), plot.bottom()))
    if math.isfinite(frame.loss):
        painter.setPen(QPen(marker, 2))
        painter.setBrush(marker)
        painter.drawEllipse(at, 5, 5)
