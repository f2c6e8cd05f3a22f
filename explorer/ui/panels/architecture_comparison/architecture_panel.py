"""CNN vs RNN vs self-attention panel (book §11.6.2): exact costs against n on a log–log plot with the crossover
where self-attention becomes the dearest, a table for the chosen n, d, k, and drawings of the three layers with the
path from the first token to the last. Numbers come from core.architecture_costs and core.layer_graphs (tiny:
computed synchronously)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QPointF, QSettings, QSignalBlocker, Qt, Slot
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget
from superqt.utils import qthrottled

from explorer.core.chapter.architecture_costs import ARCHITECTURES, ComparisonResult, CostError, compare
from explorer.ui.panels.architecture_comparison.cost_table_widget import CostTable, architecture_name
from explorer.ui.panels.architecture_comparison.layer_drawing_widget import COLOURS, LayerDrawing, drawn_tokens
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.widgets.fitting_title import fit_titles
from explorer.ui.widgets.form_controls import form_group, labeled_slider, restore_controls, save_controls
from explorer.ui.widgets.log_axis_item import log_axes
from explorer.ui.widgets.plot_texts import set_legend_names
from explorer.ui.widgets.side_column_widget import SideColumn


class ArchitecturePanel(BasePanel):
    """The three ways of mixing n tokens compared by cost, sequential steps and path length."""

    key = "architecture_comparison"
    title = QT_TRANSLATE_NOOP("Panels", "CNN vs RNN vs attention")
    formula_html = QT_TRANSLATE_NOOP(
        "ArchitecturePanel",
        "multiply–adds: CNN k·n·d², RNN 2·n·d², self-attention 2·n²·d &nbsp;|&nbsp; sequential operations: "
        "1, n, 1 &nbsp;|&nbsp; maximum path length: ⌈(n−1)/&#8288;((k−1)/2)⌉, n, 1")
    explanation_html = QT_TRANSLATE_NOOP(
        "ArchitecturePanel",
        "Three layers turn n tokens of width d into n outputs. A convolution of kernel size k mixes neighbours in "
        "parallel but needs a stack of layers before the first token reaches the last (O(n/k)); an RNN walks the "
        "sequence one step at a time (O(n) sequential operations and path); self-attention joins every pair in one "
        "hop at a cost that grows with n² (O(n²d)). The counts are exact multiply–adds, equal to what torch counts "
        "on real layers: two d×d products per RNN step; QKᵀ and the product with V for self-attention (tick the "
        "box to add its four d×d projections). Self-attention is cheaper than the RNN while n &lt; d; the dashed "
        "line marks the n from which it is the dearest of the three.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: ComparisonResult | None = None
        self.n_slider = labeled_slider(2, 2048, 64)
        self.d_slider = labeled_slider(1, 1024, 128)
        self.k_slider = labeled_slider(3, 15, 3)
        self.k_slider.setSingleStep(2)
        self.k_slider.setPageStep(2)
        self.projections_check = QCheckBox()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.sizes_group = group = form_group("", [("n", self.n_slider), ("d", self.d_slider), ("k", self.k_slider),
                                                   ("", self.projections_check), ("", self.summary)])

        self.cost_plot = pg.PlotWidget(title="n", axisItems=log_axes())
        self.cost_plot.setLogMode(x=True, y=True)
        self.cost_plot.setMenuEnabled(False)
        self.cost_plot.getPlotItem().hideButtons()
        self.legend = self.cost_plot.addLegend(offset=(10, 10), brush=pg.mkBrush(255, 255, 255, 200))
        self.curves = {a: self.cost_plot.plot(pen=pg.mkPen(COLOURS[a], width=2), name=architecture_name(a))
                       for a in ARCHITECTURES}
        self.markers = self.cost_plot.plot(pen=None, symbol="o", symbolSize=8,
                                           symbolBrush=[COLOURS[a] for a in ARCHITECTURES])
        self.n_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888888", width=1))
        self.cross_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#c0392b", width=2, style=Qt.PenStyle.DashLine),
                                          label="", labelOpts={"position": 0.12, "color": "#c0392b"})
        for line in (self.n_line, self.cross_line):
            self.cost_plot.addItem(line)
        fit_titles(self.cost_plot)
        box = self.cost_plot.getPlotItem().getViewBox()
        box.sigResized.connect(self._place_cross_caption)
        box.sigXRangeChanged.connect(self._place_cross_caption)
        self.drawing_page = self.lazy_page(LayerDrawing)  # made when first shown (or asked for), drawn then
        self.drawing_page.built.connect(self._on_drawing_page_built)
        self.table = CostTable()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.cost_plot, "")
        self.tabs.addTab(self.drawing_page, "")
        plots = QWidget()
        plots_layout = QVBoxLayout(plots)
        plots_layout.setContentsMargins(0, 0, 0, 0)
        plots_layout.addWidget(self.tabs, 1)
        plots_layout.addWidget(self.table)
        side = SideColumn(width=230)
        side.add_widget(group)
        row = QHBoxLayout()
        row.addWidget(side)
        row.addWidget(plots, 1)
        self.body_layout.addLayout(row)

        self.controls: dict[str, QWidget] = {"n": self.n_slider, "d": self.d_slider, "k": self.k_slider,
                                             "projections": self.projections_check}
        self._recompute_throttled = qthrottled(self.recompute, timeout=30, leading=True, parent=self)
        for slider in (self.n_slider, self.d_slider, self.k_slider):
            slider.valueChanged.connect(self._on_slider_value_changed)
        self.projections_check.toggled.connect(self._on_projections_check_toggled)
        self.apply_theme(False)
        self.retranslate()
        self.recompute()

    def retranslate(self) -> None:
        super().retranslate()
        self.n_slider.setToolTip(self.tr("n: number of tokens"))
        self.d_slider.setToolTip(self.tr("d: width of each token (channels, hidden size)"))
        self.k_slider.setToolTip(self.tr("k: kernel size of the convolution (odd)"))
        self.projections_check.setText(self.tr("count W_q, W_k, W_v, W_o"))
        self.projections_check.setToolTip(self.tr("add the self-attention layer's four d×d projections (4·n·d²)"))
        self.sizes_group.setTitle(self.tr("Sizes"))
        self.cost_plot.setTitle(self.tr("multiply–adds against n"))
        self.cost_plot.setLabel("bottom", self.tr("n (tokens)"))
        set_legend_names(self.cost_plot.getPlotItem(), [(c, architecture_name(a)) for a, c in self.curves.items()])
        self.tabs.setTabText(0, self.tr("Cost against n"))
        self.tabs.setTabText(1, self.tr("Paths through the layers"))
        if self.result is not None:
            self._show_result_texts()

    # --- compute and draw ---------------------------------------------------------------------
    def recompute(self) -> None:
        """Costs, table and drawings for the sliders' n, d and k."""
        k = self.k_slider.value()
        if k % 2 == 0:  # a padded convolution needs an odd kernel: round up
            with QSignalBlocker(self.k_slider):
                self.k_slider.setValue(k + 1)
        try:
            r = compare(self.n_slider.value(), self.d_slider.value(), self.k_slider.value(),
                        self.projections_check.isChecked())
        except CostError as err:
            self.show_inline_message(str(err))
            return
        self.clear_inline_message()
        self.result = r
        for arch, curve in self.curves.items():
            curve.setData(r.n_axis, r.curves[arch])
        self.markers.setData([r.n] * 3, [r.cost[a] for a in ARCHITECTURES])
        log_n = np.log10(r.n)
        self.n_line.setPos(log_n)  # in log mode, positions are log10 values
        self.cross_line.setPos(np.log10(r.crossover))
        self.cost_plot.setXRange(0, np.log10(r.n_axis[-1]), padding=0.02)
        self.table.show_result(r)
        if self.drawing_page.is_built():
            self.drawing.draw(r.n, r.k)
        self._show_result_texts()

    def _show_result_texts(self) -> None:
        """The crossover's caption and the summary, worded from the result on display."""
        r = self.result
        self.cross_line.label.setFormat(self.tr("self-attention dearest from n = {n:,}").format(n=r.crossover))
        if r.crossover == 1:
            dearest = self.tr("Self-attention is the dearest for every n.")
        else:
            dearest = self.tr("Self-attention is the dearest from n = <b>{n:,}</b>.").format(n=r.crossover)
        lines = [self.tr("At n = {n:,}: <b>{name}</b> costs the most.").format(
            n=r.n, name=architecture_name(r.most_expensive)), dearest]
        drawn = drawn_tokens(r.n)  # what the drawings show, made or not
        if r.n > drawn:
            lines.append(self.tr("The drawings show the first {count} tokens.").format(count=drawn))
        self.summary.setText("<br>".join(lines))
        self._place_cross_caption()

    @property
    def drawing(self) -> LayerDrawing:
        """The "Paths through the layers" tab (made now if it was not yet)."""
        return self.drawing_page.content()

    @Slot(QWidget)
    def _on_drawing_page_built(self, _drawing: QWidget) -> None:
        """Style and draw the tab made just now for the sizes on display."""
        self.drawing.apply_theme(self.dark)
        if self.result is not None:
            self.drawing.draw(self.result.n, self.result.k)

    @Slot()
    def _place_cross_caption(self) -> None:
        """Keep the crossover's caption inside the plot: centred on its line where there is room, else shifted
        along it towards the middle (beside a line near an edge, its first or last words fell off), and wrapped
        onto more lines where the plot is narrower than the caption (large fonts in presenter mode)."""
        label = self.cross_line.label
        box = self.cost_plot.getPlotItem().getViewBox()
        view = box.sceneBoundingRect()
        if view.width() <= 0:
            return
        label.setTextWidth(-1)  # its natural width first
        if label.textItem.boundingRect().width() > view.width():
            label.setTextWidth(view.width())
        width = label.textItem.boundingRect().width()
        if width <= 0:
            return
        line_x = box.mapViewToScene(QPointF(self.cross_line.value(), 0.0)).x()
        # anchor a: the caption spans [line_x - a·width, line_x + (1 - a)·width]
        lowest, highest = 1.0 - (view.right() - line_x) / width, (line_x - view.left()) / width
        anchor = min(max(0.5, lowest), highest, 1.0)
        anchor = max(anchor, 0.0)
        label.anchors = [(anchor, y) for _x, y in label.anchors]
        label.updatePosition()

    # --- slots --------------------------------------------------------------------------------
    @Slot(int)
    def _on_slider_value_changed(self, _value: int) -> None:
        self._recompute_throttled()

    @Slot(bool)
    def _on_projections_check_toggled(self, _checked: bool) -> None:
        self.recompute()

    # --- panel hooks --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        save_controls(self, settings, self.controls)

    def restore_settings(self, settings: QSettings) -> None:
        if restore_controls(self, settings, self.controls):  # else the comparison made with the panel stands
            self.recompute()

    def export_targets(self) -> list[ExportTarget]:
        def curves_csv() -> tuple[list[str], np.ndarray]:
            r = self.result
            return ["n", *ARCHITECTURES], np.column_stack([r.n_axis, *(r.curves[a] for a in ARCHITECTURES)])

        return [ExportTarget("cost_against_n", self.cost_plot, curves_csv, label=self.tr("Cost against n")),
                ExportTarget("layers_and_table", self.drawing, self.table.csv_table,
                             label=self.tr("Layers and table"))]

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        if self.drawing_page.is_built():  # a tab made later takes the theme then
            self.drawing.apply_theme(dark)
        fg = "#dddddd" if dark else "#222222"
        self.cost_plot.setBackground("k" if dark else "w")
        item = self.cost_plot.getPlotItem()
        for name in ("left", "bottom"):
            item.getAxis(name).setPen(fg)
            item.getAxis(name).setTextPen(fg)
        item.titleLabel.setText(item.titleLabel.text, color=fg)
        self.legend.setBrush(pg.mkBrush(0, 0, 0, 200) if dark else pg.mkBrush(255, 255, 255, 200))
        self.legend.setLabelTextColor(fg)
        for _, label in self.legend.items:
            label.setText(label.text, color=fg)
        self.n_line.setPen(pg.mkPen("#aaaaaa" if dark else "#888888", width=1))

    def shutdown(self, timeout_ms: int) -> None:
        self._recompute_throttled.cancel()
