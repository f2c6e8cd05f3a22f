"""The studio's translate-and-inspect view (book §11.7 prediction, §10.7 BLEU): greedy or beam search,
the decoded sentence's cross-attention, BLEU against the reference typed or the dataset's own target for that
source (no BLEU without either), unknown and cut-off words flagged."""
from __future__ import annotations

from html import escape
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Slot
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox,
                               QVBoxLayout, QWidget)

from explorer.core.model.decoding import Translation, translate
from explorer.core.model.metrics import bleu
from explorer.core.data.text import UNK, tokenize
from explorer.core.data.readers import normalize_side
from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.widgets.form_controls import set_item_texts, set_row_labels
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.hint_stack_widget import HintStack
from explorer.ui.widgets.map_views_widget import LinesData, MapViews

NO_MODEL = QT_TRANSLATE_NOOP("TranslateView", "No model yet: train one, or open a saved model (Model → Open…).")
HEATMAP_HINT = QT_TRANSLATE_NOOP("TranslateView",
                                 "Translate a sentence to see which input words each output word attended to.")
BLEU_K = 2  # the book's §11.7 setting


class TranslateView(QWidget):
    """Type a sentence and translate it with the model the panel hands over (:meth:`set_model`)."""

    def __init__(self, reference_lookup: Callable[[str], str | None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._reference_lookup = reference_lookup or (lambda _sentence: None)
        self._replaying = False
        self._run_state = "idle"
        self.reference_source = ""  # "typed", "dataset" or "" (no BLEU) for the last translation
        self._model: Any = None
        self._vocabs: tuple[Any, Any] | None = None
        self._num_steps = 10
        self.result: Translation | None = None
        self.model_label = QLabel(self)
        self._model_words = ""  # what the line about the model says (Words re-worded in retranslate)
        self.model_label.setWordWrap(True)
        self.sentence_edit = QLineEdit("i'm home .", self)
        self.reference_edit = QLineEdit("", self)
        self.method_combo = QComboBox(self)
        self.method_combo.addItem("greedy", "greedy")  # the method is the item's data
        self.method_combo.addItem("beam", "beam")
        self.width_spin = QSpinBox(self)
        self.width_spin.setRange(1, 32)
        self.width_spin.setValue(4)
        self.translate_button = QPushButton(self)
        self.layer_combo = QComboBox(self)
        self.head_combo = QComboBox(self)
        self.output_label = QLabel("", self)
        self.output_label.setWordWrap(True)
        self.output_label.setProperty("i18n_data", True)  # holds the model's translation; redrawn on a new language
        self.error_label = QLabel("", self)
        self._error = ""  # why the last translation failed
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c0392b; font-weight: bold;")
        self.heatmap = HeatmapWidget()
        self.map_views = MapViews(self.heatmap, self._lines_data)  # Heatmap | Token lines, one token selection
        self.stack = HintStack(self.map_views, "", self)

        self._form = form = QFormLayout()
        form.addRow("", self.sentence_edit)
        form.addRow("", self.reference_edit)
        options = QHBoxLayout()
        options.addWidget(self.method_combo)
        options.addWidget(self.width_spin)
        options.addWidget(self.translate_button)
        options.addStretch(1)
        form.addRow("", options)
        self._options = options
        shown = QHBoxLayout()
        shown.addWidget(self.layer_combo)
        shown.addWidget(self.head_combo)
        shown.addStretch(1)
        form.addRow("", shown)
        self._shown = shown
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.model_label)
        layout.addLayout(form)
        layout.addWidget(self.output_label)
        layout.addWidget(self.error_label)
        layout.addWidget(self.stack, 1)
        self.translate_button.clicked.connect(self._on_translate_button_clicked)
        self.sentence_edit.returnPressed.connect(self._on_translate_button_clicked)
        self.method_combo.currentIndexChanged.connect(self._on_method_combo_current_index_changed)
        self.layer_combo.currentIndexChanged.connect(self._on_view_combo_changed)
        self.head_combo.currentIndexChanged.connect(self._on_view_combo_changed)
        self.width_spin.setEnabled(False)
        self.set_model(None, None, None, 10, Words(lambda: self.tr(NO_MODEL)))
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force; the model's line, the translation's (it mixes our words with
        the model's) and the map's title worded again (at build and on ``LanguageChange``)."""
        # short enough to be read whole in a narrow column; the whole story is the tool tip
        self.reference_edit.setPlaceholderText(self.tr("optional, for BLEU"))
        self.reference_edit.setToolTip(self.tr("The expected translation, for BLEU; left empty, the dataset's own "
                                               "is used when the sentence is in it"))
        set_item_texts(self.method_combo, [self.tr("greedy"), self.tr("beam")])
        self.width_spin.setPrefix(self.tr("width "))
        self.translate_button.setText(self.tr("Translate"))
        self.heatmap.set_axis_labels(self.tr("output tokens"), self.tr("input tokens"))
        self.stack.hint_label.setText(self.tr(HEATMAP_HINT))
        set_row_labels(self._form, [(self.sentence_edit, self.tr("sentence")),
                                    (self.reference_edit, self.tr("reference")),
                                    (self._options, self.tr("decoding")), (self._shown, self.tr("cross-attention of"))])
        self.model_label.setText(again(self._model_words))
        self.error_label.setText(again(self._error))
        if self._model is not None:
            self._fill_view_combos(self._model.config)
        if self.result is not None:
            self._show_result(self.result)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _say_error(self, text: str) -> None:
        self._error = text
        self.error_label.setText(text)

    def _say_model(self, text: str) -> None:
        self._model_words = text
        self.model_label.setText(text)

    # ---- model -------------------------------------------------------------------------------
    @Slot(object)
    def show_record(self, record: Any) -> None:
        """Use the state's model on offer (a ``ModelRecord``), or forget the model and its results (None)."""
        if record is None:
            self.set_model(None, None, None, 10, Words(lambda: self.tr(NO_MODEL)))
        else:
            self.set_model(record.model, record.src_vocab, record.tgt_vocab, record.num_steps,
                           Words.formatted(lambda: self.tr("Model: {origin}."), origin=record.origin))

    @Slot(object)
    def show_replay(self, speed: float | None) -> None:
        """A recorded run is being replayed (at ``speed``), or no longer (None): its model comes at its end."""
        self._replaying = speed is not None
        if self._replaying:
            self._say_why_no_model()

    @Slot(str)
    def show_run_state(self, run_state: str) -> None:
        """Say why there is no model while training runs."""
        self._run_state = run_state
        self._say_why_no_model()

    def _say_why_no_model(self) -> None:
        run_state = self._run_state
        if self._model is not None:
            return
        if self._replaying:
            self._say_model(Words(lambda: self.tr("Replaying a recorded run: pause to translate with the model it "
                                                  "kept before that point, if any; its last model arrives at the "
                                                  "end.")))
        elif run_state in ("starting", "running"):
            self._say_model(Words(lambda: self.tr("Training… pause or stop to translate with the model as it is.")))
        elif run_state in ("paused", "stopping"):
            self._say_model(Words(lambda: self.tr("The model of the last step is on its way…")))

    def set_model(self, model: Any, src_vocab: Any, tgt_vocab: Any, num_steps: int, description: str) -> None:
        """Use ``model`` (one no training touches) or ``None`` with the reason in ``description``; a new model
        forgets the previous one's translation, heatmap and messages."""
        if model is not self._model:
            self._forget_result()
            self._say_error("")
        self._model = model
        self._vocabs = (src_vocab, tgt_vocab) if model is not None else None
        self._num_steps = int(num_steps)
        self._say_model(description)
        self.translate_button.setEnabled(model is not None)
        if model is not None:
            self._fill_view_combos(model.config)

    def _fill_view_combos(self, cfg: Any) -> None:
        """The layers and heads to choose from, worded in the language in force."""
        self._fill_combo(self.layer_combo, [self.tr("layer {number}").format(number=i + 1)
                                            for i in range(cfg.num_layers)], cfg.num_layers - 1)
        self._fill_combo(self.head_combo, [self.tr("mean of heads"), *(self.tr("head {number}").format(number=h + 1)
                                                                      for h in range(cfg.num_heads))], 0)

    @property
    def has_model(self) -> bool:
        return self._model is not None

    @staticmethod
    def _fill_combo(combo: QComboBox, items: list[str], current: int) -> None:
        if [combo.itemText(i) for i in range(combo.count())] == items:
            return
        if combo.count() == len(items):  # the same choices in other words: the choice stays
            set_item_texts(combo, items)
            return
        combo.blockSignals(True)
        combo.clear()
        combo.addItems(items)
        combo.setCurrentIndex(current)
        combo.blockSignals(False)

    # ---- translating ---------------------------------------------------------------------------
    def translate_now(self) -> Translation | None:
        """Translate the sentence box; shows the result or an inline message. Returns the translation."""
        self._say_error("")
        if self._model is None or self._vocabs is None:
            self._say_error(Words(lambda: self.tr("There is no model to translate with yet.")))
            return None
        method = self.method_combo.currentData()
        try:
            result = translate(self._model, *self._vocabs, self.sentence_edit.text(), self._num_steps,
                               method=method, beam_width=self.width_spin.value())
        except ValueError as exc:  # DatasetError / DecodingError carry user-facing messages
            self._forget_result()  # the error is about this sentence: the last one's translation goes
            self._say_error(str(exc))
            return None
        self.result = result
        self._show_result(result)
        return result

    def _forget_result(self) -> None:
        """No translation shown: its text and map go (the map's hint comes back)."""
        self.result = None
        self.output_label.clear()
        self.stack.show_hint()
        self.map_views.refresh()

    def bleu_score(self, result: Translation) -> float | None:
        """BLEU (k = 2, as the book) of ``result`` against the reference typed, else the dataset's own target
        for this sentence; None without either (sets :attr:`reference_source`)."""
        reference = tokenize(normalize_side(self.reference_edit.text()))
        self.reference_source = "typed" if reference else ""
        if not reference:
            found = self._reference_lookup(self.sentence_edit.text())
            reference = tokenize(found) if found else []
            self.reference_source = "dataset" if reference else ""
        if not reference:
            return None
        return bleu(result.tokens, reference, BLEU_K)

    def _show_result(self, result: Translation) -> None:
        text = escape(result.text) if result.text else self.tr("<i>(empty)</i>")
        parts = [self.tr("<b>Translation:</b> {text}").format(text=text)]
        if not result.finished:
            parts.append(self.tr("<i>(stopped at the length limit before &lt;eos&gt;)</i>"))
        score = self.bleu_score(result)
        if score is not None:
            parts.append((self.tr("· <b>BLEU</b> {score:.3f} <i>(against the reference typed)</i>")
                          if self.reference_source == "typed" else
                          self.tr("· <b>BLEU</b> {score:.3f} <i>(against the dataset's translation)</i>")).format(
                score=score))
        if result.dropped:  # as the core cut them: the map's columns are the words read
            parts.append("<br><span style='color:#b9770e'>" + self.tr(
                "The model reads at most {count} words: cut off {words}").format(
                count=len(result.src_tokens), words=escape(" ".join(result.dropped))) + "</span>")
        if result.unknown:
            parts.append("<br><span style='color:#b9770e'>" + self.tr(
                "Unknown to the model (read as {unk}): {words}").format(
                unk=escape(UNK), words=", ".join(escape(w) for w in result.unknown)) + "</span>")
        self.output_label.setText(" ".join(parts))
        self._draw_attention()

    def _draw_attention(self) -> None:
        result = self.result
        if result is None or result.cross_attention is None or result.cross_attention.shape[2] == 0:
            return
        cross = result.cross_attention  # (L, h, out_len, src_len)
        layer = min(max(self.layer_combo.currentIndex(), 0), cross.shape[0] - 1)
        head = self.head_combo.currentIndex() - 1
        matrix = cross[layer].mean(axis=0) if head < 0 else cross[layer, min(head, cross.shape[1] - 1)]
        unknown = set(result.unknown)
        cols = [f"{w} ({UNK})" if w in unknown else w for w in result.src_tokens]
        self.heatmap.set_matrix(np.asarray(matrix), result.row_labels, cols)
        self.stack.show_content()
        self.map_views.selection.fit(*matrix.shape)
        self.heatmap.highlight_row(self.map_views.selection.query)
        self.map_views.refresh()
        self.heatmap.set_title((self.tr("cross-attention · layer {layer} · mean of heads") if head < 0 else
                                self.tr("cross-attention · layer {layer} · head {head}")).format(layer=layer + 1,
                                                                                                  head=head + 1))

    def _lines_data(self) -> LinesData:
        """The token lines of the layer shown: its every head, those overlaid the one chosen (all for the mean)."""
        result, matrix = self.result, self.heatmap.matrix
        if result is None or result.cross_attention is None or matrix is None:
            return None
        cross = result.cross_attention  # (L, h, out_len, src_len)
        layer = min(max(self.layer_combo.currentIndex(), 0), cross.shape[0] - 1)
        head = self.head_combo.currentIndex() - 1
        shown = list(range(cross.shape[1])) if head < 0 else [min(head, cross.shape[1] - 1)]
        labels = [self.tr("head {number}").format(number=h + 1) for h in range(cross.shape[1])]
        return np.asarray(cross[layer]), self.heatmap.row_labels, self.heatmap.col_labels, labels, shown

    def export_target(self) -> ExportTarget:
        """The decoded sentence's cross-attention for File → Export."""
        target = self.heatmap.token_export_target("translation cross-attention")
        target.label = self.tr("Translation cross-attention")
        return target

    # ---- slots -------------------------------------------------------------------------------
    @Slot()
    def _on_translate_button_clicked(self) -> None:
        self.translate_now()

    @Slot(int)
    def _on_method_combo_current_index_changed(self, _index: int) -> None:
        self.width_spin.setEnabled(self.method_combo.currentData() == "beam")

    @Slot(int)
    def _on_view_combo_changed(self, _index: int) -> None:
        self._draw_attention()
