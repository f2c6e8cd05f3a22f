"""Drawings of a CNN, an RNN and a self-attention layer over the same tokens (book §11.6.2, Fig. 11.6.1), with the
shortest path from the first token to the last position highlighted. Graphs and paths come from core.layer_graphs."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt

from explorer.core.chapter.architecture_costs import ARCHITECTURES
from explorer.core.chapter.layer_graphs import LayerGraph, Node, first_to_last, hops
from explorer.ui.panels.architecture_comparison.cost_table_widget import architecture_name
from explorer.ui.pyqtgraph_compat import view_closed

MAX_DRAWN = 12  # tokens drawn: beyond this the CNN's stack of layers turns into a grey blur
PATH_COLOUR, DARK_PATH_COLOUR = "#d62728", "#ff6b6b"
COLOURS = {"CNN": "#2ca02c", "RNN": "#9467bd", "self-attention": "#1f77b4"}


def segments(edges: list[tuple[Node, Node]]) -> tuple[np.ndarray, np.ndarray]:
    """x (position) and y (level) arrays of line pairs for ``connect="pairs"``: ``(2E,)`` each."""
    if not edges:
        return np.zeros(0), np.zeros(0)
    pts = np.array([[a[1], a[0], b[1], b[0]] for a, b in edges], dtype=np.float64)  # (E, 4)
    return pts[:, [0, 2]].ravel(), pts[:, [1, 3]].ravel()


class _ArchitecturePlot:
    """The items of one architecture's drawing, created once and fed with ``setData``."""

    def __init__(self, plot: pg.PlotItem, name: str) -> None:
        self.plot, self.name = plot, name
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.hideAxis("bottom")
        plot.getAxis("left").setWidth(34)
        colour = pg.mkColor(COLOURS[name])
        faint = pg.mkColor(colour)
        faint.setAlpha(70)
        self.edges = pg.PlotDataItem(connect="pairs", pen=pg.mkPen(faint, width=1))
        self.path = pg.PlotDataItem(connect="pairs", pen=pg.mkPen(PATH_COLOUR, width=3))
        self.nodes = pg.ScatterPlotItem(size=7, pen=pg.mkPen(colour), brush=pg.mkBrush(colour))
        self.ends = pg.ScatterPlotItem(size=11, pen=pg.mkPen(PATH_COLOUR, width=2), brush=pg.mkBrush(PATH_COLOUR))
        for item in (self.edges, self.path, self.nodes, self.ends):
            plot.addItem(item)

    def draw(self, graph: LayerGraph, path: list[Node], title: str, fg: str) -> None:
        self.edges.setData(*segments(graph.edge_list()))
        self.path.setData(*segments(list(zip(path, path[1:]))))
        nodes = np.array(graph.nodes(), dtype=np.float64)  # (N, 2): (level, position)
        self.nodes.setData(nodes[:, 1], nodes[:, 0])
        self.ends.setData([p[1] for p in (path[0], path[-1])], [p[0] for p in (path[0], path[-1])])
        levels = graph.levels
        self.plot.setRange(xRange=(-0.5, graph.n - 0.5), yRange=(-0.4, levels + 0.4), padding=0)
        step = max(1, levels // 4)
        names = {0: "x"} | ({1: "h"} if self.name == "RNN" else {})
        ticks = [(lv, names.get(lv, f"L{lv}")) for lv in range(0, levels + 1, step)]
        self.plot.getAxis("left").setTicks([ticks])
        self.plot.setTitle(title, color=fg, size="10pt")


def drawn_tokens(n: int) -> int:
    """How many of ``n`` tokens the drawings show."""
    return min(n, MAX_DRAWN)


class LayerDrawing(pg.GraphicsLayoutWidget):
    """The three architectures stacked, inputs at the bottom of each, over ``min(n, MAX_DRAWN)`` tokens."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.dark = False
        self.plots: dict[str, _ArchitecturePlot] = {}
        for row, name in enumerate(ARCHITECTURES):
            self.plots[name] = _ArchitecturePlot(self.addPlot(row=row, col=0), name)
        self.hop_counts: dict[str, int] = {}
        self.drawn_tokens = 0
        self._drawn: tuple[int, int] | None = None  # (n, k) drawn: the titles quote them
        self.setMinimumSize(240, 240)
        self.apply_theme(False)

    def draw(self, n: int, k: int) -> None:
        """Draw the graphs for ``min(n, MAX_DRAWN)`` tokens and kernel size ``k``."""
        shown = drawn_tokens(n)
        self.drawn_tokens = shown
        self._drawn = (n, k)
        fg = self._fg()
        for row, name in enumerate(ARCHITECTURES):
            graph, path = first_to_last(name, shown, k)
            self.hop_counts[name] = hops(path)
            if name == "CNN":
                title = self.tr("CNN (k = {k}, layers: {layers}): x₁ → position {position} in %n hop(s)", "",
                                hops(path)).format(k=k, layers=graph.levels, position=shown)
            else:
                title = self.tr("{name}: x₁ → position {position} in %n hop(s)", "", hops(path)).format(
                    name=architecture_name(name), position=shown)
            self.plots[name].draw(graph, path, title, fg)
            self.ci.layout.setRowStretchFactor(row, max(2, graph.levels + 1))  # taller for a deep CNN

    def retranslate(self) -> None:
        """Word the titles in the language in force: drawn again (the graphs are tiny)."""
        if self._drawn is not None:
            self.draw(*self._drawn)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange and not view_closed(self):
            self.retranslate()
        super().changeEvent(event)

    def apply_theme(self, dark: bool) -> None:
        self.dark = dark
        self.setBackground("k" if dark else "w")
        fg = self._fg()
        path_colour = DARK_PATH_COLOUR if dark else PATH_COLOUR
        for item in self.plots.values():
            axis = item.plot.getAxis("left")
            axis.setPen(fg)
            axis.setTextPen(fg)
            item.plot.titleLabel.setText(item.plot.titleLabel.text, color=fg)
            item.path.setPen(pg.mkPen(path_colour, width=3, style=Qt.PenStyle.SolidLine))
            item.ends.setPen(pg.mkPen(path_colour, width=2))
            item.ends.setBrush(pg.mkBrush(path_colour))

    def _fg(self) -> str:
        return "#dddddd" if self.dark else "#222222"
