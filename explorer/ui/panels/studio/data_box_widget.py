"""The studio's data box (book §10.5 data, §11.7 probe): bundled corpus, a user's file or a synthetic task,
what loading found (pairs, vocabulary sizes, skipped lines), and the probe pair whose attention is drawn."""
from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Signal, Slot
from PySide6.QtWidgets import (QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QSpinBox, QWidget)

from explorer.core.data_sources import DataSource, load_source
from explorer.core.tasks import default_probe
from explorer.core.text import build_dataset

#: The book's probe sentence (one of the four §11.7 translates perfectly).
BOOK_PROBE = ("i'm home .", "je suis chez moi .")
#: Built-in and task sources up to this many pairs load at once (≤ ~30 ms); larger ones and files in the background.
QUICK_PAIRS = 1000
SOURCES = (("Built-in English–French", "builtin"), ("Task: copy", "task:copy"),
           ("Task: reverse", "task:reverse"), ("Task: sort", "task:sort"))


@dataclass(frozen=True)
class LoadRequest:
    """One request to load a source (plain values, safe to hand to a worker thread)."""

    spec: str
    num_examples: int
    num_steps: int
    min_freq: int
    seed: int


@dataclass(frozen=True)
class LoadedData:
    """What :func:`load_data` found: the pairs and the vocabulary sizes (plain data, no widgets)."""

    request: LoadRequest
    source: DataSource
    vocab_sizes: tuple[int, int]


_GC_LOCK = threading.Lock()
_GC_HOLDERS = [0]


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a worker builds millions of small objects.

    Its full collections hold the GIL for 80–150 ms each (measured: five of them while reading a 235k-line
    file), i.e. the GUI thread stalls even though the work runs elsewhere. Nested and concurrent uses nest.
    """
    with _GC_LOCK:
        _GC_HOLDERS[0] += 1
        if _GC_HOLDERS[0] == 1:
            gc.disable()
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_HOLDERS[0] -= 1
            if _GC_HOLDERS[0] == 0:
                gc.enable()


def load_data(request: LoadRequest) -> LoadedData:
    """Read the source and build its vocabularies (runs on a worker thread for files).

    Raises ``DatasetError``/``ValueError`` with a message fit for users.
    """
    with cyclic_gc_paused():
        source = load_source(request.spec, request.num_examples, seed=request.seed)
        dataset = build_dataset(source.pairs, request.num_steps, request.min_freq)
    return LoadedData(request, source, (len(dataset.src_vocab), len(dataset.tgt_vocab)))


def source_label(spec: str) -> str:
    """A short name of a source spec for messages: the file name, or the combo's wording."""
    for label, value in SOURCES:
        if value == spec:
            return label
    return Path(spec).name


