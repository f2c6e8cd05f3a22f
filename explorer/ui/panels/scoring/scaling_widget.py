"""The scoring panel's scaling demo (book §11.3.3): why dot products are divided by √d.

A `d` slider; histograms of raw and scaled dot products with the N(0, d) / N(0, 1) curves the
argument predicts; the softmax entropy against d, raw and scaled. Numbers come from core.scaling.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np
from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget
from superqt.utils import qthrottled

from explorer.core.chapter.attention_demos import DemoError
from explorer.core.chapter.scaling import EntropySweep, ScalingResult, entropy_sweep, scaling_demo
from explorer.ui.worker import LatestOnlyRunner
from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.panels.scoring.scaling_plots_widget import ScalingPlots
from explorer.ui.widgets.form_controls import form_group, labeled_slider, set_row_labels, spin_box
from explorer.ui.widgets.lazy_page import LazyPage
from explorer.ui.widgets.plot_texts import set_legend_names
from explorer.ui.widgets.side_column_widget import SideColumn

if TYPE_CHECKING:
    from PySide6.QtGui import QShowEvent


def compute_scaling(dim: int, num_keys: int, with_sweep: bool) -> tuple[ScalingResult, EntropySweep | None]:
    """Worker-thread job: the demo for ``dim`` and, when asked, the entropy sweep over d."""
    return scaling_demo(dim, num_keys=num_keys), (entropy_sweep(num_keys=num_keys) if with_sweep else None)


class ScalingSection(QWidget):
    """Controls and plots of the scaling demo; heavy work runs on a `LatestOnlyRunner`. The demo is computed when the
    section is first shown (it is the panel's second tab) or its numbers are asked for (an export); the plots
    (``lazy_page`` makes their page: the panel's, so the shell restyles them) when first shown."""

    drawn = Signal()
    failed = Signal(str)

    def __init__(self, lazy_page: Callable[[Callable[[], QWidget]], LazyPage] = LazyPage,
                 parent: QWidget | None = None) -> None:
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

        # the plots are made when the tab is first shown (or asked for) and drawn from the result kept
        self.plots_page = lazy_page(ScalingPlots)
        self.plots_page.built.connect(self._on_plots_page_built)
        self._dark = False

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        side = SideColumn()
        side.add_widget(controls)
        layout.addWidget(side)
        layout.addWidget(self.plots_page, 1)

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
        if self.plots_page.is_built():
            self._word_plots()
        self._show_result_texts()

    def _word_plots(self) -> None:
        """The plots' fixed titles, labels and legend in the language in force."""
        plots = self.plots
        plots.entropy_hist_plot.setTitle(self.tr("entropy per query"))
        plots.entropy_plot.setTitle(self.tr("entropy vs d"))
        plots.entropy_hist_plot.setLabel("bottom", self.tr("entropy (nats)"))
        plots.entropy_plot.setLabel("left", self.tr("mean entropy (nats)"))
        set_legend_names(plots.entropy_plot,
                         [(plots.raw_sweep, self.tr("raw")), (plots.scaled_sweep, self.tr("scaled"))])
        plots.uniform_line.label.setFormat(self.tr("ln K (uniform)"))

    @property
    def plots(self) -> ScalingPlots:
        """The four plots (made now if they were not yet)."""
        return self.plots_page.content()

    @Slot(QWidget)
    def _on_plots_page_built(self, _plots: QWidget) -> None:
        """Style, word and draw the plots made just now from what is kept (as they would be had they been made at
        the start and drawn since)."""
        self.plots.apply_theme(self._dark)
        self._word_plots()
        if self.sweep is not None:
            self.plots.show_sweep(self.sweep)
        self._show_result_texts()
        if self.result is not None:
            self.plots.show_result(self.result)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # --- compute ----------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        if self.result is None and not self.runner.is_busy():
            self.request()  # first shown: the demo for the values on show
        super().showEvent(event)

    def refresh(self) -> None:
        """The controls were set silently (a restore): compute again if the demo was computed or asked for (else it
        is computed with these values when first shown)."""
        if self.result is not None or self.runner.is_busy() or self.isVisible():
            self.request()

    def ensure_computed(self) -> None:
        """Compute the demo now, on this thread, if it never was (an export asks for its numbers before the tab was
        shown; ~30 ms)."""
        if self.result is not None:
            return
        self.runner.cancel()  # a result on its way is the same one
        try:
            payload = compute_scaling(self.d_slider.value(), self.keys_spin.value(), True)
        except DemoError as err:
            self.failed.emit(str(err))
            return
        self._on_runner_result_ready(payload)

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
        built = self.plots_page.is_built()  # else they are drawn from what is kept when made
        if sweep is not None and sweep.num_keys == self.keys_spin.value():
            self.sweep = sweep
            if built:
                self.plots.show_sweep(sweep)
        self.result = result
        if built:
            self.plots.show_result(result)
        self._show_result_texts()
        self.drawn.emit()

    def _show_result_texts(self) -> None:
        """The titles and summary that quote the result's numbers (plain titles before the first result)."""
        result, built = self.result, self.plots_page.is_built()
        if result is None:
            if built:
                self.plots.raw_plot.setTitle(self.tr("raw q·k"))
                self.plots.scaled_plot.setTitle(self.tr("scaled q·k/√d"))
            return
        if built:
            self.plots.raw_plot.setTitle(self.tr("raw q·k (var {var:.1f})").format(var=result.raw_var))
            self.plots.scaled_plot.setTitle(self.tr("q·k/√d (var {var:.2f})").format(var=result.scaled_var))
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
        self.ensure_computed()  # its plots and tables show the demo's numbers
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

        return [ExportTarget("raw_dot_products", self.plots.raw_plot, hist_csv("raw_hist"),
                             label=self.tr("Raw dot products")),
                ExportTarget("scaled_dot_products", self.plots.scaled_plot, hist_csv("scaled_hist"),
                             label=self.tr("Scaled dot products")),
                ExportTarget("entropy_per_query", self.plots.entropy_hist_plot, entropy_csv,
                             label=self.tr("Entropy per query")),
                ExportTarget("entropy_vs_d", self.plots.entropy_plot, sweep_csv, label=self.tr("Entropy vs d"))]

    def apply_theme(self, dark: bool) -> None:
        self._dark = dark
        if self.plots_page.is_built():  # plots made later take the theme then
            self.plots.apply_theme(dark)

    def shutdown(self, timeout_ms: int) -> None:
        self._request_throttled.cancel()
        self.runner.shutdown(timeout_ms)
