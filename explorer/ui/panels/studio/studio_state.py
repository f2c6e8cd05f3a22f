"""The one owner of the Transformer studio's state (book §11.7): the training run, the model on offer and the
loss record, composed with the data (:class:`DataState`) and the attention history (:class:`AttentionState`). Views subscribe to its signals and
call its methods; they never write each other or its internals.

A trainer event's path: ``core.training`` (in a child process) → ``core.training_process`` →
``ui.worker`` (a superqt generator worker) → :meth:`StudioState._on_run_event` (records it, O(1)) → the
state's redraw timer → a view's slot. See docs/CONTRACTS.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from explorer.core.checkpoint import CheckpointError
from explorer.core.loss_record import LossRecord
from explorer.core.text import Vocab
from explorer.core.transformer import ConfigError
from explorer.core.training import TrainingConfig, check_model_fits, resolve_device
from explorer.core.training_process import TrainingJob, TrainingProcess, warm_up
from explorer.ui.panels.studio.attention_state import AttentionState
from explorer.ui.panels.studio.data_loading import source_label
from explorer.ui.panels.studio.data_state import DataState
from explorer.ui.panels.studio.model_files import (ModelRecord, OpenedModel, model_from_state, open_model_job,
                                                   save_record)
from explorer.ui.process_settings import training_threads
from explorer.ui.worker import LatestOnlyRunner, function_worker, generator_worker

RUN_STATES = ("idle", "starting", "running", "paused", "stopping", "finished")
REDRAW_MS = 33  # ~30 Hz: the progress line
LOSS_EVERY = 4  # ticks between loss-curve redraws (~8 Hz: axis repaints are the costliest GUI work)
GRID_EVERY = 8  # ticks between attention-grid redraws while live (~4 Hz); the history keeps every snapshot


@dataclass(frozen=True)
class Progress:
    """What the progress line shows: one loss definition, labelled (see :meth:`StudioState.shown_loss`)."""

    step: int
    epoch: int
    num_epochs: int
    fraction: float
    elapsed_s: float
    tokens_per_s: float
    loss: float
    loss_label: str
    device: str
    run_state: str  # one of RUN_STATES: no ETA unless running


class StudioState(QObject):
    """Data, run, model, losses, attention history and selection of the studio.

    Signals
    -------
    run_state_changed(str): one of :data:`RUN_STATES`.
    progress_changed(Progress): at most ~30 Hz while training, once more at the end.
    loss_changed(): the loss record grew or was replaced (at most ~8 Hz); read :attr:`loss`.
    model_changed(object): the :class:`ModelRecord` on offer (paused, finished or opened), or None.
    model_open_finished(bool): a Model → Open request ended: True if the model is on offer.
    message_posted(str, str): text and level: ``info``, ``error`` (inline) or ``alert`` (a dialog too).
    """

    run_state_changed = Signal(str)
    progress_changed = Signal(object)
    loss_changed = Signal()
    model_changed = Signal(object)
    model_open_finished = Signal(bool)
    message_posted = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data = DataState(self)
        self.data.message_posted.connect(self.message_posted)  # a signal-to-signal connection, no slot
        self.run_state = "idle"
        self.loss = LossRecord()
        self.attention = AttentionState(self)
        self.history = self.attention.history
        self.record: ModelRecord | None = None
        self.model_path: str | None = None  # the file of the opened model on offer (read-only for views)
        self.last_error: str | None = None
        self.run_config: TrainingConfig | None = None
        self.started: Any = None  # the run's StartedEvent
        self.latest_step: Any = None
        self.finished: Any = None  # the run's FinishedEvent
        self._vocabs: tuple[Vocab, Vocab] | None = None
        self._epoch_sums = (0.0, 0)  # loss x tokens and tokens of the epoch in progress
        self._process: TrainingProcess | None = None
        self._worker: Any = None
        self._opening: str | None = None
        self._model_loader = LatestOnlyRunner(self)
        self._model_loader.result_ready.connect(self._on_model_loader_result_ready)
        self._model_loader.failed.connect(self._on_model_loader_failed)
        self._dirty = {"progress": False, "loss": False, "snapshot": False}
        self._ticks = 0
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        warm_up()  # the training process server imports torch now, so Start does not wait for it

    # ------------------------------------------------------------------ queries
    def is_training(self) -> bool:
        """True from Start until the training process has ended."""
        return self._process is not None

    @property
    def training_process(self) -> TrainingProcess | None:
        """The child process of the run in progress, or None."""
        return self._process

    def is_opening_model(self) -> bool:
        return self._opening is not None

    def can_start(self) -> bool:
        return (not self.is_training() and self.data.source is not None and not self.data.is_loading()
                and not self.is_opening_model())

    def shown_loss(self) -> tuple[float, str]:
        """The loss the studio shows everywhere, with its label: the last finished epoch's mean per-token
        cross-entropy, or, during the first epoch, the mean of the epoch so far."""
        if self.loss.epochs.size:
            return float(self.loss.epochs.view()[-1, 3]), f"epoch {self.loss.last_epoch()}, per token"
        total, tokens = self._epoch_sums
        epoch = self.latest_step.epoch if self.latest_step is not None else 1
        return (total / tokens if tokens else math.nan), f"epoch {epoch} so far, per token"

    # ------------------------------------------------------------------ training
    def start_run(self, config: TrainingConfig, probe: tuple[str, str]) -> bool:
        """Train a fresh model on the loaded data in a child process; False (with a message) if impossible.
        ``config`` must be valid and match the loaded request's ``num_steps`` and ``min_freq``."""
        if not self.can_start():
            why = (f"Still loading {source_label(self.data.loading.spec)}; start when it is ready."
                   if self.data.is_loading()
                   else "Choose a data source first." if self.data.source is None else "Training is running.")
            self.message_posted.emit(why, "error")
            return False
        try:  # an estimate from the configuration: refuse a model that cannot fit before a process is started
            check_model_fits(config.model, *self.data.vocab_sizes, resolve_device(config.device))
        except ConfigError as exc:
            self.message_posted.emit(f"Cannot start: {exc}", "error")
            return False
        request = self.data.loaded
        job = TrainingJob(config.to_dict(), request.spec, request.num_examples, request.seed, probe,
                          num_threads=training_threads())
        self._forget_run()
        self.loss.new_run()
        self.run_config = config
        self._set_record(None)
        process = TrainingProcess(job)
        process.start()
        self._process = process
        worker = generator_worker(process.events)
        worker.yielded.connect(self._on_worker_yielded)
        worker.errored.connect(self._on_worker_errored)
        worker.finished.connect(self._on_worker_finished)
        worker.start()
        self._worker = worker
        self._timer.start()
        self._set_run_state("starting")
        self.message_posted.emit("Starting the training process…", "info")
        self._emit_all()
        return True

    def pause(self) -> None:
        """Pause before the next step; the model of that step boundary follows as :attr:`model_changed`."""
        if self._process is not None and self.run_state in ("running", "starting"):
            self._process.pause()
            self._set_run_state("paused")
            self.message_posted.emit("Paused: the model is being handed over…", "info")
            self._emit_progress()

    def resume(self) -> None:
        if self._process is not None and self.run_state == "paused":
            self._process.resume()
            self._set_record(None)
            self._set_run_state("running")
            self.message_posted.emit("Training resumed.", "info")

    def request_step(self) -> None:
        """While paused: train on exactly one more batch (its model follows)."""
        if self._process is not None and self.run_state == "paused":
            self._process.request_step()

    def stop(self) -> None:
        """End the run after the current step; the model trained so far is kept."""
        if self._process is not None and self.run_state in ("starting", "running", "paused"):
            self._process.stop()
            self._set_run_state("stopping")

    def reset(self) -> None:
        """Stop any run and forget the model, the losses and the attention history."""
        self._end_process()
        self._forget_run()
        self.loss.clear()
        self._set_record(None)
        self._set_run_state("idle")
        self._emit_all()
        self.message_posted.emit("Reset.", "info")

    def redraw(self) -> None:
        """Emit everything recorded so far now (the timer does it in tiers while training)."""
        self._emit_all()

    # ------------------------------------------------------------------ models
    def save_model(self, path: str) -> bool:
        """Save the model on offer to ``path``; False with a message on failure."""
        if self.record is None:
            self.message_posted.emit("There is no model to save yet (pause or finish training first).", "error")
            return False
        try:
            saved = save_record(path, self.record, self.data.source.name if self.data.source is not None else "")
        except (CheckpointError, OSError, ValueError) as exc:
            self.message_posted.emit(f"Could not save the model: {exc}", "alert")
            return False
        self.message_posted.emit(f"Saved the model to {saved}.", "info")
        return True

    def open_model(self, path: str, fallback_num_steps: int, probe: tuple[str, str]) -> bool:
        """Read a checkpoint in the background to inspect and translate; False if refused (while training)."""
        if self.is_training():
            self.message_posted.emit("Stop training before opening a model.", "error")
            return False
        self._opening = path
        self._model_loader.submit(open_model_job, path, fallback_num_steps, probe)
        self.message_posted.emit(f"Opening {path.rsplit('/', 1)[-1]}…", "info")
        self.run_state_changed.emit(self.run_state)  # Start waits while a model is read
        return True

    def shutdown(self, timeout_ms: int) -> None:
        """Stop loads, the model reader and the training process, waiting at most about ``timeout_ms``."""
        self._timer.stop()
        self._opening = None
        self.data.shutdown(timeout_ms)
        self._model_loader.shutdown(min(timeout_ms, 500))
        self._end_process(timeout_ms)

    # ------------------------------------------------------------------ internals
    def _set_run_state(self, state: str) -> None:
        self.run_state = state
        self.run_state_changed.emit(state)

    def _set_record(self, record: ModelRecord | None) -> None:
        self.record = record
        self.model_path = None  # an opened model sets it again after this
        self.model_changed.emit(record)

    def _forget_run(self) -> None:
        self.attention.clear()
        self.started = self.latest_step = self.finished = self.last_error = None
        self._vocabs = None
        self._epoch_sums = (0.0, 0)
        self._dirty = {"progress": True, "loss": True, "snapshot": True}

    def _end_process(self, timeout_ms: int | None = None) -> None:
        """Detach from the run's worker and close its process: waiting up to ``timeout_ms`` (window close), or,
        with None, on a worker thread so that Reset and the end of a run never hold the GUI thread."""
        process, worker = self._process, self._worker
        self._process = self._worker = None
        self._timer.stop()
        if worker is not None:
            for signal in (worker.yielded, worker.errored, worker.finished):
                signal.disconnect()
            worker.quit()
        if process is None:
            return
        if timeout_ms is None:
            process.stop()
            function_worker(process.close, 5.0).start()
        else:
            process.close(timeout_ms / 1000)

    def _emit_progress(self) -> None:
        step = self.latest_step
        if step is None or self.run_config is None:
            return
        loss, label = self.shown_loss()
        device = self.started.device if self.started is not None else ""
        self.progress_changed.emit(Progress(step.step, step.epoch, self.run_config.num_epochs, step.progress,
                                            step.elapsed_s, step.tokens_per_s, loss, label, device,
                                            self.run_state))

    def _emit_all(self) -> None:
        self._dirty = {"progress": False, "loss": False, "snapshot": False}
        self._emit_progress()
        self.loss_changed.emit()
        self.attention.show_latest()

    def _record_event(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        if kind == "step":
            self.loss.append_step(event.step, event.epoch_fraction, event.elapsed_s, event.loss)
            total, tokens = self._epoch_sums
            self._epoch_sums = (total + event.loss * event.tokens, tokens + event.tokens)
            self.latest_step = event
            self._dirty["progress"] = self._dirty["loss"] = True
        elif kind == "epoch":
            self.loss.append_epoch(event.epoch, event.step, event.elapsed_s, event.loss)
            self._epoch_sums = (0.0, 0)
            self._dirty["loss"] = True
        elif kind == "snapshot":
            self.attention.add(event)
            self._dirty["snapshot"] = True
        elif kind == "started":
            self._on_run_started(event)
        elif kind == "model_state":
            self._on_model_state(event)
        elif kind == "finished":
            self.finished = event
            loss, label = self.shown_loss()
            verb = "Stopped" if event.stopped else "Finished"
            self.message_posted.emit(f"{verb} at epoch {event.epoch}, step {event.step}: loss {loss:.4f} ({label}),"
                                     f" {event.tokens_per_s:,.0f} tokens/s on {event.device}.", "info")
        elif kind == "error":
            self.last_error = str(event.message)
            self.message_posted.emit(f"Training stopped: {event.message}", "alert")

    def _on_run_started(self, event: Any) -> None:
        self.started = event
        self._vocabs = (Vocab.from_dict(event.src_vocab), Vocab.from_dict(event.tgt_vocab))
        self.run_config = TrainingConfig.from_dict(event.config)
        if self.run_state == "starting":
            self._set_run_state("running")
        self.message_posted.emit(f"Training on {event.device}: {event.num_pairs:,} pairs, {event.total_steps:,} "
                                 f"steps, {event.num_parameters:,} parameters.", "info")

    def _on_model_state(self, event: Any) -> None:
        if self._vocabs is None or self.run_config is None:
            return
        if event.reason == "paused" and self.run_state != "paused":
            return  # resumed meanwhile: that model is already stale
        model = model_from_state(event.state, self.run_config, *self._vocabs)
        history = _history_of(self.loss)
        if event.reason == "paused":
            origin = f"paused at step {event.step} (epoch {event.epoch})"
            self.message_posted.emit(f"Paused at step {event.step}: translate or save the model as it is.", "info")
        else:
            origin = f"trained here ({event.step} steps{', stopped by an error' if self.last_error else ''})"
        self._set_record(ModelRecord(model, *self._vocabs, self.run_config, history, self.run_config.num_steps,
                                     origin))

    # ------------------------------------------------------------------ slots
    @Slot(object)
    def _on_worker_yielded(self, event: object) -> None:
        self._record_event(event)

    @Slot(object)
    def _on_worker_errored(self, exc: object) -> None:
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.message_posted.emit(f"Training stopped: {self.last_error}", "alert")

    @Slot()
    def _on_worker_finished(self) -> None:
        self._end_process()
        self._set_run_state("finished")
        self._emit_all()
        self._emit_progress()  # once more, as finished

    @Slot()
    def _on_timer_timeout(self) -> None:
        self._ticks += 1
        if self._dirty["progress"]:
            self._dirty["progress"] = False
            self._emit_progress()
        if self._dirty["loss"] and self._ticks % LOSS_EVERY == 0:
            self._dirty["loss"] = False
            self.loss_changed.emit()
        if self._dirty["snapshot"] and self._ticks % GRID_EVERY == 0:
            self._dirty["snapshot"] = False
            self.attention.show_latest()

    @Slot(object)
    def _on_model_loader_result_ready(self, opened: OpenedModel) -> None:
        path, self._opening = self._opening, None
        if self.is_training():  # cannot happen through the GUI (Start waits); keep the run
            self.model_open_finished.emit(False)
            return
        self._forget_run()
        self.loss.load_history(opened.record.history)
        self.run_config = opened.record.train_config
        if opened.snapshot is not None:
            self.attention.add(opened.snapshot)
        self._set_record(opened.record)
        self.model_path = path
        self._set_run_state("idle")
        self._emit_all()
        if opened.snapshot is None:
            self.message_posted.emit(f"The probe pair cannot be shown with this model: {opened.probe_error}",
                                     "error")
        else:
            self.message_posted.emit(f"Model: {opened.record.origin}. Translate with it in the Translate tab.",
                                     "info")
        self.model_open_finished.emit(True)

    @Slot(str)
    def _on_model_loader_failed(self, message: str) -> None:
        self._opening = None
        self.run_state_changed.emit(self.run_state)
        self.message_posted.emit(f"Could not open the model: {message}", "alert")
        self.model_open_finished.emit(False)


def _history_of(loss: LossRecord) -> Any:
    """The run's losses as a core ``TrainingHistory`` (saved with the model)."""
    from explorer.core.training import TrainingHistory

    return TrainingHistory(step_loss=loss.steps.view()[:, 3].tolist(), epoch_loss=loss.epochs.view()[:, 3].tolist())
