"""The studio's data box (book §10.5 data, §11.7 probe): bundled corpus, a user's file or a synthetic task,
what loading found (pairs, vocabulary sizes, skipped lines), and the probe pair whose attention is drawn."""
from __future__ import annotations

import math
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal, Slot
from PySide6.QtWidgets import (QComboBox, QFormLayout, QGroupBox, QLabel, QLineEdit, QPushButton, QSpinBox,
                               QVBoxLayout, QWidget)

from explorer.core.data.tasks import default_probe
from explorer.ui.widgets.form_controls import set_row_labels
from explorer.ui.panels.studio.data_loading import BOOK_PROBE, SOURCES, LoadRequest, source_label, source_name

if TYPE_CHECKING:
    from explorer.ui.panels.studio.data_state import DataState


class DataBox(QGroupBox):
    """Choose the training pairs and show what loading found (a view of a ``DataState``); edit the probe pair.

    Signals
    -------
    source_changed(): the source or the number of pairs changed (the panel reloads).
    probe_edited(): the user typed in the probe pair.
    open_file_clicked(): the user asked to open a dataset file.
    """

    source_changed = Signal()
    probe_edited = Signal()
    open_file_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._data_state: DataState | None = None
        self._probe_edited = False
        self._form = form = QFormLayout(self)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.source_combo = QComboBox(self)
        self.source_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        for _label, spec in SOURCES:
            self.source_combo.addItem(source_label(spec), spec)
        self.open_button = QPushButton(self)
        # the button under the combo: beside it, the combo had no room for "Built-in English–French"
        self._source_row = row = QVBoxLayout()
        row.addWidget(self.source_combo)
        row.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignRight)
        form.addRow("", row)
        self.num_examples = QSpinBox(self)
        self.num_examples.setRange(1, 10_000_000)
        self.num_examples.setValue(600)
        self.num_examples.setKeyboardTracking(False)
        form.addRow("", self.num_examples)
        self.info = QLabel("", self)
        self.info.setWordWrap(True)
        form.addRow(self.info)
        self.probe_src = QLineEdit(BOOK_PROBE[0], self)
        self.probe_tgt = QLineEdit(BOOK_PROBE[1], self)
        form.addRow("", self.probe_src)
        form.addRow("", self.probe_tgt)
        self.source_combo.currentIndexChanged.connect(self._on_source_combo_current_index_changed)
        self.num_examples.valueChanged.connect(self._on_num_examples_value_changed)
        self.open_button.clicked.connect(self._on_open_button_clicked)
        self.probe_src.textEdited.connect(self._on_probe_text_edited)
        self.probe_tgt.textEdited.connect(self._on_probe_text_edited)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the box's texts in the language in force, the sources' names and what loading found worded again
        (at build and on ``LanguageChange``)."""
        self.setTitle(self.tr("Data"))
        self.open_button.setText(self.tr("Open…"))
        self.open_button.setToolTip(self.tr("Open a Tatoeba-style file (English<TAB>French per line, .txt/.tsv/.zip)"))
        self.probe_src.setToolTip(self.tr("Source sentence whose attention is drawn while training"))
        self.probe_tgt.setToolTip(self.tr("Its target sentence (teacher-forced into the decoder)"))
        set_row_labels(self._form, [(self._source_row, self.tr("source")), (self.num_examples, self.tr("pairs to use")),
                                    (self.probe_src, self.tr("probe source")),
                                    (self.probe_tgt, self.tr("probe target"))])
        builtins = {spec for _label, spec in SOURCES}
        with QSignalBlocker(self.source_combo):
            for i in range(self.source_combo.count()):
                spec = str(self.source_combo.itemData(i))
                self.source_combo.setItemText(i, source_label(spec) if spec in builtins else self._file_label(spec))
        # the built-in sources' names are read whole; a long file name is elided rather than widening the column
        metrics = self.source_combo.fontMetrics()
        widest = max(metrics.horizontalAdvance(source_label(spec)) for spec in builtins)
        self.source_combo.setMinimumContentsLength(math.ceil(widest / max(metrics.horizontalAdvance("x"), 1)))
        if self._data_state is not None:
            self._show_info(self._data_state)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _file_label(self, path: str) -> str:
        return self.tr("File: {name}").format(name=Path(path).name)

    # ---- reading ----------------------------------------------------------------------------
    def source_spec(self) -> str:
        """``builtin``, ``task:<name>`` or a file path."""
        return str(self.source_combo.currentData())

    def probe(self) -> tuple[str, str]:
        """The probe pair as typed."""
        return self.probe_src.text().strip(), self.probe_tgt.text().strip()

    def probe_typed(self) -> bool:
        """Whether the user typed the probe pair (then a source change keeps it)."""
        return self._probe_edited

    # ---- loading -----------------------------------------------------------------------------
    def request(self, num_steps: int, min_freq: int, seed: int = 0) -> LoadRequest:
        """What :func:`load_data` needs to load the chosen source."""
        return LoadRequest(self.source_spec(), self.num_examples.value(), num_steps, min_freq, seed)

    @Slot()
    def show_data_state(self) -> None:
        """Mirror the bound :class:`DataState`: the files offered, the source chosen, and what loading found
        (or why it failed); a default probe for the new source unless the user typed one."""
        data = self._data_state
        if data is None:
            return
        builtins = {spec for _label, spec in SOURCES}
        current = data.loading or data.loaded or data.failed
        with QSignalBlocker(self.source_combo):
            for i in reversed(range(self.source_combo.count())):
                spec = self.source_combo.itemData(i)
                if spec not in builtins and spec not in data.files and (current is None or spec != current.spec):
                    self.source_combo.removeItem(i)
            if current is not None:
                self.choose_file(current.spec)
        self._show_info(data)
        if data.loading is None and not self._probe_edited:
            self.set_probe(*self.default_probe(data))

    def _show_info(self, data: DataState) -> None:
        """What loading found (pairs, vocabularies, skipped lines), or that it is loading, or why it failed."""
        source = data.source
        if data.loading is not None:
            self.info.setText(self.tr("Loading {source}…").format(source=source_label(data.loading.spec)))
        elif source is not None:
            if source.skipped:
                text = self.tr("{source} · vocabulary {source_tokens} source / {target_tokens} target tokens · "
                               "%n malformed line(s) skipped (line {lines})", "", source.skipped)
            else:
                text = self.tr("{source} · vocabulary {source_tokens} source / {target_tokens} target tokens")
            lines = ", ".join(map(str, source.skipped_lines[:5])) + ("…" if source.skipped > 5 else "")
            self.info.setText(text.format(source=source_name(data.loaded.spec, source) if data.loaded else source.name,
                                          source_tokens=data.vocab_sizes[0], target_tokens=data.vocab_sizes[1],
                                          lines=lines))
        elif data.error:
            self.info.setText(f"<span style='color:#c0392b'>{escape(data.error)}</span>")

    def bind(self, data: DataState) -> None:
        """Show ``data`` from now on (the panel asks it to load when the user chooses a source)."""
        self._data_state = data
        data.changed.connect(self.show_data_state)
        self.show_data_state()

    def default_probe(self, data: DataState) -> tuple[str, str]:
        """A task sample, the book sentence for the bundled corpus, or a file's first pair."""
        task = data.task()
        if task:
            return default_probe(task)
        if data.loaded is not None and data.loaded.spec != "builtin" and data.source is not None and data.source.pairs:
            return data.source.pairs[0]
        return BOOK_PROBE

    # ---- writing ----------------------------------------------------------------------------
    def choose_file(self, path: str) -> int:
        """Select a source spec, adding a file's item when missing, without signalling; returns the previous index."""
        previous = self.source_combo.currentIndex()
        with QSignalBlocker(self.source_combo):
            index = self.source_combo.findData(path)
            if index < 0:
                self.source_combo.addItem(self._file_label(path), path)
                index = self.source_combo.count() - 1
            self.source_combo.setCurrentIndex(index)
        return previous

    def set_probe(self, src: str, tgt: str, user: bool = False) -> None:
        """Fill the probe pair (``user=False``: a default that a source change may replace)."""
        self.probe_src.setText(src)
        self.probe_tgt.setText(tgt)
        self._probe_edited = user

    def set_editable(self, editable: bool) -> None:
        """Lock the box while training runs."""
        for widget in (self.source_combo, self.open_button, self.num_examples, self.probe_src, self.probe_tgt):
            widget.setEnabled(editable)

    # ---- slots -------------------------------------------------------------------------------
    @Slot(int)
    def _on_source_combo_current_index_changed(self, _index: int) -> None:
        self.source_changed.emit()

    @Slot(int)
    def _on_num_examples_value_changed(self, _value: int) -> None:
        self.source_changed.emit()

    @Slot()
    def _on_open_button_clicked(self) -> None:
        self.open_file_clicked.emit()

    @Slot(str)
    def _on_probe_text_edited(self, _text: str) -> None:
        self._probe_edited = True
        self.probe_edited.emit()
