"""Token tick labels for heatmap axes (book §11.1–11.6).

Few labels (≤ ``max_ticks``) are all shown: the font shrinks and column labels turn vertical rather than
words being skipped. A `TickSync` makes every tile of a grid take the same decision, so heads are labelled alike.
Long axes (thousands of tokens) are thinned by what is in view, so zooming in labels the tokens it shows, and
their label widths are measured once per font (zoom steps stay a few milliseconds at 4,096 tokens).
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetricsF

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

MIN_POINT_SIZE = 6.0
_GAP_PX = 4.0  # free space between two horizontal column labels
_ROW_FILL = 0.75  # labels stacked this close still read apart (words rarely fill their line box)


@dataclass(frozen=True)
class TickRoom:
    """What one heatmap offers its labels: the labels, its view in pixels, and the axis extents it was
    measured with (so a candidate font can be judged by the view it would leave)."""

    rows: tuple[str, ...]  # () when the left axis is hidden
    cols: tuple[str, ...]  # () when the bottom axis is hidden
    view_width: float
    view_height: float
    rows_in_view: float
    cols_in_view: float
    left_extent: float
    bottom_extent: float


@dataclass(frozen=True)
class TickLayout:
    """One decision for a group of heatmaps: font size, vertical column labels, every n-th row / column."""

    point_size: float
    rotated: bool
    row_step: int
    col_step: int


def _step(n: int, max_ticks: int) -> int:
    return max(1, math.ceil(n / max(1, max_ticks)))


def _in_view(n: int, in_view: float) -> int:
    """How many of an axis's ``n`` labels its view shows (all of them when it shows the whole axis)."""
    return max(1, min(n, math.ceil(in_view - 1e-6)))


_WIDEST: dict[tuple[tuple[str, ...], str], float] = {}


def _widest(labels: tuple[str, ...], font: QFont, metrics: QFontMetricsF) -> float:
    """The widest label's advance in ``font``, remembered for long axes (measuring 4,096 labels takes ~10 ms)."""
    if len(labels) <= 64:
        return max(metrics.horizontalAdvance(t) for t in labels)
    key = (labels, font.toString())
    if key not in _WIDEST:
        if len(_WIDEST) >= 16:
            _WIDEST.clear()
        _WIDEST[key] = max(metrics.horizontalAdvance(t) for t in labels)
    return _WIDEST[key]


def label_extents(labels: Sequence[str], font: QFont, rotated: bool = False) -> float:
    """Room one axis needs across itself: the widest label, or the line height (horizontal bottom labels)."""
    metrics = QFontMetricsF(font)
    if rotated or not labels:
        return math.ceil(_widest(tuple(labels), font, metrics)) if labels else 0
    return math.ceil(metrics.height())


def _steps_needed(room: TickRoom, font: QFont, rotated: bool, max_ticks: int) -> tuple[int, int]:
    """The smallest row and column steps at which ``room``'s labels do not overlap in ``font``."""
    metrics = QFontMetricsF(font)
    row_step = col_step = 1
    if room.rows:
        left = label_extents(room.rows, font, rotated=True)
        bottom = label_extents(room.cols, font, rotated) if room.cols else 0.0
        px = (room.view_height + room.bottom_extent - bottom) / max(room.rows_in_view, 1e-9)
        row_step = max(_step(_in_view(len(room.rows), room.rows_in_view), max_ticks),
                       math.ceil(metrics.height() * _ROW_FILL / max(px, 1e-9)))
    else:
        left = 0.0
    if room.cols:
        px = (room.view_width + room.left_extent - left) / max(room.cols_in_view, 1e-9)
        widest = _widest(room.cols, font, metrics)
        need = metrics.height() * _ROW_FILL if rotated else widest + _GAP_PX
        col_step = max(_step(_in_view(len(room.cols), room.cols_in_view), max_ticks), math.ceil(need / max(px, 1e-9)))
    return row_step, col_step


