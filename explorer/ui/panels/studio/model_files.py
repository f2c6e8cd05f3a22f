"""The studio's model files (book §11.7): save/open checkpoints, the probe's attention from a model that is not
training, and a model rebuilt from the weights a training process sends."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PySide6.QtCore import QCoreApplication

from explorer.core.training.checkpoint import load_model, save_model
from explorer.core.training.events import SnapshotEvent
from explorer.core.training.probe import probe_attention
from explorer.core.model.transformer import Seq2SeqTransformer
from explorer.ui.i18n.words import Words



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


def model_from_state(state: dict[str, np.ndarray], train_config: Any, src_vocab: Any, tgt_vocab: Any) -> Any:
    """An eval-mode CPU :class:`Seq2SeqTransformer` holding ``state`` (the weights a training process sent
    at a step boundary, shared, not copied); no other thread or process touches it. Built without drawing random
    weights first: on the GUI thread at every pause, that took ~0.4 s for a 512-wide, 6-layer model."""
    tensors = {name: torch.from_numpy(array) for name, array in state.items()}
    return Seq2SeqTransformer.from_weights(train_config.model, len(src_vocab), len(tgt_vocab), tensors).eval()


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
    origin = Words.formatted(lambda: QCoreApplication.translate(
        "ModelFiles", "opened {name} ({layers} layers, {heads} heads, {hiddens} hidden)"), name=Path(path).name,
        layers=cfg.num_layers, heads=cfg.num_heads, hiddens=cfg.num_hiddens)
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
