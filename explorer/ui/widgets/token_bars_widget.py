"""A bar chart of one row of a map: how much one output token draws on each input token (rollout and flow).
The bar item is made once and given new heights; the axis names the tokens (every n-th when they are many)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from explorer.ui.i18n.words import again

TICK_PX = 48  # room for one token name under the bars; more tokens than fit name every n-th


class TokenBars(QWidget):
    """``show_row(values (K,), tokens, caption)``: one bar per input token."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self._caption = ""
        self.plot = pg.PlotWidget(self)
        self.plot.setBackground("w")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(110)
        self.bar_item = pg.BarGraphItem(x=[0], height=[0], width=0.8, brush="#0072B2")
        self.plot.addItem(self.bar_item)
        self.values: np.ndarray | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.plot, 1)

    def show_row(self, values: np.ndarray, tokens: Sequence[str], caption: str) -> None:
        """Bars of ``values`` over ``tokens``, titled ``caption`` (a ``Words`` is worded again on a language
        change)."""
        self.values = np.asarray(values, dtype=np.float32)
        count = len(self.values)
        self.bar_item.setOpts(x=np.arange(count), height=self.values, width=0.8)
        room = max(2, self.plot.width() // TICK_PX)
        step = max(1, int(np.ceil(count / room)))
        self.plot.getAxis("bottom").setTicks([[(i, str(tokens[i])) for i in range(0, count, step)
                                              if i < len(tokens)]])
        self.plot.setXRange(-0.6, count - 0.4, padding=0)
        self.plot.setYRange(0, max(float(self.values.max(initial=0.0)), 1e-6) * 1.05, padding=0)
        self._caption = caption
        self.caption.setText(caption)

    def retranslate(self) -> None:
        self.caption.setText(again(self._caption))

    def apply_theme(self, dark: bool) -> None:
        self.plot.setBackground("#202124" if dark else "w")
