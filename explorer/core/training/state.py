"""What an exact resume of a §11.7 training run needs, and its place in a checkpoint file.

A :class:`TrainerState` is taken at an epoch boundary: weights, Adam's moments and step count, the shuffling
generator, the loss history and the clock. Dropout needs no saved state: its stream is reseeded at every epoch
from (seed, rank, epoch) (:func:`dropout_seed`). In a checkpoint the extra tensors are stored under
``train_state.*`` beside the model's own, so the same file still opens as a plain model (``load_model``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from explorer.core.checks import is_number, is_whole
from explorer.core.training.checkpoint import (TRAIN_STATE_PREFIX, LoadedModel, build_loaded_model,
                                               encode_checkpoint, model_meta, write_checkpoint_bytes)
from explorer.core.training.checkpoint_read import CheckpointError, load_checkpoint
from explorer.core.model.transformer import ConfigError
from explorer.core.training.config import TrainingHistory, check_live_settings

if TYPE_CHECKING:
    from explorer.core.data.text import Vocab
    from explorer.core.training.config import TrainingConfig

_SHUFFLE_STATE_BYTES = torch.Generator().get_state().numel()  # the CPU generator's state (Mersenne Twister)


def dropout_seed(seed: int, rank: int, epoch: int) -> int:
    """The seed of the dropout stream of ``epoch`` (0-based) on ``rank``: distinct per (seed, rank, epoch).

    Reseeding each epoch makes a resumed run draw the same masks as an uninterrupted one without saving any
    generator state, whatever the number of ranks that trained the epochs before.
    """
    return int(np.random.SeedSequence([int(seed), 1, int(rank), int(epoch)]).generate_state(1, np.uint64)[0])


@dataclass
class TrainerState:
    """A trainer's state at an epoch boundary (``step == epoch * num_batches``).

    ``model`` is a CPU copy of ``state_dict()``; ``exp_avg``/``exp_avg_sq`` are Adam's moments over the flat
    parameter buffer (N,) in ``model.parameters()`` order; ``shuffle_rng`` the batch-shuffling generator's
    state (uint8); ``elapsed_s``/``tokens`` the active training time and target tokens so far. ``settings`` holds
    what changed while training (``lr`` the base rate, ``grad_clip``, ``dropout``) and ``schedule_steps`` (the
    steps a cosine schedule spans); None: the run's config as started.
    """

    step: int
    epoch: int
    model: dict[str, Tensor]
    exp_avg: Tensor
    exp_avg_sq: Tensor
    adam_steps: int
    shuffle_rng: Tensor
    history: TrainingHistory = field(default_factory=TrainingHistory)
    elapsed_s: float = 0.0
    tokens: int = 0
    settings: dict[str, float] | None = None

    def counters(self) -> dict[str, Any]:
        """The scalar part, as stored in a checkpoint's metadata."""
        out: dict[str, Any] = {"step": self.step, "epoch": self.epoch, "adam_steps": self.adam_steps,
                               "elapsed_s": self.elapsed_s, "tokens": self.tokens}
        if self.settings is not None:
            out["settings"] = dict(self.settings)
        return out


def save_training_checkpoint(path: str | os.PathLike[str], state: TrainerState, train_config: TrainingConfig,
                             src_vocab: Vocab, tgt_vocab: Vocab, source_name: str = "",
                             device: str = "cpu", extra: dict[str, Any] | None = None) -> Path:
    """Atomically write ``state`` as a model checkpoint plus ``train_state.*`` tensors and metadata."""
    return write_checkpoint_bytes(path, encode_training_checkpoint(state, train_config, src_vocab, tgt_vocab,
                                                                   source_name, device, extra))


def encode_training_checkpoint(state: TrainerState, train_config: TrainingConfig, src_vocab: Vocab,
                               tgt_vocab: Vocab, source_name: str = "", device: str = "cpu",
                               extra: dict[str, Any] | None = None) -> bytes:
    """The bytes :func:`save_training_checkpoint` writes (torch work: see ``checkpoint.encode_checkpoint``)."""
    tensors = dict(state.model)
    tensors[TRAIN_STATE_PREFIX + "exp_avg"] = state.exp_avg
    tensors[TRAIN_STATE_PREFIX + "exp_avg_sq"] = state.exp_avg_sq
    tensors[TRAIN_STATE_PREFIX + "shuffle_rng"] = state.shuffle_rng
    meta = model_meta(train_config.model, train_config, src_vocab, tgt_vocab, state.history, source_name, device)
    meta["train_state"] = state.counters()
    if extra:
        meta.update(extra)
    return encode_checkpoint(tensors, meta)


