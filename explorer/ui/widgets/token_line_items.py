"""The painted part of the token-line view (BertViz's head view): one colour per head, and the graphics items that draw
every line of the heads shown (cached as a pixmap on screen) or the few lines of one isolated token."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem, QWidget

#: One colour per head, told apart by colour-blind readers too (Okabe–Ito, then Tol's muted scheme); cycled.
HEAD_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#117733",
                "#999933", "#332288", "#AA4499", "#44AA99")
ROW_HEIGHT = 18  # px per token (the columns' rows, where each line ends)
TOP = 26  # px above the first token: the legend of the heads shown
ALPHA_LEVELS = 16  # the full view draws its lines in this many opacity steps, one call per step and head


def head_colour(head: int, dark: bool = False) -> QColor:
    """The colour of ``head`` (from 0) in the overlay and the legend."""
    colour = QColor(HEAD_COLOURS[head % len(HEAD_COLOURS)])
    return colour.lighter(130) if dark else colour


class _FullLines(QGraphicsItem):
    """Every line of the heads shown, in opacity steps (one ``drawLines`` per step and head). Antialiased long
    lines cost tens of µs each, so on screen the item draws them once into a pixmap and then paints that: hiding it
    while a token is isolated and showing it again redraws no line. Exports (no widget) get the lines themselves."""

    def __init__(self) -> None:
        super().__init__()
        self.rect = QRectF()
        self.groups: list[tuple[QColor, list[QLineF]]] = []  # (colour with alpha, lines) per head and step
        self._pixmap: QPixmap | None = None

    def set_groups(self, rect: QRectF, groups: list[tuple[QColor, list[QLineF]]]) -> None:
        self.prepareGeometryChange()
        self.rect, self.groups, self._pixmap = rect, groups, None
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt override)
        return self.rect

    def _draw(self, painter: QPainter) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for colour, lines in self.groups:
            painter.setPen(QPen(colour, 1.0))
            painter.drawLines(lines)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if widget is None or self.rect.isEmpty():  # an export: vector lines at any scale
            self._draw(painter)
            return
        ratio = widget.devicePixelRatioF()
        if self._pixmap is None or self._pixmap.devicePixelRatioF() != ratio:
            size = self.rect.size() * ratio
            pixmap = QPixmap(max(1, int(size.width())), max(1, int(size.height())))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            cached = QPainter(pixmap)
            cached.translate(-self.rect.topLeft())
            self._draw(cached)
            cached.end()
            self._pixmap = pixmap
        painter.drawPixmap(self.rect.topLeft(), self._pixmap)


class _TokenLines(QGraphicsItem):
    """The lines of one query row or one key column (an isolated token): a few dozen, drawn directly, clipped to
    the part of the view being painted (Qt's raster engine takes 4× longer for lines that leave it unclipped)."""

    def __init__(self) -> None:
        super().__init__()
        self.rect = QRectF()
        self.lines: list[tuple[QColor, QLineF]] = []
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # paint() gets exposedRect

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt override)
        return self.rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setClipRect(option.exposedRect)
        for colour, line in self.lines:
            painter.setPen(QPen(colour, 1.0))
            painter.drawLine(line)


class LineItems:
    """The lines of the heads shown, computed once per map (heads, threshold): the full view, and per query row
    and key column the lines an isolated token keeps; hovering only switches which of the two items shows."""

    def __init__(self, scene: QGraphicsScene) -> None:
        self.full = _FullLines()
        self.token = _TokenLines()
        scene.addItem(self.full)
        scene.addItem(self.token)
        self._rows: list[list[tuple[QColor, QLineF]]] = []  # per query row
        self._cols: list[list[tuple[QColor, QLineF]]] = []  # per key column
        self.isolated: tuple[str, int] | None = None  # ("query" | "key", index)

    @property
    def count(self) -> int:
        """How many lines the full view draws."""
        return sum(len(lines) for _, lines in self.full.groups)

    def set_lines(self, weights: np.ndarray, heads: Sequence[int], colours: Sequence[QColor], threshold: float,
                  left: float, right: float) -> None:
        """``weights`` (h, q, k) in [0, 1]; lines of ``heads`` whose weight reaches ``threshold``."""
        _, queries, keys = weights.shape
        rect = QRectF(left, TOP, right - left, max(queries, keys) * ROW_HEIGHT)
        groups: list[tuple[QColor, list[QLineF]]] = []
        self._rows, self._cols = [[] for _ in range(queries)], [[] for _ in range(keys)]
        y = TOP + ROW_HEIGHT / 2
        for head, colour in zip(heads, colours):
            q, k = np.nonzero(weights[head] >= max(threshold, 1e-6))  # (n,), (n,)
            w = np.clip(weights[head][q, k], 0.0, 1.0)
            steps = np.minimum((w * ALPHA_LEVELS).astype(int), ALPHA_LEVELS - 1)  # (n,)
            by_step: dict[int, list[QLineF]] = {}
            for a, b, step, weight in zip(q.tolist(), k.tolist(), steps.tolist(), w.tolist()):
                line = QLineF(left, y + a * ROW_HEIGHT, right, y + b * ROW_HEIGHT)
                by_step.setdefault(step, []).append(line)
                shade = QColor(colour)
                shade.setAlphaF(0.2 + 0.8 * weight)
                self._rows[a].append((shade, line))
                self._cols[b].append((shade, line))
            for step, group in sorted(by_step.items()):
                shade = QColor(colour)
                shade.setAlphaF(min(1.0, (step + 0.5) / ALPHA_LEVELS))
                groups.append((shade, group))
        self.full.set_groups(rect, groups)
        self.token.prepareGeometryChange()
        self.token.rect = rect
        self._show()

    def isolate(self, which: tuple[str, int] | None) -> None:
        if which != self.isolated:
            self.isolated = which
            self._show()

    def _show(self) -> None:
        if self.isolated is None:
            self.token.lines = []
            self.token.hide()
            self.full.show()
            return
        side, index = self.isolated
        groups = self._rows if side == "query" else self._cols
        self.token.lines = groups[index] if index < len(groups) else []
        self.full.hide()
        self.token.show()
        self.token.update()
