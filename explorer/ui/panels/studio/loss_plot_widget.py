"""The studio's live loss plot (book §11.7 training): per-step and per-epoch curves, other runs overlaid.

A view of the state's :class:`~explorer.core.runs.loss_record.LossRecord`: the curves are fed with ``setData``
when the state says the record changed (at most ~5 Hz while training), never per event.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSettings, Signal, Slot
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QGraphicsItem, QHBoxLayout, QLabel,
                               QVBoxLayout, QWidget)

from explorer.core.runs.loss_record import PREVIOUS, LossRecord, ema
from explorer.ui.widgets.form_controls import set_item_texts
from explorer.ui.widgets.plot_texts import set_legend_names
from explorer.ui.widgets.steady_range_view_box import SteadyRangeViewBox
from explorer.ui.pyqtgraph_compat import view_closed

X_MODES = ("steps", "epochs", "seconds")
#: Each x mode as the combo shows it, and the x axis's label for it.
X_MODE_NAMES = {"steps": QT_TRANSLATE_NOOP("LossView", "steps"), "epochs": QT_TRANSLATE_NOOP("LossView", "epochs"),
                "seconds": QT_TRANSLATE_NOOP("LossView", "seconds")}
X_LABELS = {"steps": QT_TRANSLATE_NOOP("LossPlotWidget", "step"),
            "epochs": QT_TRANSLATE_NOOP("LossPlotWidget", "epoch"),
            "seconds": QT_TRANSLATE_NOOP("LossPlotWidget", "seconds")}
_X_COLUMN = {"steps": 0, "epochs": 1, "seconds": 2}
CHANGE_COLOR = (230, 120, 0)  # the markers of settings changed while training
#: How each setting changed while training is named on its marker, e.g. "lr 0.002".
CHANGE_NAMES = {"lr": QT_TRANSLATE_NOOP("LossPlotWidget", "lr {value}"),
                "grad_clip": QT_TRANSLATE_NOOP("LossPlotWidget", "clip {value}"),
                "dropout": QT_TRANSLATE_NOOP("LossPlotWidget", "dropout {value}")}
OVERLAY_COLORS = ((150, 150, 150), (148, 103, 189), (140, 86, 75), (227, 119, 194), (188, 189, 34), (23, 190, 207))


class LossPlotWidget(pg.PlotWidget):
    """Per-step loss (faint), per-epoch loss (bold), optional smoothing, log-y, x in steps/epochs/seconds.

    Signals
    -------
    step_clicked(float): the training step of the point clicked on the curve.
    """

    step_clicked = Signal(float)

    def __init__(self, record: LossRecord | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent, viewBox=SteadyRangeViewBox())  # see set_growing
        self.record = record if record is not None else LossRecord()
        self.x_mode = "steps"
        self.smoothing = 0.0  # EMA weight of the past, 0 = off
        self._smoothed = np.empty(0)
        self._smoothed_key: tuple[int, float] = (-1, -1.0)
        item = self.getPlotItem()
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        self.legend = item.addLegend(offset=(-10, 10))
        self.overlay_curves: dict[str, pg.PlotDataItem] = {}  # one dashed curve per overlaid run
        self._legend_key: tuple = ()
        self.step_curve = item.plot([], [], name="step", pen=pg.mkPen((31, 119, 180, 90), width=1))
        self.smooth_curve = item.plot([], [], pen=pg.mkPen((31, 119, 180), width=1.5))
        self.epoch_curve = item.plot([], [], name="epoch", pen=pg.mkPen((214, 39, 40), width=2.5))
        self.smooth_curve.setVisible(False)
        self.marker = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen((44, 160, 44), width=1.5))
        self.marker.setVisible(False)
        item.addItem(self.marker, ignoreBounds=True)
        self._marker_step: float | None = None
        self.change_markers: list[pg.InfiniteLine] = []  # one per settings change of the run, created once
        self._x_axis_label = ""  # the x axis's label as last set
        self.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        self._apply_x_label()
        self.apply_theme(False)
        for name in ("left", "bottom"):  # axis text is slow to draw: repaint it only when the ticks change
            item.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the axes' labels and the legend in the language in force (at build and on ``LanguageChange``)."""
        self.getPlotItem().setLabel("left", self.tr("loss (per token)"))
        self._apply_x_label()
        set_legend_names(self.getPlotItem(), [(self.step_curve, self.tr("per step")),
                                              (self.epoch_curve, self.tr("per epoch")),
                                              (self.smooth_curve, self._smooth_name()),
                                              *[(curve, self._overlay_name(name))
                                                for name, curve in self.overlay_curves.items()]])

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange and not view_closed(self):
            self.retranslate()
        super().changeEvent(event)

    def _overlay_name(self, name: str) -> str:
        """An overlaid run's legend entry: its folder name, or "previous run" in the language in force."""
        return self.tr("previous run") if name == PREVIOUS else name

    def _smooth_name(self) -> str:
        return self.tr("smoothed (EMA {weight:.2f})").format(weight=self.smoothing)

    def apply_theme(self, dark: bool) -> None:
        """Background and axis colours for a light or dark window."""
        fg = "#dddddd" if dark else "#222222"
        self.setBackground("k" if dark else "w")
        self.step_curve.setPen(pg.mkPen((120, 180, 255, 110) if dark else (31, 119, 180, 90), width=1))
        for name in ("left", "bottom"):
            axis = self.getPlotItem().getAxis(name)
            axis.setPen(pg.mkPen(fg))
            axis.setTextPen(pg.mkPen(fg))

    def step_count(self) -> int:
        """Steps recorded in the current run."""
        return self.record.steps.size

    def step_table(self) -> tuple[list[str], np.ndarray]:
        """Header and rows ``(step, epoch, seconds, loss)`` of the current run (for CSV export)."""
        return self.record.step_table()

    # ---- view options ----------------------------------------------------------------------
    def set_x_mode(self, mode: str) -> None:
        """x axis in ``steps``, ``epochs`` or ``seconds`` (a run read from a file has no seconds: steps)."""
        if mode not in X_MODES:
            raise ValueError(f"x mode must be one of {X_MODES}, got {mode!r}")
        self.x_mode = mode
        self.refresh()
        self.getPlotItem().enableAutoRange()

    def set_growing(self, growing: bool) -> None:
        """While a run trains (``growing``) the range moves in steps, so the axes are not laid out again at every
        redraw; a finished run's curves fill the plot."""
        self.getPlotItem().getViewBox().set_steady(growing)

    def set_log_y(self, on: bool) -> None:
        """Logarithmic loss axis."""
        self.getPlotItem().setLogMode(x=False, y=bool(on))

    def set_smoothing(self, weight: float) -> None:
        """EMA weight of the past in [0, 1) for a smoothed per-step curve (0 = off)."""
        self.smoothing = float(min(max(weight, 0.0), 0.999))
        self.refresh()

    @Slot(object)
    def show_snapshot_marker(self, snap: object) -> None:
        """Vertical line at the step of the snapshot on display (None hides it)."""
        self.set_marker(getattr(snap, "step", None))

    def set_marker(self, step: float | None) -> None:
        """Vertical line at a training step (the snapshot on display), or None to hide it."""
        self._marker_step = step
        x = None if step is None else self._x_of_step(step)
        self.marker.setVisible(x is not None)
        if x is not None:
            self.marker.setValue(x)

    # ---- drawing -----------------------------------------------------------------------------
    def effective_x_mode(self) -> str:
        """The x units drawn: seconds fall back to steps for a run without timings."""
        return "steps" if self.x_mode == "seconds" and not self.record.timed else self.x_mode

    @Slot()
    def refresh(self) -> None:
        """Feed the curves from the record (called when the state says it changed)."""
        col = _X_COLUMN[self.effective_x_mode()]
        self._apply_x_label(only_if_changed=True)
        s = self.record.steps.view()
        self.step_curve.setData(s[:, col], s[:, 3])
        self.smooth_curve.setVisible(self.smoothing > 0)
        if self.smoothing > 0:
            self.smooth_curve.setData(s[:, col], self._smoothed_losses(s[:, 3]))
        e = self.record.epochs.view()
        self.epoch_curve.setData(e[:, col], e[:, 3])
        self._sync_overlays(col)
        self._sync_change_markers()
        self._update_legend()
        self.set_marker(self._marker_step)
        if self.isVisible():
            # Fit the range and the view's transform now, as the next paint would: done inside that paint, they moved
            # the axes and the clipped curves, which asked for a second paint of the whole plot after every refresh.
            self.getPlotItem().getViewBox().prepareForPaint()

    @property
    def previous_curve(self) -> pg.PlotDataItem:
        """The "previous run" overlay's curve (empty when there is none)."""
        curve = self.overlay_curves.get(PREVIOUS)
        return curve if curve is not None else pg.PlotDataItem([], [])

    def _sync_overlays(self, col: int) -> None:
        """One dashed curve per overlay of the record, created and removed only when the set of runs changes."""
        item = self.getPlotItem()
        for name in [n for n in self.overlay_curves if n not in self.record.overlays]:
            item.removeItem(self.overlay_curves.pop(name))
        for i, (name, rows) in enumerate(self.record.overlays.items()):
            curve = self.overlay_curves.get(name)
            if curve is None:
                color = OVERLAY_COLORS[i % len(OVERLAY_COLORS)]
                curve = item.plot([], [], pen=pg.mkPen(color, width=1.5, style=pg.QtCore.Qt.PenStyle.DashLine))
                curve.setZValue(-1)  # under the current run
                self.overlay_curves[name] = curve
            curve.setData(rows[:, col], rows[:, 3])

    def change_label(self, change: object) -> str:
        """A settings change's marker text, e.g. ``lr 0.002, dropout 0.2``."""
        names = [name for name in CHANGE_NAMES if name in getattr(change, "changed", ())]
        return ", ".join(self.tr(CHANGE_NAMES[name]).format(value=f"{getattr(change, name):.3g}") for name in names)

    def _sync_change_markers(self) -> None:
        """A labelled vertical line where each settings change took effect (between the last step before it and
        the first after), created when the change arrives and removed when a resume drops it."""
        item, changes = self.getPlotItem(), self.record.changes
        while len(self.change_markers) > len(changes):
            item.removeItem(self.change_markers.pop())
        for i, change in enumerate(changes):
            if i == len(self.change_markers):
                line = pg.InfiniteLine(angle=90, movable=False, label="", labelOpts={
                    "position": 0.92 - 0.1 * (i % 3), "color": CHANGE_COLOR, "anchors": [(0, 0.5), (0, 0.5)]},
                    pen=pg.mkPen(CHANGE_COLOR, width=1.5, style=pg.QtCore.Qt.PenStyle.DashLine))
                item.addItem(line, ignoreBounds=True)
                self.change_markers.append(line)
            line, x = self.change_markers[i], self._x_of_step(change.step - 0.5)
            line.setVisible(x is not None)
            if x is not None:
                line.setValue(x)
            text = self.change_label(change)
            if line.label.format != text:
                line.label.setFormat(text)

    def _smoothed_losses(self, losses: np.ndarray) -> np.ndarray:
        """EMA of the per-step losses, extended over new rows only (recomputed when the run or weight changes)."""
        key = (self.record.generation, self.smoothing)
        done = self._smoothed.size if key == self._smoothed_key and self._smoothed.size <= losses.size else 0
        alpha = 1.0 - self.smoothing
        new = ema(losses[done:], alpha, start=float(self._smoothed[done - 1]) if done else None)
        self._smoothed = np.concatenate([self._smoothed[:done], new])
        self._smoothed_key = key
        return self._smoothed

    def _update_legend(self) -> None:
        """List only the curves on display: each overlaid run, and the smoothed curve when on."""
        key = (tuple(self.overlay_curves), self.smoothing)
        if key == self._legend_key:  # unchanged: no legend relayout at every redraw
            return
        self._legend_key = key
        legend = self.legend
        entries = [(curve, self._overlay_name(name), True) for name, curve in self.overlay_curves.items()]
        entries.append((self.smooth_curve, self._smooth_name(), self.smoothing > 0))
        for curve, name, shown in entries:
            legend.removeItem(curve)
            if shown:
                legend.addItem(curve, name)

    def _apply_x_label(self, only_if_changed: bool = False) -> None:
        """Name the x axis after its units; ``only_if_changed``: leave a label that already says so (a refresh while
        training: setting it lays the axis out again)."""
        mode = self.effective_x_mode()
        label = self.tr(X_LABELS[mode])
        if mode != self.x_mode:
            label = self.tr("{axis} (this model's file holds no timings)").format(axis=label)
        if only_if_changed and label == self._x_axis_label:
            return
        self._x_axis_label = label
        self.getPlotItem().setLabel("bottom", label)

    def _x_of_step(self, step: float) -> float | None:
        s = self.record.steps.view()
        mode = self.effective_x_mode()
        if mode == "steps":
            return float(step)
        if not s.size:
            return None
        i = int(np.clip(np.searchsorted(s[:, 0], step), 0, len(s) - 1))
        return float(s[i, _X_COLUMN[mode]])

    def step_at_x(self, x: float) -> float | None:
        """Training step of the recorded point nearest ``x`` (in the current x units); None if empty."""
        s = self.record.steps.view()
        if not s.size:
            return None
        i = int(np.argmin(np.abs(s[:, _X_COLUMN[self.effective_x_mode()]] - x)))
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

    def __init__(self, record: LossRecord | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = LossPlotWidget(record, self)
        self.x_combo = QComboBox(self)
        for mode in X_MODES:  # the mode is the item's data
            self.x_combo.addItem(mode, mode)
        self.log_box = QCheckBox(self)
        self.smooth_spin = QDoubleSpinBox(self)
        self.smooth_spin.setRange(0.0, 0.99)
        self.smooth_spin.setSingleStep(0.1)
        self.smooth_spin.setDecimals(2)
        self._x_label, self._smoothing_label = QLabel(self), QLabel(self)
        options = QHBoxLayout()
        for widget in (self._x_label, self.x_combo, self.log_box, self._smoothing_label, self.smooth_spin):
            options.addWidget(widget)
        options.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(options)
        layout.addWidget(self.plot, 1)
        self.x_combo.currentIndexChanged.connect(self._on_x_combo_current_index_changed)
        self.log_box.toggled.connect(self._on_log_box_toggled)
        self.smooth_spin.valueChanged.connect(self._on_smooth_spin_value_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the options' texts in the language in force (at build and on ``LanguageChange``)."""
        set_item_texts(self.x_combo, [self.tr(X_MODE_NAMES[mode]) for mode in X_MODES])
        self.log_box.setText(self.tr("log y"))
        self.smooth_spin.setToolTip(self.tr("Exponential smoothing of the per-step loss (0 = off)"))
        self._x_label.setText(self.tr("x axis"))
        self._smoothing_label.setText(self.tr("smoothing"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def save_settings(self, settings: QSettings, key: Callable[[str], str]) -> None:
        settings.setValue(key("x_mode"), self.plot.x_mode)
        settings.setValue(key("log_y"), self.log_box.isChecked())
        settings.setValue(key("smoothing"), self.smooth_spin.value())

    def restore_settings(self, settings: QSettings, key: Callable[[str], str]) -> None:
        mode = str(settings.value(key("x_mode"), "steps"))
        if mode in X_MODES:
            self.x_combo.setCurrentIndex(self.x_combo.findData(mode))
        self.log_box.setChecked(str(settings.value(key("log_y"), "false")).lower() == "true")
        try:
            self.smooth_spin.setValue(float(settings.value(key("smoothing"), 0.0)))
        except (TypeError, ValueError):
            pass

    @Slot(int)
    def _on_x_combo_current_index_changed(self, _index: int) -> None:
        self.plot.set_x_mode(self.x_combo.currentData())

    @Slot(bool)
    def _on_log_box_toggled(self, on: bool) -> None:
        self.plot.set_log_y(on)

    @Slot(float)
    def _on_smooth_spin_value_changed(self, value: float) -> None:
        self.plot.set_smoothing(value)
