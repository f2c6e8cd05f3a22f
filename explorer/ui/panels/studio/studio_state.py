"""The one owner of the Transformer studio's state (book §11.7): the training run and the model on offer, composed
with the data (:class:`DataState`), the attention history (:class:`AttentionState`) and what the run reported
(:class:`RunFeed`). Views subscribe to its signals and call its methods; they never write each other or its internals.

A trainer event's path: ``core.training`` (in a child process) → ``core.training_process`` →
``ui.worker`` (a superqt generator worker) → :meth:`StudioState._on_worker_yielded` (records it, O(1), mostly
into its :class:`RunFeed`) → the feed's redraw timer → a view's slot. See docs/CONTRACTS.md.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal, Slot

from explorer.core.runs.run_dir import RunDirError, kept_model_at
from explorer.core.runs.replay import ReplayClock
from explorer.core.model.transformer import ConfigError
from explorer.core.training.config import TrainingConfig
from explorer.core.training.devices import check_model_fits, resolve_device
from explorer.core.runs.process import TrainingProcess
from explorer.ui.i18n.words import Words
from explorer.ui.panels.studio.training_run import TrainingRun
from explorer.ui.panels.studio.attention_state import AttentionState
from explorer.ui.panels.studio.data_state import DataState
from explorer.ui.panels.studio.followed_run import FollowedRun, new_run_dir
from explorer.ui.panels.studio.model_files import ModelRecord, OpenedModel
from explorer.ui.panels.studio.model_state import ModelState
from explorer.ui.panels.studio.run_feed import RunFeed
from explorer.ui.panels.studio.run_messages import (following_text, opened_text, refused_start_text,
                                                    replay_paused_text, replay_stopped_text, replaying_text,
                                                    started_text)
from explorer.ui.panels.studio.run_progress import Progress

RUN_STATES = ("idle", "starting", "running", "paused", "stopping", "finished", "following")
GROWING_STATES = ("starting", "running", "paused", "stopping", "following")  # the loss may grow: loss_may_grow


class StudioState(QObject):
    """Data, run, model, losses, attention history and selection of the studio.

    What the run reports (its losses, newest step and snapshots) is recorded by :attr:`run_feed`, whose
    ``progress_changed`` and ``loss_changed`` views subscribe to (as to :attr:`attention`'s signals).

    Signals
    -------
    run_state_changed(str): one of :data:`RUN_STATES`.
    message_posted(object, str): text (``Words`` when worded here) and level: ``info``, ``error`` (inline) or
        ``alert`` (a dialog too).
    replay_changed(object): the speed of the run being replayed (a float), or None when no run is replayed.
    settings_opened(object, object): the ``TrainingConfig`` of a run or model opened here (followed, replayed, read
        from a file) and its probe pair ``(source, target)`` (None: not known): the settings form shows them.
    loss_growing_changed(bool): :meth:`loss_may_grow` changed (the loss plot's range moves in steps while it does).
    """

    run_state_changed = Signal(str)
    loss_growing_changed = Signal(bool)
    message_posted = Signal(object, str)
    replay_changed = Signal(object)
    settings_opened = Signal(object, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data = DataState(self)
        self.data.message_posted.connect(self.message_posted)  # a signal-to-signal connection, no slot
        self.run_state = "idle"
        self.attention = AttentionState(self)
        self.history = self.attention.history
        self.run_feed = RunFeed(self.attention, self._progress_now, self)
        self.run_feed.message_posted.connect(self.message_posted)
        self.loss = self.run_feed.loss  # the run's losses (LossRecord), and other runs' overlaid
        self._loss_growing = False
        self.run_feed.loss_changed.connect(self._check_loss_growing)  # a followed run's end comes with its last losses
        self.models = ModelState(self)
        self.models.message_posted.connect(self.message_posted)
        self.models.model_opened.connect(self._on_models_model_opened)
        self.models.model_changed.connect(self._on_models_model_changed)
        self.run_config: TrainingConfig | None = None
        self._run: TrainingRun | FollowedRun | None = None  # the run in progress: trained here, followed or replayed
        self._caught_up_with: FollowedRun | None = None  # the followed run whose backlog has arrived and is drawn
        self.runs_root: Path | None = None  # where runs trained here are recorded (None: not recorded)
        self.run_dir: Path | None = None  # the run directory of the current run (trained here, followed, replayed)
        self.replay_speed: float | None = None  # the speed the current run is (or was last) replayed at

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

    def is_catching_up(self) -> bool:
        """True while a run directory opened to follow has not yet been shown as it was when it was opened: its
        ``CaughtUpEvent`` has not arrived (it is drawn at once when it does; later writes stream in as written). A
        replay paces itself and never is."""
        followed = self.followed
        return followed is not None and followed.clock is None and followed is not self._caught_up_with

    def loss_may_grow(self) -> bool:
        """True while the run's loss curve may still grow: it trains, or a run followed has not finished."""
        return self.run_state in GROWING_STATES and self.run_feed.finished is None

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

    @property
    def last_error(self) -> str | None:
        """Why the run stopped early (its ``ErrorEvent`` or the worker's exception), or None."""
        return self.run_feed.last_error

    @property
    def latest_step(self) -> Any:
        """The newest ``StepEvent`` of the run, or None."""
        return self.run_feed.progress.latest_step

    # ------------------------------------------------------------------ training
    def start_run(self, config: TrainingConfig, probe: tuple[str, str]) -> bool:
        """Train a fresh model on the loaded data in a child process; False (with a message) if impossible.
        ``config`` must be valid and match the loaded request's ``num_steps`` and ``min_freq``."""
        if not self.can_start():
            self.message_posted.emit(refused_start_text(self.data), "error")
            return False
        try:  # an estimate from the configuration: refuse a model that cannot fit before a process is started
            check_model_fits(config.model, *self.data.vocab_sizes, resolve_device(config.device))
        except ConfigError as exc:
            self.message_posted.emit(Words.formatted(lambda: self.tr("Cannot start: {error}"), error=exc), "error")
            return False
        self._forget_run()
        self.run_dir = new_run_dir(self.runs_root) if self.runs_root is not None else None
        self.loss.new_run()
        self.run_config = config
        self.models.offer(None)
        self._begin(TrainingRun(config, self.data.loaded, probe, self.run_dir), "starting", self._on_worker_finished)
        self.message_posted.emit(Words(lambda: self.tr("Starting the training process…")), "info")
        self.run_feed.emit_all()
        return True

    def pause(self) -> None:
        """Pause before the next step; the model of that step boundary follows as :attr:`model_changed` (a
        replay's model comes only at its end)."""
        if self._run is not None and self.run_state in ("running", "starting"):
            self._run.pause()
            self._set_run_state("paused")
            if self.is_training():
                self.message_posted.emit(Words(lambda: self.tr("Paused: the model is being handed over…")), "info")
            # a replay says where it paused once the steps on their way have arrived (its replay_paused event)
            self.run_feed.emit_progress()

    def resume(self) -> None:
        if self._run is not None and self.run_state == "paused":
            self._run.resume()
            self.models.offer(None)  # the model of the pause goes stale as the run moves on
            if self.is_training():
                self.message_posted.emit(Words(lambda: self.tr("Training resumed.")), "info")
            self._set_run_state("running")

    def request_step(self) -> None:
        """While paused: train on exactly one more batch (its model follows), or replay one more recorded step."""
        if self._run is not None and self.run_state == "paused":
            self._run.request_step()

    def change_settings(self, values: dict[str, float]) -> bool:
        """Change the learning rate (the schedule's base), gradient clip and/or dropout of the run trained here,
        before its next step; False (with a message, nothing changed) without such a run or for a bad value."""
        if not isinstance(self._run, TrainingRun) or self.run_state not in ("starting", "running", "paused"):
            self.message_posted.emit(Words(lambda: self.tr("Settings change only while a run trains here.")), "error")
            return False
        try:
            self._run.change_settings(values)
        except ConfigError as exc:
            self.message_posted.emit(Words.formatted(lambda: self.tr("Cannot change the settings: {error}"),
                                                     error=exc), "error")
            return False
        self.message_posted.emit(Words(lambda: self.tr("The new settings apply from the next step.")), "info")
        return True

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
        self.models.offer(None)
        self._set_run_state("idle")
        self.run_feed.emit_all()
        self.message_posted.emit(Words(lambda: self.tr("Reset.")), "info")

    def redraw(self) -> None:
        """Emit everything recorded so far now (the feed's timer does it in tiers while training)."""
        self.run_feed.emit_all()

    # ------------------------------------------------------------------ run directories
    def open_run(self, path: str) -> bool:
        """Follow a run directory (finished, or still written by the CLI or torchrun): its losses, snapshots and
        translations as they are written, and its latest checkpoint to translate with. False (with a message)
        if refused: while training here, or not a readable run."""
        followed = self._new_followed(path, None)
        if followed is None:
            return False
        self._follow(followed, "following", following_text(followed.name))
        return True

    def replay_run(self, path: str, speed: float = 1.0) -> bool:
        """Replay a recorded run directory as it was trained, ``speed`` times as fast: the run state is then
        ``running``/``paused`` and Pause, Step and Stop act on the replay; its model arrives at the end."""
        followed = self._new_followed(path, ReplayClock(speed))
        if followed is None:
            return False
        self._follow(followed, "running", replaying_text(followed.name, followed.clock.speed))
        return True

    def set_replay_speed(self, speed: float) -> None:
        """Replay the current run at ``speed`` from now on (nothing without a replay)."""
        if self.replay is not None:
            self.replay.set_speed(speed)
            self.replay_speed = self.replay.speed
            self.replay_changed.emit(self.replay.speed)
            self.run_feed.emit_progress()

    def _new_followed(self, path: str, clock: ReplayClock | None) -> FollowedRun | None:
        if self.is_training():
            self.message_posted.emit(Words(lambda: self.tr("Stop training before opening a run.")), "error")
            return None
        try:
            return FollowedRun(path, clock)
        except (RunDirError, OSError) as exc:
            self.message_posted.emit(Words.formatted(
                lambda: self.tr("Could not open the run: {error}"), error=exc), "alert")
            return None

    def _follow(self, followed: FollowedRun, state: str, text: str) -> None:
        self._end_run()
        self._forget_run()
        self.loss.new_run()
        self.models.offer(None)
        self.run_dir = followed.path
        self.replay_speed = followed.clock.speed if followed.clock is not None else None
        self._begin(followed, state, self._on_followed_finished)
        self.run_feed.emit_all()
        if followed.clock is not None:
            self.replay_changed.emit(followed.clock.speed)
        self.message_posted.emit(text, "info")

    # ------------------------------------------------------------------ models
    def save_model(self, path: str) -> bool:
        """Save the model on offer to ``path``; False with a message on failure."""
        return self.models.save(path, self.data.source.name if self.data.source is not None else "")

    def open_model(self, path: str, fallback_num_steps: int, probe: tuple[str, str]) -> bool:
        """Read a checkpoint in the background to inspect and translate; False if refused (while training)."""
        if self.is_training():
            self.message_posted.emit(Words(lambda: self.tr("Stop training before opening a model.")), "error")
            return False
        self.models.open_file(path, fallback_num_steps, probe)
        self.run_state_changed.emit(self.run_state)  # Start waits while a model is read
        return True

    def shutdown(self, timeout_ms: int) -> None:
        """Stop loads, the model reader and the training process, waiting at most about ``timeout_ms``."""
        self.run_feed.stop()
        self.data.shutdown(timeout_ms)
        self.models.shutdown(timeout_ms)
        self._end_run(timeout_ms)

    # ------------------------------------------------------------------ internals
    def _offer_kept_model(self) -> None:
        """A replay paused (every step before the pause recorded): offer the latest model the run kept
        (``models/``) no further trained than its step, and say which step that is."""
        step = self.latest_step.step if self.latest_step is not None else 0
        started = self.run_feed.started
        kept = (kept_model_at(self.run_dir, step, started.num_batches)
                if self.run_dir is not None and started is not None else None)
        if kept is not None:
            self.models.load_checkpoint(str(kept[1]), self.run_dir.name)
        self.message_posted.emit(replay_paused_text(step, kept), "info")

    def _set_run_state(self, state: str) -> None:
        self.run_state = state
        self.run_state_changed.emit(state)
        self._check_loss_growing()

    @Slot()
    def _check_loss_growing(self) -> None:
        if self.loss_may_grow() != self._loss_growing:
            self._loss_growing = not self._loss_growing
            self.loss_growing_changed.emit(self._loss_growing)

    def _forget_run(self) -> None:
        self.attention.clear()
        self.run_dir = self.replay_speed = None
        self.run_feed.forget()

    def _begin(self, run: TrainingRun | FollowedRun, state: str, on_finished: Callable[[], None]) -> None:
        """Make ``run`` the run in progress: its events are recorded from now on and redrawn by the feed's timer."""
        self._run = run
        run.worker.yielded.connect(self._on_worker_yielded)
        run.worker.errored.connect(self._on_worker_errored)
        run.worker.finished.connect(on_finished)
        run.start()
        self.run_feed.start()
        self._set_run_state(state)

    def _end_run(self, timeout_ms: int | None = None) -> None:
        """Detach from the run in progress and close it (see :meth:`TrainingRun.close`)."""
        run, self._run = self._run, None
        self._caught_up_with = None
        self.run_feed.stop()
        if run is None:
            return
        for signal in (run.worker.yielded, run.worker.errored, run.worker.finished):
            signal.disconnect()  # Qt drops the connections first, so nothing more of this run is recorded
        run.close(timeout_ms)
        if run.clock is not None:
            self.replay_changed.emit(None)

    def _progress_now(self) -> Progress | None:
        """The progress line (see :class:`RunFeed`): None before the first step or without a configuration."""
        if self.run_config is None:
            return None
        device = self.run_feed.started.device if self.run_feed.started is not None else ""
        speed = self.replay.speed if self.replay is not None else None
        return self.run_feed.progress.progress(self.run_config.num_epochs, device, self.run_state, speed)

    def _record_event(self, event: Any) -> None:
        self.run_feed.record(event)  # what the run reports: losses, steps, snapshots, start, end, errors (O(1))
        kind = getattr(event, "kind", "")
        if kind == "started":
            self._on_run_started(event)
        elif kind == "checkpoint" and self.followed is not None:
            self.models.load_checkpoint(event.path, self.followed.name)
        elif kind == "model_state":
            self._on_model_state(event)
        elif kind == "caught_up" and self.followed is not None:  # the run as it was when opened: draw it now
            self._caught_up_with = self.followed
            self.run_feed.emit_all()
        elif kind == "replay_paused" and self.run_state == "paused":
            self._offer_kept_model()
            self.run_feed.emit_progress()

    def _on_run_started(self, event: Any) -> None:
        self.run_config = TrainingConfig.from_dict(event.config)
        if self.followed is not None:  # a run trained elsewhere: the form shows its settings, not the last ones
            probe = getattr(event, "probe", None)
            self.settings_opened.emit(self.run_config, tuple(probe) if probe else None)
        if self.run_state == "starting":
            self._set_run_state("running")
        if self.followed is None:
            self.message_posted.emit(started_text(event, self.run_dir), "info")

    def _on_model_state(self, event: Any) -> None:
        if self.run_feed.vocabs is None or self.run_config is None:
            return
        if event.reason == "paused" and self.run_state != "paused":
            return  # resumed meanwhile: that model is already stale
        self.models.offer_trained(event, self.run_config, self.run_feed.vocabs, self.loss, bool(self.last_error))

    # ------------------------------------------------------------------ slots
    @Slot(object)
    def _on_worker_yielded(self, event: object) -> None:
        if isinstance(event, list):  # a trained run hands over lists (paced), a followed run one list per poll
            for item in event:
                self._record_event(item)
        else:
            self._record_event(event)

    @Slot(object)
    def _on_worker_errored(self, exc: object) -> None:
        self.run_feed.record_failure(f"{type(exc).__name__}: {exc}")

    @Slot()
    def _on_worker_finished(self) -> None:
        """The run ended (finished, stopped or failed): close it, say so and draw everything it reported."""
        self._end_run()
        self._set_run_state("finished")
        self.run_feed.emit_all()
        self.run_feed.emit_progress()  # once more, as finished

    @Slot()
    def _on_followed_finished(self) -> None:
        followed = self.followed
        if followed is not None and followed.clock is not None and followed.clock.stopped:
            self.message_posted.emit(replay_stopped_text(self.latest_step), "info")
        self._on_worker_finished()  # the same end as a run trained here
        if followed is not None and followed.follower.problems:
            # a plural message stays a self.tr call: lupdate reads %n only from tr()
            count = len(followed.follower.problems)
            self.message_posted.emit(Words.formatted(
                lambda: self.tr("Stopped following {name}; %n damaged part(s) were skipped: {problem}", "", count),
                name=followed.name, problem=followed.follower.problems[-1]), "error")

    @Slot(object)
    def _on_models_model_opened(self, opened: OpenedModel) -> None:
        if self.is_training():  # cannot happen through the GUI (Start waits); keep the run
            return
        self._end_run()
        self._forget_run()
        self.loss.load_history(opened.record.history)
        self.run_config = opened.record.train_config
        if self.run_config is not None:
            self.settings_opened.emit(self.run_config, None)
        if opened.snapshot is not None:
            self.attention.add(opened.snapshot)
        self.models.offer(opened.record)
        self._set_run_state("idle")
        self.run_feed.emit_all()
        self.message_posted.emit(*opened_text(opened))

    @Slot(object)
    def _on_models_model_changed(self, _record: object) -> None:
        self.run_state_changed.emit(self.run_state)  # Start and the menu follow whether a model is on offer

