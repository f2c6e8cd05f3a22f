"""The plain events a training run yields (book §11.7 training loop): numbers and numpy copies only.

Each event has a ``kind`` string (``step``, ``epoch``, ``snapshot``, ``finished``, ``error``, ``model_state``,
``started``, ``settings``; from a followed run directory also ``translations`` and ``resumed``) so a consumer (the CLI, the
GUI worker) can dispatch without importing these classes; consumers ignore kinds they do not use.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class StepEvent:
    """One optimiser step (one batch) has been taken.

    ``loss`` is the true per-token cross-entropy of the batch; ``book_loss`` is the number the book
    prints (per-token loss divided by ``num_steps``). ``tokens`` counts the batch's target tokens;
    ``tokens_per_s`` and ``elapsed_s`` cover the run so far, pauses excluded. ``epoch_fraction`` counts
    epochs done, with the current one as a fraction (e.g. 3.5); ``progress`` is the share of the whole run
    done, in [0, 1]. ``grad_norm`` is the global gradient norm before clipping; ``lr`` the learning rate this step
    used (the schedule's rate; NaN when not recorded).
    """

    step: int
    epoch: int
    loss: float
    book_loss: float
    tokens: int
    tokens_per_s: float
    elapsed_s: float
    epoch_fraction: float
    progress: float
    grad_norm: float = float("nan")
    lr: float = float("nan")
    kind: str = field(default="step", init=False)


@dataclass(frozen=True)
class EpochEvent:
    """An epoch has ended; losses are over all its tokens (per-token and the book's printed value)."""

    epoch: int
    step: int
    loss: float
    book_loss: float
    tokens: int
    tokens_per_s: float
    elapsed_s: float
    progress: float
    kind: str = field(default="epoch", init=False)


@dataclass(frozen=True)
class SnapshotEvent:
    """Attention maps of the probe pair, from one eval-mode forward pass, cropped to its valid tokens.

    ``maps`` holds ``encoder`` (L, h, Ts, Ts), ``decoder`` (L, h, Tt, Tt) and ``cross``
    (L, h, Tt, Ts) float32 arrays. Ts counts the source tokens plus ``<eos>``; Tt the target tokens plus
    ``<eos>``. ``src_tokens`` label the keys of encoder/cross maps; ``tgt_input_tokens`` (``<bos>``, y1, …)
    label the decoder queries, and ``tgt_tokens`` (y1, …, ``<eos>``) are what each query is trained to
    predict.
    """

    step: int
    epoch: int
    maps: dict[str, np.ndarray]
    src_tokens: list[str]
    tgt_tokens: list[str]
    tgt_input_tokens: list[str]
    kind: str = field(default="snapshot", init=False)


@dataclass(frozen=True)
class FinishedEvent:
    """The run is over: all epochs done, or ``stopped`` early on request. Always a Trainer's last event (a
    training process follows it with the final :class:`ModelStateEvent`)."""

    step: int
    epoch: int
    loss: float
    book_loss: float
    tokens_per_s: float
    elapsed_s: float
    stopped: bool
    device: str
    kind: str = field(default="finished", init=False)


@dataclass(frozen=True)
class ErrorEvent:
    """The run failed and has ended; ``message`` is fit for users. The model keeps its last good weights."""

    step: int
    message: str
    #: "nonfinite", "out_of_memory" or "error"; from a training process also "data", "config" and "crashed"
    reason: str = "error"
    kind: str = field(default="error", init=False)


@dataclass(frozen=True)
class ModelStateEvent:
    """The model's weights at a step boundary: a CPU numpy copy of ``model.state_dict()`` (fresh arrays).

    ``reason`` is ``"paused"`` (the trainer has just entered a pause, after the last step's optimiser update)
    or ``"final"`` (a training process sends it after the run has ended, however it ended). ``epoch`` is the
    epoch of the last step taken (0 before any).
    """

    step: int
    epoch: int
    state: dict[str, np.ndarray]
    reason: str
    kind: str = field(default="model_state", init=False)


@dataclass(frozen=True)
class StartedEvent:
    """A training process has loaded its data and built its trainer; the first event it sends.

    ``src_vocab``/``tgt_vocab`` are ``Vocab.to_dict()``, ``config`` is ``TrainingConfig.to_dict()`` (enough to
    rebuild the model for a :class:`ModelStateEvent`); ``probe`` is the (source, target) pair snapshotted.
    """

    device: str
    num_pairs: int
    total_steps: int
    num_batches: int
    num_parameters: int
    src_vocab: dict
    tgt_vocab: dict
    config: dict
    probe: tuple[str, str]
    kind: str = field(default="started", init=False)


@dataclass(frozen=True)
class TranslationsEvent:
    """The probe sentences translated (greedy) at the end of an epoch, from a run directory's epoch line.

    ``translations`` holds dicts ``{"src", "reference", "translation", "bleu"}``; ``bleu`` is their mean (the
    book's BLEU with k=2), NaN without probes.
    """

    epoch: int
    step: int
    translations: tuple[dict, ...]
    bleu: float
    kind: str = field(default="translations", init=False)


@dataclass(frozen=True)
class ResumedEvent:
    """A run directory's run was resumed from its checkpoint at ``step``/``epoch``: whatever was shown for later
    steps (written before the run was interrupted) is superseded by what follows. ``num_epochs`` and
    ``total_steps`` are the resumed run's new totals."""

    step: int
    epoch: int
    elapsed_s: float
    num_epochs: int
    total_steps: int
    world_size: int
    kind: str = field(default="resumed", init=False)


@dataclass(frozen=True)
class SettingsEvent:
    """Settings changed while the run trains (``Trainer.change_settings``), in force from training step ``step``
    on (the first step trained with them). ``lr`` is the base rate the schedule scales, ``grad_clip`` the clipping
    norm (0 = off), ``dropout`` the probability of every dropout layer; ``changed`` names those asked for."""

    step: int
    epoch: int
    lr: float
    grad_clip: float
    dropout: float
    changed: tuple[str, ...]
    elapsed_s: float
    kind: str = field(default="settings", init=False)


TrainingEvent = (StepEvent | EpochEvent | SnapshotEvent | FinishedEvent | ErrorEvent | ModelStateEvent
                 | StartedEvent | TranslationsEvent | ResumedEvent | SettingsEvent)
