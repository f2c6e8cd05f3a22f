"""The studio's live loss plot (book §11.7 training): per-step and per-epoch curves, a previous-run overlay.

Values are appended to preallocated numpy buffers (grown by doubling); the curves are fed with ``setData``
only when the panel's redraw timer calls :meth:`LossPlotWidget.refresh`.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSettings, Signal, Slot
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QGraphicsItem, QHBoxLayout, QLabel,
                               QVBoxLayout, QWidget)


X_MODES = ("steps", "epochs", "seconds")
_STEP_COLUMNS = 5  # step, epoch fraction, seconds, loss, smoothed loss
_EPOCH_COLUMNS = 4  # step, epoch, seconds, loss


class _Buffer:
    """Rows of float64 appended in O(1) amortised time; ``view()`` is the filled part (no copy)."""

    def __init__(self, columns: int, capacity: int = 1024) -> None:
        self._data = np.empty((capacity, columns), dtype=np.float64)
        self.size = 0

    def append(self, *row: float) -> None:
        if self.size == len(self._data):
            grown = np.empty((2 * len(self._data), self._data.shape[1]), dtype=np.float64)
            grown[: self.size] = self._data
            self._data = grown
        self._data[self.size] = row
        self.size += 1

    def view(self) -> np.ndarray:
        return self._data[: self.size]  # (size, columns)

    def copy(self) -> np.ndarray:
        return self.view().copy()

    def clear(self) -> None:
        self.size = 0


def ema(values: np.ndarray, alpha: float) -> np.ndarray:
    """Exponential moving average ``s_t = alpha * x_t + (1 - alpha) * s_{t-1}``, ``s_0 = x_0`` (shape kept)."""
    out = np.array(values, dtype=np.float64, copy=True)
    if alpha < 1.0:
        for t in range(1, out.size):  # once per smoothing change; appends update it in O(1)
            out[t] = alpha * out[t] + (1.0 - alpha) * out[t - 1]
    return out


class LossPlotWidget(pg.PlotWidget):
    """Per-step loss (faint), per-epoch loss (bold), optional smoothing, log-y, x in steps/epochs/seconds.

    Signals
    -------
    step_clicked(float): the training step of the point clicked on the curve.
    """

    step_clicked = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._steps = _Buffer(_STEP_COLUMNS)
        self._epochs = _Buffer(_EPOCH_COLUMNS)
        self._previous: tuple[np.ndarray, np.ndarray] | None = None
        self._dirty = False
        self.x_mode = "steps"
        self.smoothing = 0.0  # EMA weight of the past, 0 = off
        item = self.getPlotItem()
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        item.setLabel("left", "loss (per token)")
        item.addLegend(offset=(-10, 10))
        self.previous_curve = item.plot([], [], name="previous run", pen=pg.mkPen((150, 150, 150), width=1.5,
                                                                             style=pg.QtCore.Qt.PenStyle.DashLine))
        self.step_curve = item.plot([], [], name="per step", pen=pg.mkPen((31, 119, 180, 90), width=1))
        self.smooth_curve = item.plot([], [], pen=pg.mkPen((31, 119, 180), width=1.5))
        self.epoch_curve = item.plot([], [], name="per epoch", pen=pg.mkPen((214, 39, 40), width=2.5))
        self.smooth_curve.setVisible(False)
        self.marker = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen((44, 160, 44), width=1.5))
        self.marker.setVisible(False)
        item.addItem(self.marker, ignoreBounds=True)
        self._marker_step: float | None = None
        self.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        self._apply_x_label()
        self.apply_theme(False)
        for name in ("left", "bottom"):  # axis text is slow to draw: repaint it only when the ticks change
            item.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def apply_theme(self, dark: bool) -> None:
        """Background and axis colours for a light or dark window."""
        fg = "#dddddd" if dark else "#222222"
        self.setBackground("k" if dark else "w")
        self.step_curve.setPen(pg.mkPen((120, 180, 255, 110) if dark else (31, 119, 180, 90), width=1))
        for name in ("left", "bottom"):
            axis = self.getPlotItem().getAxis(name)
            axis.setPen(pg.mkPen(fg))
            axis.setTextPen(pg.mkPen(fg))

    # ---- data (O(1) per call; drawn at refresh) ------------------------------------------------
    def append_step(self, step: int, epoch_fraction: float, seconds: float, loss: float) -> None:
        """Record one training step's loss."""
        n = self._steps.size
        smooth = loss if n == 0 or self.smoothing == 0 else (
            (1.0 - self.smoothing) * loss + self.smoothing * self._steps.view()[n - 1, 4])
        self._steps.append(step, epoch_fraction, seconds, loss, smooth)
        self._dirty = True

    def append_epoch(self, epoch: int, step: int, seconds: float, loss: float) -> None:
        """Record one epoch's loss."""
        self._epochs.append(step, epoch, seconds, loss)
        self._dirty = True

    def step_count(self) -> int:
        """Steps recorded in the current run."""
        return self._steps.size

    def new_run(self) -> None:
        """Keep the current run as the grey overlay and start empty buffers."""
        if self._steps.size:
            self._previous = (self._steps.copy(), self._epochs.copy())
        self._steps.clear()
        self._epochs.clear()
        self.set_marker(None)
        self._dirty = True
        self.refresh()

    def clear_all(self) -> None:
        """Forget the current run and the overlay."""
        self._previous = None
        self._steps.clear()
        self._epochs.clear()
        self.set_marker(None)
        self._dirty = True
        self.refresh()

    def load_history(self, step_rows: list[tuple[int, float, float]],
                     epoch_rows: list[tuple[int, int, float]]) -> int:
        """Show a saved run as the current one: rows ``(step, epoch_fraction, loss)`` and
        ``(epoch, step, loss)`` (no timings: seconds are 0). Returns the number of steps."""
        self.new_run()
        for step, epoch_fraction, loss in step_rows:
            self.append_step(step, epoch_fraction, 0.0, loss)
        for epoch, step, loss in epoch_rows:
            self.append_epoch(epoch, step, 0.0, loss)
        self.refresh()
        return len(step_rows)

    def step_table(self) -> tuple[list[str], np.ndarray]:
        """Header and rows ``(step, epoch, seconds, loss)`` of the current run (for CSV export)."""
        return ["step", "epoch", "seconds", "loss"], self._steps.copy()[:, :4]

    # ---- view options ----------------------------------------------------------------------
    def set_x_mode(self, mode: str) -> None:
        """x axis in ``steps``, ``epochs`` or ``seconds``."""
        if mode not in X_MODES:
            raise ValueError(f"x mode must be one of {X_MODES}, got {mode!r}")
        self.x_mode = mode
        self._apply_x_label()
        self._dirty = True
        self.refresh()
        self.set_marker(self._marker_step)
        self.getPlotItem().enableAutoRange()

    def set_log_y(self, on: bool) -> None:
        """Logarithmic loss axis."""
        self.getPlotItem().setLogMode(x=False, y=bool(on))

    def set_smoothing(self, weight: float) -> None:
        """EMA weight of the past in [0, 1) for a smoothed per-step curve (0 = off)."""
        self.smoothing = float(min(max(weight, 0.0), 0.999))
        self.smooth_curve.setVisible(self.smoothing > 0)
        s = self._steps.view()
        s[:, 4] = ema(s[:, 3], 1.0 - self.smoothing)
        self._dirty = True
        self.refresh()

    def set_marker(self, step: float | None) -> None:
        """Vertical line at a training step (the snapshot on display), or None to hide it."""
        self._marker_step = step
        x = None if step is None else self._x_of_step(step)
        self.marker.setVisible(x is not None)
        if x is not None:
            self.marker.setValue(x)

    # ---- drawing -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Push buffered data to the curves if anything changed since the last call."""
        if not self._dirty:
            return
        self._dirty = False
        col = {"steps": 0, "epochs": 1, "seconds": 2}[self.x_mode]
        s = self._steps.view()
        self.step_curve.setData(s[:, col], s[:, 3])
        if self.smoothing > 0:
            self.smooth_curve.setData(s[:, col], s[:, 4])
        e = self._epochs.view()
        self.epoch_curve.setData(e[:, col], e[:, 3])
        if self._previous is not None:
            p = self._previous[0]
            self.previous_curve.setData(p[:, col], p[:, 3])
        else:
            self.previous_curve.setData([], [])

    def _apply_x_label(self) -> None:
        self.getPlotItem().setLabel("bottom", {"steps": "step", "epochs": "epoch", "seconds": "seconds"}[self.x_mode])

    def _x_of_step(self, step: float) -> float | None:
        s = self._steps.view()
        if self.x_mode == "steps":
            return float(step)
        if not s.size:
            return None
        i = int(np.clip(np.searchsorted(s[:, 0], step), 0, len(s) - 1))
        return float(s[i, 1 if self.x_mode == "epochs" else 2])

    def step_at_x(self, x: float) -> float | None:
        """Training step of the recorded point nearest ``x`` (in the current x units); None if empty."""
        s = self._steps.view()
        if not s.size:
            return None
        col = {"steps": 0, "epochs": 1, "seconds": 2}[self.x_mode]
        i = int(np.argmin(np.abs(s[:, col] - x)))
        return float(s[i, 0])

    @Slot(object)
    def _on_scene_mouse_clicked(self, event) -> None:
        item = self.getPlotItem()
        if not item.sceneBoundingRect().contains(event.scenePos()):
            return
        x = item.vb.mapSceneToView(event.scenePos()).x()
        step = self.step_at_x(x)
        if step is not None:
            self.step_clicked.emit(step)


