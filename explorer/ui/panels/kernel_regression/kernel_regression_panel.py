"""The kernel regression panel (book §11.2): Nadaraya–Watson fits, their attention weights and the
parametric model with a learnable w, all interactive (bandwidth drag, draggable training points).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker, Qt, Slot
from PySide6.QtWidgets import QHBoxLayout, QWidget

from explorer.core.chapter import kernel_regression as kr
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.panels.kernel_regression.export_tables import KernelRegressionNumbers, export_targets
from explorer.ui.panels.kernel_regression.kernel_regression_widgets import (DEFAULTS, KernelRegressionControls,
                                                                             KernelRegressionPlots)
from explorer.ui.panels.kernel_regression.panel_texts import EXPLANATION_HTML, kernel_formula
from explorer.ui.panels.kernel_regression.parametric_training import ParametricTrainer
from explorer.ui.panels.kernel_regression.plot_items import block_reduce, kernel_curve
from explorer.ui.widgets.side_column_widget import SideColumn
from explorer.ui.worker import LatestOnlyRunner

if TYPE_CHECKING:
    import pyqtgraph as pg
    from PySide6.QtCore import QSettings

HEATMAP_MAX = 250  # bigger weight matrices are shown as block averages (drawing 1M cells costs ~15 ms)
SYNC_CELLS = 2_000_000  # fits up to this many weights (~3 ms) run on the GUI thread; larger ones off it


class KernelRegressionPanel(BasePanel):
    """Nadaraya–Watson regression on the book's toy data, with its (test × train) weights."""

    key = "kernel_regression"
    title = QT_TRANSLATE_NOOP("Panels", "Kernel regression")
    formula_html = kernel_formula("gaussian")
    explanation_html = EXPLANATION_HTML

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = False
        self.x_train = self.y_train = self.x_test = self.y_truth = np.zeros(0, np.float32)
        self.pred = np.zeros(0, np.float32)
        self.weights = np.zeros((0, 0), np.float32)
        self.param_pred: np.ndarray | None = None
        self.param_weights: np.ndarray | None = None
        self.learned_w: float | None = None
        self.losses: list[float] = []
        self.w_history: list[float] = []
        self.query_index = DEFAULTS["query"]
        self._points_moved = False  # a training point was dragged since the data was made
        self._buffer = np.zeros((0, 0), np.float32)
        self._block_rows = self._block_cols = 1
        self._reduce_buffers: dict = {}
        self.trainer = ParametricTrainer(self)
        self._runner = LatestOnlyRunner(self)
        self._runner.result_ready.connect(self._on_runner_result_ready)
        self._runner.failed.connect(self._on_runner_failed)
        self.controls = KernelRegressionControls(self)
        self.plots = KernelRegressionPlots(self)
        # the widgets tests and slots use, by their names
        for name in ("n_train_spin", "n_test_spin", "noise_spin", "seed_spin", "kernel_combo", "bandwidth_slider",
                     "lr_spin", "epochs_spin", "train_button", "shown_combo", "w_label", "kernel_item"):
            setattr(self, name, getattr(self.controls, name))
        for name in ("fit_plot", "truth_item", "fit_item", "param_item", "points_item", "query_line", "heatmap",
                     "stem_plot", "stem_item", "stem_tops", "loss_plot", "loss_item"):
            setattr(self, name, getattr(self.plots, name))
        self.side = SideColumn(self)  # a short window scrolls the controls instead of squeezing them
        self.side.add_widget(self.controls)
        row = QHBoxLayout()
        row.addWidget(self.side)
        row.addWidget(self.plots, 1)
        self.body_layout.addLayout(row)
        self._connect()
        self.apply_theme(False)
        self._regenerate()

    def retranslate(self) -> None:
        super().retranslate()
        self.controls.retranslate()  # (at build, the column and the plots word themselves)
        self.plots.retranslate()
        if self.trainer.is_running():
            self.train_button.setText(self.tr("Training…"))
        if self.losses:
            self._draw_training()  # the loss plot's title and the learned w
        if self.weights.size:
            self._show_heatmap_note()

    def _connect(self) -> None:
        self.n_train_spin.valueChanged.connect(self._on_data_control_changed)
        self.n_test_spin.valueChanged.connect(self._on_data_control_changed)
        self.noise_spin.valueChanged.connect(self._on_data_control_changed)
        self.seed_spin.valueChanged.connect(self._on_data_control_changed)
        self.kernel_combo.currentTextChanged.connect(self._on_kernel_combo_changed)
        self.bandwidth_slider.value_changed.connect(self._on_bandwidth_slider_value_changed)
        self.train_button.clicked.connect(self._on_train_button_clicked)
        self.shown_combo.currentTextChanged.connect(self._on_shown_combo_changed)
        self.points_item.point_dragged.connect(self._on_points_item_point_dragged)
        self.points_item.drag_finished.connect(self._on_points_item_drag_finished)
        self.query_line.sigPositionChanged.connect(self._on_query_line_position_changed)
        self.fit_plot.scene().sigMouseClicked.connect(self._on_fit_scene_mouse_clicked)
        self.heatmap.cell_clicked.connect(self._on_heatmap_cell_clicked)
        self.trainer.epoch_finished.connect(self._on_trainer_epoch_finished)
        self.trainer.failed.connect(self._on_trainer_failed)
        self.trainer.finished.connect(self._on_trainer_finished)

    # ------------------------------------------------------------------ public API
    @property
    def kernel_name(self) -> str:
        return self.kernel_combo.currentData()

    def formula_text(self) -> str:
        return kernel_formula(self.kernel_name if hasattr(self, "controls") else "gaussian")

    @property
    def bandwidth(self) -> float:
        return self.bandwidth_slider.value()

    def set_bandwidth(self, h: float) -> None:
        """Move the slider to (the step nearest) h, as a user would, and refit."""
        self.bandwidth_slider.slider.setValue(self.bandwidth_slider.step_for(h))

    def select_query(self, index: int) -> None:
        """Show the weights of test point `index` (clamped) in the stem plot and highlight its row."""
        if self.x_test.size == 0:
            return
        self.query_index = int(min(max(index, 0), self.x_test.size - 1))
        with QSignalBlocker(self.query_line):
            self.query_line.setValue(float(self.x_test[self.query_index]))
        self._draw_query()

    def shown_weights(self) -> np.ndarray:
        """The (test × train) weights the heatmap shows: nonparametric or the trained parametric ones."""
        if self.shown_combo.currentData() == "parametric" and self.param_weights is not None:
            return self.param_weights
        return self.weights

    def is_training(self) -> bool:
        return self.trainer.is_running()

    # ------------------------------------------------------------------ computing
    def _regenerate(self) -> None:
        try:
            data = kr.make_data(self.n_train_spin.value(), self.noise_spin.value(), self.seed_spin.value(),
                                n_test=self.n_test_spin.value())
        except kr.KernelRegressionError as exc:
            self.show_inline_message(str(exc))
            return
        self.x_train, self.y_train = data.x_train.copy(), data.y_train.copy()
        self.x_test, self.y_truth = data.x_test, data.y_truth
        self._points_moved = False
        self.truth_item.setData(self.x_test, self.y_truth)
        self._draw_points()
        self._refit()

    def _refit(self) -> None:
        """Fit with the current data, kernel and h; small problems on this thread, big ones off it."""
        self._draw_kernel()
        args = (self.x_train.copy(), self.y_train.copy(), self.x_test, self.kernel_name, self.bandwidth,
                self.learned_w)
        if self.x_test.size * self.x_train.size <= SYNC_CELLS:
            self._runner.cancel()
            shape = (self.x_test.size, self.x_train.size)
            if self._buffer.shape != shape:
                self._buffer = np.empty(shape, np.float32)
            self._show_fit(self._fit(*args, out=self._buffer))
        else:
            self._runner.submit(self._fit, *args)

    @staticmethod
    def _fit(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, kernel_name: str, h: float,
             w: float | None, out: np.ndarray | None = None) -> tuple:
        """Both fits for one setting (runs on either thread; touches no widget)."""
        pred, weights = kr.nadaraya_watson(x_train, y_train, x_test, kernel_name, h, out=out)
        param = None
        if w is not None:
            param = kr.nadaraya_watson(x_train, y_train, x_test, "gaussian", kr.bandwidth_from_w(w))
        return pred, weights, param

    def _show_fit(self, result: tuple) -> None:
        pred, weights, param = result
        if weights.shape != (self.x_test.size, self.x_train.size):
            return  # computed for data that has changed since
        self.clear_inline_message()
        self.pred, self.weights = pred, weights
        self.param_pred, self.param_weights = param if param is not None else (None, None)
        self.fit_item.setData(self.x_test, pred)
        if self.param_pred is not None:
            self.param_item.setData(self.x_test, self.param_pred)
        else:
            self.param_item.setData([], [])
        self._draw_heatmap()
        self._draw_query()

    # ------------------------------------------------------------------ drawing
    def _draw_heatmap(self) -> None:
        shown, self._block_rows, self._block_cols = block_reduce(self.shown_weights(), HEATMAP_MAX, HEATMAP_MAX,
                                                                 self._reduce_buffers)
        rows = [f"{v:.2f}" for v in self.x_test[:: self._block_rows].tolist()]
        cols = [f"{v:.2f}" for v in self.x_train[:: self._block_cols].tolist()]
        # colours span 0..max so that wide kernels over many points (all weights small) stay visible
        self.heatmap.set_matrix(shown, rows, cols, levels=(0.0, max(float(shown.max()), 1e-12)))
        self._show_heatmap_note()

    def _show_heatmap_note(self) -> None:
        """What one heatmap cell stands for when the weights are shown as block averages."""
        rows, cols = self._block_rows, self._block_cols
        if rows > 1 and cols > 1:
            note = self.tr("each cell: mean of {rows} test points, sum of {cols} training points")
        elif rows > 1:
            note = self.tr("each cell: mean of {rows} test points")
        else:
            note = self.tr("each cell: sum of {cols} training points") if cols > 1 else ""
        self.heatmap.set_note(note.format(rows=rows, cols=cols))

    def _draw_points(self) -> None:
        self.plots.show_points(self.x_train, self.y_train, self.y_truth)

    def _draw_kernel(self) -> None:
        """The kernel's shape in the inset and its formula above the panel."""
        self.kernel_item.setData(*kernel_curve(self.kernel_name, self.bandwidth))
        formula = kernel_formula(self.kernel_name)
        if self.formula_label.text() != formula:
            self.formula_label.setText(formula)

    def _draw_query(self) -> None:
        weights = self.shown_weights()
        if weights.shape[0] == 0:
            return
        row = min(self.query_index, weights.shape[0] - 1)
        self.plots.show_query(self.x_train, weights[row], float(self.x_test[row]), row // self._block_rows)

    def _draw_training(self) -> None:
        epochs = np.arange(1, len(self.losses) + 1)
        self.loss_item.setData(epochs, np.asarray(self.losses))
        self.plots.set_title(self.loss_plot, self.tr("loss per epoch (parametric)"))
        if self.learned_w is not None:
            self.w_label.setText(self.tr("learned w = {w:.4g} (h = 1/|w| = {h:.3g})").format(
                w=self.learned_w, h=kr.bandwidth_from_w(self.learned_w)))

    # ------------------------------------------------------------------ slots
    @Slot()
    def _on_data_control_changed(self) -> None:
        self._regenerate()

    @Slot(str)
    def _on_kernel_combo_changed(self, _name: str) -> None:
        self._refit()

    @Slot(float)
    def _on_bandwidth_slider_value_changed(self, _h: float) -> None:
        self._refit()

    @Slot(str)
    def _on_shown_combo_changed(self, _text: str) -> None:
        if self.weights.size:
            self._draw_heatmap()
            self._draw_query()

    @Slot(object)
    def _on_runner_result_ready(self, result: object) -> None:
        self._show_fit(result)  # type: ignore[arg-type]

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self.show_inline_message(message)

    @Slot(int, float, float)
    def _on_points_item_point_dragged(self, index: int, x: float, y: float) -> None:
        lo, hi = kr.X_RANGE
        self.x_train[index] = min(max(x, lo), hi)
        self.y_train[index] = y
        self._points_moved = True  # the data no longer is the seed's: a restore (a lesson) makes it again
        self._draw_points()
        self._refit()

    @Slot()
    def _on_points_item_drag_finished(self) -> None:
        order = np.argsort(self.x_train, kind="stable")  # keep heatmap columns in x order
        self.x_train, self.y_train = self.x_train[order], self.y_train[order]
        self._draw_points()
        self._refit()

    @Slot(object)
    def _on_query_line_position_changed(self, line: pg.InfiniteLine) -> None:
        self.select_query(int(np.abs(self.x_test - line.value()).argmin()))

    @Slot(object)
    def _on_fit_scene_mouse_clicked(self, ev) -> None:
        if ev.isAccepted() or ev.button() != Qt.MouseButton.LeftButton or self.x_test.size == 0:
            return
        vb = self.fit_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        x = vb.mapSceneToView(ev.scenePos()).x()
        self.select_query(int(np.abs(self.x_test - x).argmin()))

    @Slot(int, int)
    def _on_heatmap_cell_clicked(self, row: int, _col: int) -> None:
        start = row * self._block_rows  # a block row: pick the test point in its middle
        self.select_query(min(start + (self._block_rows - 1) // 2, self.x_test.size - 1))

    # ------------------------------------------------------------------ parametric training
    @Slot()
    def _on_train_button_clicked(self) -> None:
        if self.trainer.is_running():
            return
        if self.x_train.size < 2:
            self.show_inline_message(
                lambda: self.tr("The parametric model needs at least two training points (leave-one-out)."))
            return
        data = kr.RegressionData(self.x_train.copy(), self.y_train.copy(), self.x_test.copy(), self.y_truth.copy())
        self.losses, self.w_history = [], []
        self.clear_inline_message()
        self.train_button.setEnabled(False)
        self.train_button.setText(self.tr("Training…"))
        self.trainer.start(data, self.lr_spin.value(), self.epochs_spin.value(), self.seed_spin.value())

    @Slot(object)
    def _on_trainer_epoch_finished(self, epoch: kr.ParametricEpoch) -> None:
        self.losses.append(epoch.loss)
        self.w_history.append(epoch.w)
        self.learned_w = epoch.w
        self._draw_training()
        if epoch.pred.shape == self.x_test.shape:  # live curve; the data may have been edited meanwhile
            self.param_item.setData(self.x_test, epoch.pred)

    @Slot(str)
    def _on_trainer_failed(self, message: str) -> None:
        self.show_inline_message(lambda: self.tr("Training w failed: {message}").format(message=message))

    @Slot()
    def _on_trainer_finished(self) -> None:
        self.train_button.setEnabled(True)
        self.train_button.setText(self.tr("Train w"))
        if self.learned_w is not None and self.losses:
            if self.isVisible():  # the status bar belongs to the panel on screen
                self.status_message.emit(self.tr("Parametric kernel regression: loss {loss:.4g}, w = {w:.4g}")
                                         .format(loss=self.losses[-1], w=self.learned_w))
            with QSignalBlocker(self.shown_combo):
                self.shown_combo.setCurrentIndex(self.shown_combo.findData("parametric"))
            self._refit()

    # ------------------------------------------------------------------ shell hooks
    def busy_reason(self) -> str | None:
        return self.tr("The parametric model is still training.") if self.trainer.is_running() else None

    def shutdown(self, timeout_ms: int) -> None:
        self.trainer.shutdown(timeout_ms)
        self._runner.shutdown(timeout_ms)

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.controls.apply_pens(dark)
        self.plots.apply_pens(dark)

    def export_targets(self) -> list[ExportTarget]:
        return export_targets(self.plots, self.numbers)

    def numbers(self) -> KernelRegressionNumbers:
        """The numbers shown now, for the exported tables."""
        return KernelRegressionNumbers(self.x_train, self.y_train, self.x_test, self.y_truth, self.pred,
                                       self.param_pred, self.shown_weights(), self.query_index, self.losses,
                                       self.w_history)

    def save_settings(self, settings: QSettings) -> None:
        for name, value in {**self.controls.values(), "query": self.query_index}.items():
            settings.setValue(self.settings_key(name), value)

    def restore_settings(self, settings: QSettings) -> None:
        def read(name: str, kind: type):
            try:
                return kind(settings.value(self.settings_key(name), DEFAULTS[name]))
            except (TypeError, ValueError):
                return DEFAULTS[name]

        before = (self.controls.values(), self.query_index)
        self.controls.set_values(read)
        self.query_index = read("query", int)
        if (self.controls.values(), self.query_index) != before or self._points_moved:
            self._regenerate()  # else the data and fit made with the panel stand
