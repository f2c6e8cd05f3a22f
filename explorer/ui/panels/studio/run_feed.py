"""What a studio run has reported so far (book §11.7 training): its start, losses, newest step, snapshots, end and
errors (other runs' losses overlaid), and their redraw at a bounded rate (STYLE 18): events are recorded in O(1); a
~10 Hz timer emits the progress line, the loss curve (~5 Hz) and the attention grid (~2.5 Hz while live). Part of
:class:`StudioState`."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from explorer.core.runs.loss_record import LossRecord, rows_from_metrics
from explorer.core.runs.run_dir import RunDirError, read_metrics, read_run_json
from explorer.core.data.text import Vocab
from explorer.ui.i18n.words import Words
from explorer.ui.panels.studio.run_messages import finished_text, stopped_text, translations_text
from explorer.ui.panels.studio.run_progress import Progress, ProgressTracker

if TYPE_CHECKING:
    from explorer.ui.panels.studio.attention_state import AttentionState

# Each wake-up of the GUI while training costs the training process more than its own CPU time: its OpenMP team
# waits at a barrier whenever one of its threads gives way (the studio's run trained at 0.97 of the CLI's speed with
# the redraws stopped, 0.87 with the panel hidden, ~0.8 drawing at 30/8/4 Hz; bench/gui_responsiveness.py --size
# large). Text read by a person and curves watched for their trend need no more than this.
REDRAW_MS = 100  # ~10 Hz: the progress line
LOSS_EVERY = 2  # ticks between loss-curve redraws (~5 Hz: axis repaints are the costliest GUI work)
GRID_EVERY = 4  # ticks between attention-grid redraws while live (~2.5 Hz); the history keeps every snapshot


class RunFeed(QObject):
    """The run's :class:`LossRecord`, :class:`ProgressTracker`, ``StartedEvent`` (and vocabularies), ``FinishedEvent``
    and last error, fed by its events, and the timer that redraws them.

    Snapshots go to ``attention`` (the studio's :class:`AttentionState`). ``progress_now`` builds the progress
    line from :attr:`progress` (the studio knows the run's state and replay speed), or returns None.

    Signals
    -------
    progress_changed(Progress): at most ~10 Hz while the timer runs, and on :meth:`emit_progress`.
    loss_changed(): the loss record grew or was replaced (at most ~5 Hz while the timer runs); read :attr:`loss`.
    message_posted(object, str): text (``Words`` when worded here) and level: the run's translations and end
        (``info``), its error (``alert``), another run's losses that cannot be overlaid (``error``).
    settings_changed(object): the live settings in force (:meth:`settings_in_force`): at the run's start, when they
        change while it trains, and when a resume drops later changes.
    """

    progress_changed = Signal(object)
    loss_changed = Signal()
    message_posted = Signal(object, str)
    settings_changed = Signal(object)

    def __init__(self, attention: AttentionState, progress_now: Callable[[], Progress | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.loss = LossRecord()
        self.progress = ProgressTracker()
        self.started: Any = None  # the run's StartedEvent
        self.vocabs: tuple[Vocab, Vocab] | None = None  # (source, target), from the StartedEvent
        self.finished: Any = None  # the run's FinishedEvent
        self.last_error: str | None = None
        self._attention = attention
        self._progress_now = progress_now
        self._dirty = {"progress": False, "loss": False, "snapshot": False}
        self._ticks = 0
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def record(self, event: Any) -> None:
        """Record what ``event`` reports (O(1)): losses, the newest step and snapshots are drawn on a later tick,
        translations, the end and errors are said now; other kinds (``model_state``, ``checkpoint``) are the
        studio's."""
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
            self._attention.add(event)
            self._dirty["snapshot"] = True
        elif kind == "settings":
            self.loss.add_change(event)
            self._dirty["loss"] = True
            self.settings_changed.emit(self.settings_in_force())
        elif kind == "resumed":
            self.loss.drop_after(event.step)
            epochs = self.loss.epochs.view()  # (n, 4): step, epoch, seconds, loss of the epochs that stand
            self.progress.on_resumed((int(epochs[-1, 1]), float(epochs[-1, 3])) if len(epochs) else None)
            self._dirty["loss"] = self._dirty["progress"] = True
            self.settings_changed.emit(self.settings_in_force())
        elif kind == "started":
            self.started = event
            self.vocabs = (Vocab.from_dict(event.src_vocab), Vocab.from_dict(event.tgt_vocab))
            self.settings_changed.emit(self.settings_in_force())
        elif kind == "translations":
            self.message_posted.emit(translations_text(event), "info")
        elif kind == "finished":
            self.finished = event
            self.progress.on_finished(event)  # the progress line then says the finished record's tokens/s too
            self.message_posted.emit(finished_text(event, *self.progress.shown_loss()), "info")
        elif kind == "error":
            self.record_failure(str(event.message))

    def settings_in_force(self) -> dict[str, float] | None:
        """``lr`` (the schedule's base rate), ``grad_clip`` and ``dropout`` as the run trains now: its config as
        started, then its latest change; None before a run has started."""
        if self.started is None:
            return None
        config = self.started.config
        settings = {"lr": config.get("lr"), "grad_clip": config.get("grad_clip"),
                    "dropout": (config.get("model") or {}).get("dropout")}
        if self.loss.changes:
            last = self.loss.changes[-1]
            settings = {"lr": last.lr, "grad_clip": last.grad_clip, "dropout": last.dropout}
        return settings

    def record_failure(self, error: str) -> None:
        """The run stopped with ``error`` (the trainer's ``ErrorEvent`` or the worker's exception): kept and said."""
        self.last_error = error
        self.message_posted.emit(stopped_text(error), "alert")

    def start(self) -> None:
        """Redraw what is recorded, in tiers, until :meth:`stop`."""
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def forget(self) -> None:
        """Forget the run's start, end, error, newest step and loss sums (the loss record is the studio's to renew)."""
        self.started = self.vocabs = self.finished = self.last_error = None
        self.progress.reset()
        self._dirty = {"progress": True, "loss": True, "snapshot": True}

    def emit_progress(self) -> None:
        """Emit the progress line now (nothing before the first step)."""
        progress = self._progress_now()
        if progress is not None:
            self.progress_changed.emit(progress)

    def emit_all(self) -> None:
        """Emit the progress line, the loss record and the newest snapshot now."""
        self._dirty = {"progress": False, "loss": False, "snapshot": False}
        self.emit_progress()
        self.loss_changed.emit()
        self._attention.show_latest()

    def overlay_run(self, path: str) -> bool:
        """Draw another run's per-step losses over the current curves; False (with a message) if unreadable."""
        try:
            read_run_json(path)  # a run directory (RunDirError otherwise)
            rows = rows_from_metrics(read_metrics(path))
        except (RunDirError, OSError, KeyError, TypeError, ValueError) as exc:
            self.message_posted.emit(Words.formatted(
                lambda: self.tr("Could not read that run's losses: {error}"), error=exc), "error")
            return False
        if not len(rows):
            self.message_posted.emit(Words.formatted(
                lambda: self.tr("The run {name} has no losses yet."), name=Path(path).name), "error")
            return False
        self.loss.add_overlay(Path(path).name, rows)
        self.loss_changed.emit()
        return True

    def clear_overlays(self) -> None:
        """Remove every other run's loss curve (the previous run's too)."""
        self.loss.clear_overlays()
        self.loss_changed.emit()

    @Slot()
    def _on_timer_timeout(self) -> None:
        self._ticks += 1
        if self._dirty["progress"]:
            self._dirty["progress"] = False
            self.emit_progress()
        if self._dirty["loss"] and self._ticks % LOSS_EVERY == 0:
            self._dirty["loss"] = False
            self.loss_changed.emit()
        if self._dirty["snapshot"] and self._ticks % GRID_EVERY == 0:
            self._dirty["snapshot"] = False
            self._attention.show_latest()
