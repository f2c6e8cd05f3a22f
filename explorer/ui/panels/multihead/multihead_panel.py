"""Multi-head attention panel (book §11.5): one heatmap per head plus their average, for random
input or a typed sentence (self-attention of seeded random projections; trained heads are the studio's).
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, Qt, Signal, Slot
from PySide6.QtWidgets import QCheckBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QWidget
from superqt.utils import qdebounced

from explorer.core.chapter.attention_demos import DemoError, MultiHeadResult, check_heads, head_choices, multihead_demo
from explorer.ui.worker import LatestOnlyRunner
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.widgets.form_controls import (combo_box, form_group, restore_controls, save_controls,
                                               set_item_texts, set_row_labels, spin_box)
from explorer.ui.widgets.heatmap_grid_widget import HeatmapGridWidget
from explorer.ui.widgets.side_column_widget import SideColumn

INPUT_MODES = (QT_TRANSLATE_NOOP("MultiHeadPanel", "typed sentence"),
               QT_TRANSLATE_NOOP("MultiHeadPanel", "random input"))  # keys of the combo, and its English texts
DEFAULT_SENTENCE = "the cat sat on the mat because it was tired ."


class MultiHeadPanel(BasePanel):
    """Per-head self-attention weights of a random `MultiHeadAttention`."""

    key = "multihead"
    title = QT_TRANSLATE_NOOP("Panels", "Multi-head attention")
    drawn = Signal()  # the heatmaps show a new result
    formula_html = QT_TRANSLATE_NOOP(
        "MultiHeadPanel",
        "head<sub>i</sub> = softmax(<b>QW</b><sub>i</sub><sup>(q)</sup> (<b>KW</b><sub>i</sub><sup>(k)</sup>)"
        "<sup>⊤</sup> / √(d/h)) <b>VW</b><sub>i</sub><sup>(v)</sup> &nbsp;&nbsp; "
        "MultiHead(<b>Q</b>, <b>K</b>, <b>V</b>) = [head<sub>1</sub>, …, head<sub>h</sub>] <b>W</b><sub>o</sub>")
    explanation_html = QT_TRANSLATE_NOOP(
        "MultiHeadPanel",
        "Instead of one attention over the full hidden vector, multi-head attention cuts it into h equal "
        "slices (so num_hiddens must be divisible by num_heads), gives each slice its own query, key and "
        "value projections, and lets every head attend on its own; the heads' outputs are joined and mixed "
        "by W<sub>o</sub>. Here every word gets a fixed random embedding and the projections are random "
        "(set by the seed), so the patterns show what differently projected heads can look at, not what a "
        "trained model learned; the Transformer studio shows trained heads. Without positional encoding, "
        "equal words attend identically: tick the box to add it.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: MultiHeadResult | None = None
        self.hiddens_spin = spin_box(1, 256, 16)
        self.heads_spin = spin_box(1, 16, 4)
        self.mode_combo = combo_box([(m, m) for m in INPUT_MODES], INPUT_MODES[0])
        self.sentence_edit = QLineEdit(DEFAULT_SENTENCE)
        self.sentence_edit.setCursorPosition(0)
        self.tokens_spin = spin_box(2, 40, 8)
        self.seed_spin = spin_box(0, 9999, 0)
        self.positions_check = QCheckBox()
        self.stretch_check = QCheckBox()
        self.info_label = QLabel()
        self.info_label.setWordWrap(True)
        self.info_label.setTextFormat(Qt.TextFormat.RichText)
        self.heads_group = form_group("", [
            ("num_hiddens", self.hiddens_spin), ("num_heads", self.heads_spin), ("input", self.mode_combo),
            ("sentence", self.sentence_edit), ("tokens", self.tokens_spin),
            ("seed", self.seed_spin), ("", self.positions_check), ("", self.stretch_check),
            ("", self.info_label)])
        self._form: QFormLayout = self.heads_group.layout()
        side = SideColumn(width=240)  # a short window scrolls the controls instead of squeezing them
        side.add_widget(self.heads_group)
        self.grid = HeatmapGridWidget(max_columns=4)  # up to 40 tokens: every one labelled
        self.grid.cell_clicked.connect(self._on_grid_cell_clicked)
        row = QHBoxLayout()
        row.addWidget(side)
        row.addWidget(self.grid, 1)
        self.body_layout.addLayout(row)

        self.controls: dict[str, QWidget] = {
            "num_hiddens": self.hiddens_spin, "num_heads": self.heads_spin, "input": self.mode_combo,
            "sentence": self.sentence_edit, "num_tokens": self.tokens_spin, "seed": self.seed_spin,
            "add_positions": self.positions_check, "stretch_colours": self.stretch_check}
        for spin in (self.hiddens_spin, self.heads_spin, self.tokens_spin, self.seed_spin):
            spin.valueChanged.connect(self._on_control_changed)
        self.mode_combo.currentIndexChanged.connect(self._on_control_changed)
        self.positions_check.toggled.connect(self._on_control_changed)
        self.stretch_check.toggled.connect(self._on_stretch_check_toggled)
        self.runner = LatestOnlyRunner(self)
        self.runner.result_ready.connect(self._on_runner_result_ready)
        self.runner.failed.connect(self._on_runner_failed)
        self.sentence_edit.editingFinished.connect(self._on_control_changed)
        self._recompute_while_typing = qdebounced(self.recompute, timeout=300, parent=self)
        self.sentence_edit.textEdited.connect(self._on_sentence_edit_text_edited)
        self._sync_controls()
        self.retranslate()
        self.recompute()

    def retranslate(self) -> None:
        super().retranslate()
        self.hiddens_spin.setToolTip(self.tr("num_hiddens: size of each token's hidden vector"))
        self.heads_spin.setToolTip(self.tr("num_heads: into how many slices the hidden vector is cut"))
        set_item_texts(self.mode_combo, [self.tr(m) for m in INPUT_MODES])
        self.mode_combo.setToolTip(self.tr("attend over a typed sentence or random vectors"))
        self.sentence_edit.setToolTip(self.tr("words and punctuation become tokens (at most 40)"))
        self.tokens_spin.setToolTip(self.tr("number of random input vectors"))
        self.seed_spin.setToolTip(self.tr("seed of the embeddings and projections"))
        self.positions_check.setText(self.tr("add positional encoding"))
        self.positions_check.setToolTip(self.tr("add the sinusoidal P (§11.6) to the embeddings first"))
        self.stretch_check.setText(self.tr("stretch colours to the data"))
        self.stretch_check.setToolTip(self.tr("colour range = smallest..largest weight instead of 0..1"))
        self.heads_group.setTitle(self.tr("Heads and input"))
        set_row_labels(self._form, [(self.mode_combo, self.tr("input")), (self.sentence_edit, self.tr("sentence")),
                                    (self.tokens_spin, self.tr("tokens")), (self.seed_spin, self.tr("seed"))])
        self._show_info()
        if self.result is not None:
            self.grid.set_titles(self._titles(self.result.weights.shape[0]))

    # --- compute and draw ---------------------------------------------------------------------
    def recompute(self) -> None:
        """Ask core (on a worker thread) for the heads' weights; impossible settings are explained inline."""
        hiddens, heads = self.hiddens_spin.value(), self.heads_spin.value()
        typed = self.mode_combo.currentData() == INPUT_MODES[0]
        self._show_info()
        try:
            check_heads(hiddens, heads)  # instant feedback, no torch needed
        except DemoError as err:
            self.runner.cancel()  # a result still on its way must not hide the message
            self.show_inline_message(str(err))
            self.grid.ci.setOpacity(0.35)  # the picture left in place is of the last valid setting
            return
        self.runner.submit(multihead_demo, num_hiddens=hiddens, num_heads=heads,
                           sentence=self.sentence_edit.text() if typed else None,
                           num_tokens=self.tokens_spin.value(), seed=self.seed_spin.value(),
                           add_positions=self.positions_check.isChecked())

    def _show_info(self) -> None:
        """What the sizes mean: each head's share of the dimensions, or the head counts that would split them."""
        hiddens, heads = self.hiddens_spin.value(), self.heads_spin.value()
        try:
            check_heads(hiddens, heads)
        except DemoError:
            self.info_label.setText(self.tr("num_hiddens = {hiddens} splits evenly into {choices} heads.").format(
                hiddens=hiddens, choices=", ".join(map(str, head_choices(hiddens)))))
            return
        self.info_label.setText(self.tr("each head sees <b>{size}</b> of the {hiddens} dimensions; its scores are "
                                        "divided by √{size}.<br>Click a cell to outline that query in every head.")
                                .format(size=hiddens // heads, hiddens=hiddens))

    def _titles(self, n: int) -> list[str]:
        """The titles of ``n`` heads' tiles and their average's."""
        return ([self.tr("head {number}").format(number=i + 1) for i in range(n)]
                + [self.tr("average of {count} heads").format(count=n) if n > 1 else self.tr("average")])

    def _draw(self) -> None:
        r = self.result
        if r is None:
            return
        n = r.weights.shape[0]
        tiles = [*r.weights, r.average]
        self.grid.set_matrices(tiles, titles=self._titles(n), row_labels=r.tokens, col_labels=r.tokens,
                               levels=None if self.stretch_check.isChecked() else (0.0, 1.0),
                               columns=min(4, math.ceil(math.sqrt(n + 1))))
        self.grid.highlight_row(None)
        self.drawn.emit()

    def _sync_controls(self) -> None:
        typed = self.mode_combo.currentData() == INPUT_MODES[0]
        self._form.setRowVisible(self.sentence_edit, typed)
        self._form.setRowVisible(self.tokens_spin, not typed)

    # --- slots --------------------------------------------------------------------------------
    @Slot()
    def _on_control_changed(self, *_args) -> None:
        self._sync_controls()
        self.recompute()

    @Slot()
    def _on_stretch_check_toggled(self, *_args) -> None:
        self._draw()  # colours only: no new numbers needed

    @Slot(object)
    def _on_runner_result_ready(self, result: object) -> None:
        self.result = result
        self.clear_inline_message()
        self.grid.ci.setOpacity(1.0)
        self._draw()

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self.show_inline_message(message)
        self.grid.ci.setOpacity(0.35)  # the picture left in place is of the last valid setting

    @Slot(str)
    def _on_sentence_edit_text_edited(self, _text: str) -> None:
        self._recompute_while_typing()

    @Slot(int, int, int)
    def _on_grid_cell_clicked(self, tile: int, row: int, _col: int) -> None:
        self.grid.highlight_row(row)
        if self.result is None:
            return
        r = self.result
        weights = r.weights[tile] if tile < r.weights.shape[0] else r.average
        best = int(np.argmax(weights[row]))
        self.status_message.emit(self.tr("{head}: '{query}' attends most to '{key}' ({weight:.2f})").format(
            head=self.grid.titles[tile], query=r.tokens[row], key=r.tokens[best], weight=weights[row, best]))

    # --- panel hooks --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        save_controls(self, settings, self.controls)

    def restore_settings(self, settings: QSettings) -> None:
        changed = restore_controls(self, settings, self.controls)
        self._sync_controls()
        if changed:  # else the heads computed when the panel was made stand
            self.recompute()

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("heads", self.grid, self._heads_csv, label=self.tr("Heads"))]

    def _heads_csv(self) -> tuple[list[str], np.ndarray]:
        """One line per (head, query, key); the last head index is the average."""
        header, data = self.grid.csv_table()
        return ["head", "query", "key", "weight"], data

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.grid.apply_theme(dark)

    def shutdown(self, timeout_ms: int) -> None:
        self._recompute_while_typing.cancel()
        self.runner.shutdown(timeout_ms)