def _int(meta: dict[str, Any], key: str, name: str) -> int:
    value = meta.get(key)
    if not is_whole(value) or value < 0:
        raise CheckpointError(f"{name} has a damaged training state: {key} = {value!r}")
    return value


def load_training_checkpoint(path: str | os.PathLike[str],
                             device: str | torch.device = "cpu") -> tuple[LoadedModel, TrainerState]:
    """Read a checkpoint written by :func:`save_training_checkpoint`: the model and the state to resume.

    Never unpickles (safetensors only). Raises :class:`CheckpointError` for a plain model file (nothing to
    resume) or a damaged or inconsistent training state.
    """
    name = Path(path).name
    tensors, meta = load_checkpoint(path)
    counters = meta.get("train_state")
    if not isinstance(counters, dict):
        raise CheckpointError(f"{name} holds a model but no training state: it cannot be resumed")
    extra = {k[len(TRAIN_STATE_PREFIX):]: v for k, v in tensors.items() if k.startswith(TRAIN_STATE_PREFIX)}
    loaded = build_loaded_model(name, {k: v for k, v in tensors.items() if not k.startswith(TRAIN_STATE_PREFIX)},
                                meta, device)
    if loaded.train_config is None:
        raise CheckpointError(f"{name} has no training configuration: it cannot be resumed")
    step, epoch, adam_steps = (_int(counters, k, name) for k in ("step", "epoch", "adam_steps"))
    tokens = _int(counters, "tokens", name)
    elapsed = counters.get("elapsed_s")
    if not is_number(elapsed) or elapsed < 0:
        raise CheckpointError(f"{name} has a damaged training state: elapsed_s = {elapsed!r}")
    size = sum(p.numel() for p in loaded.model.parameters() if p.requires_grad)
    for key in ("exp_avg", "exp_avg_sq"):
        t = extra.get(key)
        if t is None or tuple(t.shape) != (size,) or t.dtype != torch.float32 or not bool(torch.isfinite(t).all()):
            raise CheckpointError(f"{name} has a damaged training state: {key} is not {size} finite float32 values")
    if bool((extra["exp_avg_sq"] < 0).any()):
        raise CheckpointError(f"{name} has a damaged training state: exp_avg_sq holds negative values")
    rng = extra.get("shuffle_rng")
    if rng is None or rng.dtype != torch.uint8 or rng.numel() != _SHUFFLE_STATE_BYTES:
        raise CheckpointError(f"{name} has a damaged training state: shuffle_rng")
    try:
        torch.Generator().set_state(rng)
    except RuntimeError as exc:
        raise CheckpointError(f"{name} has a damaged training state: shuffle_rng ({exc})") from exc
    history = loaded.history if isinstance(loaded.history, TrainingHistory) else TrainingHistory()
    settings = _settings(counters.get("settings"), name)
    state = TrainerState(step=step, epoch=epoch, model={k: v.detach().cpu().clone() for k, v in
                                                        loaded.model.state_dict().items()},
                         exp_avg=extra["exp_avg"], exp_avg_sq=extra["exp_avg_sq"], adam_steps=adam_steps,
                         shuffle_rng=rng, history=history, elapsed_s=float(elapsed), tokens=tokens,
                         settings=settings)
    return loaded, state


def _settings(value: Any, name: str) -> dict[str, float] | None:
    """The live settings a checkpoint holds (None in checkpoints written before they could change)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CheckpointError(f"{name} has a damaged training state: settings = {value!r}")
    steps = value.get("schedule_steps")
    try:
        checked: dict[str, float] = check_live_settings({k: v for k, v in value.items() if k != "schedule_steps"})
    except ConfigError as exc:
        raise CheckpointError(f"{name} has a damaged training state: {exc}") from exc
    if steps is not None:
        if not is_whole(steps) or steps < 1:
            raise CheckpointError(f"{name} has a damaged training state: schedule_steps = {steps!r}")
        checked["schedule_steps"] = int(steps)
    return checked
