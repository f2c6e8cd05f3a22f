"""The inspector's head summaries: every head's mean entropy, dominant relative offset (−8…8), shares on the first
token (a sink) and on special tokens, positional habits (previous / same / next / last), induction score and task
alignment over a sentence set, as a sortable table and as a layers × heads map per score — to find dead, positional,
sink, induction and aligning heads at a glance."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, Slot
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QSpinBox,
                               QSplitter, QTableView, QVBoxLayout, QWidget)

from explorer.core.debug.head_summaries import OFFSETS, SCORES
from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.inspector.debug_state import DebugState
from explorer.ui.widgets.file_dialogs import open_file_name
from explorer.ui.widgets.form_controls import set_item_texts
from explorer.ui.widgets.heatmap_grid_widget import HeatmapGridWidget
from explorer.ui.widgets.kind_names import short_kind

COLUMNS = ("kind", "layer", "head", *SCORES)
#: Column and score names as shown (core's names are the keys).
NAMES = {"kind": QT_TRANSLATE_NOOP("HeadSummaryView", "kind"), "layer": QT_TRANSLATE_NOOP("HeadSummaryView", "layer"),
         "head": QT_TRANSLATE_NOOP("HeadSummaryView", "head"),
         "entropy": QT_TRANSLATE_NOOP("HeadSummaryView", "entropy"),
         "offset": QT_TRANSLATE_NOOP("HeadSummaryView", "offset"),
         "offset_share": QT_TRANSLATE_NOOP("HeadSummaryView", "at offset"),
         "special": QT_TRANSLATE_NOOP("HeadSummaryView", "special"),
         "previous": QT_TRANSLATE_NOOP("HeadSummaryView", "previous"),
         "same": QT_TRANSLATE_NOOP("HeadSummaryView", "same"),
         "next": QT_TRANSLATE_NOOP("HeadSummaryView", "next"), "first": QT_TRANSLATE_NOOP("HeadSummaryView", "first"),
         "last": QT_TRANSLATE_NOOP("HeadSummaryView", "last"),
         "induction": QT_TRANSLATE_NOOP("HeadSummaryView", "induction"),
         "alignment": QT_TRANSLATE_NOOP("HeadSummaryView", "alignment")}


def _item(value: Any, signed: bool = False) -> QStandardItem:
    """A table cell that sorts by its number (NaN last) and shows it rounded."""
    item = QStandardItem()
    if isinstance(value, int) and signed:  # a relative offset: −2 is two tokens back
        item.setData(f"{value:+d}", Qt.ItemDataRole.DisplayRole)
        item.setData(float(value), Qt.ItemDataRole.UserRole)
    elif isinstance(value, float):
        item.setData("–" if math.isnan(value) else f"{value:.3f}", Qt.ItemDataRole.DisplayRole)
        item.setData(-math.inf if math.isnan(value) else value, Qt.ItemDataRole.UserRole)
    else:
        item.setData(str(value), Qt.ItemDataRole.DisplayRole)
        item.setData(value, Qt.ItemDataRole.UserRole)
    item.setEditable(False)
    return item


class HeadSummaryView(QWidget):
    """Sentence set, Summarize, then a sortable table and the chosen score as one layers × heads map per kind."""

    def __init__(self, state: DebugState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.summary: Any = None
        self.set_combo = QComboBox(self)
        for source in ("data", "probe", "file"):
            self.set_combo.addItem(source, source)
        self.file_path = ""
        self.count_spin = QSpinBox(self)
        self.count_spin.setRange(1, 10_000)
        self.count_spin.setValue(100)
        self.run_button = QPushButton(self)
        self.status = QLabel(self)
        self._status: str = Words(lambda: self.tr("Summarize every head over a set of sentences."))
        self.status.setWordWrap(True)
        self.score_combo = QComboBox(self)
        for name in SCORES:
            self.score_combo.addItem(name, name)
        self.table_model = QStandardItemModel(0, len(COLUMNS), self)
        self.table_model.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTableView(self)
        self.table.setModel(self.table_model)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.maps = HeatmapGridWidget(max_columns=3)
        top = QHBoxLayout()
        for widget in (self.set_combo, self.count_spin, self.run_button):
            top.addWidget(widget)
        top.addStretch(1)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        score_row = QHBoxLayout()
        self._map_of = QLabel(right)
        score_row.addWidget(self._map_of)
        score_row.addWidget(self.score_combo, 1)
        right_layout.addLayout(score_row)
        right_layout.addWidget(self.maps, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setSizes([560, 300])  # the table's score columns first; the maps shrink
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        self.run_button.clicked.connect(self._on_run_button_clicked)
        self.set_combo.activated.connect(self._on_set_combo_activated)
        self.score_combo.currentIndexChanged.connect(self._on_score_combo_current_index_changed)
        state.summarized.connect(self._on_state_summarized)
        state.failed.connect(self._on_state_failed)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, the status worded again (at build and on ``LanguageChange``)."""
        set_item_texts(self.set_combo, [self.tr("loaded data, first N pairs"), self.tr("the Inspect tab's text"),
                                        self.tr("a text file (one text per line)…")])
        self.set_combo.setToolTip(self.tr("A Hugging Face model reads the file's lines as written; each line is one "
                                          "text, or source<TAB>target"))
        self.count_spin.setPrefix(self.tr("N = "))
        self.run_button.setText(self.tr("Summarize heads"))
        set_item_texts(self.score_combo, [self.tr(NAMES.get(name, name)) for name in SCORES])
        self.table_model.setHorizontalHeaderLabels([self.tr(NAMES.get(c, c)) for c in COLUMNS])
        self._map_of.setText(self.tr("map of"))
        self.status.setText(again(self._status))
        for row in range(self.table_model.rowCount()):  # the kinds, worded in the language in force
            item = self.table_model.item(row, 0)
            item.setData(short_kind(item.data(Qt.ItemDataRole.UserRole)), Qt.ItemDataRole.DisplayRole)
        self._show_map()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _say(self, text: str) -> None:
        self._status = text
        self.status.setText(text)

    def summarize(self) -> bool:
        """Ask for the summaries of the chosen sentence set; False (with the reason shown) if there is none."""
        try:
            pairs = self.state.pairs(self.set_combo.currentData(), self.count_spin.value(), self.file_path)
        except ValueError as exc:
            self._say(exc.args[0] if exc.args else str(exc))
            return False
        if not self.state.summarize(pairs):
            return False
        count = len(pairs)
        self._say(Words(lambda: self.tr("Summarizing every head over {n} sentence pair(s)…").format(n=count)))
        return True

    def _show_map(self) -> None:
        if self.summary is None:
            return
        name = self.score_combo.currentData()
        kinds = list(self.summary.scores)
        matrices = [np.nan_to_num(self.summary.scores[k][name], nan=0.0).astype(np.float32) for k in kinds]
        finite = [m for k in kinds for m in [self.summary.scores[k][name]] if np.isfinite(m).any()]
        top = max((float(np.nanmax(m)) for m in finite), default=1.0)
        same_shape = len({m.shape for m in matrices}) == 1
        rows = [f"L{i + 1}" for i in range(matrices[0].shape[0])] if same_shape else None
        cols = [f"h{j + 1}" for j in range(matrices[0].shape[1])] if same_shape else None
        bound = float(OFFSETS.max())  # offsets run both ways: −8 … 8
        levels = (-bound, bound) if name == "offset" else (0.0, top if top > 0 else 1.0)
        self.maps.set_matrices(matrices, [short_kind(k) for k in kinds], row_labels=rows, col_labels=cols,
                               levels=levels)

    # ---- slots ------------------------------------------------------------------------------------
    @Slot()
    def _on_run_button_clicked(self) -> None:
        self.summarize()

    @Slot(int)
    def _on_set_combo_activated(self, _index: int) -> None:
        if self.set_combo.currentData() == "file":
            path = open_file_name(self, self.tr("Texts"), self.tr("Texts (*.txt *.tsv *.zip);;All files (*)"))
            if path:
                self.file_path = path

    @Slot(int)
    def _on_score_combo_current_index_changed(self, _index: int) -> None:
        self._show_map()

    @Slot(object)
    def _on_state_summarized(self, summary: Any) -> None:
        self.summary = summary
        self.table.setSortingEnabled(False)
        self.table_model.removeRows(0, self.table_model.rowCount())
        for row in summary.rows():
            cells = [_item(row[c] + 1 if c in ("layer", "head") else row[c], c == "offset") for c in COLUMNS]
            cells[0].setData(short_kind(row["kind"]), Qt.ItemDataRole.DisplayRole)  # sorted by core's key
            self.table_model.appendRow(cells)
        self.table.setSortingEnabled(True)
        unknown = summary.unknown
        self._say(Words(lambda: self.tr(
            "{heads} heads over {n} sentence pair(s){skipped}. Sort a column; an offset of −1 with a high weight "
            "marks a previous-token head, a high 'first' an attention sink, high 'induction' an induction "
            "head.").format(
                heads=len(summary.rows()), n=summary.sentences,
                skipped=self.tr(" · {n} sentence(s) skipped").format(n=len(summary.skipped)) if summary.skipped
                else "") + (self.tr(" Warning: {unknown} of {total} tokens ({share:.1f} %) are the unknown token "
                                    "{token}: the text is not read as the model was trained, or the tokenizer is "
                                    "not the model's.").format(unknown=unknown.unknown, total=unknown.total,
                                                               share=100 * unknown.share, token=unknown.token)
                            if unknown is not None and unknown.many else "")))
        self._show_map()

    @Slot(str, object)
    def _on_state_failed(self, tool: str, message: str) -> None:
        if tool == "summary":
            self._say(Words(lambda: self.tr("Could not summarize the heads: {why}").format(why=again(message))))
