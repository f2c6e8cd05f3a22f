"""The widgets of the kernel regression panel (book §11.2): the control column and the four plots.

They hold no state beyond what they show; `kernel_regression_panel.py` computes and connects them.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout, QGroupBox, QLabel,
                               QPushButton, QSpinBox, QVBoxLayout, QWidget)

from explorer.core.chapter import kernel_regression as kr
from explorer.ui.i18n.translators import translate
from explorer.ui.panels.kernel_regression.panel_texts import KERNEL_NAMES
from explorer.ui.panels.kernel_regression.plot_items import DraggablePoints, stem_xy
from explorer.ui.widgets.fitting_title import fit_titles
from explorer.ui.widgets.form_controls import set_item_texts, set_row_labels
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.log_slider_widget import LogSlider
from explorer.ui.widgets.plot_texts import set_legend_names

DEFAULTS: dict[str, Any] = dict(n_train=50, n_test=50, noise=0.5, seed=0, kernel="gaussian", bandwidth=1.0,
                                lr=0.5, epochs=5, shown="nonparametric", query=25)
STEM_SYMBOLS_MAX = 300  # dots on the stems only when they stay legible (and cheap)
COLOURS = {False: dict(truth="#7f7f7f", fit="#e6550d", param="#2ca02c", points="#1f77b4", query="#d62728",
                       legend="#ffffff"),
           True: dict(truth="#a0a0a0", fit="#fd8d3c", param="#74c476", points="#6baed6", query="#ff6b6b",
                      legend="#1e1f22")}


class KernelRegressionControls(QWidget):
    """The left column: data, kernel (with the bandwidth slider and the kernel inset) and parametric boxes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.n_train_spin = QSpinBox(minimum=1, maximum=5000, value=DEFAULTS["n_train"])
        self.n_test_spin = QSpinBox(minimum=1, maximum=5000, value=DEFAULTS["n_test"])
        self.noise_spin = QDoubleSpinBox(minimum=0.0, maximum=5.0, singleStep=0.1, value=DEFAULTS["noise"])
        self.seed_spin = QSpinBox(minimum=0, maximum=2**31 - 1, value=DEFAULTS["seed"])
        self.kernel_combo = QComboBox()
        for name in kr.KERNELS:
            self.kernel_combo.addItem(name, name)
        self.bandwidth_slider = LogSlider(value=DEFAULTS["bandwidth"])
        self.lr_spin = QDoubleSpinBox(minimum=0.001, maximum=10.0, singleStep=0.1, decimals=3, value=DEFAULTS["lr"])
        self.epochs_spin = QSpinBox(minimum=1, maximum=500, value=DEFAULTS["epochs"])
        self.train_button = QPushButton()
        self.shown_combo = QComboBox()
        self.shown_combo.addItem("nonparametric", "nonparametric")
        self.shown_combo.addItem("parametric", "parametric")
        self.w_label = QLabel()
        self.w_label.setWordWrap(True)
        self.kernel_plot = pg.PlotWidget()
        self.kernel_plot.setFixedHeight(110)
        self.kernel_plot.setMenuEnabled(False)
        self.kernel_plot.setMouseEnabled(False, False)
        self.kernel_plot.hideButtons()
        self.kernel_plot.setTitle("K", size="8pt")
        self.kernel_item = self.kernel_plot.plot(fillLevel=0.0)

        self.data_box = QGroupBox()
        self._data_form = data_form = QFormLayout(self.data_box)
        for spin in (self.n_train_spin, self.n_test_spin, self.noise_spin, self.seed_spin):
            data_form.addRow("", spin)
        self.kernel_box = QGroupBox()
        self._kernel_form = kernel_form = QFormLayout(self.kernel_box)
        kernel_form.addRow("", self.kernel_combo)
        self._bandwidth_label = QLabel()
        kernel_form.addRow(self._bandwidth_label)
        kernel_form.addRow(self.bandwidth_slider)
        kernel_form.addRow(self.kernel_plot)
        self.param_box = QGroupBox()
        self._param_form = param_form = QFormLayout(self.param_box)
        param_form.addRow("", self.lr_spin)
        param_form.addRow("", self.epochs_spin)
        param_form.addRow(self.train_button)
        param_form.addRow(self.w_label)
        param_form.addRow("", self.shown_combo)
        for form in (data_form, kernel_form, param_form):
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        side = QVBoxLayout(self)
        side.setContentsMargins(0, 0, 0, 0)
        for box in (self.data_box, self.kernel_box, self.param_box):
            side.addWidget(box)
        side.addStretch(1)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the column's texts in the language in force (the panel calls it when the language changes, then
        re-words what depends on its state: the train button while training, the learned w)."""
        set_item_texts(self.kernel_combo,
                       [translate("KernelRegressionPanel", KERNEL_NAMES.get(name, name)) for name in kr.KERNELS])
        self.train_button.setText(self.tr("Train w"))
        set_item_texts(self.shown_combo, [self.tr("nonparametric"), self.tr("parametric")])
        self.w_label.setText(self.tr("w: not trained yet"))
        self.kernel_plot.setTitle(self.tr("kernel K(d / h)"))
        self.data_box.setTitle(self.tr("Data"))
        set_row_labels(self._data_form, [
            (self.n_train_spin, self.tr("training points")), (self.n_test_spin, self.tr("test points")),
            (self.noise_spin, self.tr("noise σ")), (self.seed_spin, self.tr("seed"))])
        self.kernel_box.setTitle(self.tr("Kernel"))
        set_row_labels(self._kernel_form, [(self.kernel_combo, self.tr("kernel"))])
        self._bandwidth_label.setText(self.tr("bandwidth h (log scale):"))
        self.param_box.setTitle(self.tr("Parametric (learnable w)"))
        set_row_labels(self._param_form, [
            (self.lr_spin, self.tr("learning rate")), (self.epochs_spin, self.tr("epochs")),
            (self.shown_combo, self.tr("heatmap shows"))])

    def values(self) -> dict[str, Any]:
        """Every control's value, keyed as in `DEFAULTS` (without `query`, which the panel owns)."""
        return dict(n_train=self.n_train_spin.value(), n_test=self.n_test_spin.value(),
                    noise=self.noise_spin.value(), seed=self.seed_spin.value(),
                    kernel=self.kernel_combo.currentData(), bandwidth=self.bandwidth_slider.value(),
                    lr=self.lr_spin.value(), epochs=self.epochs_spin.value(), shown=self.shown_combo.currentData())

    def set_values(self, read: Callable[[str, type], Any]) -> None:
        """Set every control from `read(name, type)` without emitting; unknown combo keys are skipped."""
        spins = dict(n_train=(self.n_train_spin, int), n_test=(self.n_test_spin, int), noise=(self.noise_spin, float),
                     seed=(self.seed_spin, int), lr=(self.lr_spin, float), epochs=(self.epochs_spin, int))
        for name, (spin, kind) in spins.items():
            with QSignalBlocker(spin):
                spin.setValue(read(name, kind))
        for combo, name in ((self.kernel_combo, "kernel"), (self.shown_combo, "shown")):
            index = combo.findData(str(read(name, str)))
            if index >= 0:
                with QSignalBlocker(combo):
                    combo.setCurrentIndex(index)
        self.bandwidth_slider.set_value(read("bandwidth", float))

    def apply_pens(self, dark: bool) -> None:
        c = COLOURS[dark]
        self.kernel_item.setPen(pg.mkPen(c["fit"], width=2))
        self.kernel_item.setBrush(pg.mkBrush(c["fit"] + "40"))


