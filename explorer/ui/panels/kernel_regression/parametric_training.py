"""Runs the book's parametric Nadaraya–Watson training (§11.2) off the GUI thread, epoch by epoch.

A thin wrapper around a generator worker of ``ui/worker.py``: the panel sees three signals and never the thread.
"""
from __future__ import annotations

import threading
from typing import Iterator

from PySide6.QtCore import QObject, Signal, Slot

from explorer.core.chapter import kernel_regression as kr
from explorer.ui.worker import generator_worker


def _train(data: kr.RegressionData, lr: float, epochs: int, seed: int,
           done: threading.Event) -> Iterator[kr.ParametricEpoch]:
    """The core iterator of epochs; `done` is set however it ends (finished, failed or aborted)."""
    try:
        yield from kr.train_parametric(data, lr=lr, num_epochs=epochs, seed=seed)
    finally:
        done.set()


class ParametricTrainer(QObject):
    """Start one training at a time; results arrive on the GUI thread.

    Signals: ``epoch_finished(ParametricEpoch)`` (fresh numpy arrays each time), ``failed(str)``,
    ``finished()`` (always last, also after a failure or an abort).
    """

    epoch_finished = Signal(object)
    failed = Signal(str)
    finished = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._worker = None
        self._done = threading.Event()

    def is_running(self) -> bool:
        return self._worker is not None

    def start(self, data: kr.RegressionData, lr: float, epochs: int, seed: int) -> bool:
        """Train on a private copy of `data`; False (and nothing started) if a training is running."""
        if self._worker is not None:
            return False
        self._done = threading.Event()
        worker = generator_worker(_train, data, lr, epochs, seed, self._done)  # errors arrive at _on_worker_errored
        worker.yielded.connect(self._on_worker_yielded)
        worker.errored.connect(self._on_worker_errored)
        worker.finished.connect(self._on_worker_finished)
        self._worker = worker
        worker.start()
        return True

    def shutdown(self, timeout_ms: int) -> bool:
        """Ask the worker to stop after its current epoch and wait up to `timeout_ms`; True if it ended."""
        if self._worker is None:
            return True
        self._worker.quit()
        return self._done.wait(timeout_ms / 1000)

    @Slot(object)
    def _on_worker_yielded(self, epoch: kr.ParametricEpoch) -> None:
        self.epoch_finished.emit(epoch)

    @Slot(object)
    def _on_worker_errored(self, exc: Exception) -> None:
        self.failed.emit(str(exc) or type(exc).__name__)

    @Slot()
    def _on_worker_finished(self) -> None:
        self._worker = None
        self.finished.emit()
