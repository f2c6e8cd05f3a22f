"""Settings changed while a run trains: the learning rate (the base its schedule scales, ``schedule.py``), the
gradient clip and dropout, asked for from any thread and put in force between two steps, which a ``SettingsEvent``
announces."""
from __future__ import annotations

import threading
from typing import Any

import torch

from explorer.core.training.config import check_live_settings
from explorer.core.training.events import SettingsEvent
from explorer.core.training.schedule import set_base_lr


def set_dropout(model: torch.nn.Module, p: float) -> None:
    """Every dropout layer's probability (the model's forward passes read ``.p`` at each call)."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = p


class LiveSettings:
    """The settings in force, ``values``: ``lr``, ``grad_clip``, ``dropout`` and ``schedule_steps`` (the steps a cosine
    schedule spans, planned at Start); and ``pending``, those asked for and not yet applied (None: nothing asked; the
    one thing the training loop reads per step)."""

    def __init__(self, lr: float, grad_clip: float, dropout: float, schedule_steps: int) -> None:
        self.values: dict[str, float] = {"lr": float(lr), "grad_clip": float(grad_clip), "dropout": float(dropout),
                                         "schedule_steps": schedule_steps}
        self.pending: dict[str, float] | None = None
        self._lock = threading.Lock()

    @property
    def in_force(self) -> dict[str, float]:
        """``lr``, ``grad_clip`` and ``dropout`` as in force."""
        return {k: v for k, v in self.values.items() if k != "schedule_steps"}

    def request(self, values: dict[str, Any]) -> None:
        """Ask for ``values`` (any thread); raises ``ConfigError``, asking nothing, for a bad one."""
        checked = check_live_settings(values)
        with self._lock:
            self.pending = {**(self.pending or {}), **checked}

    def restore(self, saved: dict[str, float], model: torch.nn.Module) -> None:
        """Go on with the settings a resumed run had in force when it was saved."""
        self.values.update(saved)
        set_dropout(model, self.values["dropout"])

    def apply(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, step: int, epoch: int,
              elapsed_s: float) -> SettingsEvent:
        """Put the settings asked for in force before training step ``step`` and say so."""
        with self._lock:
            changes, self.pending = self.pending or {}, None
        self.values.update(changes)
        if "lr" in changes:
            set_base_lr(optimizer, scheduler, changes["lr"])
        if "dropout" in changes:
            set_dropout(model, changes["dropout"])
        s = self.values
        return SettingsEvent(step=step, epoch=epoch, lr=s["lr"], grad_clip=s["grad_clip"], dropout=s["dropout"],
                             changed=tuple(sorted(changes)), elapsed_s=elapsed_s)
