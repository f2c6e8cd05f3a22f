"""One training run of the studio (book §11.7): a core Trainer on a TrainingWorker, its events fed to the views.

The worker's slots only append (loss values, snapshots) and keep the newest step; a ~30 Hz GUI timer draws,
and redraws the costlier views less often, so a fast trainer cannot flood the event loop.
"""
from __future__ import annotations

import warnings
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from explorer.core.training import Trainer
from explorer.ui.panels.studio.run_controls_widget import TrainingControls
from explorer.ui.panels.studio.live_attention_widget import LiveAttention
from explorer.ui.panels.studio.loss_plot_widget import LossPlotWidget
from explorer.ui.worker import TrainingWorker

REDRAW_MS = 33  # ~30 Hz: progress text and bar
LOSS_EVERY = 4  # ticks between loss-curve redraws (~8 Hz: axis repaints are the costliest GUI work)
GRID_EVERY = 8  # ticks between attention-grid redraws while live (~4 Hz); the history keeps every snapshot


class TrainingSession(QObject):
    """Runs one trainer at a time and keeps the loss plot, attention history and progress up to date.

    Signals
    -------
    step_drawn(object): the newest ``StepEvent`` has just been drawn (at most ~30 Hz).
    run_finished(object): the ``FinishedEvent`` (all epochs done, or stopped on request).
    run_failed(str): a message fit for users; the run has stopped, the model keeps its last good weights.
    run_ended(): the training thread is gone, whatever the cause (drawn in full just before).
    """

    step_drawn = Signal(object)
    run_finished = Signal(object)
    run_failed = Signal(str)
    run_ended = Signal()

    def __init__(self, loss_plot: LossPlotWidget, live: LiveAttention, controls: TrainingControls,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.loss_plot, self.live, self.controls = loss_plot, live, controls
        self.trainer: Trainer | None = None
        self.worker: TrainingWorker | None = None
        self.last_error: str | None = None
        self.latest_step: Any = None
        self._drawn_step: Any = None
        self._ticks = 0
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def is_running(self) -> bool:
        return self.worker is not None and self.worker.is_running()

    def start(self, trainer: Trainer, task: str | None) -> None:
        """Forget the previous run's views (its loss curve stays as the overlay) and train ``trainer``."""
        self.retire()
        self.trainer, self.last_error = trainer, None
        self.latest_step = self._drawn_step = None
        model = trainer.config.model
        self.live.clear(task, keep_grid=True)
        self.live.grid.prepare(model.num_layers, model.num_heads)  # built now, not at the first snapshot
        self.loss_plot.new_run()
        self.controls.reset_progress()
        worker = TrainingWorker(trainer, self)
        worker.step_finished.connect(self._on_worker_step_finished)
        worker.epoch_finished.connect(self._on_worker_epoch_finished)
        worker.snapshot_taken.connect(self._on_worker_snapshot_taken)
        worker.training_finished.connect(self._on_worker_training_finished)
        worker.training_failed.connect(self._on_worker_training_failed)
        worker.stopped.connect(self._on_worker_stopped)
        self.worker = worker
        worker.start()
        self._timer.start()

    def pause(self) -> None:
        if self.worker is not None:
            self.worker.pause()

    def resume(self) -> None:
        if self.worker is not None:
            self.worker.resume()

    def request_step(self) -> None:
        if self.worker is not None:
            self.worker.request_step()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()

    def retire(self) -> None:
        """Disconnect and stop the current worker (its late events are dropped)."""
        self._timer.stop()
        if self.worker is None:
            return
        for signal in (self.worker.step_finished, self.worker.epoch_finished, self.worker.snapshot_taken,
                       self.worker.training_finished, self.worker.training_failed, self.worker.stopped):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # nothing left to disconnect
                signal.disconnect()
        self.worker.shutdown(1000)
        self.worker = None

    def forget(self) -> None:
        """Retire the worker and drop the trainer (Reset)."""
        self.retire()
        self.trainer = None
        self.latest_step = self._drawn_step = None

    def shutdown(self, timeout_ms: int) -> None:
        """Stop the timer and the worker, waiting at most ``timeout_ms``."""
        self._timer.stop()
        if self.worker is not None:
            self.worker.shutdown(timeout_ms)

    # ---- drawing -----------------------------------------------------------------------------
    def redraw(self, everything: bool = True) -> None:
        """Draw the newest state: progress always; the loss curves and the newest snapshot (when live)
        every few ticks, or now with ``everything``."""
        self._ticks += 1
        if everything or self._ticks % LOSS_EVERY == 0:
            self.loss_plot.refresh()
        step = self.latest_step
        if step is not None and step is not self._drawn_step and self.trainer is not None:
            self._drawn_step = step
            self.controls.show_progress(step.epoch, self.trainer.config.num_epochs, step.progress, step.elapsed_s,
                                        step.tokens_per_s, step.loss, str(self.trainer.device))
            self.step_drawn.emit(step)
        if everything or self._ticks % GRID_EVERY == 0:
            self.live.refresh()

    @Slot()
    def _on_timer_timeout(self) -> None:
        self.redraw(everything=False)

    # ---- worker slots (GUI thread; O(1) each) ---------------------------------------------------
    @Slot(object)
    def _on_worker_step_finished(self, event: Any) -> None:
        self.loss_plot.append_step(event.step, event.epoch_fraction, event.elapsed_s, event.loss)
        self.latest_step = event

    @Slot(object)
    def _on_worker_epoch_finished(self, event: Any) -> None:
        self.loss_plot.append_epoch(event.epoch, event.step, event.elapsed_s, event.loss)

    @Slot(object)
    def _on_worker_snapshot_taken(self, event: Any) -> None:
        self.live.add_snapshot(event)

    @Slot(object)
    def _on_worker_training_finished(self, event: Any) -> None:
        self.run_finished.emit(event)

    @Slot(str)
    def _on_worker_training_failed(self, message: str) -> None:
        self.last_error = message
        self.run_failed.emit(message)

    @Slot()
    def _on_worker_stopped(self) -> None:
        self._timer.stop()
        self.redraw()
        self.run_ended.emit()
