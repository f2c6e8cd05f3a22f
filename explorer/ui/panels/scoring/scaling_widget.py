"""The scoring panel's scaling demo (book §11.3.3): why dot products are divided by √d.

A `d` slider; histograms of raw and scaled dot products with the N(0, d) / N(0, 1) curves the
argument predicts; the softmax entropy against d, raw and scaled. Numbers come from core.scaling.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget
from superqt.utils import qthrottled

from explorer.core.chapter.scaling import EntropySweep, ScalingResult, entropy_sweep, scaling_demo
from explorer.ui.worker import LatestOnlyRunner
from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.widgets.fitting_title import install_fitting_title
from explorer.ui.widgets.form_controls import form_group, labeled_slider, set_row_labels, spin_box
from explorer.ui.widgets.plot_texts import set_legend_names
from explorer.ui.widgets.side_column_widget import SideColumn

RAW_COLOUR, SCALED_COLOUR = "#d35400", "#2471a3"


def compute_scaling(dim: int, num_keys: int, with_sweep: bool) -> tuple[ScalingResult, EntropySweep | None]:
    """Worker-thread job: the demo for ``dim`` and, when asked, the entropy sweep over d."""
    return scaling_demo(dim, num_keys=num_keys), (entropy_sweep(num_keys=num_keys) if with_sweep else None)


class ScalingSection(QWidget):
    """Controls and plots of the scaling demo; heavy work runs on a `LatestOnlyRunner`."""

    drawn = Signal()
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: ScalingResult | None = None
        self.sweep: EntropySweep | None = None
        self.d_slider = labeled_slider(1, 512, 64)
        self.keys_spin = spin_box(2, 50, 10)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.controls = controls = form_group("", [("d", self.d_slider), ("keys", self.keys_spin), ("", self.summary)])
        controls.setMinimumWidth(230)

        self.plots = pg.GraphicsLayoutWidget()
        self.raw_plot = self.plots.addPlot(row=0, col=0)
        self.scaled_plot = self.plots.addPlot(row=0, col=1)
        self.entropy_hist_plot = self.plots.addPlot(row=1, col=0)
        self.entropy_plot = self.plots.addPlot(row=1, col=1)
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

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        side = SideColumn()
        side.add_widget(controls)
        layout.addWidget(side)
        layout.addWidget(self.plots, 1)

        self.runner = LatestOnlyRunner(self)
        self.runner.result_ready.connect(self._on_runner_result_ready)
        self.runner.failed.connect(self._on_runner_failed)
        self._request_throttled = qthrottled(self.request, timeout=40, leading=True, parent=self)
        self.d_slider.valueChanged.connect(self._on_d_slider_value_changed)
        self.keys_spin.valueChanged.connect(self._on_keys_spin_value_changed)
        self.apply_theme(False)
        self.retranslate()

    def retranslate(self) -> None:
        """Set every text in the language in force (at build and on ``LanguageChange``)."""
        self.d_slider.setToolTip(self.tr("size d of the query and key vectors"))
        self.keys_spin.setToolTip(self.tr("number of keys each query's softmax runs over"))
        self.controls.setTitle(self.tr("Why divide by √d?"))
        set_row_labels(self.controls.layout(), [(self.keys_spin, self.tr("keys"))])
        self.entropy_hist_plot.setTitle(self.tr("entropy per query"))
        self.entropy_plot.setTitle(self.tr("entropy vs d"))
        self.entropy_hist_plot.setLabel("bottom", self.tr("entropy (nats)"))
        self.entropy_plot.setLabel("left", self.tr("mean entropy (nats)"))
        set_legend_names(self.entropy_plot, [(self.raw_sweep, self.tr("raw")), (self.scaled_sweep, self.tr("scaled"))])
        self.uniform_line.label.setFormat(self.tr("ln K (uniform)"))
        self._show_result_texts()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # --- compute ----------------------------------------------------------------------------
    def request(self) -> None:
        """Recompute for the current controls on the worker thread (only the newest request runs)."""
        keys = self.keys_spin.value()
        # the sweep is asked for until one for these keys has been drawn (a dropped result loses it)
        need_sweep = self.sweep is None or self.sweep.num_keys != keys
        self.runner.submit(compute_scaling, self.d_slider.value(), keys, need_sweep)

    @Slot(int)
    def _on_d_slider_value_changed(self, _value: int) -> None:
        self._request_throttled()

    @Slot(int)
    def _on_keys_spin_value_changed(self, _value: int) -> None:
        self.request()

    @Slot(object)
    def _on_runner_result_ready(self, payload: object) -> None:
        result, sweep = payload
        if sweep is not None and sweep.num_keys == self.keys_spin.value():
            self.sweep = sweep
            self.raw_sweep.setData(sweep.dims, sweep.raw_entropy)
            self.scaled_sweep.setData(sweep.dims, sweep.scaled_entropy)
            self.uniform_line.setPos(sweep.max_entropy)
            self.entropy_plot.setYRange(0, sweep.max_entropy * 1.08)
        self.result = result
        self.raw_hist.setData(result.raw_hist.edges, result.raw_hist.counts)
        self.raw_theory.setData(*result.raw_theory)
        self.scaled_hist.setData(result.scaled_hist.edges, result.scaled_hist.counts)
        self.scaled_theory.setData(*result.scaled_theory)
        self.raw_entropy_hist.setData(result.raw_entropy_hist.edges, result.raw_entropy_hist.counts)
        self.scaled_entropy_hist.setData(result.scaled_entropy_hist.edges, result.scaled_entropy_hist.counts)
        self.now_marker.setData([result.dim, result.dim],
                                [result.raw_entropy.mean(), result.scaled_entropy.mean()])
        self._show_result_texts()
        self.drawn.emit()

    def _show_result_texts(self) -> None:
        """The titles and summary that quote the result's numbers (plain titles before the first result)."""
        result = self.result
        if result is None:
            self.raw_plot.setTitle(self.tr("raw q·k"))
            self.scaled_plot.setTitle(self.tr("scaled q·k/√d"))
            return
        self.raw_plot.setTitle(self.tr("raw q·k (var {var:.1f})").format(var=result.raw_var))
        self.scaled_plot.setTitle(self.tr("q·k/√d (var {var:.2f})").format(var=result.scaled_var))
        self.summary.setText(self.tr(
            "Var(q·k) = <b>{raw_var:.1f}</b> ≈ d = {dim}<br>"
            "Var(q·k/√d) = <b>{scaled_var:.2f}</b> ≈ 1<br>"
            "softmax entropy over {keys} keys:<br>"
            "&nbsp; raw <b>{raw:.2f}</b>, scaled <b>{scaled:.2f}</b> (uniform {uniform:.2f}) nats").format(
                raw_var=result.raw_var, dim=result.dim, scaled_var=result.scaled_var, keys=result.num_keys,
                raw=result.raw_entropy.mean(), scaled=result.scaled_entropy.mean(), uniform=result.max_entropy))

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self.failed.emit(message)

    # --- panel hooks ------------------------------------------------------------------------
    def export_targets(self) -> list[ExportTarget]:
        def hist_csv(which: str):
            def table() -> tuple[list[str], np.ndarray]:
                if self.result is None:
                    return ["left_edge", "right_edge", "density"], np.zeros((0, 3))
                h = getattr(self.result, which)
                return ["left_edge", "right_edge", "density"], np.column_stack([h.edges[:-1], h.edges[1:], h.counts])
            return table

        def sweep_csv() -> tuple[list[str], np.ndarray]:
            s = self.sweep
            if s is None:
                return ["d", "raw_entropy", "scaled_entropy", "raw_var", "scaled_var"], np.zeros((0, 5))
            return (["d", "raw_entropy", "scaled_entropy", "raw_var", "scaled_var"],
                    np.column_stack([s.dims, s.raw_entropy, s.scaled_entropy, s.raw_var, s.scaled_var]))

        def entropy_csv() -> tuple[list[str], np.ndarray]:
            header = ["left_edge", "right_edge", "raw_density", "scaled_density"]
            if self.result is None:
                return header, np.zeros((0, 4))
            raw, scaled = self.result.raw_entropy_hist, self.result.scaled_entropy_hist
            return header, np.column_stack([raw.edges[:-1], raw.edges[1:], raw.counts, scaled.counts])

        return [ExportTarget("raw_dot_products", self.raw_plot, hist_csv("raw_hist"),
                             label=self.tr("Raw dot products")),
                ExportTarget("scaled_dot_products", self.scaled_plot, hist_csv("scaled_hist"),
                             label=self.tr("Scaled dot products")),
                ExportTarget("entropy_per_query", self.entropy_hist_plot, entropy_csv,
                             label=self.tr("Entropy per query")),
                ExportTarget("entropy_vs_d", self.entropy_plot, sweep_csv, label=self.tr("Entropy vs d"))]

    def apply_theme(self, dark: bool) -> None:
        self.plots.setBackground("k" if dark else "w")
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

    def shutdown(self, timeout_ms: int) -> None:
        self._request_throttled.cancel()
        self.runner.shutdown(timeout_ms)