class DataBox(QGroupBox):
    """Choose and load the training pairs; edit the probe pair.

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
        super().__init__("Data", parent)
        self.source: DataSource | None = None
        self.vocab_sizes: tuple[int, int] = (0, 0)
        self._probe_edited = False
        form = QFormLayout(self)
        self.source_combo = QComboBox(self)
        for label, spec in SOURCES:
            self.source_combo.addItem(label, spec)
        self.open_button = QPushButton("Open…", self)
        self.open_button.setToolTip("Open a Tatoeba-style file (English<TAB>French per line, .txt/.tsv/.zip)")
        row = QHBoxLayout()
        row.addWidget(self.source_combo, 1)
        row.addWidget(self.open_button)
        form.addRow("source", row)
        self.num_examples = QSpinBox(self)
        self.num_examples.setRange(1, 10_000_000)
        self.num_examples.setValue(600)
        self.num_examples.setKeyboardTracking(False)
        form.addRow("pairs to use", self.num_examples)
        self.info = QLabel("", self)
        self.info.setWordWrap(True)
        form.addRow(self.info)
        self.probe_src = QLineEdit(BOOK_PROBE[0], self)
        self.probe_tgt = QLineEdit(BOOK_PROBE[1], self)
        self.probe_src.setToolTip("Source sentence whose attention is drawn while training")
        self.probe_tgt.setToolTip("Its target sentence (teacher-forced into the decoder)")
        form.addRow("probe source", self.probe_src)
        form.addRow("probe target", self.probe_tgt)
        self.source_combo.currentIndexChanged.connect(self._on_source_combo_current_index_changed)
        self.num_examples.valueChanged.connect(self._on_num_examples_value_changed)
        self.open_button.clicked.connect(self._on_open_button_clicked)
        self.probe_src.textEdited.connect(self._on_probe_text_edited)
        self.probe_tgt.textEdited.connect(self._on_probe_text_edited)

    # ---- reading ----------------------------------------------------------------------------
    def source_spec(self) -> str:
        """``builtin``, ``task:<name>`` or a file path."""
        return str(self.source_combo.currentData())

    def task_name(self) -> str | None:
        """The synthetic task chosen, or None for a translation corpus."""
        spec = self.source_spec()
        return spec.split(":", 1)[1] if spec.startswith("task:") else None

    def probe(self) -> tuple[str, str]:
        """The probe pair as typed."""
        return self.probe_src.text().strip(), self.probe_tgt.text().strip()

    @property
    def probe_edited(self) -> bool:
        """Whether the user typed the probe pair (then a source change keeps it)."""
        return self._probe_edited

    # ---- loading -----------------------------------------------------------------------------
    def loads_quickly(self) -> bool:
        """Whether the chosen source is small and in memory (loaded at once); files load in the background."""
        spec = self.source_spec()
        return (spec == "builtin" or spec.startswith("task:")) and self.num_examples.value() <= QUICK_PAIRS

    def request(self, num_steps: int, min_freq: int, seed: int = 0) -> LoadRequest:
        """What :func:`load_data` needs to load the chosen source."""
        return LoadRequest(self.source_spec(), self.num_examples.value(), num_steps, min_freq, seed)

    def show_loading(self) -> None:
        """Say that the chosen source is being read (the previous one stays usable until it is ready)."""
        self.info.setText(f"Loading {source_label(self.source_spec())}…")

    def apply(self, loaded: LoadedData) -> None:
        """Use a source :func:`load_data` has read."""
        source = loaded.source
        self.source = source
        self.vocab_sizes = loaded.vocab_sizes
        skipped = ""
        if source.skipped:
            lines = ", ".join(map(str, source.skipped_lines[:5])) + ("…" if source.skipped > 5 else "")
            skipped = f" · {source.skipped} malformed line(s) skipped (line {lines})"
        self.info.setText(f"{source.name} · vocabulary {self.vocab_sizes[0]} source / "
                          f"{self.vocab_sizes[1]} target tokens{skipped}")
        if not self._probe_edited:
            self.set_probe(*self.default_probe())

    def apply_error(self, message: str) -> None:
        """The chosen source could not be loaded: no source, the reason in the box."""
        self.source = None
        self.info.setText(f"<span style='color:#c0392b'>{message}</span>")

    def show_source(self, text: str) -> None:
        """Put back the description of the source in use (after a refused file)."""
        self.info.setText(text)

    def default_probe(self) -> tuple[str, str]:
        """A task sample, the book sentence for the bundled corpus, or a file's first pair."""
        task = self.task_name()
        if task:
            return default_probe(task)
        if self.source_spec() != "builtin" and self.source is not None and self.source.pairs:
            return self.source.pairs[0]
        return BOOK_PROBE

    # ---- writing ----------------------------------------------------------------------------
    def choose_file(self, path: str) -> int:
        """Add (or select) a dataset file as the source without signalling; returns the previous index."""
        previous = self.source_combo.currentIndex()
        with QSignalBlocker(self.source_combo):
            index = self.source_combo.findData(path)
            if index < 0:
                self.source_combo.addItem(f"File: {Path(path).name}", path)
                index = self.source_combo.count() - 1
            self.source_combo.setCurrentIndex(index)
        return previous

    def forget_files(self, paths: set[str], select_spec: str | None) -> None:
        """Undo :meth:`choose_file` for refused or superseded files and select ``select_spec`` again."""
        with QSignalBlocker(self.source_combo):
            for path in paths:
                index = self.source_combo.findData(path)
                if index >= 0 and path != select_spec:
                    self.source_combo.removeItem(index)
            index = self.source_combo.findData(select_spec) if select_spec is not None else -1
            if index >= 0:
                self.source_combo.setCurrentIndex(index)

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
