"""Which model the anatomy panel looks inside (book §11.7): the book's Transformer built untrained, the model the
studio offers (trained there, paused or opened), or a checkpoint file."""
from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Signal, Slot
from PySide6.QtWidgets import (QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout,
                               QWidget)

from explorer.core.chapter.anatomy_model import AnatomyModel, builtin_model, from_record
from explorer.core.training.checkpoint import load_model
from explorer.ui.widgets.form_controls import combo_box, set_item_texts, spin_box
from explorer.ui.widgets.file_dialogs import open_file_name

SOURCES = (QT_TRANSLATE_NOOP("ModelSource", "built-in (untrained)"),
           QT_TRANSLATE_NOOP("ModelSource", "the studio's model"),
           QT_TRANSLATE_NOOP("ModelSource", "a model file"))  # keys of the combo, and its English texts


def opened_model(path: str) -> AnatomyModel:
    """A checkpoint read on the CPU; raises ``CheckpointError``/``OSError`` with a message fit for users."""
    loaded = load_model(path, device="cpu")
    cfg = loaded.model_config
    return from_record(loaded.model, loaded.src_vocab, loaded.tgt_vocab,
                       f"opened {Path(path).name} ({cfg.num_layers} layers, d = {cfg.num_hiddens})")


def studio_record(widget: QWidget) -> Any:
    """The model record the studio panel offers now (read only), or None: no studio built, or no model yet."""
    window = widget.window()
    panel = window.panel("studio") if hasattr(window, "panel") else None
    state = getattr(panel, "studio_state", None)
    return getattr(state, "record", None)


class ModelSource(QGroupBox):
    """The model controls. Signal ``source_changed()`` when another model is chosen."""

    source_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = combo_box([(s, s) for s in SOURCES], SOURCES[0])
        self.seed_spin = spin_box(0, 9999, 0)
        self.path_edit = QLineEdit()
        self.path_edit.setReadOnly(True)
        self.open_button = QPushButton()
        self.origin_label = QLabel()
        self.origin_label.setWordWrap(True)
        self.origin_label.setEnabled(False)  # muted: a note, not a control
        seed_row, file_row = QHBoxLayout(), QHBoxLayout()
        self._seed_label = QLabel()
        seed_row.addWidget(self._seed_label)
        seed_row.addWidget(self.seed_spin, 1)
        file_row.addWidget(self.path_edit, 1)
        file_row.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.combo)
        layout.addLayout(seed_row)
        layout.addLayout(file_row)
        layout.addWidget(self.origin_label)
        self._studio_model: Any = None  # the studio's model last used
        self.combo.currentIndexChanged.connect(self._on_combo_current_index_changed)
        self.seed_spin.valueChanged.connect(self._on_seed_spin_value_changed)
        self.open_button.clicked.connect(self._on_open_button_clicked)
        self._sync()
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force (at build and on ``LanguageChange``); the panel words the
        model's origin again itself."""
        self.setTitle(self.tr("Model"))
        set_item_texts(self.combo, [self.tr(s) for s in SOURCES])
        self.combo.setToolTip(self.tr("the model whose blocks are shown"))
        self.seed_spin.setToolTip(self.tr("seed of the untrained model's Xavier initialisation"))
        self.path_edit.setPlaceholderText(self.tr("no file chosen"))
        self.open_button.setText(self.tr("Open…"))
        self.open_button.setToolTip(self.tr("choose a model saved by the studio or the command line"))
        self._seed_label.setText(self.tr("seed"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # --- what to load ------------------------------------------------------------------------
    def kind(self) -> int:
        return self.combo.currentIndex()

    def key(self) -> tuple:
        """Identifies the model the controls describe (the panel reuses a model while this stays equal)."""
        if self.kind() == 0:
            return ("builtin", self.seed_spin.value())
        if self.kind() == 1:
            return ("studio", id(self._studio_model))
        return ("file", self.path_edit.text())

    def loader(self) -> AnatomyModel | Callable[[], AnatomyModel]:
        """A model, or a function building one on the worker thread. Raises ``ValueError`` (shown to the user)
        when there is nothing to load."""
        if self.kind() == 0:
            return functools.partial(builtin_model, self.seed_spin.value())
        if self.kind() == 1:
            record = self._studio_model
            if record is None:
                raise ValueError(self.tr("The studio has no model to look into yet: train (then pause or finish) or "
                                         "open one there, or choose the built-in model."))
            return from_record(record.model, record.src_vocab, record.tgt_vocab,
                               self.tr("the studio's: {origin}").format(origin=record.origin))
        if not self.path_edit.text():
            raise ValueError(self.tr("Choose a model file (Open…), or the built-in model."))
        return functools.partial(opened_model, self.path_edit.text())

    def refresh_studio(self) -> bool:
        """Take the studio's current model; True if it differs from the one used so far."""
        record = studio_record(self)
        changed = record is not self._studio_model
        self._studio_model = record
        return changed and self.kind() == 1

    def set_path(self, path: str) -> None:
        """Use the checkpoint ``path`` (and switch to it)."""
        self.path_edit.setText(path)
        if self.kind() != 2:
            self.combo.setCurrentIndex(2)  # emits through _on_combo_current_index_changed
        else:
            self.source_changed.emit()

    def origin_text(self, key: tuple | None, fallback: str) -> str:
        """Where the model of ``key`` (see :meth:`key`) comes from, in the language in force."""
        if key is not None and key[0] == "builtin":
            return self.tr("built-in, untrained (seed {seed})").format(seed=key[1])
        if key is not None and key[0] == "file":
            return self.tr("opened {name}").format(name=Path(key[1]).name)
        if key is not None and key[0] == "studio" and self._studio_model is not None and \
                key[1] == id(self._studio_model):
            return self.tr("the studio's: {origin}").format(origin=self._studio_model.origin)
        return fallback

    def set_origin(self, text: str) -> None:
        self.origin_label.setText(text)

    def sync_controls(self) -> bool:
        """Enable the rows of the source chosen and take the studio's model (after values were set silently);
        True if the studio's model is the source and differs from the one used so far (see :meth:`refresh_studio`)."""
        self._sync()
        return self.refresh_studio()

    # --- internals --------------------------------------------------------------------------
    def _sync(self) -> None:
        kind = self.kind()
        self.seed_spin.setEnabled(kind == 0)
        self.path_edit.setEnabled(kind == 2)
        self.open_button.setEnabled(kind == 2)

    @Slot(int)
    def _on_combo_current_index_changed(self, _index: int) -> None:
        self._sync()
        if self.kind() == 1:
            self.refresh_studio()
        self.source_changed.emit()

    @Slot(int)
    def _on_seed_spin_value_changed(self, _value: int) -> None:
        self.source_changed.emit()

    @Slot()
    def _on_open_button_clicked(self) -> None:
        path = open_file_name(self, self.tr("Open model"),
                              self.tr("Attention Explorer model (*.safetensors);;All files (*)"))
        if path:
            self.set_path(path)
