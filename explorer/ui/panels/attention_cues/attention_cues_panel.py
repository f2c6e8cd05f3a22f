"""Attention cues panel (book §11.1): keys with values on a plane, a query to drag, the weights as bars and as a
heatmap, a scoring function and a temperature. Numbers come from core.attention_cues: the query's weights are
computed synchronously (well under a millisecond per drag step); the pooled output over the plane (a few ms for
the additive scorer) on a `LatestOnlyRunner`."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, QSignalBlocker, Slot
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QGridLayout, QHBoxLayout, QLabel, QWidget
from superqt.utils import qthrottled

from explorer.core.chapter.attention_cues import (PLANE, SCORERS, CueSet, CuesError, CuesResult, cue_set, cues_demo,
                                          pooling_field)
from explorer.ui.panels.attention_cues.cue_plane_widget import KEY_COLOUR, CuePlane
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.settings import coerce
from explorer.ui.widgets.fitting_title import fit_titles
from explorer.ui.widgets.form_controls import (combo_box, form_group, number_problem, restore_controls,
                                               save_controls, set_item_texts, set_row_labels, spin_box)
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.log_slider_widget import LogSlider
from explorer.ui.widgets.side_column_widget import SideColumn
from explorer.ui.worker import LatestOnlyRunner

HEATMAP_MODES = (QT_TRANSLATE_NOOP("AttentionCuesPanel", "q, then q = kᵢ"),
                 QT_TRANSLATE_NOOP("AttentionCuesPanel", "identity (eye)"))
#: The core's scorers (keys of the combo) by their names on screen.
SCORER_NAMES = {"dot product": QT_TRANSLATE_NOOP("AttentionCuesPanel", "dot product"),
                "scaled dot product": QT_TRANSLATE_NOOP("AttentionCuesPanel", "scaled dot product"),
                "additive": QT_TRANSLATE_NOOP("AttentionCuesPanel", "additive"),
                "gaussian": QT_TRANSLATE_NOOP("AttentionCuesPanel", "gaussian")}
DEFAULT_QUERY = (0.5, -0.5)
TEMPERATURE_RANGE = (0.01, 100.0)  # the softmax temperature slider's ends (log scale)


def _coordinate_box(value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(*PLANE)
    box.setSingleStep(0.1)
    box.setDecimals(2)
    box.setValue(value)
    box.setKeyboardTracking(False)
    return box


class AttentionCuesPanel(BasePanel):
    """A query (volitional cue) against keys (non-volitional cues) paired with values."""

    key = "attention_cues"
    title = QT_TRANSLATE_NOOP("Panels", "Queries, keys and values")
    formula_html = QT_TRANSLATE_NOOP(
        "AttentionCuesPanel",
        "α(<b>q</b>, <b>k</b><sub>i</sub>) = softmax<sub>i</sub>(a(<b>q</b>, <b>k</b><sub>i</sub>) / T), &nbsp;"
        "attention pooling f(<b>q</b>) = Σ<sub>i</sub> α(<b>q</b>, <b>k</b><sub>i</sub>) v<sub>i</sub> "
        "&nbsp;|&nbsp; a = <b>q</b>·<b>k</b> &nbsp;·&nbsp; <b>q</b>·<b>k</b>/√d &nbsp;·&nbsp; "
        "<b>w</b><sub>v</sub><sup>⊤</sup>tanh(<b>W</b><sub>q</sub><b>q</b> + <b>W</b><sub>k</sub><b>k</b>) "
        "&nbsp;·&nbsp; −‖<b>q</b> − <b>k</b>‖²/2")
    explanation_html = QT_TRANSLATE_NOOP(
        "AttentionCuesPanel",
        "Each input is a value v<sub>i</sub> paired with a key <b>k</b><sub>i</sub> (a non-volitional cue); "
        "the query <b>q</b> is the volitional cue. A score a(<b>q</b>, <b>k</b>) says how well they match, a "
        "softmax makes weights that sum to one, and attention pooling averages the values with them. "
        "<b>Drag the query</b> or click the plane: lines and key sizes show the weights, the background the "
        "pooled output f for a query at each place. Near T = 0 the softmax picks the best key alone; a large T "
        "spreads the weight evenly. The book's <code>show_heatmaps(torch.eye(10))</code> (heatmap: identity), "
        "where each query attends only to its own key, is the Gaussian score with queries at the keys "
        "(rows q=k<sub>i</sub>) as T → 0.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cues: CueSet | None = None
        self.result: CuesResult | None = None
        self.scorer_combo = combo_box([(s, s) for s in SCORERS], "gaussian")
        self.temperature_slider = LogSlider(*TEMPERATURE_RANGE, 1.0, prefix="T = ")
        self.temperature_slider.slider.setMinimumWidth(70)
        self.temperature_slider.label.setMinimumWidth(52)
        self.keys_spin = spin_box(1, 12, 6)
        self.seed_spin = spin_box(0, 9999, 0)
        self.x_spin = _coordinate_box(DEFAULT_QUERY[0])
        self.y_spin = _coordinate_box(DEFAULT_QUERY[1])
        self.heatmap_combo = combo_box([(m, m) for m in HEATMAP_MODES], HEATMAP_MODES[0])
        self.field_check = QCheckBox()
        self.field_check.setChecked(True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        query = QWidget()
        query_row = QHBoxLayout(query)
        query_row.setContentsMargins(0, 0, 0, 0)
        query_row.addWidget(self.x_spin)
        query_row.addWidget(self.y_spin)
        self._query_row = query
        self.cues_group = group = form_group("", [
            ("scoring", self.scorer_combo), ("temperature", self.temperature_slider), ("keys", self.keys_spin),
            ("seed", self.seed_spin), ("query q", query), ("heatmap", self.heatmap_combo), ("", self.field_check),
            ("", self.summary)])

        self.plane = CuePlane()
        self.plane.setTitle("q")
        self.bars_plot = pg.PlotWidget(title="α(q, kᵢ)")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush=KEY_COLOUR)
        self.bars_plot.addItem(self.bars)
        self.bars_plot.setYRange(0, 1)
        self.bars_plot.setMouseEnabled(x=False, y=False)
        self.bars_plot.getPlotItem().hideButtons()
        self.bars_plot.setMenuEnabled(False)
        self.heatmap = HeatmapWidget(title="α")
        fit_titles(self.plane, self.bars_plot)
        plots = QWidget()
        grid = QGridLayout(plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.plane, 0, 0, 2, 1)
        grid.addWidget(self.bars_plot, 0, 1)
        grid.addWidget(self.heatmap, 1, 1)
        grid.setColumnStretch(0, 5)
        grid.setColumnStretch(1, 4)
        side = SideColumn(width=230)
        side.add_widget(group)
        row = QHBoxLayout()
        row.addWidget(side)
        row.addWidget(plots, 1)
        self.body_layout.addLayout(row)

        self.controls: dict[str, QWidget] = {
            "scorer": self.scorer_combo, "num_keys": self.keys_spin, "seed": self.seed_spin,
            "query_x": self.x_spin, "query_y": self.y_spin, "heatmap": self.heatmap_combo,
            "field": self.field_check}
        self.field_runner = LatestOnlyRunner(self)
        self.field_runner.result_ready.connect(self._on_field_runner_result_ready)
        self.field_runner.failed.connect(self._on_field_runner_failed)
        self._recompute_throttled = qthrottled(self.recompute, timeout=30, leading=True, parent=self)
        self.scorer_combo.currentIndexChanged.connect(self._on_setting_changed)
        self.heatmap_combo.currentIndexChanged.connect(self._on_setting_changed)
        self.field_check.toggled.connect(self._on_setting_changed)
        self.temperature_slider.value_changed.connect(self._on_temperature_slider_value_changed)
        self.keys_spin.valueChanged.connect(self._on_layout_changed)
        self.seed_spin.valueChanged.connect(self._on_layout_changed)
        self.x_spin.valueChanged.connect(self._on_coordinate_changed)
        self.y_spin.valueChanged.connect(self._on_coordinate_changed)
        self.plane.query_moved.connect(self._on_plane_query_moved)
        self.apply_theme(False)
        self.retranslate()
        self._new_layout()

    def retranslate(self) -> None:
        super().retranslate()
        set_item_texts(self.scorer_combo, [self.tr(SCORER_NAMES.get(s, s)) for s in SCORERS])
        self.scorer_combo.setToolTip(self.tr("the scoring function a(q, k)"))
        self.temperature_slider.setToolTip(self.tr("temperature: the scores are divided by T before the softmax"))
        self.keys_spin.setToolTip(self.tr("number of keys (and values)"))
        self.seed_spin.setToolTip(self.tr("random layout of the keys, their values and the additive weights"))
        self.x_spin.setToolTip(self.tr("the query's first coordinate"))
        self.y_spin.setToolTip(self.tr("the query's second coordinate"))
        set_item_texts(self.heatmap_combo, [self.tr(m) for m in HEATMAP_MODES])
        self.heatmap_combo.setToolTip(self.tr("rows of the heatmap"))
        self.field_check.setText(self.tr("show f(q) over the plane"))
        self.field_check.setToolTip(self.tr("colour each place by f(q) for a query there"))
        self.cues_group.setTitle(self.tr("Cues"))
        set_row_labels(self.cues_group.layout(), [
            (self.scorer_combo, self.tr("scoring")), (self.temperature_slider, self.tr("temperature")),
            (self.keys_spin, self.tr("keys")), (self.seed_spin, self.tr("seed")), (self._query_row, self.tr("query q")),
            (self.heatmap_combo, self.tr("heatmap"))])
        self.plane.setTitle(self.tr("drag the query q"))
        self.heatmap.set_axis_labels(self.tr("queries"), self.tr("keys"))
        if self.result is None:
            self.bars_plot.setTitle(self.tr("weights α(q, kᵢ)"))
            self.heatmap.set_title(self.tr("weights"))
            return
        self._draw()  # the summary and the heatmap's title quote the result
        if self.inline_message():  # the pooled output's failure, worded again when it fails again
            self.recompute(field=True)

    # --- compute and draw ---------------------------------------------------------------------
    def query(self) -> tuple[float, float]:
        return self.x_spin.value(), self.y_spin.value()

    def _new_layout(self) -> None:
        """Keys and values for the current count and seed, then everything else."""
        self.cues = cue_set(self.keys_spin.value(), self.seed_spin.value())
        self.plane.set_keys(self.cues)
        labels = self.cues.labels
        self.bars_plot.getAxis("bottom").setTicks([list(enumerate(labels))])
        self.bars_plot.setXRange(-0.6, len(labels) - 0.4, padding=0)
        with QSignalBlocker(self.plane.query):
            self.plane.move_query(*self.query())
        self.recompute(field=True)

    def recompute(self, field: bool = True) -> None:
        """Weights for the query now (and, with ``field``, ask for the pooled output over the plane)."""
        scorer, temperature = self.scorer_combo.currentData(), self.temperature_slider.value()
        try:
            self.result = cues_demo(self.cues, self.query(), scorer, temperature,
                                    identity=self.heatmap_combo.currentIndex() == 1)
        except CuesError as err:
            self.show_inline_message(str(err))
            return
        self.clear_inline_message()
        if field:
            if self.field_check.isChecked():
                self.field_runner.submit(pooling_field, self.cues, scorer, temperature)
            else:
                self.field_runner.cancel()
                self.plane.set_field(None, (0.0, 1.0))
        self._draw()

    def _draw(self) -> None:
        r, labels = self.result, self.cues.labels
        self.plane.set_weights(self.query(), r.weights)
        self.bars.setOpts(x=np.arange(len(labels)), height=r.weights, width=0.7)
        best = int(np.argmax(r.weights))
        self.bars_plot.setTitle(f"α(q, kᵢ);  f(q) = {r.output:.2f}")
        self.heatmap.set_matrix(r.grid_weights, r.grid_rows, labels, levels=(0.0, 1.0))
        self.heatmap.set_title("torch.eye(K)" if self.heatmap_combo.currentIndex() == 1 else self.tr("weights"))
        self.heatmap.highlight_row(0 if self.heatmap_combo.currentIndex() == 0 else None)
        entropy = float(-(r.weights * np.log(np.clip(r.weights, 1e-300, None))).sum())
        self.summary.setText(self.tr(
            "largest weight: k{best} ({weight:.2f})\nf(q) = Σ αᵢvᵢ = {output:.3g}\n"
            "entropy {entropy:.2f} of at most {most:.2f} nats").format(
                best=best, weight=r.weights[best], output=r.output, entropy=entropy, most=np.log(len(labels))))

    # --- slots --------------------------------------------------------------------------------
    @Slot(object)
    def _on_field_runner_result_ready(self, grid: object) -> None:
        values = self.cues.values
        self.plane.set_field(grid, (float(values.min()), float(max(values.max(), values.min() + 1e-6))))

    @Slot(str)
    def _on_field_runner_failed(self, message: str) -> None:
        self.show_inline_message(
            self.tr("The pooled output could not be computed: {message}").format(message=message))

    @Slot()
    def _on_setting_changed(self, *_args) -> None:
        self.recompute(field=True)

    @Slot(float)
    def _on_temperature_slider_value_changed(self, _value: float) -> None:
        self._recompute_throttled(field=True)

    @Slot(int)
    def _on_layout_changed(self, _value: int) -> None:
        self._new_layout()

    @Slot(float)
    def _on_coordinate_changed(self, _value: float) -> None:
        with QSignalBlocker(self.plane.query):
            self.plane.move_query(*self.query())
        self.recompute(field=False)

    @Slot(float, float)
    def _on_plane_query_moved(self, x: float, y: float) -> None:
        for spin, value in ((self.x_spin, x), (self.y_spin, y)):
            with QSignalBlocker(spin):
                spin.setValue(value)
        self.recompute(field=False)

    # --- panel hooks --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        save_controls(self, settings, self.controls)
        settings.setValue(self.settings_key("temperature"), self.temperature_slider.value())

    def restore_settings(self, settings: QSettings) -> None:
        changed = restore_controls(self, settings, self.controls)
        stored = settings.value(self.settings_key("temperature"))
        if stored is not None:
            problem = number_problem(stored, *TEMPERATURE_RANGE)
            if problem is not None:
                self.setting_problems.append(f"temperature: {problem}")
            before = self.temperature_slider.value()
            self.temperature_slider.set_value(coerce(stored, 1.0))
            changed = changed or self.temperature_slider.value() != before
        if changed:  # else the layout made with the panel stands
            self._new_layout()

    def export_targets(self) -> list[ExportTarget]:
        def keys_csv() -> tuple[list[str], np.ndarray]:
            c, r = self.cues, self.result
            return (["key", "x", "y", "value", "score", "weight"],
                    np.column_stack([np.arange(len(c.keys)), c.keys, c.values, r.scores, r.weights]))

        return [ExportTarget("plane", self.plane, keys_csv, label=self.tr("Plane")),
                ExportTarget("weights", self.bars_plot, keys_csv, label=self.tr("Weights")),
                ExportTarget("heatmap", self.heatmap, self.heatmap.csv_table, label=self.tr("Heatmap"))]

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.plane.apply_theme(dark)
        self.heatmap.apply_theme(dark)
        fg = "#dddddd" if dark else "#222222"
        self.bars_plot.setBackground("k" if dark else "w")
        item = self.bars_plot.getPlotItem()
        for name in ("left", "bottom"):
            item.getAxis(name).setPen(fg)
            item.getAxis(name).setTextPen(fg)
        item.titleLabel.setText(item.titleLabel.text, color=fg)

    def shutdown(self, timeout_ms: int) -> None:
        self._recompute_throttled.cancel()
        self.field_runner.shutdown(timeout_ms)
