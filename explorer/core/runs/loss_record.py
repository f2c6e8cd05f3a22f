"""The losses of a training run as the studio keeps and plots them (book §11.7 training loop).

Rows are appended in O(1) amortised time to growing numpy buffers; the previous run is kept for an
overlay. Plain numpy, no Qt: the studio's state owns one :class:`LossRecord`, the loss plot reads it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

STEP_COLUMNS = ("step", "epoch", "seconds", "loss")  # epoch: epochs done, the current one as a fraction
EPOCH_COLUMNS = ("step", "epoch", "seconds", "loss")


class RowBuffer:
    """Rows of float64 appended in O(1) amortised time; ``view()`` is the filled part (no copy)."""

    def __init__(self, columns: int, capacity: int = 1024) -> None:
        self._data = np.empty((capacity, columns), dtype=np.float64)
        self.size = 0

    def append(self, *row: float) -> None:
        if self.size == len(self._data):
            grown = np.empty((2 * len(self._data), self._data.shape[1]), dtype=np.float64)
            grown[: self.size] = self._data
            self._data = grown
        self._data[self.size] = row
        self.size += 1

    def view(self) -> np.ndarray:
        return self._data[: self.size]  # (size, columns)

    def copy(self) -> np.ndarray:
        return self.view().copy()

    def clear(self) -> None:
        self.size = 0


def ema(values: np.ndarray, alpha: float, start: float | None = None) -> np.ndarray:
    """Exponential moving average ``s_t = alpha * x_t + (1 - alpha) * s_{t-1}``; ``s_0 = x_0`` unless
    ``start`` (the value before ``values[0]``) continues an earlier series. Shape kept."""
    out = np.array(values, dtype=np.float64, copy=True)
    if not out.size:
        return out
    if start is not None:
        out[0] = alpha * out[0] + (1.0 - alpha) * start
    if alpha < 1.0:
        for t in range(1, out.size):  # only over rows not smoothed before: the plot extends it as rows arrive
            out[t] = alpha * out[t] + (1.0 - alpha) * out[t - 1]
    return out


PREVIOUS = "previous run"


def rows_from_metrics(records: list[dict[str, Any]]) -> np.ndarray:
    """Per-step rows ``(step, epoch, seconds, loss)`` from a run directory's ``metrics.jsonl`` records."""
    rows = [(r["step"], r.get("epoch_fraction", r.get("epoch", 0)), r.get("time", float("nan")), r["loss"])
            for r in records if r.get("type") == "step" and isinstance(r.get("loss"), (int, float))]
    return np.asarray(rows, dtype=np.float64).reshape(-1, len(STEP_COLUMNS))


class LossRecord:
    """Per-step and per-epoch losses (true per-token cross-entropy) of the current run, plus other runs' per-step
    rows to overlay (``overlays``: name -> rows; the run before this one is "previous run"). ``timed`` is False
    for a run read from a file without timings."""

    def __init__(self) -> None:
        self.steps = RowBuffer(len(STEP_COLUMNS))
        self.epochs = RowBuffer(len(EPOCH_COLUMNS))
        #: settings changed while the run trained (``SettingsEvent``s, by step): the plot marks each one
        self.changes: list[Any] = []
        self.overlays: dict[str, np.ndarray] = {}
        self.timed = True
        self.generation = 0  # bumped when rows are replaced rather than appended

    @property
    def previous(self) -> np.ndarray | None:
        """The run before this one (an overlay), or None."""
        return self.overlays.get(PREVIOUS)

    def add_overlay(self, name: str, rows: np.ndarray) -> None:
        """Draw another run's per-step rows ``(step, epoch, seconds, loss)`` over this one."""
        self.overlays[name] = np.asarray(rows, dtype=np.float64).reshape(-1, len(STEP_COLUMNS))
        self.generation += 1

    def clear_overlays(self) -> None:
        self.overlays.clear()
        self.generation += 1

    def append_step(self, step: int, epoch_fraction: float, seconds: float, loss: float) -> None:
        self.steps.append(step, epoch_fraction, seconds, loss)

    def append_epoch(self, epoch: int, step: int, seconds: float, loss: float) -> None:
        self.epochs.append(step, epoch, seconds, loss)

    def add_change(self, event: Any) -> None:
        """Keep a ``SettingsEvent`` (settings changed while training, in force from ``event.step``)."""
        self.changes.append(event)

    def new_run(self) -> None:
        """Keep the current run's steps as the "previous run" overlay and start empty."""
        if self.steps.size:
            self.overlays[PREVIOUS] = self.steps.copy()
        self.steps.clear()
        self.epochs.clear()
        self.changes = []
        self.timed = True
        self.generation += 1

    def clear(self) -> None:
        """Forget the run and the overlays."""
        self.overlays.clear()
        self.steps.clear()
        self.epochs.clear()
        self.changes = []
        self.timed = True
        self.generation += 1

    def load_history(self, history: Any) -> int:
        """Make a saved ``TrainingHistory`` (per-step and per-epoch losses, no timings) the current run;
        epoch boundaries are spread evenly over the steps. Returns the number of steps."""
        self.new_run()
        steps = [float(x) for x in (getattr(history, "step_loss", None) or [])]
        epochs = [float(x) for x in (getattr(history, "epoch_loss", None) or [])]
        per_epoch = len(steps) / len(epochs) if epochs and steps else 1.0
        for i, loss in enumerate(steps, start=1):
            self.append_step(i, i / per_epoch, float("nan"), loss)
        for e, loss in enumerate(epochs, start=1):
            self.append_epoch(e, int(round(e * per_epoch)), float("nan"), loss)
        self.timed = False
        return len(steps)

    def drop_after(self, step: int) -> None:
        """Forget the rows after training ``step`` (a resumed run supersedes what an interrupted one wrote)."""
        for rows in (self.steps, self.epochs):
            view = rows.view()
            rows.size = int((view[:, 0] <= step).sum()) if rows.size else 0
        self.changes = [c for c in self.changes if c.step <= step]
        self.generation += 1

    def step_table(self) -> tuple[list[str], np.ndarray]:
        """Header and rows ``(step, epoch, seconds, loss)`` of the current run (for CSV export)."""
        return list(STEP_COLUMNS), self.steps.copy()
