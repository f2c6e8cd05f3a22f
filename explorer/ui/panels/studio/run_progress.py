"""What the studio says about a run's progress (book §11.7 training): the newest step and one loss definition,
labelled — the last finished epoch's mean per-token cross-entropy, or the mean of the first epoch so far."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication

from explorer.ui.i18n.words import Words


@dataclass(frozen=True)
class Progress:
    """What the progress line shows (see :meth:`ProgressTracker.shown_loss`)."""

    step: int
    epoch: int
    num_epochs: int
    fraction: float
    elapsed_s: float
    tokens_per_s: float
    loss: float
    loss_label: str
    device: str
    run_state: str  # one of the studio's run states: no ETA unless running
    lr: float = math.nan  # the learning rate of the newest step (the schedule's rate; NaN when not recorded)


class ProgressTracker:
    """Keeps the newest step and the running loss sums of the epoch in progress (O(1) per event)."""

    def __init__(self) -> None:
        self.latest_step: Any = None
        self.finished: Any = None  # the run's FinishedEvent: its tokens per second are the run's, said everywhere
        self._epoch_loss: tuple[int, float] | None = None  # (epoch, loss) of the last finished epoch
        self._sums = (0.0, 0)  # loss x tokens and tokens of the epoch in progress

    def reset(self) -> None:
        self.__init__()

    def on_step(self, event: Any) -> None:
        total, tokens = self._sums
        self._sums = (total + event.loss * event.tokens, tokens + event.tokens)
        self.latest_step = event

    def on_finished(self, event: Any) -> None:
        self.finished = event

    def on_epoch(self, event: Any) -> None:
        self._epoch_loss = (event.epoch, float(event.loss))
        self._sums = (0.0, 0)

    def on_resumed(self, last_epoch: tuple[int, float] | None) -> None:
        """A resumed run goes on from its checkpoint's epoch boundary: what an interrupted run trained after it
        (a partial epoch, epochs never checkpointed) no longer counts. ``last_epoch``: ``(epoch, loss)`` of the
        last epoch that stands, if any."""
        self._epoch_loss = last_epoch
        self._sums = (0.0, 0)

    def shown_loss(self) -> tuple[float, str]:
        """The loss shown everywhere, with its label."""
        if self._epoch_loss is not None:
            epoch, loss = self._epoch_loss
            return loss, Words(lambda: QCoreApplication.translate("RunProgress", "epoch {epoch}, per token").format(
                epoch=epoch))
        total, tokens = self._sums
        epoch = self.latest_step.epoch if self.latest_step is not None else 1
        label = Words(lambda: QCoreApplication.translate("RunProgress", "epoch {epoch} so far, per token").format(
            epoch=epoch))
        return (total / tokens if tokens else math.nan), label

    def progress(self, num_epochs: int, device: str, run_state: str,
                 replay_speed: float | None = None) -> Progress | None:
        """The progress line's content, or None before the first step. A run replayed at ``replay_speed`` shows
        that speed instead of the device, and its ETA in the replay's seconds, not the recorded ones."""
        step = self.latest_step
        if step is None:
            return None
        elapsed_s = step.elapsed_s
        if replay_speed is not None:
            speed = f"{replay_speed:g}"
            device = Words(lambda: QCoreApplication.translate("RunProgress", "replay at {speed}×").format(speed=speed))
            elapsed_s = step.elapsed_s / replay_speed
        loss, label = self.shown_loss()
        rate = self.finished.tokens_per_s if self.finished is not None else step.tokens_per_s
        return Progress(step.step, step.epoch, num_epochs, step.progress, elapsed_s, rate, loss, label,
                        device, run_state, lr=float(getattr(step, "lr", math.nan)))
