"""The inspector's Inspect tab (book §11.7 maps of models trained elsewhere): which model, a source (and optional
target) text, a forward pass or a generation, and the attention grid under them.

A view of :class:`InspectState`: it draws what the state says and calls its methods; the grid under the form is a
view of its own (:class:`InspectionGrid`), given by the inspector body.
"""
from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QSignalBlocker, Slot
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton,
                               QSpinBox, QVBoxLayout, QWidget)

from explorer.core.choices import GENERATE_METHODS
from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.inspector.inspect_state import InspectState
from explorer.ui.widgets.form_controls import set_item_texts, set_row_labels

NO_MODEL = QT_TRANSLATE_NOOP("InspectView", "No model to inspect yet: Model → Open Hugging Face model folder… (or "
                             "drop a folder holding config.json here), open a saved model, or train one in the "
                             "Transformer studio.")
GRID_ROOM = QT_TRANSLATE_NOOP("InspectView", "The attention grid appears here once a text is inspected.")
#: Decoding methods (the method combo's data) as shown.
#: How each of core's generate methods is shown (a table of literals, so that lupdate finds them).
METHOD_LABELS = {"greedy": QT_TRANSLATE_NOOP("InspectView", "greedy"), "beam": QT_TRANSLATE_NOOP("InspectView", "beam")}
translate = QCoreApplication.translate


def _mb(nbytes: int) -> str:
    return f"{nbytes / 2**20:.1f} MB" if nbytes >= 2**20 else f"{nbytes / 1024:.0f} kB"


def describe_inspection(inspection: Any) -> str:
    """One line: what was read, how long it took and what the inspector holds for it."""
    tokens = len(inspection.source_tokens) + len(inspection.target_tokens)
    line = (translate("InspectView", "{tokens} tokens · {seconds:.2f} s · full maps, {size}") if inspection.full else
            translate("InspectView", "{tokens} tokens · {seconds:.2f} s · pooled thumbnails (heads open at full size "
                      "on demand), {size}")).format(tokens=tokens, seconds=inspection.elapsed_s,
                                                 size=_mb(inspection.nbytes()))
    if inspection.method:
        output = (translate("InspectView", "<b>{method} output:</b> {text}") if inspection.finished else
                  translate("InspectView", "<b>{method} output:</b> {text} (stopped at the length limit)")).format(
            method=translate("InspectView", METHOD_LABELS.get(inspection.method, inspection.method)),
            text=escape(inspection.output))
        line = f"{output}<br>{line}"
    return line


