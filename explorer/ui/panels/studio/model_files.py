"""The studio's "Model" menu and model files (book §11.7): save/open checkpoints, the probe's attention from a
model that is not training, and a model rebuilt from the weights a training process sends."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from explorer.core.checkpoint import SUFFIX, load_model, save_model
from explorer.core.events import SnapshotEvent
from explorer.core.probe import probe_attention
from explorer.core.transformer import Seq2SeqTransformer

CHECKPOINT_FILTER = f"Attention Explorer model (*{SUFFIX})"
DATASET_FILTER = "Sentence pairs (*.txt *.tsv *.zip);;All files (*)"
DATASET_SUFFIXES = (".txt", ".tsv", ".zip")


@dataclass
class ModelRecord:
    """A model the GUI may use (never one the training thread is stepping) and what it needs."""

    model: Any  # Seq2SeqTransformer
    src_vocab: Any
    tgt_vocab: Any
    train_config: Any  # TrainingConfig | None
    history: Any
    num_steps: int
    origin: str  # shown to the user: "trained here (step 120)", "opened fra.safetensors", …


class ModelMenu(QMenu):
    """Model → Save…, Open…, Open dataset…; asks for the file, then signals the path chosen.

    Signals
    -------
    save_chosen(str), open_chosen(str), dataset_chosen(str).
    """

    save_chosen = Signal(str)
    open_chosen = Signal(str)
    dataset_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("&Model", parent)
        self.save_action = QAction("&Save model…", self)
        self.open_action = QAction("&Open model…", self)
        self.dataset_action = QAction("Open &dataset…", self)
        self.save_action.setToolTip("Save the trained (or paused) model with its vocabularies and settings")
        self.open_action.setToolTip("Open a model saved here or by the command line, to inspect and translate")
        for action in (self.save_action, self.open_action):
            self.addAction(action)
        self.addSeparator()
        self.addAction(self.dataset_action)
        self.save_action.triggered.connect(self._on_save_action_triggered)
        self.open_action.triggered.connect(self._on_open_action_triggered)
        self.dataset_action.triggered.connect(self._on_dataset_action_triggered)

    @Slot()
    def _on_save_action_triggered(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.parentWidget(), "Save model", f"transformer{SUFFIX}",
                                              CHECKPOINT_FILTER)
        if path:
            self.save_chosen.emit(path)

    @Slot()
    def _on_open_action_triggered(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.parentWidget(), "Open model", "", CHECKPOINT_FILTER)
        if path:
            self.open_chosen.emit(path)

    @Slot()
    def _on_dataset_action_triggered(self) -> None:
        path = ask_dataset_path(self.parentWidget())
        if path:
            self.dataset_chosen.emit(path)


def ask_dataset_path(parent: QWidget | None) -> str:
    """File dialog for a sentence-pair file; '' if cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, "Open sentence pairs", "", DATASET_FILTER)
    return path


def model_from_state(state: dict[str, np.ndarray], train_config: Any, src_vocab: Any, tgt_vocab: Any) -> Any:
    """An eval-mode CPU :class:`Seq2SeqTransformer` holding ``state`` (the weights a training process sent
    at a step boundary); no other thread or process touches it."""
    model = Seq2SeqTransformer(train_config.model, len(src_vocab), len(tgt_vocab))
    model.load_state_dict({name: torch.from_numpy(array) for name, array in state.items()})
    model.eval()
    return model


def probe_snapshot(record: ModelRecord, probe: tuple[str, str], step: int = 0, epoch: int = 0) -> SnapshotEvent:
    """The probe pair's attention maps from a model that is not training (the trainer's own function).

    Raises ``DatasetError`` (a ``ValueError``) for an empty probe sentence.
    """
    return probe_attention(record.model, record.src_vocab, record.tgt_vocab, probe[0], probe[1],
                           record.num_steps, step=step, epoch=epoch)


def open_record(path: str, fallback_num_steps: int) -> tuple[ModelRecord, Any]:
    """Load a checkpoint on the CPU as a :class:`ModelRecord` (plus the core ``LoadedModel``).

    Raises ``CheckpointError`` (a ``ValueError``) or ``OSError`` with a message fit for users.
    """
    loaded = load_model(path, device="cpu")
    num_steps = loaded.train_config.num_steps if loaded.train_config is not None else fallback_num_steps
    cfg = loaded.model_config
    origin = (f"opened {Path(path).name} ({cfg.num_layers} layers, {cfg.num_heads} heads, "
              f"{cfg.num_hiddens} hidden)")
    record = ModelRecord(loaded.model, loaded.src_vocab, loaded.tgt_vocab, loaded.train_config,
                         loaded.history, num_steps, origin)
    return record, loaded


@dataclass
class OpenedModel:
    """A checkpoint read on a worker thread: the record, the probe's attention (or why it cannot be drawn).
    Plain data and a CPU model that no other thread uses."""

    record: ModelRecord
    snapshot: SnapshotEvent | None
    probe_error: str


def open_model_job(path: str, fallback_num_steps: int, probe: tuple[str, str]) -> OpenedModel:
    """Everything opening a model takes (runs on a worker thread); raises like :func:`open_record`."""
    record, _loaded = open_record(path, fallback_num_steps)
    steps = len(getattr(record.history, "step_loss", None) or [])
    epochs = len(getattr(record.history, "epoch_loss", None) or [])
    try:
        snapshot, error = probe_snapshot(record, probe, step=steps, epoch=epochs), ""
    except ValueError as exc:
        snapshot, error = None, str(exc)
    return OpenedModel(record, snapshot, error)


def save_record(path: str, record: ModelRecord, source_name: str = "") -> Path:
    """Save a :class:`ModelRecord` with ``checkpoint.save_model``; raises ``CheckpointError``/``OSError``."""
    return save_model(path, record.model, record.train_config, record.src_vocab, record.tgt_vocab,
                      record.history, source_name=source_name)