class KernelRegressionPlots(QWidget):
    """Fit plot (truth, draggable training points, fits, query line), heatmap, stem plot and loss plot."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._titles: dict[int, str] = {}
        self._query_x: float | None = None  # the test point whose weights the stems show
        self.fit_plot = pg.PlotWidget(title="f")
        self.fit_plot.addLegend(offset=(-5, 5), labelTextSize="8pt")
        self.fit_plot.setLabel("bottom", "x")
        self.fit_plot.setLabel("left", "y")
        self.truth_item = self.fit_plot.plot(name="truth")
        self.fit_item = self.fit_plot.plot(name="nonparametric")
        self.param_item = self.fit_plot.plot(name="parametric")
        self.points_item = DraggablePoints(size=7, symbol="o", name="points")
        self.fit_plot.addItem(self.points_item)
        self.query_line = pg.InfiniteLine(angle=90, movable=True)
        self.fit_plot.addItem(self.query_line)
        for z, item in enumerate((self.points_item, self.truth_item, self.param_item, self.fit_item)):
            item.setZValue(z)  # curves above the (possibly many) points
        self.heatmap = HeatmapWidget(title="α")
        self.heatmap.plot.max_ticks = 8
        self.stem_plot = pg.PlotWidget(title="α")
        self.stem_plot.setXRange(*kr.X_RANGE, padding=0.02)
        self.stem_plot.enableAutoRange(x=False, y=True)
        self.stem_item = self.stem_plot.plot(connect="pairs")
        self.stem_tops = self.stem_plot.plot(pen=None, symbol="o", symbolSize=5)
        self.loss_plot = pg.PlotWidget(title="Σ")
        self.loss_item = self.loss_plot.plot(symbol="o", symbolSize=6)
        fit_titles(self.fit_plot, self.stem_plot, self.loss_plot)

        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.fit_plot, 0, 0)
        grid.addWidget(self.heatmap, 0, 1)
        grid.addWidget(self.stem_plot, 1, 0)
        grid.addWidget(self.loss_plot, 1, 1)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(1, 2)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the plots' texts in the language in force (the panel calls it when the language changes, then
        re-words the loss plot's title once w has been trained)."""
        self.fit_plot.setTitle(self.tr("Nadaraya–Watson fit"))
        set_legend_names(self.fit_plot.getPlotItem(), [
            (self.truth_item, self.tr("truth 2 sin x + x^0.8")), (self.fit_item, self.tr("nonparametric fit")),
            (self.param_item, self.tr("parametric fit")), (self.points_item, self.tr("training points (drag me)"))])
        self.set_title(self.heatmap, self.tr("attention weights"))
        self.heatmap.set_axis_labels(self.tr("test x"), self.tr("train x"))
        self._show_stem_title()
        self.stem_plot.setLabel("bottom", self.tr("training x"))
        self.stem_plot.setLabel("left", self.tr("weight"))
        self.set_title(self.loss_plot, self.tr("loss per epoch"))
        self.loss_plot.setLabel("bottom", self.tr("epoch"))
        self.loss_plot.setLabel("left", self.tr("Σ squared error"))

    def _show_stem_title(self) -> None:
        if self._query_x is None:
            self.set_title(self.stem_plot, self.tr("weights of one test point"))
        else:
            self.set_title(self.stem_plot, self.tr("weights of test point x = {x:.2f}").format(x=self._query_x))

    def show_points(self, x_train: np.ndarray, y_train: np.ndarray, y_truth: np.ndarray) -> None:
        """The draggable training points, and a y range that holds every fit."""
        big = x_train.size > 200  # many points: smaller dots, so the curves stay visible
        self.points_item.setData(x_train, y_train, size=4 if big else 7)
        # Every fit is a convex combination of the y's, so this range holds for any h: no
        # auto-ranging on each bandwidth step (it costs milliseconds at 1,000 points).
        lo = min(float(y_train.min()), float(y_truth.min()))
        hi = max(float(y_train.max()), float(y_truth.max()))
        span = max(hi - lo, 1e-6)  # headroom on top keeps the legend off the data
        self.fit_plot.setRange(xRange=kr.X_RANGE, yRange=(lo - 0.05 * span, hi + 0.45 * span), padding=0.02)

    def show_query(self, x_train: np.ndarray, weights: np.ndarray, x_query: float, heatmap_row: int) -> None:
        """One test point's weights (N,) as stems, its line on the fit plot and its row in the heatmap."""
        xs, ys = stem_xy(x_train, weights)
        self.stem_item.setData(xs, ys)
        if x_train.size <= STEM_SYMBOLS_MAX:
            self.stem_tops.setData(x_train, weights)
        else:
            self.stem_tops.setData([], [])
        self._query_x = x_query
        self._show_stem_title()
        self.heatmap.highlight_row(heatmap_row)
        with QSignalBlocker(self.query_line):
            self.query_line.setValue(x_query)

    def set_title(self, widget: QWidget, title: str) -> None:
        """Set a plot title only when it changes (re-laying out rich text costs ~0.3 ms per call)."""
        if self._titles.get(id(widget)) != title:
            self._titles[id(widget)] = title
            if widget is self.heatmap:
                self.heatmap.set_title(title)
            else:
                widget.setTitle(title)

    def apply_pens(self, dark: bool) -> None:
        c = COLOURS[dark]
        self.truth_item.setPen(pg.mkPen(c["truth"], width=2, style=Qt.PenStyle.DashLine))
        self.fit_item.setPen(pg.mkPen(c["fit"], width=2.5))
        self.param_item.setPen(pg.mkPen(c["param"], width=2, style=Qt.PenStyle.DashDotLine))
        self.points_item.setBrush(pg.mkBrush(c["points"] + "c0"))
        self.points_item.setPen(pg.mkPen(None))
        self.fit_plot.getPlotItem().legend.setBrush(pg.mkBrush(c["legend"]))  # opaque: alpha costs ~1 ms a paint
        self.query_line.setPen(pg.mkPen(c["query"], width=1.5))
        self.query_line.setHoverPen(pg.mkPen(c["query"], width=3))
        self.stem_item.setPen(pg.mkPen(c["points"], width=1.5))
        self.stem_tops.setSymbolBrush(pg.mkBrush(c["points"]))
        self.stem_tops.setSymbolPen(None)
        self.loss_item.setPen(pg.mkPen(c["param"], width=2))
        self.loss_item.setSymbolBrush(pg.mkBrush(c["param"]))
        self.heatmap.apply_theme(dark)
