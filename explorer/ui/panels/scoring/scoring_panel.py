"""Scoring functions panel (book §11.3): additive vs scaled dot-product attention, masked softmax
with 1-D or 2-D valid lengths, and the 1/√d scaling demo. Numbers come from core.attention_demos.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, QSignalBlocker, Signal, Slot
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLineEdit, QTabWidget, QWidget

from explorer.core.chapter.attention_demos import (DemoError, ScoringResult, clamp_lengths, default_lengths, parse_lengths,
                                           scoring_demo)
from explorer.ui.worker import LatestOnlyRunner
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.panels.scoring.scaling_widget import ScalingSection
from explorer.ui.widgets.form_controls import (combo_box, form_group, restore_controls, save_controls,
                                               set_item_texts, set_row_labels, spin_box)
from explorer.ui.widgets.heatmap_grid_widget import HeatmapGridWidget
from explorer.ui.widgets.side_column_widget import SideColumn

MAX_BATCH = 4
MASK_MODES = (QT_TRANSLATE_NOOP("ScoringPanel", "no mask"),
              QT_TRANSLATE_NOOP("ScoringPanel", "valid length per sequence (1-D)"),
              QT_TRANSLATE_NOOP("ScoringPanel", "valid lengths per query (2-D)"))  # keys, and English texts
SHOW_MODES = (QT_TRANSLATE_NOOP("ScoringPanel", "attention weights"), QT_TRANSLATE_NOOP("ScoringPanel", "raw scores"))
DEFAULT_LENGTHS = (2, 6, 10, 10)
#: The settings of the scaling tab's demo, restored apart: a change there recomputes that demo only.
SCALING_CONTROLS = ("scaling_d", "scaling_keys")


class ScoringPanel(BasePanel):
    """Two scoring functions on the same queries, keys and values, side by side."""

    key = "scoring"
    title = QT_TRANSLATE_NOOP("Panels", "Scoring functions")
    drawn = Signal()  # the heatmaps show a new result
    formula_html = QT_TRANSLATE_NOOP("ScoringPanel",
        "additive: a(<b>q</b>, <b>k</b>) = <b>w</b><sub>v</sub><sup>⊤</sup> tanh(<b>W</b><sub>q</sub><b>q</b>"
        " + <b>W</b><sub>k</sub><b>k</b>) &nbsp;&nbsp;|&nbsp;&nbsp; scaled dot product: "
        "a(<b>q</b>, <b>k</b>) = <b>q</b><sup>⊤</sup><b>k</b> / √d &nbsp;→&nbsp; "
        "softmax(<b>QK</b><sup>⊤</sup>/√d)<b>V</b>")
    explanation_html = QT_TRANSLATE_NOOP("ScoringPanel",
        "An attention score says how well a query matches a key; a softmax over the keys turns the scores "
        "into weights that sum to one, and the output is the weighted average of the values. The additive "
        "scorer learns a small one-layer network and works even when queries and keys differ in size; the "
        "dot product needs equal sizes but is a single matrix product. Masking (valid lengths) hides padding "
        "keys: their scores are pushed to −∞ before the softmax, so they get weight exactly 0 (hatched "
        "cells). The second tab shows why the dot product is divided by √d: without it the scores spread out "
        "as d grows and the softmax collapses onto one key.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: ScoringResult | None = None
        self._messages: dict[str, str] = {}
        self.batch_size_spin = spin_box(1, MAX_BATCH, 2)
        self.batch_index_spin = spin_box(0, 1, 0)
        self.queries_spin = spin_box(1, 16, 4)
        self.keys_spin = spin_box(1, 20, 10)
        self.dim_spin = spin_box(1, 64, 8)
        self.hidden_spin = spin_box(1, 64, 8)
        self.seed_spin = spin_box(0, 9999, 0)
        self.show_combo = combo_box([(m, m) for m in SHOW_MODES], SHOW_MODES[0])
        self.mask_combo = combo_box([(m, m) for m in MASK_MODES], MASK_MODES[1])
        self.length_spins = [spin_box(0, 10, n) for n in DEFAULT_LENGTHS]
        self.length_edits = [QLineEdit(" ".join(map(str, default_lengths(4, 10, b)))) for b in range(MAX_BATCH)]
        self.inputs_group = inputs = form_group("", [
            ("batch size", self.batch_size_spin), ("show sequence", self.batch_index_spin),
            ("queries Q", self.queries_spin), ("keys K", self.keys_spin), ("size d", self.dim_spin),
            ("hidden h (additive)", self.hidden_spin), ("seed", self.seed_spin), ("show", self.show_combo)])
        self.lengths_group = QGroupBox()
        self._lengths_form = QFormLayout(self.lengths_group)
        self._lengths_form.addRow(self.mask_combo)
        self._length_rows: list[QHBoxLayout] = []
        for b in range(MAX_BATCH):
            row = QHBoxLayout()
            row.addWidget(self.length_spins[b])
            row.addWidget(self.length_edits[b], 1)
            self._lengths_form.addRow(f"{b}", row)
            self._length_rows.append(row)

        side = SideColumn()  # a short window scrolls the controls instead of squeezing them
        side.add_widget(inputs)
        side.add_widget(self.lengths_group)
        self.grid = HeatmapGridWidget(max_columns=2)
        self.grid.cell_clicked.connect(self._on_grid_cell_clicked)
        scorers = QWidget()
        scorers_layout = QHBoxLayout(scorers)
        scorers_layout.setContentsMargins(0, 4, 0, 0)
        scorers_layout.addWidget(side)
        scorers_layout.addWidget(self.grid, 1)
        self.scaling = ScalingSection(self.lazy_page)  # its plots are made when its tab is first shown
        self.scaling.failed.connect(self._on_scaling_failed)
        self.scaling.drawn.connect(self._on_scaling_drawn)
        self.tabs = QTabWidget()  # one section at a time: each gets the whole panel, even on a projector
        self.tabs.addTab(scorers, "")
        self.tabs.addTab(self.scaling, "")
        self.body_layout.addWidget(self.tabs)

        self.controls: dict[str, QWidget] = {
            "batch_size": self.batch_size_spin, "batch_index": self.batch_index_spin,
            "num_queries": self.queries_spin, "num_keys": self.keys_spin, "dim": self.dim_spin,
            "num_hiddens": self.hidden_spin, "seed": self.seed_spin, "show": self.show_combo,
            "mask_mode": self.mask_combo, "scaling_d": self.scaling.d_slider,
            "scaling_keys": self.scaling.keys_spin,
            **{f"length_{b}": s for b, s in enumerate(self.length_spins)},
            **{f"lengths_2d_{b}": e for b, e in enumerate(self.length_edits)},
        }
        for spin in (self.batch_size_spin, self.queries_spin, self.keys_spin, self.dim_spin, self.hidden_spin,
                     self.seed_spin, *self.length_spins):
            spin.valueChanged.connect(self._on_control_changed)
        self.mask_combo.currentIndexChanged.connect(self._on_control_changed)
        self.batch_index_spin.valueChanged.connect(self._on_view_control_changed)
        self.show_combo.currentIndexChanged.connect(self._on_view_control_changed)
        self.runner = LatestOnlyRunner(self)
        self.runner.result_ready.connect(self._on_runner_result_ready)
        self.runner.failed.connect(self._on_runner_failed)
        for edit in self.length_edits:
            edit.editingFinished.connect(self._on_control_changed)
        self._filled = (self.queries_spin.value(), self.keys_spin.value())
        self._sync_controls()
        self.retranslate()
        self.recompute()  # the scaling demo is computed when its tab is first shown

    def retranslate(self) -> None:
        super().retranslate()
        for spin, tip in ((self.batch_size_spin, self.tr("number of sequences in the batch")),
                          (self.batch_index_spin, self.tr("which sequence of the batch the heatmaps show")),
                          (self.queries_spin, self.tr("number of queries Q")),
                          (self.keys_spin, self.tr("number of keys (and values) K")),
                          (self.dim_spin, self.tr("size d of queries and keys")),
                          (self.hidden_spin, self.tr("hidden size h of the additive scorer")),
                          (self.seed_spin, self.tr("random seed for Q, K, V and the additive weights")),
                          (self.show_combo, self.tr("draw the weights or the raw scores")),
                          (self.mask_combo, self.tr("how keys are masked"))):
            spin.setToolTip(tip)
        set_item_texts(self.show_combo, [self.tr(m) for m in SHOW_MODES])
        set_item_texts(self.mask_combo, [self.tr(m) for m in MASK_MODES])
        for b in range(MAX_BATCH):
            self.length_spins[b].setToolTip(self.tr("valid keys of sequence {index}").format(index=b))
            self.length_edits[b].setToolTip(
                self.tr("valid keys for each query of sequence {index}, e.g. '1 2 3 4'").format(index=b))
        self.inputs_group.setTitle(self.tr("Queries, keys, values"))
        set_row_labels(self.inputs_group.layout(), [
            (self.batch_size_spin, self.tr("batch size")), (self.batch_index_spin, self.tr("show sequence")),
            (self.queries_spin, self.tr("queries Q")), (self.keys_spin, self.tr("keys K")),
            (self.dim_spin, self.tr("size d")), (self.hidden_spin, self.tr("hidden h (additive)")),
            (self.seed_spin, self.tr("seed")), (self.show_combo, self.tr("show"))])
        self.lengths_group.setTitle(self.tr("Masking"))
        set_row_labels(self._lengths_form, [(row, self.tr("sequence {index}").format(index=b))
                                            for b, row in enumerate(self._length_rows)])
        self.tabs.setTabText(0, self.tr("Additive vs scaled dot product"))
        self.tabs.setTabText(1, self.tr("Why divide by √d?"))
        if self.result is not None:
            self.grid.set_titles(self._titles())
        self._show_messages()
        if "scorers" in self._messages:  # an error worded from the controls: worded again in this language
            self.recompute()


    # --- compute and draw ---------------------------------------------------------------------
    def valid_lens(self) -> list[int] | list[list[int]] | None:
        """The valid lengths the controls describe (raises `DemoError` for unreadable text)."""
        mode = MASK_MODES.index(self.mask_combo.currentData())
        batch, q, k = self.batch_size_spin.value(), self.queries_spin.value(), self.keys_spin.value()
        if mode == 0:
            return None
        if mode == 1:
            return [s.value() for s in self.length_spins[:batch]]
        lengths = []
        for b in range(batch):
            try:
                lengths.append(parse_lengths(self.length_edits[b].text(), q, k))
            except DemoError as err:
                raise DemoError(self.tr("sequence {index}: {error}").format(index=b, error=err)) from None
        return lengths

    def recompute(self) -> None:
        """Ask core (on a worker thread) for both scorers' weights; bad input shows inline."""
        try:
            lens = self.valid_lens()
        except DemoError as err:
            self.runner.cancel()  # a result still on its way must not hide the message
            self._set_message("scorers", str(err))
            self.grid.ci.setOpacity(0.35)  # the picture left in place is of the last valid setting
            return
        self.runner.submit(scoring_demo, batch_size=self.batch_size_spin.value(),
                           num_queries=self.queries_spin.value(), num_keys=self.keys_spin.value(),
                           dim=self.dim_spin.value(), num_hiddens=self.hidden_spin.value(),
                           seed=self.seed_spin.value(), valid_lens=lens)

    def _draw(self) -> None:
        r = self.result
        if r is None:
            return
        b = self._batch()
        scores = self.show_combo.currentData() == SHOW_MODES[1]
        add, dot = (r.additive_scores, r.dot_scores) if scores else (r.additive_weights, r.dot_weights)
        self.grid.set_matrices(
            [add[b], dot[b]], titles=self._titles(),
            row_labels=[f"q{i}" for i in range(add.shape[1])], col_labels=[f"k{j}" for j in range(add.shape[2])],
            mask=None if r.keep.all() else r.keep[b], levels=None if scores else (0.0, 1.0))
        self.drawn.emit()

    def _titles(self) -> list[str]:
        """The two tiles' titles: weights or raw scores, as the show combo says."""
        if self.show_combo.currentData() == SHOW_MODES[1]:
            return [self.tr("additive scores"), self.tr("scaled dot-product scores")]
        return [self.tr("additive weights"), self.tr("scaled dot-product weights")]

    def _batch(self) -> int:
        """The sequence shown, within the batch of the result on display."""
        return min(self.batch_index_spin.value(), self.result.keep.shape[0] - 1)

    def _sync_controls(self) -> None:
        """Ranges and visibility that follow other controls (no signals echo back)."""
        batch, k = self.batch_size_spin.value(), self.keys_spin.value()
        mode = MASK_MODES.index(self.mask_combo.currentData())
        with QSignalBlocker(self.batch_index_spin):
            self.batch_index_spin.setMaximum(batch - 1)
        q = self.queries_spin.value()
        if (q, k) != self._filled:  # per-query lengths must stay valid for the new sizes
            for b, edit in enumerate(self.length_edits):
                if q != self._filled[0]:  # another number of queries: refill with a causal pattern
                    edit.setText(" ".join(map(str, default_lengths(q, k, b))))
                else:  # fewer keys: lower what no longer fits, keep the rest as typed
                    edit.setText(clamp_lengths(edit.text(), k))
            self._filled = (q, k)
        for b in range(MAX_BATCH):
            with QSignalBlocker(self.length_spins[b]):
                self.length_spins[b].setMaximum(k)
            shown = b < batch
            self._lengths_form.setRowVisible(b + 1, mode != 0 and shown)  # shows the whole row
            self.length_spins[b].setVisible(mode == 1 and shown)
            self.length_edits[b].setVisible(mode == 2 and shown)

    # --- slots --------------------------------------------------------------------------------
    @Slot()
    def _on_control_changed(self, *_args) -> None:
        self._sync_controls()
        self.recompute()

    @Slot()
    def _on_view_control_changed(self, *_args) -> None:
        self._draw()  # which sequence / weights or scores: no new numbers needed

    @Slot(object)
    def _on_runner_result_ready(self, result: object) -> None:
        self.result = result
        self._set_message("scorers", None)
        self.grid.ci.setOpacity(1.0)
        self._draw()

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self._set_message("scorers", message)
        self.grid.ci.setOpacity(0.35)  # the picture left in place is of the last valid setting

    @Slot(int, int, int)
    def _on_grid_cell_clicked(self, _tile: int, row: int, _col: int) -> None:
        self.grid.highlight_row(row)
        if self.result is not None:
            b = self._batch()
            add = " ".join(f"{w:.2f}" for w in self.result.additive_weights[b, row])
            dot = " ".join(f"{w:.2f}" for w in self.result.dot_weights[b, row])
            self.status_message.emit(self.tr("q{row}: additive [{additive}]  ·  dot product [{dot}]").format(
                row=row, additive=add, dot=dot))

    @Slot(str)
    def _on_scaling_failed(self, message: str) -> None:
        self._set_message("scaling", message)

    @Slot()
    def _on_scaling_drawn(self) -> None:
        self._set_message("scaling", None)

    def _set_message(self, source: str, text: str | None) -> None:
        """Show (or, with None, clear) the message of one source, 'scorers' or 'scaling'; the other stays."""
        if text:
            self._messages[source] = text
        else:
            self._messages.pop(source, None)
        self._show_messages()

    def _show_messages(self) -> None:
        """The messages kept, the scaling demo's introduced as such, in the language in force."""
        shown = [self.tr("Scaling demo: {message}").format(message=text) if source == "scaling" else text
                 for source, text in self._messages.items()]
        if shown:
            self.show_inline_message("\n".join(shown))
        else:
            self.clear_inline_message()

    # --- panel hooks --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        save_controls(self, settings, self.controls)

    def restore_settings(self, settings: QSettings) -> None:
        # widest ranges first, so a stored value is not clamped by a range that depends on another
        # control restored later; _sync_controls narrows them again
        for spin, top in ((self.batch_index_spin, MAX_BATCH - 1),
                          *((s, self.keys_spin.maximum()) for s in self.length_spins)):
            with QSignalBlocker(spin):
                spin.setMaximum(top)
        scaling = {name: self.controls[name] for name in SCALING_CONTROLS}
        scorers = restore_controls(self, settings, {n: w for n, w in self.controls.items() if n not in scaling})
        scaling_changed = restore_controls(self, settings, scaling)
        self._filled = (self.queries_spin.value(), self.keys_spin.value())  # the restored lengths match them
        self._sync_controls()
        if scorers:  # else what was computed when the panel was made stands
            self.recompute()
        if scaling_changed:
            self.scaling.refresh()

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("weights", self.grid, self._weights_csv, label=self.tr("Weights")),
                *self.scaling.export_targets()]

    def _weights_csv(self) -> tuple[list[str], np.ndarray]:
        header = ["query", "key", "additive_weight", "dot_product_weight", "additive_score", "dot_score", "kept"]
        if self.result is None:
            return header, np.zeros((0, len(header)))
        r, b = self.result, self._batch()
        qi, ki = np.indices(r.keep[b].shape)
        cols = [qi, ki, r.additive_weights[b], r.dot_weights[b], r.additive_scores[b], r.dot_scores[b], r.keep[b]]
        return header, np.column_stack([np.ravel(c).astype(np.float64) for c in cols])

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.grid.apply_theme(dark)
        self.scaling.apply_theme(dark)

    def shutdown(self, timeout_ms: int) -> None:
        self.runner.shutdown(timeout_ms)
        self.scaling.shutdown(timeout_ms)
