"""The one owner of the Transformer studio's state (book §11.7): the training run, the model on offer and the
loss record, composed with the data (:class:`DataState`) and the attention history (:class:`AttentionState`). Views subscribe to its signals and
call its methods; they never write each other or its internals.

A trainer event's path: ``core.training`` (in a child process) → ``core.training_process`` →
``ui.worker`` (a superqt generator worker) → :meth:`StudioState._on_run_event` (records it, O(1)) → the
state's redraw timer → a view's slot. See docs/CONTRACTS.md.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from explorer.core.loss_record import LossRecord, rows_from_metrics
from explorer.core.run_dir import RunDirError, read_metrics, read_run_json
from explorer.core.run_replay import ReplayClock
from explorer.core.text import Vocab
from explorer.core.transformer import ConfigError
from explorer.core.training import TrainingConfig, check_model_fits, resolve_device
from explorer.core.training_process import TrainingJob, TrainingProcess, warm_up
from explorer.ui.panels.studio.training_run import TrainingRun
from explorer.ui.panels.studio.attention_state import AttentionState
from explorer.ui.panels.studio.data_loading import source_label
from explorer.ui.panels.studio.data_state import DataState
from explorer.ui.panels.studio.debug_state import DebugState
from explorer.ui.panels.studio.followed_run import FollowedRun, new_run_dir
from explorer.ui.panels.studio.model_files import ModelRecord, OpenedModel, model_from_state
from explorer.ui.panels.studio.inspect_state import InspectState
from explorer.ui.panels.studio.model_state import ModelState
from explorer.ui.panels.studio.run_progress import ProgressTracker
from explorer.ui.process_settings import training_threads

RUN_STATES = ("idle", "starting", "running", "paused", "stopping", "finished", "following")
REDRAW_MS = 33  # ~30 Hz: the progress line
LOSS_EVERY = 4  # ticks between loss-curve redraws (~8 Hz: axis repaints are the costliest GUI work)
GRID_EVERY = 8  # ticks between attention-grid redraws while live (~4 Hz); the history keeps every snapshot


class StudioState(QObject):
    """Data, run, model, losses, attention history and selection of the studio.

    Signals
    -------
    run_state_changed(str): one of :data:`RUN_STATES`.
    progress_changed(Progress): (``run_progress.Progress``) at most ~30 Hz while training, once more at the end.
    loss_changed(): the loss record grew or was replaced (at most ~8 Hz); read :attr:`loss`.
    message_posted(str, str): text and level: ``info``, ``error`` (inline) or ``alert`` (a dialog too).
    replay_changed(object): the speed of the run being replayed (a float), or None when no run is replayed.
    """

    run_state_changed = Signal(str)
    progress_changed = Signal(object)
    loss_changed = Signal()
    message_posted = Signal(str, str)
    replay_changed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data = DataState(self)
        self.data.message_posted.connect(self.message_posted)  # a signal-to-signal connection, no slot
        self.run_state = "idle"
        self.loss = LossRecord()
        self.attention = AttentionState(self)
        self.history = self.attention.history
        self.models = ModelState(self)
        self.models.message_posted.connect(self.message_posted)
        self.inspect = InspectState(self.attention, self.models, self)  # models trained elsewhere (issue 12)
        self.inspect.message_posted.connect(self.message_posted)
        self.debug = DebugState(self.inspect, self.data, self)  # ablation, explain, decoding, beams, diff (issue 13)
        self.models.model_opened.connect(self._on_models_model_opened)
        self.models.model_changed.connect(self._on_models_model_changed)
        self.last_error: str | None = None
        self.run_config: TrainingConfig | None = None
        self.started: Any = None  # the run's StartedEvent
        self.progress = ProgressTracker()
        self.finished: Any = None  # the run's FinishedEvent
        self._vocabs: tuple[Vocab, Vocab] | None = None
        self._run: TrainingRun | FollowedRun | None = None  # the run in progress: trained here, followed or replayed
        self.runs_root: Path | None = None  # where runs trained here are recorded (None: not recorded)
        self.run_dir: Path | None = None  # the run directory of the current run (trained here, followed, replayed)
        self.replay_speed: float | None = None  # the speed the current run is (or was last) replayed at
        self._dirty = {"progress": False, "loss": False, "snapshot": False}
        self._ticks = 0
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        warm_up()  # the training process server imports torch now, so Start does not wait for it

    # ------------------------------------------------------------------ queries
    def is_training(self) -> bool:
        """True from Start until the training process has ended."""
        return isinstance(self._run, TrainingRun)

    @property
    def training_process(self) -> TrainingProcess | None:
        """The child process of the run in progress, or None."""
        return self._run.process if isinstance(self._run, TrainingRun) else None

    @property
    def followed(self) -> FollowedRun | None:
        """The run directory followed live or replayed, or None."""
        return self._run if isinstance(self._run, FollowedRun) else None

    @property
    def record(self) -> ModelRecord | None:
        """The model on offer (see :class:`ModelState`)."""
        return self.models.record

    @property
    def model_path(self) -> str | None:
        """The file of the opened model on offer, if any (lessons refer to it)."""
        return self.models.path

    def is_opening_model(self) -> bool:
        return self.models.opening is not None

    def is_following(self) -> bool:
        """True while a run directory is followed (or replayed)."""
        return self.followed is not None

    @property
    def replay(self) -> ReplayClock | None:
        """The clock of the run being replayed, or None."""
        return self._run.clock if self._run is not None else None

    def can_start(self) -> bool:
        return (not self.is_training() and not self.is_following() and self.data.source is not None
                and not self.data.is_loading() and not self.is_opening_model())

    def shown_loss(self) -> tuple[float, str]:
        """The loss the studio shows everywhere, with its label (see :class:`ProgressTracker`)."""
        return self.progress.shown_loss()

    @property
    def latest_step(self) -> Any:
        """The newest ``StepEvent`` of the run, or None."""
        return self.progress.latest_step

    # ------------------------------------------------------------------ training
    def start_run(self, config: TrainingConfig, probe: tuple[str, str]) -> bool:
        """Train a fresh model on the loaded data in a child process; False (with a message) if impossible.
        ``config`` must be valid and match the loaded request's ``num_steps`` and ``min_freq``."""
        if not self.can_start():
            why = (self.tr("Still loading {source}; start when it is ready.").format(
                       source=source_label(self.data.loading.spec)) if self.data.is_loading()
                   else self.tr("Choose a data source first.") if self.data.source is None
                   else self.tr("Training is running."))
            self.message_posted.emit(why, "error")
            return False
        try:  # an estimate from the configuration: refuse a model that cannot fit before a process is started
            check_model_fits(config.model, *self.data.vocab_sizes, resolve_device(config.device))
        except ConfigError as exc:
            self.message_posted.emit(self.tr("Cannot start: {error}").format(error=exc), "error")
            return False
        request = self.data.loaded
        self._forget_run()
        self.run_dir = new_run_dir(self.runs_root) if self.runs_root is not None else None
        job = TrainingJob(config.to_dict(), request.spec, request.num_examples, request.seed, probe,
                          num_threads=training_threads(), run_dir=str(self.run_dir) if self.run_dir else None)
        self.loss.new_run()
        self.run_config = config
        self._set_record(None)
        self._run = run = TrainingRun(job)
        run.worker.yielded.connect(self._on_worker_yielded)
        run.worker.errored.connect(self._on_worker_errored)
        run.worker.finished.connect(self._on_worker_finished)
        run.start()
        self._timer.start()
        self._set_run_state("starting")
        self.message_posted.emit(self.tr("Starting the training process…"), "info")
        self._emit_all()
        return True

    def pause(self) -> None:
        """Pause before the next step; the model of that step boundary follows as :attr:`model_changed` (a
        replay's model comes only at its end)."""
        if self._run is not None and self.run_state in ("running", "starting"):
            self._run.pause()
            self._set_run_state("paused")
            if self.is_training():
                self.message_posted.emit(self.tr("Paused: the model is being handed over…"), "info")
            self._emit_progress()

    def resume(self) -> None:
        if self._run is not None and self.run_state == "paused":
            self._run.resume()
            if self.is_training():
                self._set_record(None)
                self.message_posted.emit(self.tr("Training resumed."), "info")
            self._set_run_state("running")

    def request_step(self) -> None:
        """While paused: train on exactly one more batch (its model follows), or replay one more recorded step."""
        if self._run is not None and self.run_state == "paused":
            self._run.request_step()

    def stop(self) -> None:
        """End the run after the current step (the model trained so far is kept), or stop following a run."""
        if self.followed is not None:
            self.followed.stop()
        elif self._run is not None and self.run_state in ("starting", "running", "paused"):
            self._run.stop()
            self._set_run_state("stopping")

    def reset(self) -> None:
        """Stop any run and forget the model, the losses and the attention history."""
        self._end_run()
        self._forget_run()
        self.loss.clear()
        self._set_record(None)
        self._set_run_state("idle")
        self._emit_all()
        self.message_posted.emit(self.tr("Reset."), "info")

    def redraw(self) -> None:
        """Emit everything recorded so far now (the timer does it in tiers while training)."""
        self._emit_all()

    # ------------------------------------------------------------------ run directories
    def open_run(self, path: str) -> bool:
        """Follow a run directory (finished, or still written by the CLI or torchrun): its losses, snapshots and
        translations as they are written, and its latest checkpoint to translate with. False (with a message)
        if refused: while training here, or not a readable run."""
        followed = self._new_followed(path, None)
        if followed is None:
            return False
        self._follow(followed, "following")
        self.message_posted.emit(self.tr("Following the run {name}: new steps appear as they are written.").format(
            name=followed.name), "info")
        return True

    def replay_run(self, path: str, speed: float = 1.0) -> bool:
        """Replay a recorded run directory as it was trained, ``speed`` times as fast: the run state is then
        ``running``/``paused`` and Pause, Step and Stop act on the replay; its model arrives at the end."""
        followed = self._new_followed(path, ReplayClock(speed))
        if followed is None:
            return False
        self._follow(followed, "running")
        self.replay_changed.emit(followed.clock.speed)
        self.message_posted.emit(self.tr("Replaying the run {name} at {speed}× as it was recorded: Pause, Step and "
                                         "Stop work as in training; its model arrives at the end.").format(
            name=followed.name, speed=f"{followed.clock.speed:g}"), "info")
        return True

    def set_replay_speed(self, speed: float) -> None:
        """Replay the current run at ``speed`` from now on (nothing without a replay)."""
        if self.replay is not None:
            self.replay.set_speed(speed)
            self.replay_speed = self.replay.speed
            self.replay_changed.emit(self.replay.speed)
            self._emit_progress()

    def _new_followed(self, path: str, clock: ReplayClock | None) -> FollowedRun | None:
        if self.is_training():
            self.message_posted.emit(self.tr("Stop training before opening a run."), "error")
            return None
        try:
            return FollowedRun(path, clock)
        except (RunDirError, OSError) as exc:
            self.message_posted.emit(self.tr("Could not open the run: {error}").format(error=exc), "alert")
            return None

    def _follow(self, followed: FollowedRun, state: str) -> None:
        self._end_run()
        self._forget_run()
        self.loss.new_run()
        self._set_record(None)
        self._run, self.run_dir = followed, followed.path
        self.replay_speed = followed.clock.speed if followed.clock is not None else None
        followed.worker.yielded.connect(self._on_worker_yielded)
        followed.worker.errored.connect(self._on_worker_errored)
        followed.worker.finished.connect(self._on_followed_finished)
        followed.start()
        self._timer.start()
        self._set_run_state(state)
        self._emit_all()

    def overlay_run(self, path: str) -> bool:
        """Draw another run's per-step losses over the current curves; False (with a message) if unreadable."""
        try:
            read_run_json(path)  # a run directory (RunDirError otherwise)
            rows = rows_from_metrics(read_metrics(path))
        except (RunDirError, OSError, KeyError, TypeError, ValueError) as exc:
            self.message_posted.emit(self.tr("Could not read that run's losses: {error}").format(error=exc), "error")
            return False
        if not len(rows):
            self.message_posted.emit(self.tr("The run {name} has no losses yet.").format(name=Path(path).name), "error")
            return False
        self.loss.add_overlay(Path(path).name, rows)
        self.loss_changed.emit()
        return True

    def clear_overlays(self) -> None:
        """Remove every other run's loss curve (the previous run's too)."""
        self.loss.clear_overlays()
        self.loss_changed.emit()

    # ------------------------------------------------------------------ models
    def save_model(self, path: str) -> bool:
        """Save the model on offer to ``path``; False with a message on failure."""
        return self.models.save(path, self.data.source.name if self.data.source is not None else "")

    def open_model(self, path: str, fallback_num_steps: int, probe: tuple[str, str]) -> bool:
        """Read a checkpoint in the background to inspect and translate; False if refused (while training)."""
        if self.is_training():
            self.message_posted.emit(self.tr("Stop training before opening a model."), "error")
            return False
        self.models.open_file(path, fallback_num_steps, probe)
        self.run_state_changed.emit(self.run_state)  # Start waits while a model is read
        return True

    def shutdown(self, timeout_ms: int) -> None:
        """Stop loads, the model reader and the training process, waiting at most about ``timeout_ms``."""
        self._timer.stop()
        self.data.shutdown(timeout_ms)
        self.models.shutdown(timeout_ms)
        self.inspect.shutdown(timeout_ms)
        self.debug.shutdown(timeout_ms)
        self._end_run(timeout_ms)

    # ------------------------------------------------------------------ internals
    def _set_run_state(self, state: str) -> None:
        self.run_state = state
        self.run_state_changed.emit(state)

    def _set_record(self, record: ModelRecord | None) -> None:
        self.models.offer(record)

    def _forget_run(self) -> None:
        self.attention.clear()
        self.started = self.finished = self.last_error = self.run_dir = self.replay_speed = None
        self.progress.reset()
        self._vocabs = None
        self._dirty = {"progress": True, "loss": True, "snapshot": True}

    def _end_run(self, timeout_ms: int | None = None) -> None:
        """Detach from the run in progress and close it (see :meth:`TrainingRun.close`)."""
        run, self._run = self._run, None
        self._timer.stop()
        if run is None:
            return
        for signal in (run.worker.yielded, run.worker.errored, run.worker.finished):
            signal.disconnect()  # Qt drops the connections first, so nothing more of this run is recorded
        run.close(timeout_ms)
        if run.clock is not None:
            self.replay_changed.emit(None)

    def _emit_progress(self) -> None:
        if self.run_config is None:
            return
        device = self.started.device if self.started is not None else ""
        replay = self.replay
        if replay is not None:
            device = self.tr("replay at {speed}×").format(speed=f"{replay.speed:g}")
        progress = self.progress.progress(self.run_config.num_epochs, device, self.run_state)
        if progress is not None and replay is not None:  # ETA in the replay's seconds, not the recorded ones
            progress = dataclasses.replace(progress, elapsed_s=progress.elapsed_s / replay.speed)
        if progress is not None:
            self.progress_changed.emit(progress)

    def _emit_all(self) -> None:
        self._dirty = {"progress": False, "loss": False, "snapshot": False}
        self._emit_progress()
        self.loss_changed.emit()
        self.attention.show_latest()

    def _record_event(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        if kind == "step":
            self.loss.append_step(event.step, event.epoch_fraction, event.elapsed_s, event.loss)
            self.progress.on_step(event)
            self._dirty["progress"] = self._dirty["loss"] = True
        elif kind == "epoch":
            self.loss.append_epoch(event.epoch, event.step, event.elapsed_s, event.loss)
            self.progress.on_epoch(event)
            self._dirty["loss"] = True
        elif kind == "snapshot":
            self.attention.add(event)
            self._dirty["snapshot"] = True
        elif kind == "started":
            self._on_run_started(event)
        elif kind == "translations":
            shown = " · ".join(f"{t['src']} → {t['translation']}" for t in event.translations[:2])
            self.message_posted.emit(self.tr("Epoch {epoch}: {shown} (mean BLEU {bleu:.3f})").format(
                epoch=event.epoch, shown=shown, bleu=event.bleu), "info")
        elif kind == "resumed":
            self.loss.drop_after(event.step)
            self._dirty["loss"] = True
        elif kind == "checkpoint" and self.followed is not None:
            self.models.load_checkpoint(event.path, self.followed.name)
        elif kind == "model_state":
            self._on_model_state(event)
        elif kind == "finished":
            self.finished = event
            loss, label = self.shown_loss()
            text = (self.tr("Stopped at epoch {epoch}, step {step}: loss {loss:.4f} ({label}), {rate:,.0f} tokens/s on "
                            "{device}.") if event.stopped else
                    self.tr("Finished at epoch {epoch}, step {step}: loss {loss:.4f} ({label}), {rate:,.0f} tokens/s "
                            "on {device}."))
            self.message_posted.emit(text.format(epoch=event.epoch, step=event.step, loss=loss, label=label,
                                                 rate=event.tokens_per_s, device=event.device), "info")
        elif kind == "error":
            self.last_error = str(event.message)
            self.message_posted.emit(self.tr("Training stopped: {error}").format(error=event.message), "alert")

    def _on_run_started(self, event: Any) -> None:
        self.started = event
        self._vocabs = (Vocab.from_dict(event.src_vocab), Vocab.from_dict(event.tgt_vocab))
        self.run_config = TrainingConfig.from_dict(event.config)
        if self.run_state == "starting":
            self._set_run_state("running")
        if self.followed is not None:
            return
        text = (self.tr("Training on {device}: {pairs:,} pairs, {steps:,} steps, {parameters:,} parameters. Recording "
                        "the run in {folder}.") if self.run_dir is not None else
                self.tr("Training on {device}: {pairs:,} pairs, {steps:,} steps, {parameters:,} parameters."))
        self.message_posted.emit(text.format(device=event.device, pairs=event.num_pairs, steps=event.total_steps,
                                             parameters=event.num_parameters, folder=self.run_dir), "info")

    def _on_model_state(self, event: Any) -> None:
        if self._vocabs is None or self.run_config is None:
            return
        if event.reason == "paused" and self.run_state != "paused":
            return  # resumed meanwhile: that model is already stale
        model = model_from_state(event.state, self.run_config, *self._vocabs)
        history = _history_of(self.loss)
        if event.reason == "paused":
            origin = self.tr("paused at step {step} (epoch {epoch})").format(step=event.step, epoch=event.epoch)
            self.message_posted.emit(self.tr("Paused at step {step}: translate or save the model as it is.").format(
                step=event.step), "info")
        else:
            origin = (self.tr("trained here ({steps} steps, stopped by an error)") if self.last_error
                      else self.tr("trained here ({steps} steps)")).format(steps=event.step)
        self._set_record(ModelRecord(model, *self._vocabs, self.run_config, history, self.run_config.num_steps,
                                     origin))

    # ------------------------------------------------------------------ slots
    @Slot(object)
    def _on_worker_yielded(self, event: object) -> None:
        if isinstance(event, list):  # a followed run hands over one list per poll
            for item in event:
                self._record_event(item)
        else:
            self._record_event(event)

    @Slot(object)
    def _on_worker_errored(self, exc: object) -> None:
        self.last_error = f"{type(exc).__name__}: {exc}"
        self.message_posted.emit(self.tr("Training stopped: {error}").format(error=self.last_error), "alert")

    @Slot()
    def _on_worker_finished(self) -> None:
        self._end_run()
        self._set_run_state("finished")
        self._emit_all()
        self._emit_progress()  # once more, as finished

    @Slot()
    def _on_followed_finished(self) -> None:
        followed = self.followed
        if followed is not None and followed.clock is not None and followed.clock.stopped:
            step = self.latest_step.step if self.latest_step is not None else 0
            self.message_posted.emit(self.tr("Replay stopped at step {step}.").format(step=step), "info")
        self._end_run()
        self._set_run_state("finished")
        self._emit_all()
        self._emit_progress()
        if followed is not None and followed.follower.problems:
            self.message_posted.emit(self.tr("Stopped following {name}; %n damaged part(s) were skipped: {problem}", "",
                                             len(followed.follower.problems)).format(
                name=followed.name, problem=followed.follower.problems[-1]), "error")

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
    def _on_models_model_opened(self, opened: OpenedModel) -> None:
        if self.is_training():  # cannot happen through the GUI (Start waits); keep the run
            return
        self._end_run()
        self._forget_run()
        self.loss.load_history(opened.record.history)
        self.run_config = opened.record.train_config
        if opened.snapshot is not None:
            self.attention.add(opened.snapshot)
        self.models.offer(opened.record)
        self._set_run_state("idle")
        self._emit_all()
        if opened.snapshot is None:
            self.message_posted.emit(self.tr("The probe pair cannot be shown with this model: {error}").format(
                error=opened.probe_error), "error")
        else:
            self.message_posted.emit(self.tr("Model: {origin}. Translate with it in the Translate tab.").format(
                origin=opened.record.origin), "info")

    @Slot(object)
    def _on_models_model_changed(self, _record: object) -> None:
        self.run_state_changed.emit(self.run_state)  # Start and the menu follow whether a model is on offer


def _history_of(loss: LossRecord) -> Any:
    """The run's losses as a core ``TrainingHistory`` (saved with the model)."""
    from explorer.core.training import TrainingHistory

    return TrainingHistory(step_loss=loss.steps.view()[:, 3].tolist(), epoch_loss=loss.epochs.view()[:, 3].tolist())
