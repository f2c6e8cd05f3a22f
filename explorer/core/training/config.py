"""The training settings and loss history of the book's §11.7 run: validated, JSON round-trippable."""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

from explorer.core.checks import is_number
from explorer.core.choices import DEVICE_CHOICES
from explorer.core.model.transformer import ConfigError, TransformerConfig, _check_int, checked_mapping
from explorer.core.training.schedule import LR_SCHEDULES

OBJECTIVES = ("book", "token_mean")
MAX_SEED = 2**32 - 1  # as the CLI; torch.manual_seed overflows past 2**64 - 1 (and seed + 1 is used)


def _check_number(name: str, value: Any, low: float, high: float = math.inf, low_open: bool = True) -> None:
    if not is_number(value):
        raise ConfigError(f"{name} must be a finite number, got {value!r}")
    if value < low or (low_open and value == low) or value > high:
        bound = f"greater than {low}" if low_open else f"at least {low}"
        raise ConfigError(f"{name} must be {bound}" + (f" and at most {high}" if high < math.inf else "")
                          + f", got {value}")


#: An adaptive snapshot cadence aims at this many attention snapshots over a run (a time-lapse of that many frames)…
SNAPSHOT_FRAMES = 100
#: …and takes one at least this often, however long the run.
SNAPSHOT_EVERY_MOST = 50


def adaptive_snapshot_every(total_steps: int) -> int:
    """Steps between attention snapshots for a run of ``total_steps``: about :data:`SNAPSHOT_FRAMES` snapshots,
    never fewer than one per 50 steps, so any run of 30 steps or more gives 30 or more time-lapse frames."""
    return max(1, min(SNAPSHOT_EVERY_MOST, int(total_steps) // SNAPSHOT_FRAMES))


@dataclass
class TrainingConfig:
    """Everything a training run needs besides the data (defaults: the book's §11.7 settings).

    ``objective="book"`` minimises what the book's loss sums: each sequence's masked token losses averaged
    over ``num_steps``, summed over the batch (clipping sees that scale); ``"token_mean"`` minimises the
    mean per-token cross-entropy. ``grad_clip=0`` disables clipping; ``snapshot_every=0`` disables snapshots.
    ``amp`` turns on bfloat16 autocast on CUDA GPUs that support it (it is ignored elsewhere).
    ``lr_schedule`` (one of ``schedule.LR_SCHEDULES``) scales ``lr`` step by step (``schedule.lr_factor``);
    ``warmup_steps`` is its warm-up: linear for ``constant`` and ``cosine``, the inverse square root's own for
    ``inverse-sqrt``. The book's run: ``constant`` with no warm-up.
    """

    model: TransformerConfig = field(default_factory=TransformerConfig)
    batch_size: int = 64
    num_steps: int = 10
    lr: float = 0.005
    num_epochs: int = 200
    grad_clip: float = 1.0
    seed: int = 0
    device: str = "auto"
    snapshot_every: int = 50
    min_freq: int = 2
    amp: bool = False
    objective: str = "book"
    lr_schedule: str = "constant"
    warmup_steps: int = 0

    def validate(self) -> TrainingConfig:
        """Raise :class:`ConfigError` naming the first bad setting; return ``self`` when all is well."""
        if not isinstance(self.model, TransformerConfig):
            raise ConfigError("model must be a TransformerConfig")
        self.model.validate()
        _check_int("batch_size", self.batch_size, 1)
        _check_int("num_steps", self.num_steps, 2)
        if self.num_steps > self.model.max_len:
            raise ConfigError(f"num_steps ({self.num_steps}) exceeds the model's max_len ({self.model.max_len})")
        _check_number("lr", self.lr, 0.0, 10.0)
        _check_int("num_epochs", self.num_epochs, 1)
        _check_number("grad_clip", self.grad_clip, 0.0, low_open=False)
        _check_int("seed", self.seed, 0)
        if self.seed > MAX_SEED:
            raise ConfigError(f"seed must be at most {MAX_SEED}, got {self.seed}")
        _check_int("snapshot_every", self.snapshot_every, 0)
        _check_int("min_freq", self.min_freq, 0)
        if not isinstance(self.amp, bool):
            raise ConfigError(f"amp must be true or false, got {self.amp!r}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ConfigError(f"lr_schedule must be one of {', '.join(LR_SCHEDULES)}, got {self.lr_schedule!r}")
        _check_int("warmup_steps", self.warmup_steps, 0)
        if self.objective not in OBJECTIVES:
            raise ConfigError(f"objective must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}")
        if not isinstance(self.device, str) or not (self.device in DEVICE_CHOICES
                                                    or re.fullmatch(r"cuda:\d+", self.device)):
            raise ConfigError(f"device must be auto, cpu, cuda, cuda:N or mps, got {self.device!r}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict, the model config nested under ``model``."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingConfig:
        """Build and validate from :meth:`to_dict` output; unknown keys are an error."""
        values = checked_mapping(cls, data, "training")
        model = values.pop("model", None)
        for name in ("lr", "grad_clip"):
            if isinstance(values.get(name), int) and not isinstance(values.get(name), bool):
                values[name] = float(values[name])
        config = cls(model=TransformerConfig.from_dict(model) if model is not None else TransformerConfig(),
                     **values)
        return config.validate()


#: The settings a running trainer takes between steps (``Trainer.change_settings``).
LIVE_SETTINGS = ("lr", "grad_clip", "dropout")


def check_live_settings(values: dict[str, Any]) -> dict[str, float]:
    """``values`` (some of :data:`LIVE_SETTINGS`) as floats, or :class:`ConfigError` naming the first bad one:
    a learning rate in (0, 10], a gradient clip ≥ 0 (0 = off), a dropout in [0, 1)."""
    unknown = sorted(set(values) - set(LIVE_SETTINGS))
    if unknown:
        raise ConfigError(f"only {', '.join(LIVE_SETTINGS)} can change while training, not {', '.join(unknown)}")
    if not values:
        raise ConfigError("no setting to change")
    if "lr" in values:
        _check_number("lr", values["lr"], 0.0, 10.0)
    if "grad_clip" in values:
        _check_number("grad_clip", values["grad_clip"], 0.0, low_open=False)
    if "dropout" in values:
        value = values["dropout"]
        if not is_number(value) or not 0.0 <= value < 1.0:
            raise ConfigError(f"dropout must be a number in [0, 1), got {value!r}")
    return {name: float(values[name]) for name in LIVE_SETTINGS if name in values}


@dataclass
class TrainingHistory:
    """Losses kept for checkpoints and plots: per step and per epoch (true per-token cross-entropy)."""

    step_loss: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    epoch_tokens_per_s: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[float]]:
        """Plain JSON-able dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingHistory:
        """Inverse of :meth:`to_dict` (missing lists are empty)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: [float(x) for x in v] for k, v in (data or {}).items() if k in names})