def fit_tick_layout(rooms: Sequence[TickRoom], base: QFont, max_ticks: int,
                    min_point_size: float = MIN_POINT_SIZE) -> TickLayout:
    """Pick one font size, orientation and label steps for every heatmap in ``rooms``.

    When every axis has at most ``max_ticks`` labels, all are shown: the font shrinks (down to
    ``min_point_size``) and column labels turn vertical before any label is skipped. Axes with more labels
    keep the base font and show every n-th label.
    """
    base_pt = base.pointSizeF() if base.pointSizeF() > 0 else 9.0
    few = all(len(r.rows) <= max_ticks and len(r.cols) <= max_ticks for r in rooms)
    sizes = [base_pt]
    if few:
        sizes += [s for s in range(int(math.ceil(base_pt)) - 1, int(min_point_size) - 1, -1) if s < base_pt]
    candidates: list[TickLayout] = []
    for pt in sizes:
        font = QFont(base)
        font.setPointSizeF(pt)
        for rotated in (False, True) if few else (False,):  # thinned-out numbers read best upright
            steps = [_steps_needed(r, font, rotated, max_ticks) for r in rooms]
            layout = TickLayout(pt, rotated, max((s[0] for s in steps), default=1),
                                max((s[1] for s in steps), default=1))
            if all(s == (_step(_in_view(len(r.rows), r.rows_in_view), max_ticks),
                         _step(_in_view(len(r.cols), r.cols_in_view), max_ticks)) for s, r in zip(steps, rooms)):
                return layout
            candidates.append(layout)
    # no font shows every label it should: the fewest skipped labels win, then the larger font
    return min(candidates, key=lambda c: (c.row_step + c.col_step, -c.point_size))


