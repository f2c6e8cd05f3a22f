"""The only bridge between the training thread and the GUI (book §11.7 training, DESIGN data flow).

A runner object lives on a QThread and iterates the core trainer; every event crosses to the GUI
thread as a queued ``Signal(object)`` carrying the core's plain dataclass (floats and numpy copies).
"""
from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable
from typing import Any, Protocol

from PySide6.QtCore import QObject, QThread, Signal, Slot

log = logging.getLogger(__name__)


GIL_SWITCH_S = 0.001  # sys.setswitchinterval while training runs

# Threads that outlived a shutdown timeout are parked here until they end, so Qt never destroys
# a running QThread ("QThread: Destroyed while thread is still running").
_PARKED: set[QThread] = set()


class TrainerLike(Protocol):
    """What the worker needs from ``explorer.core.training.Trainer``."""

    def __iter__(self) -> Any: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def stop(self) -> None: ...
    def request_step(self) -> None: ...


def _set_background_torch_threads() -> int:
    """Give a trainer on a background thread one intra-op thread fewer than the cores (at least one).

    Measured on the 2-core build machine: once the GUI thread has used torch's OpenMP pool (any panel
    does), a second thread training with 2 intra-op threads ran at ~12k tokens/s, with 1 at ~25k, against
    ~28k for 2 threads on a main thread. One thread also leaves a core to the GUI.
    Returns the count before, to be restored when the trainer ends.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(max(1, min(before, (os.cpu_count() or 2) - 1)))
    return before


class _Runner(QObject):
    """Iterates the trainer on the worker thread; holds no widget references."""

    event_emitted = Signal(object)
    crashed = Signal(str)

    def __init__(self, events: Iterable[Any]) -> None:
        super().__init__()
        self._events = events

    @Slot()
    def run(self) -> None:
        threads_before = _set_background_torch_threads()
        try:
            for event in self._events:
                self.event_emitted.emit(event)
        except Exception as exc:  # noqa: BLE001 - any trainer failure goes to the GUI as a message
            log.exception("training thread failed")
            self.crashed.emit(f"Training failed: {type(exc).__name__}: {exc}")
        finally:
            self._events = ()
            import torch

            torch.set_num_threads(threads_before)
            # quit() is thread-safe; a queued connection to it would deadlock a GUI thread in wait().
            try:
                thread = self.thread()
            except RuntimeError:  # the process is tearing the runner down already
                return
            if thread is not None:
                thread.quit()


class TrainingWorker(QObject):
    """Run a core ``Trainer`` on a QThread and re-emit its events as Qt signals.

    Connect to the signals before :meth:`start`. Pause, resume, single steps and stop go through
    the trainer's own thread-safe methods. One worker runs one trainer once.

    Signals
    -------
    step_finished(StepEvent), epoch_finished(EpochEvent), snapshot_taken(SnapshotEvent),
    training_finished(FinishedEvent), training_failed(str): a message fit for users (an
    ``ErrorEvent``'s or an unexpected exception's), stopped(): the thread has ended, whatever the cause.
    """

    step_finished = Signal(object)
    epoch_finished = Signal(object)
    snapshot_taken = Signal(object)
    training_finished = Signal(object)
    training_failed = Signal(str)
    stopped = Signal()

    def __init__(self, trainer: TrainerLike, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.trainer = trainer
        self._thread: QThread | None = None
        self._runner: _Runner | None = None
        self._paused = False
        self._started = False
        self._running = False
        self._switch_interval = sys.getswitchinterval()

    # ---- state -------------------------------------------------------------------------------
    def is_running(self) -> bool:
        """True from :meth:`start` until the training thread has ended."""
        return self._running

    def is_paused(self) -> bool:
        """True after :meth:`pause` (and before :meth:`resume`) while running."""
        return self._running and self._paused

    # ---- control -----------------------------------------------------------------------------
    def start(self) -> None:
        """Start iterating the trainer on a new thread (once)."""
        if self._started:
            raise RuntimeError("a TrainingWorker runs its trainer only once; make a new worker")
        self._started = True
        self._running = True
        thread = QThread()
        thread.setObjectName("training")
        runner = _Runner(self.trainer)
        runner.moveToThread(thread)
        runner.event_emitted.connect(self._on_runner_event_emitted)
        runner.crashed.connect(self._on_runner_crashed)
        thread.started.connect(runner.run)
        thread.finished.connect(self._on_thread_finished)
        self._thread, self._runner = thread, runner
        # The GUI thread needs the GIL for every pyqtgraph paint; with the default 5 ms switch interval
        # each hand-over from the training thread can cost it 5 ms. 1 ms keeps redraws short.
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, GIL_SWITCH_S))
        thread.start()

    def pause(self) -> None:
        """Ask the trainer to pause before its next step."""
        if self._running:
            self._paused = True
            self.trainer.pause()

    def resume(self) -> None:
        """Let a paused trainer continue."""
        if self._running:
            self._paused = False
            self.trainer.resume()

    def request_step(self) -> None:
        """While paused, let the trainer run exactly one more batch."""
        if self._running:
            self.trainer.request_step()

    def stop(self) -> None:
        """Ask the trainer to stop after the current step; :attr:`stopped` follows."""
        if self._running:
            self.trainer.stop()

    def shutdown(self, timeout_ms: int = 1000) -> bool:
        """Stop the trainer and wait up to ``timeout_ms`` for the thread; True if it has ended.

        A thread still busy after the timeout is parked (kept referenced) until it ends, so Qt
        never destroys it while running.
        """
        thread = self._thread
        if thread is None:
            return True
        if self._running:
            self.trainer.stop()
        if not thread.wait(max(0, int(timeout_ms))):
            log.warning("training thread still running after %d ms; left to finish", timeout_ms)
            _PARKED.add(thread)
            thread.finished.connect(lambda t=thread: _PARKED.discard(t))
            return False
        self._on_thread_finished()
        return True

    # ---- relays (GUI thread) -----------------------------------------------------------------
    @Slot(object)
    def _on_runner_event_emitted(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        if kind == "step":
            self.step_finished.emit(event)
        elif kind == "epoch":
            self.epoch_finished.emit(event)
        elif kind == "snapshot":
            self.snapshot_taken.emit(event)
        elif kind == "finished":
            self.training_finished.emit(event)
        elif kind == "error":
            self.training_failed.emit(str(getattr(event, "message", event)))

    @Slot(str)
    def _on_runner_crashed(self, message: str) -> None:
        self.training_failed.emit(message)

    @Slot()
    def _on_thread_finished(self) -> None:
        if not self._running:
            return
        sys.setswitchinterval(self._switch_interval)
        self._running = False
        self._paused = False
        self.stopped.emit()
