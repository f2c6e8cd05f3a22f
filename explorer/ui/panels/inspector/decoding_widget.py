"""Output probabilities (book §10.8 greedy search, beam search, and sampling): decode a source step by
step with an explicit choice — greedy, sampling (temperature, top-k, top-p, seed) or beam — and see, at every
step, the most probable next tokens with their probabilities, the one chosen, and (for the step picked) the
attention of every layer and head over what that step saw. A view of :class:`DebugState`."""
from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from explorer.core.choices import DECODING_METHODS
from explorer.core.debug.sampling import DecodeChoice
from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.inspector.debug_state import DebugState
from explorer.ui.panels.inspector.step_attention_widget import StepAttentionMap, StepAttentionViews
from explorer.ui.widgets.form_controls import set_item_texts

TOP = 5
#: How each of core's decoding methods is shown (a table of literals, so that lupdate finds them).
METHOD_LABELS = {"greedy": QT_TRANSLATE_NOOP("DecodingView", "greedy"),
                 "sample": QT_TRANSLATE_NOOP("DecodingView", "sampling"),
                 "beam": QT_TRANSLATE_NOOP("DecodingView", "beam")}
CHOSEN = QColor(46, 134, 193)


class DecodingView(QWidget):
    """Decoding choice, the output, one table row per step (chosen token, its probability, the top-k), and the
    attention of the step picked in the table."""

    def __init__(self, state: DebugState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.trace: Any = None
        self.source_edit = QLineEdit(state.inspect.source, self)
        self.method_combo = QComboBox(self)
        for method in DECODING_METHODS:  # the method is the item's data
            self.method_combo.addItem(method, method)
        self.temperature = QDoubleSpinBox(self)
        self.temperature.setRange(0.0, 5.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setValue(1.0)
        self.top_k = QSpinBox(self)
        self.top_k.setRange(0, 1000)
        self.top_p = QDoubleSpinBox(self)
        self.top_p.setRange(0.01, 1.0)
        self.top_p.setSingleStep(0.05)
        self.top_p.setValue(1.0)
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.width_spin = QSpinBox(self)
        self.width_spin.setRange(1, 16)
        self.width_spin.setValue(4)
        self.decode_button = QPushButton(self)
        self.output = QLabel(self)
        self._output: str = Words(lambda: self.tr("Choose how to pick each token, then Decode."))
        self.output.setWordWrap(True)
        self.output.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 3 + TOP, self)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.step_map = StepAttentionMap()
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        self.step_views = StepAttentionViews(self.step_map)  # Heatmap | Token lines
        split.addWidget(self.step_views)
        split.setSizes([220, 300])
        choice = QHBoxLayout()  # two short rows: the view fits a 1024 px window
        for widget in (self.method_combo, self.width_spin, self.decode_button):
            choice.addWidget(widget)
        choice.addStretch(1)
        sampling = QHBoxLayout()
        for widget in (self.temperature, self.top_k, self.top_p, self.seed):
            sampling.addWidget(widget)
        sampling.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.source_edit)
        layout.addLayout(choice)
        layout.addLayout(sampling)
        layout.addWidget(self.output)
        layout.addWidget(split, 1)
        self.method_combo.currentIndexChanged.connect(self._on_method_combo_current_index_changed)
        self.decode_button.clicked.connect(self._on_decode_button_clicked)
        self.source_edit.returnPressed.connect(self._on_decode_button_clicked)
        self.table.currentCellChanged.connect(self._on_table_current_cell_changed)
        state.decoded.connect(self._on_state_decoded)
        state.failed.connect(self._on_state_failed)
        self._on_method_combo_current_index_changed(0)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, the output line worded again (at build and on
        ``LanguageChange``)."""
        self.source_edit.setPlaceholderText(self.tr("source text"))
        self.step_map.plot.set_empty_hint(self.tr("Decode: each step's attention appears here (a row of the "
                                                  "table chooses the step)."))
        set_item_texts(self.method_combo, [self.tr(METHOD_LABELS[m]) for m in DECODING_METHODS])
        self.temperature.setPrefix(self.tr("T "))
        self.top_k.setPrefix(self.tr("top-k "))
        self.top_k.setSpecialValueText(self.tr("top-k off"))
        self.top_p.setPrefix(self.tr("top-p "))
        self.seed.setPrefix(self.tr("seed "))
        self.width_spin.setPrefix(self.tr("width "))
        self.decode_button.setText(self.tr("Decode"))
        self.table.setHorizontalHeaderLabels([self.tr("chosen"), "p", self.tr("rank")]
                                             + [self.tr("top {i}").format(i=i + 1) for i in range(TOP)])
        self.table.setToolTip(self.tr("Each row is a decoding step: the model's probabilities (T = 1) of its most "
                                      "probable next tokens; the chosen one is highlighted. Pick a row to see that "
                                      "step's attention below"))
        self.output.setText(again(self._output))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _say(self, text: str) -> None:
        self._output = text
        self.output.setText(text)

    def choice(self) -> DecodeChoice:
        """The decoding choice as set in the controls."""
        return DecodeChoice(method=str(self.method_combo.currentData()), temperature=self.temperature.value(),
                            top_k=self.top_k.value(), top_p=self.top_p.value(), seed=self.seed.value(),
                            beam_width=self.width_spin.value())

    def decode(self) -> bool:
        source = self.source_edit.text().strip() or self.state.inspect.source
        self._say(Words(lambda: self.tr("Decoding…")))
        return self.state.decode(source, self.choice(), TOP)

    def show_step(self, index: int) -> None:
        """Show the attention and probabilities of step ``index`` (0-based) of the trace on display."""
        trace = self.trace
        if trace is None or not 0 <= index < len(trace.steps):
            return
        step = trace.steps[index]
        self.step_map.show_step(step.chosen_token, step.attention, trace.key_tokens(index), trace.attends,
                                index + 1, step.chosen_prob, list(zip(step.top_tokens, step.top_probs)),
                                len(trace.source_tokens), self.state.inspect.info())

    @Slot(int, int, int, int)
    def _on_table_current_cell_changed(self, row: int, _column: int, _previous_row: int,
                                       _previous_column: int) -> None:
        self.show_step(row)

    @Slot(int)
    def _on_method_combo_current_index_changed(self, _index: int) -> None:
        method = self.method_combo.currentData()
        for widget in (self.temperature, self.top_k, self.top_p, self.seed):
            widget.setVisible(method == "sample")
        self.width_spin.setVisible(method == "beam")

    @Slot()
    def _on_decode_button_clicked(self) -> None:
        self.decode()

    @Slot(object)
    def _on_state_decoded(self, trace: Any) -> None:
        self.trace = trace
        method = METHOD_LABELS.get(trace.choice.method, trace.choice.method)
        self._say(Words(lambda: self.tr("<b>{method}:</b> {text}{end} · log p = {lp:.3f}").format(
            method=escape(self.tr(method)), text=escape(trace.text),
            end="" if trace.finished else self.tr(" (stopped at the length limit)"), lp=trace.log_prob)))
        self.table.setRowCount(len(trace.steps))
        self.table.setVerticalHeaderLabels([str(s.index + 1) for s in trace.steps])
        for row, step in enumerate(trace.steps):
            cells = [step.chosen_token, f"{step.chosen_prob:.3f}", str(step.chosen_rank + 1)]
            cells += [f"{tok}  {p:.3f}" for tok, p in zip(step.top_tokens, step.top_probs)]
            cells += [""] * (3 + TOP - len(cells))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col >= 3 and col - 3 < len(step.top_ids):
                    p = step.top_probs[col - 3]
                    shade = QColor(CHOSEN)
                    shade.setAlphaF(0.15 + 0.6 * float(p) if step.top_ids[col - 3] == step.chosen_id else 0.05 + 0.2 * p)
                    item.setBackground(QBrush(shade))
                self.table.setItem(row, col, item)
        if trace.steps:
            self.table.setCurrentCell(0, 0)
            self.show_step(0)  # also when row 0 was current already (a new trace in the same table)

    @Slot(str, object)
    def _on_state_failed(self, tool: str, message: str) -> None:
        if tool == "decode":
            self._say(Words(lambda: f"<span style='color:#c0392b'>{escape(again(message))}</span>"))