class TokenAxisItem(pg.AxisItem):
    """An axis that draws its tick labels itself: every label it is given, centred on its cell, never dropped
    for touching the axis ends; bottom labels can be vertical."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.rotated = False
        self.setStyle(autoExpandTextSpace=False, autoReduceTextSpace=False)

    def set_token_ticks(self, ticks: list[tuple[float, str]], font: QFont, rotated: bool, extent: int) -> None:
        """Label cell centres with ``ticks`` in ``font``; ``extent`` px across the axis for the labels."""
        self.rotated = rotated and self.orientation == "bottom"
        self.setTickFont(font)
        self.setTicks([ticks])
        key = "tickTextWidth" if self.orientation in ("left", "right") else "tickTextHeight"
        if self.style[key] != extent:
            self.setStyle(**{key: int(extent)})
        self.picture = None
        self.update()

    def extent(self) -> float:
        """Pixels reserved across the axis for tick labels (0 when hidden)."""
        if not self.isVisible():
            return 0.0
        return float(self.style["tickTextWidth" if self.orientation in ("left", "right") else "tickTextHeight"])

    def label_positions(self) -> list[tuple[float, str]]:
        """(pixel along the axis, text) of every label inside the axis now: what is drawn."""
        if not self._tickLevels:
            return []
        bounds = self.mapRectFromParent(self.geometry())
        lo, hi = self.range
        if hi == lo:
            return []
        vertical = self.orientation in ("left", "right")
        length = bounds.height() if vertical else bounds.width()
        out = []
        for value, text in self._tickLevels[0]:
            frac = (value - lo) / (hi - lo)
            pos = bounds.top() + (1.0 - frac) * length if vertical else bounds.left() + frac * length
            if -0.5 <= (pos - (bounds.top() if vertical else bounds.left())) <= length + 0.5:
                out.append((pos, text))
        return out

    def generateDrawSpecs(self, p: QPainter):  # noqa: N802 (pyqtgraph override)
        specs = super().generateDrawSpecs(p)
        if specs is None or self._tickLevels is None:
            return specs
        axis_spec, tick_specs, _ = specs
        return axis_spec, tick_specs, self.label_positions() if self.style["showValues"] else []

    def drawPicture(self, p: QPainter, axisSpec, tickSpecs, textSpecs) -> None:  # noqa: N802, N803
        if self._tickLevels is None:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        super().drawPicture(p, axisSpec, tickSpecs, [])
        p.setClipping(False)  # a label centred on the first or last cell may reach past the axis line's end
        font = self.style["tickFont"] or self.font()
        p.setFont(font)
        p.setPen(self.textPen())
        metrics = QFontMetricsF(font)
        h = metrics.height()
        bounds = self.mapRectFromParent(self.geometry())
        axis = 0 if self.orientation in ("left", "right") else 1
        offset = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][axis]
        extent = self.extent()
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for pos, text in textSpecs:
            if self.orientation == "left":
                p.drawText(QRectF(bounds.right() - offset - extent, pos - h / 2, extent, h), right, text)
            elif self.rotated:
                p.save()
                p.translate(pos, bounds.top() + offset)
                p.rotate(-90)  # text runs upwards and ends at the axis
                p.drawText(QRectF(-extent, -h / 2, extent, h), right, text)
                p.restore()
            else:
                w = metrics.horizontalAdvance(text) + 2
                p.drawText(QRectF(pos - w / 2, bounds.top() + offset, w, h),
                           Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, text)


class TickMember(Protocol):
    """What `TickSync` needs of a heatmap plot."""

    max_ticks: int

    def tick_room(self) -> TickRoom | None: ...

    def tick_font(self) -> QFont: ...

    def apply_tick_layout(self, layout: TickLayout) -> None: ...


class TickSync(QObject):
    """One tick decision shared by several heatmaps (a grid's tiles): the tightest tile decides for all.

    `update` decides at once (new labels); `schedule` decides once the layout has settled (resizes
    arrive tile by tile, and a decision taken between two of them would see half-updated views).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.members: list[TickMember] = []
        self.layout: TickLayout | None = None
        self._busy = False
        self._key: tuple | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.update)

    def pending(self) -> bool:
        """Whether a decision is waiting for the layout to settle."""
        return self._timer.isActive()

    def schedule(self) -> None:
        """Decide again after the pending layout and resize events."""
        if not self._busy:
            self._timer.start()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Decide once, at the end, for a block that changes several members."""
        busy, self._busy = self._busy, True
        try:
            yield
        finally:
            self._busy = busy
        self.update()

    def update(self) -> None:
        """Re-decide from every member's room now and apply the result to all of them."""
        if self._busy:
            return  # applying a layout resizes axes, which asks again: the decision already accounts for it
        self._timer.stop()
        rooms = [(m, m.tick_room()) for m in self.members]
        rooms = [(m, r) for m, r in rooms if r is not None]
        if not rooms:
            return
        base = rooms[0][0].tick_font()
        max_ticks = min(m.max_ticks for m, _ in rooms)
        key = (tuple(r for _, r in rooms), max_ticks, base.toString())
        if key == self._key:
            return  # nothing that places labels changed (e.g. a new matrix of the same shape)
        self._key = key
        self.layout = layout = fit_tick_layout([r for _, r in rooms], base, max_ticks)
        font = QFont(base)
        font.setPointSizeF(layout.point_size)
        # one font and direction for all; the steps are shared by the members with the same labels only
        # (a 3-column tile need not thin its labels like a 32-column one beside it)
        steps = [_steps_needed(r, font, layout.rotated, max_ticks) for _, r in rooms]
        row_steps: dict[tuple[str, ...], int] = {}
        col_steps: dict[tuple[str, ...], int] = {}
        for (_, room), (row_step, col_step) in zip(rooms, steps):
            row_steps[room.rows] = max(row_steps.get(room.rows, 1), row_step)
            col_steps[room.cols] = max(col_steps.get(room.cols, 1), col_step)
        row_steps[()] = max(row_steps.values())  # a hidden axis labels like the shown ones (if shown later)
        col_steps[()] = max(col_steps.values())
        self._busy = True
        try:
            for member, room in rooms:
                member.apply_tick_layout(replace(layout, row_step=row_steps[room.rows],
                                                 col_step=col_steps[room.cols]))
        finally:
            self._busy = False
