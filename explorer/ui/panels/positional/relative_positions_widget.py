"""The positional panel's "Relative positions" tab (book §11.6.3): M(δ), the check P[i+δ] = M(δ)P[i] and the
similarity P Pᵀ. The panel makes it when the tab is first shown and draws it from the result it keeps."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QWidget

from explorer.ui.widgets.fitting_title import fit_titles
from explorer.ui.widgets.heatmap_widget import HeatmapWidget

DIVERGING = "CET-D1"


class RelativePositions(QWidget):
    """M(δ) over P Pᵀ on the left, the check's three curves on the right."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.m_map = HeatmapWidget(colormap=DIVERGING, title="M(δ)", levels=(-1.0, 1.0))
        self.check_plot = pg.PlotWidget(title="P[i+δ] and M(δ)P[i]")
        self.check_plot.addLegend(offset=(-5, -5), brush=pg.mkBrush(255, 255, 255, 190))
        self.start_curve = self.check_plot.plot(pen=pg.mkPen("#aaaaaa", width=1), name="P[i]")
        self.target_curve = self.check_plot.plot(pen=pg.mkPen("#1f77b4", width=3), name="P[i+δ]")
        self.mapped_curve = self.check_plot.plot(pen=pg.mkPen("#d62728", width=2, style=Qt.PenStyle.DashLine),
                                                 symbol="x", symbolPen="#d62728", symbolSize=7, name="M(δ)P[i]")
        self.sim_map = HeatmapWidget(title="P Pᵀ")
        for heatmap in (self.m_map, self.sim_map):
            heatmap.plot.max_ticks = 16  # positions and dimensions: a readable few, not every index
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 0)
        grid.addWidget(self.m_map, 0, 0)
        grid.addWidget(self.sim_map, 1, 0)
        grid.addWidget(self.check_plot, 0, 1, 2, 1)
        fit_titles(self.check_plot)
