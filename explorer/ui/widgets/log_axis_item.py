"""A logarithmic plot axis whose in-between labels (2·10¹, 3·10¹ …) are shown only where they have room: pyqtgraph
checks how much of the whole axis its labels fill, not whether neighbours touch, so they crowd the decades' ends."""
from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF

_GAP_PX = 8  # the least room between two labels
_PREFERRED = (2, 5)  # the in-between values labelled first, as on printed log paper


class LogAxisItem(pg.AxisItem):
    """In log mode: every decade labelled, other ticks only where their label touches no other label."""

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        strings = super().logTickStrings(values, scale, spacing)
        low, high = (float(x) for x in self.range)
        length = self.width() if self.orientation in ("top", "bottom") else self.height()
        if high <= low or length <= 0:
            return strings
        metrics = QFontMetricsF(self.style.get("tickFont") or self.font())
        along = self.orientation in ("top", "bottom")

        def span(value: float, text: str) -> tuple[float, float]:
            centre = (value - low) / (high - low) * length
            half = (metrics.horizontalAdvance(text) if along else metrics.height()) / 2 + _GAP_PX / 2
            return centre - half, centre + half

        def rank(i: int) -> tuple[int, float]:
            mantissa = round(10 ** (values[i] - math.floor(values[i])))
            decade = abs(values[i] - round(values[i])) < 1e-9
            return (0 if decade else 1 if mantissa in _PREFERRED else 2, values[i])

        decades = list(range(math.ceil(low), math.floor(high) + 1))  # labelled on this level or a higher one
        taken = [span(d, text) for d, text in zip(decades, super().logTickStrings(decades, scale, 1.0))]
        shown = [""] * len(strings)
        for i in sorted(range(len(values)), key=rank):
            place = span(values[i], strings[i])
            if rank(i)[0] == 0 or all(place[1] <= a or place[0] >= b for a, b in taken):
                taken.append(place)
                shown[i] = strings[i]
        return shown

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802 (pyqtgraph override)
        """pyqtgraph's levels, a value given on a higher level left off the lower ones (in log mode the decades
        come again among the in-between ticks, and their labels were drawn twice)."""
        seen: set[float] = set()
        levels = []
        for spacing, values in super().tickValues(minVal, maxVal, size):
            levels.append((spacing, [v for v in values if round(float(v), 9) not in seen]))
            seen.update(round(float(v), 9) for v in values)
        return levels


def log_axes() -> dict[str, Any]:
    """``axisItems`` for a log–log ``PlotWidget``: both axes label decades, and other ticks where they fit."""
    return {"bottom": LogAxisItem("bottom"), "left": LogAxisItem("left")}