class LossView(QWidget):
    """The loss plot with its options row: x axis units, log-y, smoothing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = LossPlotWidget(self)
        self.x_combo = QComboBox(self)
        self.x_combo.addItems(X_MODES)
        self.log_box = QCheckBox("log y", self)
        self.smooth_spin = QDoubleSpinBox(self)
        self.smooth_spin.setRange(0.0, 0.99)
        self.smooth_spin.setSingleStep(0.1)
        self.smooth_spin.setDecimals(2)
        self.smooth_spin.setToolTip("Exponential smoothing of the per-step loss (0 = off)")
        options = QHBoxLayout()
        for widget in (QLabel("x axis", self), self.x_combo, self.log_box, QLabel("smoothing", self),
                       self.smooth_spin):
            options.addWidget(widget)
        options.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(options)
        layout.addWidget(self.plot, 1)
        self.x_combo.currentTextChanged.connect(self._on_x_combo_current_text_changed)
        self.log_box.toggled.connect(self._on_log_box_toggled)
        self.smooth_spin.valueChanged.connect(self._on_smooth_spin_value_changed)

    def save_settings(self, settings: QSettings, key: Callable[[str], str]) -> None:
        settings.setValue(key("x_mode"), self.plot.x_mode)
        settings.setValue(key("log_y"), self.log_box.isChecked())
        settings.setValue(key("smoothing"), self.smooth_spin.value())

    def restore_settings(self, settings: QSettings, key: Callable[[str], str]) -> None:
        mode = str(settings.value(key("x_mode"), "steps"))
        if mode in X_MODES:
            self.x_combo.setCurrentText(mode)
        self.log_box.setChecked(str(settings.value(key("log_y"), "false")).lower() == "true")
        try:
            self.smooth_spin.setValue(float(settings.value(key("smoothing"), 0.0)))
        except (TypeError, ValueError):
            pass

    @Slot(str)
    def _on_x_combo_current_text_changed(self, mode: str) -> None:
        self.plot.set_x_mode(mode)

    @Slot(bool)
    def _on_log_box_toggled(self, on: bool) -> None:
        self.plot.set_log_y(on)

    @Slot(float)
    def _on_smooth_spin_value_changed(self, value: float) -> None:
        self.plot.set_smoothing(value)
