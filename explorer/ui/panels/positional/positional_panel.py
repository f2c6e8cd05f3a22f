"""Positional encoding panel (book §11.6): the sinusoidal P, chosen columns as curves, the binary
analogy, the relative-position map M(δ) with P[i+δ] = M(δ)P[i], and the similarity P Pᵀ.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, QSignalBlocker, Slot
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QTabWidget, QWidget
from superqt.utils import qthrottled

from explorer.core.chapter.attention_demos import DemoError, PositionalResult, offset_bounds, positional_demo
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.panels.positional.relative_positions_widget import DIVERGING, RelativePositions
from explorer.ui.widgets.fitting_title import fit_titles
from explorer.ui.widgets.form_controls import (form_group, labeled_slider, restore_controls, save_controls,
                                               set_row_labels, spin_box)
from explorer.ui.widgets.heatmap_grid_widget import HeatmapGridWidget
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.plot_texts import set_legend_names
from explorer.ui.widgets.side_column_widget import SideColumn

MAX_CURVES = 8
CURVE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")


class PositionalPanel(BasePanel):
    """Sinusoidal positional encoding and its relative-position property."""

    key = "positional"
    title = QT_TRANSLATE_NOOP("Panels", "Positional encoding")
    formula_html = QT_TRANSLATE_NOOP(
        "PositionalPanel",
        "p<sub>i, 2j</sub> = sin(iω<sub>j</sub>), &nbsp;p<sub>i, 2j+1</sub> = cos(iω<sub>j</sub>), "
        "&nbsp;ω<sub>j</sub> = 10000<sup>−2j/d</sup> &nbsp;&nbsp;|&nbsp;&nbsp; P[i+δ] = M(δ) P[i], &nbsp;"
        "M(δ) = blocks [[cos δω<sub>j</sub>, sin δω<sub>j</sub>], [−sin δω<sub>j</sub>, cos δω<sub>j</sub>]]")
    explanation_html = QT_TRANSLATE_NOOP(
        "PositionalPanel",
        "Self-attention treats its input as a set, so the Transformer adds a position signal to each token: "
        "row i of P. Each pair of columns is a sine and a cosine of the position at its own frequency, fast "
        "on the left and slower to the right, much like the bits of a binary counter, where the lowest bit "
        "flips every step and higher bits flip ever more slowly. Because every column pair turns by a fixed "
        "angle per step, moving δ positions is the same rotation M(δ) wherever you start: P[i+δ] = M(δ)P[i] "
        "for every i, which lets attention pick up relative positions. P Pᵀ shows that nearby positions "
        "look alike and the likeness fades with distance.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: PositionalResult | None = None
        self.dim_spin = spin_box(1, 128, 32)
        self.steps_spin = spin_box(2, 200, 60)
        self.first_col_spin = spin_box(0, 127, 6)
        self.last_col_spin = spin_box(0, 127, 9)
        self.delta_slider = labeled_slider(-54, 49, 5)
        self.row_slider = labeled_slider(0, 54, 10)
        cols = QHBoxLayout()
        cols.addWidget(self.first_col_spin)
        self._to_label = QLabel()
        cols.addWidget(self._to_label)
        cols.addWidget(self.last_col_spin)
        cols_widget = QWidget()
        cols_widget.setLayout(cols)
        cols.setContentsMargins(0, 0, 0, 0)
        self.offset_label = QLabel()
        self.offset_label.setWordWrap(True)
        self._cols_widget = cols_widget
        self.encoding_group = group = form_group("", [
            ("encoding_dim", self.dim_spin), ("num_steps", self.steps_spin), ("columns", cols_widget),
            ("offset δ", self.delta_slider), ("row i", self.row_slider), ("", self.offset_label)])

        self.p_map = HeatmapWidget(colormap=DIVERGING, title="P", levels=(-1.0, 1.0))
        self.curves_plot = pg.PlotWidget(title="P")
        self.curves_legend = self.curves_plot.addLegend(offset=(-5, 5), brush=pg.mkBrush(255, 255, 255, 190))
        self.curves = [self.curves_plot.plot(pen=pg.mkPen(c, width=2)) for c in CURVE_COLOURS]
        self.binary_grid = HeatmapGridWidget(colormap=DIVERGING, max_columns=2, max_ticks=12)
        self.p_map.plot.max_ticks = 16  # positions and dimensions: a readable few, not every index

        encoding = QWidget()  # P and what it is made of
        encoding_grid = QGridLayout(encoding)
        encoding_grid.setContentsMargins(0, 4, 0, 0)
        encoding_grid.addWidget(self.p_map, 0, 0)
        encoding_grid.addWidget(self.curves_plot, 0, 1)
        encoding_grid.addWidget(self.binary_grid, 1, 0, 1, 2)  # two tiles: they get the whole width
        # P[i+δ] = M(δ)P[i], and how alike positions are: made when the tab is first shown (or asked for)
        self.offsets_page = self.lazy_page(RelativePositions)
        self.offsets_page.built.connect(self._on_offsets_page_built)
        self.tabs = QTabWidget()
        self.tabs.addTab(encoding, "")
        self.tabs.addTab(self.offsets_page, "")
        fit_titles(self.curves_plot)
        side = SideColumn(width=230)  # a short window scrolls the controls instead of squeezing them
        side.add_widget(group)
        row = QHBoxLayout()
        row.addWidget(side)
        row.addWidget(self.tabs, 1)
        self.body_layout.addLayout(row)

        self.controls: dict[str, QWidget] = {
            "encoding_dim": self.dim_spin, "num_steps": self.steps_spin, "first_column": self.first_col_spin,
            "last_column": self.last_col_spin, "delta": self.delta_slider, "row": self.row_slider}
        for spin in (self.dim_spin, self.steps_spin, self.first_col_spin, self.last_col_spin):
            spin.valueChanged.connect(self._on_control_changed)
        self._recompute_throttled = qthrottled(self.recompute, timeout=30, leading=True, parent=self)
        for slider in (self.delta_slider, self.row_slider):
            slider.valueChanged.connect(self._on_slider_value_changed)
        self.apply_theme(False)
        self._bound_offsets()
        self.retranslate()
        self.recompute()

    def retranslate(self) -> None:
        super().retranslate()
        self.dim_spin.setToolTip(self.tr("encoding_dim d: number of columns of P"))
        self.steps_spin.setToolTip(self.tr("num_steps: number of positions (rows of P)"))
        self.first_col_spin.setToolTip(self.tr("first column drawn as a curve"))
        self.last_col_spin.setToolTip(self.tr("last column drawn as a curve (at most {count})").format(
            count=MAX_CURVES))
        self.delta_slider.setToolTip(self.tr("offset δ (i + δ stays a row of P)"))
        self.row_slider.setToolTip(self.tr("position i whose encoding is shifted by δ"))
        self._to_label.setText(self.tr("to"))
        self.encoding_group.setTitle(self.tr("Encoding"))
        set_row_labels(self.encoding_group.layout(), [
            (self._cols_widget, self.tr("columns")), (self.delta_slider, self.tr("offset δ")),
            (self.row_slider, self.tr("row i"))])
        self.p_map.set_axis_labels(self.tr("position i"), self.tr("dimension"))
        self.curves_plot.setTitle(self.tr("columns of P"))
        self.curves_plot.setLabel("bottom", self.tr("position i"))
        if self.offsets_page.is_built():
            self._word_offsets()
        self.tabs.setTabText(0, self.tr("The encoding P"))
        self.tabs.setTabText(1, self.tr("Relative positions"))
        if self.result is not None:
            set_legend_names(self.curves_plot.getPlotItem(),
                             [(curve, self.tr("col {index}").format(index=col))
                              for curve, col in zip(self.curves, self.columns())])
            self.binary_grid.set_titles([self.tr("bits of i"), *self.binary_grid.titles[1:]])
            self._draw_offset()

    def _word_offsets(self) -> None:
        """The "Relative positions" tab's fixed texts in the language in force."""
        self.offsets.check_plot.setLabel("bottom", self.tr("dimension"))
        self.offsets.sim_map.set_title(self.tr("similarity P Pᵀ"))
        self.offsets.sim_map.set_axis_labels(self.tr("position"), self.tr("position"))

    @property
    def offsets(self) -> RelativePositions:
        """The "Relative positions" tab (made now if it was not yet)."""
        return self.offsets_page.content()


    @Slot(QWidget)
    def _on_offsets_page_built(self, _page: QWidget) -> None:
        """Word and draw the tab made just now from the result kept (the shell restyles it next)."""
        self._word_offsets()
        self.apply_theme(self.dark)
        if self.result is not None:
            self.offsets.sim_map.set_matrix(self.result.similarity, levels=None)
            self._draw_offset()

    # --- compute and draw ---------------------------------------------------------------------
    def columns(self) -> list[int]:
        """The columns drawn as curves (clamped to the encoding and to `MAX_CURVES`)."""
        d = self.dim_spin.value()
        first = min(self.first_col_spin.value(), d - 1)
        last = min(max(self.last_col_spin.value(), first), d - 1, first + MAX_CURVES - 1)
        return list(range(first, last + 1))

    def recompute(self, offset_only: bool = False) -> None:
        """Ask core for P, M(δ), P Pᵀ and the bits, then draw them (``offset_only``: just δ and i moved)."""
        try:
            self.result = positional_demo(num_steps=self.steps_spin.value(), encoding_dim=self.dim_spin.value(),
                                          delta=self.delta_slider.value(), row=self.row_slider.value())
        except DemoError as err:
            self.show_inline_message(str(err))
            return
        self.clear_inline_message()
        if not offset_only:
            self._draw_encoding()
        self._draw_offset()

    def _draw_encoding(self) -> None:
        """P, its chosen columns, the binary analogy and P Pᵀ (they do not depend on δ or i)."""
        r = self.result
        steps, d = r.P.shape
        positions = np.arange(steps)
        self.p_map.set_matrix(r.P, levels=(-1.0, 1.0))
        cols = self.columns()
        self.curves_legend.clear()
        for k, curve in enumerate(self.curves):
            if k < len(cols):
                curve.setData(positions, r.P[:, cols[k]])
                curve.setVisible(True)
                self.curves_legend.addItem(curve, self.tr("col {index}").format(index=cols[k]))
            else:
                curve.setData([], [])
                curve.setVisible(False)
        bits = r.binary.shape[1]
        n = min(r.binary.shape[0], steps)  # fewer than 8 positions: as many numbers as rows of P
        self.binary_grid.set_matrices(
            [r.binary[:n], r.P[:n]], titles=[self.tr("bits of i"), f"P[0..{n - 1}]"],
            row_labels=[f"{i} = {i:0{bits}b}" for i in range(n)], levels=(-1.0, 1.0),
            tile_col_labels=[[f"2{'⁰¹²³⁴⁵⁶⁷'[j]}" for j in range(bits)], None])
        if self.offsets_page.is_built():  # else drawn when the tab is made
            self.offsets.sim_map.set_matrix(r.similarity, levels=None)

    def _draw_offset(self) -> None:
        """Row i outlined, M(δ) and the check P[i+δ] = M(δ)P[i]."""
        r = self.result
        steps, d = r.P.shape
        delta, i = self.delta_slider.value(), self.row_slider.value()
        self.p_map.highlight_row(i if i < steps else None)
        if self.offsets_page.is_built():  # else drawn when the tab is made
            self._draw_offset_tab(r, delta, i)
        if r.M is None:
            if d % 2:
                self.offset_label.setText(self.tr("M(δ) needs an even encoding_dim (got {dim}): the last sine column "
                                                  "has no cosine partner to rotate with.").format(dim=d))
            else:
                self.offset_label.setText(self.tr("row i = {row} and i + δ = {target} must both lie in 0..{last}")
                                          .format(row=i, target=i + delta, last=steps - 1))
            self.offset_label.setStyleSheet("color: #c0392b;")
            return
        self.offset_label.setText(self.tr("max |P[i+δ] − M(δ)P[i]| over all i: {error:.2e}").format(
            error=r.max_error))
        self.offset_label.setStyleSheet("")

    def _draw_offset_tab(self, r: PositionalResult, delta: int, i: int) -> None:
        """Row i outlined in P Pᵀ, M(δ) and the check's curves (the "Relative positions" tab)."""
        view = self.offsets
        steps, d = r.P.shape
        view.sim_map.highlight_row(i if i < steps else None)
        view.m_map.set_title(f"M(δ = {delta})")
        if r.M is None:
            view.m_map.set_matrix(np.zeros((max(d, 1), max(d, 1))), levels=(-1.0, 1.0))
            for curve in (view.start_curve, view.target_curve, view.mapped_curve):
                curve.setData([], [])
            view.check_plot.setTitle(self.tr("M(δ)P[i]: not available"))
            return
        dims = np.arange(d)
        view.m_map.set_matrix(r.M, levels=(-1.0, 1.0))
        view.start_curve.setData(dims, r.P[i])
        view.target_curve.setData(dims, r.target)
        view.mapped_curve.setData(dims, r.mapped)
        view.check_plot.setTitle(f"P[{i + delta}] vs M({delta})P[{i}]")

    # --- slots --------------------------------------------------------------------------------
    @Slot(int)
    def _on_control_changed(self, _value: int) -> None:
        self._narrow_ranges()
        self.recompute()

    def _narrow_ranges(self) -> None:
        """Fit the column and offset controls' ranges to the encoding's size (clamping their values silently)."""
        d = self.dim_spin.value()
        for widget in (self.first_col_spin, self.last_col_spin):
            with QSignalBlocker(widget):
                widget.setMaximum(d - 1)  # clamps the value; the caller recomputes
        self._bound_offsets()

    @Slot(int)
    def _on_slider_value_changed(self, _value: int) -> None:
        self._bound_offsets()
        self._recompute_throttled(offset_only=True)

    def _bound_offsets(self) -> None:
        """Keep i and i + δ rows of P: each slider's range follows the other's value (and num_steps)."""
        b = offset_bounds(self.steps_spin.value(), self.row_slider.value(), self.delta_slider.value())
        for slider, (lo, hi), value in ((self.row_slider, b.row_range, b.row),
                                        (self.delta_slider, b.delta_range, b.delta)):
            if (slider.minimum(), slider.maximum(), slider.value()) != (lo, hi, value):
                with QSignalBlocker(slider):
                    slider.setRange(lo, hi)
                    slider.setValue(value)

    # --- panel hooks --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        save_controls(self, settings, self.controls)

    def restore_settings(self, settings: QSettings) -> None:
        # widest ranges first (they depend on encoding_dim, num_steps and each other); _narrow_ranges narrows
        # them again
        top = self.steps_spin.maximum() - 1
        for widget, lo, hi in ((self.first_col_spin, 0, self.dim_spin.maximum() - 1),
                               (self.last_col_spin, 0, self.dim_spin.maximum() - 1),
                               (self.row_slider, 0, top), (self.delta_slider, -top, top)):
            with QSignalBlocker(widget):
                widget.setRange(lo, hi)
        changed = restore_controls(self, settings, self.controls)
        self._narrow_ranges()
        if changed:  # else the encoding drawn when the panel was made stands
            self.recompute()

    def export_targets(self) -> list[ExportTarget]:
        def curves_csv() -> tuple[list[str], np.ndarray]:
            cols = self.columns()
            return (["position", *[f"col{c}" for c in cols]],
                    np.column_stack([np.arange(self.result.P.shape[0]), self.result.P[:, cols]]))

        def check_csv() -> tuple[list[str], np.ndarray]:
            r = self.result
            if r.M is None:
                return ["dimension", "target", "mapped"], np.zeros((0, 3))
            return ["dimension", "target", "mapped"], np.column_stack([np.arange(len(r.target)), r.target, r.mapped])

        def binary_csv() -> tuple[list[str], np.ndarray]:
            b = self.result.binary
            return ["number", *[f"bit{j}" for j in range(b.shape[1])]], np.column_stack([np.arange(len(b)), b])

        m_map, sim_map = self.offsets.m_map, self.offsets.sim_map
        return [ExportTarget("P", self.p_map, self.p_map.csv_table),
                ExportTarget("columns", self.curves_plot, curves_csv, label=self.tr("Columns of P")),
                ExportTarget("binary", self.binary_grid, binary_csv, label=self.tr("Binary analogy")),
                ExportTarget("offset_matrix", m_map, m_map.csv_table, label=self.tr("Offset matrix M(δ)")),
                ExportTarget("offset_check", self.offsets.check_plot, check_csv, label=self.tr("Offset check")),
                ExportTarget("similarity", sim_map, sim_map.csv_table, label=self.tr("Similarity P Pᵀ"))]

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        built = self.offsets_page.is_built()  # a tab made later is restyled then
        for w in (self.p_map, self.binary_grid, *((self.offsets.m_map, self.offsets.sim_map) if built else ())):
            w.apply_theme(dark)
        fg = "#dddddd" if dark else "#222222"
        for pw in (self.curves_plot, *((self.offsets.check_plot,) if built else ())):
            pw.setBackground("k" if dark else "w")
            item = pw.getPlotItem()
            item.legend.setLabelTextColor(fg)
            for _, label in item.legend.items:
                label.setText(label.text, color=fg)  # setLabelTextColor alone leaves drawn labels as they were
            item.legend.setBrush(pg.mkBrush(0, 0, 0, 190) if dark else pg.mkBrush(255, 255, 255, 190))
            for name in ("left", "bottom"):
                item.getAxis(name).setPen(fg)
                item.getAxis(name).setTextPen(fg)
            item.titleLabel.setText(item.titleLabel.text, color=fg)

    def shutdown(self, timeout_ms: int) -> None:
        self._recompute_throttled.cancel()