class InspectView(QWidget):
    """Model choice, texts, Inspect / Generate, a result line, and the attention grid below."""

    def __init__(self, state: InspectState, grid: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.model_combo = QComboBox(self)
        self.source_edit = QPlainTextEdit(state.source, self)
        self.source_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 2 + 12)  # long texts scroll
        self.target_edit = QLineEdit(state.target, self)
        self.inspect_button = QPushButton(self)
        self.method_combo = QComboBox(self)
        for method in GENERATE_METHODS:  # the method is the item's data
            self.method_combo.addItem(method, method)
        self.width_spin = QSpinBox(self)
        self.width_spin.setRange(1, 16)
        self.width_spin.setValue(4)
        self.width_spin.setEnabled(False)
        self.generate_button = QPushButton(self)
        self.result_label = QLabel("", self)
        self.result_label.setWordWrap(True)
        self._result = ""  # what the result line says (Words re-worded in retranslate)
        self._form = form = QFormLayout()
        for field in (self.model_combo, self.source_edit, self.target_edit):
            form.addRow("", field)
        actions = QHBoxLayout()
        actions.addWidget(self.inspect_button)
        actions.addSpacing(12)
        actions.addWidget(self.method_combo)
        actions.addWidget(self.width_spin)
        actions.addWidget(self.generate_button)
        actions.addStretch(1)
        form.addRow("", actions)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addWidget(self.header)
        layout.addLayout(form)
        layout.addWidget(self.result_label)
        layout.addWidget(grid, 1)
        self.inspect_button.clicked.connect(self._on_inspect_button_clicked)
        self.target_edit.returnPressed.connect(self._on_inspect_button_clicked)
        self.generate_button.clicked.connect(self._on_generate_button_clicked)
        self.method_combo.currentIndexChanged.connect(self._on_method_combo_current_index_changed)
        self.model_combo.activated.connect(self._on_model_combo_activated)
        state.model_changed.connect(self._on_state_model_changed)
        state.busy_changed.connect(self._on_state_busy_changed)
        state.inspected.connect(self._on_state_inspected)
        state.message_posted.connect(self._on_state_message_posted)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force; the model's header and the result line are worded again from
        what they show (at build and on ``LanguageChange``)."""
        self.model_combo.setToolTip(self.tr("The model the text is read by"))
        self.source_edit.setPlaceholderText(self.tr("source text (an encoder–decoder translates it; GPT-2 continues "
                                                    "it)"))
        self.target_edit.setPlaceholderText(self.tr("optional target: teacher-forced (none: the model's own output)"))
        self.inspect_button.setText(self.tr("Inspect"))
        self.inspect_button.setToolTip(self.tr("One forward pass: every head's attention for this text"))
        set_item_texts(self.method_combo, [self.tr(METHOD_LABELS[m]) for m in GENERATE_METHODS])
        self.width_spin.setPrefix(self.tr("width "))
        self.generate_button.setText(self.tr("Generate"))
        set_row_labels(self._form, [(self.model_combo, self.tr("model")), (self.source_edit, self.tr("source")),
                                    (self.target_edit, self.tr("target"))])
        self._on_state_model_changed(self.state.info())
        self.result_label.setText(again(self._result))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _set_result(self, text: str) -> None:
        self._result = text
        self.result_label.setText(text)

    # ---- view slots --------------------------------------------------------------------------
    @Slot()
    def _on_inspect_button_clicked(self) -> None:
        self.state.inspect(self.source_edit.toPlainText(), self.target_edit.text())

    @Slot()
    def _on_generate_button_clicked(self) -> None:
        self.state.generate(self.source_edit.toPlainText(), self.method_combo.currentData(), self.width_spin.value())

    @Slot(int)
    def _on_method_combo_current_index_changed(self, _index: int) -> None:
        self.width_spin.setEnabled(self.method_combo.currentData() == "beam")

    @Slot(int)
    def _on_model_combo_activated(self, index: int) -> None:
        choice = self.model_combo.itemData(index)
        if choice:
            self.state.choose(str(choice))

    # ---- state slots -------------------------------------------------------------------------
    @Slot(object)
    def _on_state_model_changed(self, info: Any) -> None:
        with QSignalBlocker(self.model_combo):
            self.model_combo.clear()
            for choice, label in self.state.choices():
                self.model_combo.addItem(label, choice)
            current = self.model_combo.findData(self.state.choice if info is not None else "")
            if current >= 0:
                self.model_combo.setCurrentIndex(current)
        self.model_combo.setEnabled(self.model_combo.count() > 1)
        if info is None:
            self.header.setText(self.tr(NO_MODEL))
        else:
            header = (self.tr("<b>{name}</b> · {summary}") if info.max_positions is None else
                      self.tr("<b>{name}</b> · {summary}, reads at most {count:,} tokens"))
            self.header.setText(header.format(name=escape(info.name), summary=escape(info.summary()),
                                              count=info.max_positions or 0))
        can_generate = info is not None and info.family != "encoder-only"
        self.inspect_button.setEnabled(info is not None)
        self.target_edit.setEnabled(info is not None and info.family != "encoder-only")
        for widget in (self.generate_button, self.method_combo):
            widget.setEnabled(can_generate)
        self.width_spin.setEnabled(can_generate and self.method_combo.currentData() == "beam")
        self.generate_button.setToolTip(self.tr("Translate (or continue) the source and show the attention of the "
                                                "output") if can_generate else
                                        self.tr("An encoder-only model does not generate text"))

    @Slot(bool)
    def _on_state_busy_changed(self, busy: bool) -> None:
        if busy:
            self._set_result(Words(lambda: self.tr("Computing every head's attention…")))

    @Slot(object)
    def _on_state_inspected(self, inspection: Any) -> None:
        self._set_result(Words(lambda: describe_inspection(inspection)))

    @Slot(object, str)
    def _on_state_message_posted(self, text: str, level: str) -> None:
        if level != "info":
            self._set_result(Words(lambda: f"<span style='color:#c0392b'>{escape(again(text))}</span>"))
