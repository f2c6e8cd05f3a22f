"""The scaling demo's four plots (book §11.3.3): raw and scaled dot products against the curves the argument
predicts, the entropy per query and the entropy against d. The scaling section makes them when its tab is first
shown and words them; they draw the numbers it hands over."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from explorer.ui.widgets.fitting_title import install_fitting_title

if TYPE_CHECKING:
    from explorer.core.chapter.scaling import EntropySweep, ScalingResult

RAW_COLOUR, SCALED_COLOUR = "#d35400", "#2471a3"


class ScalingPlots(pg.GraphicsLayoutWidget):
    """raw | scaled dot products over entropy per query | entropy vs d (the sweep, with the d chosen starred)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.raw_plot = self.addPlot(row=0, col=0)
        self.scaled_plot = self.addPlot(row=0, col=1)
        self.entropy_hist_plot = self.addPlot(row=1, col=0)
        self.entropy_plot = self.addPlot(row=1, col=1)
        for plot in (self.raw_plot, self.scaled_plot, self.entropy_hist_plot, self.entropy_plot):
            install_fitting_title(plot)  # titles shrink with the plots instead of widening them
        self.raw_hist = self.raw_plot.plot(stepMode="center", fillLevel=0, brush=RAW_COLOUR + "80", pen=RAW_COLOUR)
        self.raw_theory = self.raw_plot.plot(pen=pg.mkPen("#444444", width=2, style=Qt.PenStyle.DashLine))
        self.scaled_hist = self.scaled_plot.plot(stepMode="center", fillLevel=0, brush=SCALED_COLOUR + "80",
                                                 pen=SCALED_COLOUR)
        self.scaled_theory = self.scaled_plot.plot(pen=pg.mkPen("#444444", width=2, style=Qt.PenStyle.DashLine))
        self.raw_entropy_hist = self.entropy_hist_plot.plot(stepMode="center", fillLevel=0,
                                                            brush=RAW_COLOUR + "60", pen=RAW_COLOUR)
        self.scaled_entropy_hist = self.entropy_hist_plot.plot(stepMode="center", fillLevel=0,
                                                               brush=SCALED_COLOUR + "60", pen=SCALED_COLOUR)
        self.entropy_plot.addLegend(offset=(10, -10))  # bottom left: the curves leave it empty
        self.entropy_plot.setLogMode(x=True, y=False)
        self.raw_sweep = self.entropy_plot.plot(pen=RAW_COLOUR, symbol="o", symbolSize=5,
                                                symbolBrush=RAW_COLOUR, name="raw")
        self.scaled_sweep = self.entropy_plot.plot(pen=SCALED_COLOUR, symbol="o", symbolSize=5,
                                                   symbolBrush=SCALED_COLOUR, name="scaled")
        self.now_marker = self.entropy_plot.plot(pen=None, symbol="star", symbolSize=14,
                                                 symbolBrush="#27ae60")
        self.uniform_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#888888", style=Qt.PenStyle.DotLine),
                                            label="ln K", labelOpts={"position": 0.3})
        self.entropy_plot.addItem(self.uniform_line)
        self.entropy_plot.setLabel("bottom", "d")
        for plot in (self.raw_plot, self.scaled_plot, self.entropy_hist_plot):
            plot.getAxis("left").enableAutoSIPrefix(False)  # densities; an SI caption would eat the width
        self._top: float | None = None  # the top of the entropy plot's range, while it waits for a size
        self.entropy_plot.vb.sigResized.connect(self._on_entropy_view_resized)

    def show_sweep(self, sweep: EntropySweep) -> None:
        """The mean entropy against d, raw and scaled, under the uniform softmax's ln K."""
        self.raw_sweep.setData(sweep.dims, sweep.raw_entropy)
        self.scaled_sweep.setData(sweep.dims, sweep.scaled_entropy)
        self.uniform_line.setPos(sweep.max_entropy)
        # pyqtgraph pads a range by the view's height: one set before the plots are laid out (made and drawn in one
        # go) waits for their first size, so it gets the padding of the plot on screen
        self._top = sweep.max_entropy * 1.08
        self._on_entropy_view_resized()

    def _on_entropy_view_resized(self) -> None:
        if self._top is not None and self.entropy_plot.vb.height() > 0:
            self.entropy_plot.setYRange(0, self._top)
            self._top = None

    def show_result(self, result: ScalingResult) -> None:
        """The histograms and theory curves for the d chosen, and its star on the sweep."""
        self.raw_hist.setData(result.raw_hist.edges, result.raw_hist.counts)
        self.raw_theory.setData(*result.raw_theory)
        self.scaled_hist.setData(result.scaled_hist.edges, result.scaled_hist.counts)
        self.scaled_theory.setData(*result.scaled_theory)
        self.raw_entropy_hist.setData(result.raw_entropy_hist.edges, result.raw_entropy_hist.counts)
        self.scaled_entropy_hist.setData(result.scaled_entropy_hist.edges, result.scaled_entropy_hist.counts)
        self.now_marker.setData([result.dim, result.dim],
                                [result.raw_entropy.mean(), result.scaled_entropy.mean()])

    def apply_theme(self, dark: bool) -> None:
        self.setBackground("k" if dark else "w")
        fg = "#dddddd" if dark else "#222222"
        for plot in (self.raw_plot, self.scaled_plot, self.entropy_hist_plot, self.entropy_plot):
            for name in ("left", "bottom"):
                plot.getAxis(name).setPen(fg)
                plot.getAxis(name).setTextPen(fg)
            plot.titleLabel.setText(plot.titleLabel.text, color=fg)
        self.entropy_plot.legend.setLabelTextColor(fg)
        for _, label in self.entropy_plot.legend.items:
            label.setText(label.text, color=fg)  # setLabelTextColor alone leaves drawn labels as they were
        theory = pg.mkPen("#bbbbbb" if dark else "#444444", width=2, style=Qt.PenStyle.DashLine)
        self.raw_theory.setPen(theory)
        self.scaled_theory.setPen(theory)
