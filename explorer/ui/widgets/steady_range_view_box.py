"""A view box whose automatic range moves in steps: a live curve that grows a little at every redraw (the studio's
loss) keeps its axes, and the axes' text is laid out and drawn again only when a bound passes the next step."""
from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg

#: A growing bound goes to the next of these (times a power of ten): at most a third ahead of the data ...
NICE_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
#: ... or stays at one it passes by at most this share of the span (the curve's pen: 3,000 steps end at 3,000, not
#: 4,000; the view box's own padding, at least 2 % of the span, keeps that last bit in view).
NICE_TOLERANCE = 0.01
#: Both bounds of a span are rounded outwards to a multiple of this share of the span's power of ten ...
STEP_SHARE = 0.5
#: ... and the start of a growing one down to this share (the data's start less the curve's pen, in data units: it
#: moves a little whenever the range does, and moved the range again at every redraw).
FINE_STEP_SHARE = 0.01


def nice_ceiling(value: float, tolerance: float = 0.0) -> float:
    """The least ``m · 10^k`` ≥ ``value / (1 + tolerance)`` with m in :data:`NICE_MANTISSAS` (``value`` itself when it
    is not > 0)."""
    if not value > 0 or not math.isfinite(value):
        return value
    target = value / (1.0 + tolerance)
    power = 10.0 ** math.floor(math.log10(target))
    for mantissa in NICE_MANTISSAS:
        if mantissa * power >= target * (1 - 1e-12):
            return mantissa * power
    return 10.0 * power


def outward(low: float, high: float, share: float = STEP_SHARE) -> tuple[float, float]:
    """``(low, high)`` rounded outwards to multiples of ``share`` of the span's power of ten (``2.37 … 5.91`` ->
    ``2.0 … 6.0``); an empty or non-finite span is returned as it is."""
    span = high - low
    if not (span > 0 and math.isfinite(span)):
        return low, high
    step = share * 10.0 ** math.floor(math.log10(span))
    return math.floor(low / step) * step, math.ceil(high / step) * step


class SteadyRangeViewBox(pg.ViewBox):
    """A ``ViewBox`` whose auto range, while :attr:`steady` (the data grows), shows the data within steady bounds:
    the end of the x range at the next nice value past the data (:func:`nice_ceiling`), its start a little before
    the data's, the y range rounded outwards (:func:`outward`); otherwise it fits the data as any view box does.
    Zooming, panning and a range set by hand work as in any view box."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.steady = False

    def set_steady(self, steady: bool) -> None:
        """Round the auto range (the data is growing) or fit it to the data (it is complete); the range follows now."""
        if steady != self.steady:
            self.steady = steady
            self.updateAutoRange()

    def childrenBounds(self, frac: Any = None, orthoRange: Any = (None, None),  # noqa: N802, N803 (pyqtgraph's)
                       items: Any = None) -> list[Any]:
        bounds = super().childrenBounds(frac=frac, orthoRange=orthoRange, items=items)
        if not self.steady:
            return bounds
        x, y = bounds
        if x is not None and x[0] is not None and x[1] is not None:
            high = nice_ceiling(x[1], NICE_TOLERANCE)
            if x[1] - high > NICE_TOLERANCE * (high - x[0]):  # past it by more than the padding shows
                high = nice_ceiling(x[1])
            bounds[0] = [outward(x[0], high, FINE_STEP_SHARE)[0], high]
        if y is not None and y[0] is not None and y[1] is not None:
            bounds[1] = list(outward(y[0], y[1]))
        return bounds
