"""A view box whose automatic range moves in steps: a live curve that grows a little at every redraw (the studio's
loss) keeps its axes, and the axes' text is laid out and drawn again only when a bound passes the next step."""
from __future__ import annotations

import math

import pyqtgraph as pg

#: A growing bound goes to the next of these (times a power of ten): at most ~25 % ahead of the data.
NICE_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
#: Both bounds of a span are rounded outwards to a multiple of this share of the span's power of ten ...
STEP_SHARE = 0.5
#: ... and the start of a growing one down to this share (the data's start less the curve's pen, in data units: it
#: moves a little whenever the range does, and moved the range again at every redraw).
FINE_STEP_SHARE = 0.01


def nice_ceiling(value: float) -> float:
    """The least ``m · 10^k`` ≥ ``value`` with m in :data:`NICE_MANTISSAS` (``value`` itself when it is not > 0)."""
    if not value > 0 or not math.isfinite(value):
        return value
    power = 10.0 ** math.floor(math.log10(value))
    for mantissa in NICE_MANTISSAS:
        if mantissa * power >= value * (1 - 1e-12):
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

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.steady = False

    def set_steady(self, steady: bool) -> None:
        """Round the auto range (the data is growing) or fit it to the data (it is complete); the range follows now."""
        if steady != self.steady:
            self.steady = steady
            self.updateAutoRange()

    def childrenBounds(self, frac=None, orthoRange=(None, None), items=None):  # noqa: N802 (pyqtgraph override)
        bounds = super().childrenBounds(frac=frac, orthoRange=orthoRange, items=items)
        if not self.steady:
            return bounds
        x, y = bounds
        if x is not None and x[0] is not None and x[1] is not None:
            high = nice_ceiling(x[1])
            bounds[0] = [outward(x[0], high, FINE_STEP_SHARE)[0], high]
        if y is not None and y[0] is not None and y[1] is not None:
            bounds[1] = list(outward(y[0], y[1]))
        return bounds
