"""The studio's model on offer as state (book §11.7): the model a paused, finished, opened or followed run hands
to translate, inspect and save, and the reading of model files off the GUI thread. Part of
:class:`StudioState`; views subscribe to :attr:`ModelState.model_changed`."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from explorer.core.training.checkpoint_read import CheckpointError
from explorer.core.runs.loss_record import LossRecord
from explorer.core.data.text import Vocab
from explorer.core.training.config import TrainingConfig, TrainingHistory
from explorer.ui.i18n.words import Words
from explorer.ui.panels.studio.followed_run import checkpoint_record
from explorer.ui.panels.studio.model_files import (ModelRecord, OpenedModel, model_from_state, open_model_job,
                                                   save_record)
from explorer.ui.panels.studio.run_messages import paused_text, trained_origin
from explorer.ui.worker import LatestOnlyRunner


class ModelState(QObject):
    """The :class:`ModelRecord` on offer (or None) and the files it comes from or goes to.

    Signals
    -------
    model_changed(object): the model on offer changed (a ``ModelRecord``, or None).
    model_opened(object): a checkpoint was read (an ``OpenedModel``); the studio makes it the current model.
    model_open_finished(bool): a Model → Open request ended: True if the model is on offer.
    message_posted(object, str): text (``Words`` when worded here) and level (``info``, ``error`` or ``alert``).
    """

    model_changed = Signal(object)
    model_opened = Signal(object)
    model_open_finished = Signal(bool)
    message_posted = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.record: ModelRecord | None = None
        self.path: str | None = None  # the file of an opened model on offer (lessons refer to it)
        self.opening: str | None = None
        self._file_loader = LatestOnlyRunner(self)
        self._file_loader.result_ready.connect(self._on_file_loader_result_ready)
        self._file_loader.failed.connect(self._on_file_loader_failed)
        self._checkpoint_loader = LatestOnlyRunner(self)
        self._checkpoint_loader.result_ready.connect(self._on_checkpoint_loader_result_ready)
        self._checkpoint_loader.failed.connect(self._on_checkpoint_loader_failed)
        self._accept_checkpoints = False

    def offer(self, record: ModelRecord | None, path: str | None = None) -> None:
        """Make ``record`` the model on offer (None: there is none)."""
        self.record, self.path = record, path
        self._accept_checkpoints = False
        self.model_changed.emit(record)

    def offer_trained(self, event: Any, config: TrainingConfig, vocabs: tuple[Vocab, Vocab], loss: LossRecord,
                      failed: bool) -> None:
        """Offer the model a training process sent (a ``ModelStateEvent``'s weights, built here on the CPU) with
        the run's losses so far as its history; ``failed``: the run was stopped by an error."""
        model = model_from_state(event.state, config, *vocabs)
        if event.reason == "paused":
            self.message_posted.emit(paused_text(event), "info")
        self.offer(ModelRecord(model, *vocabs, config, history_of(loss), config.num_steps,
                               trained_origin(event, failed)))

    def open_file(self, path: str, fallback_num_steps: int, probe: tuple[str, str]) -> None:
        """Read a checkpoint in the background; :attr:`model_opened` or a message follows."""
        self.opening = path
        self._file_loader.submit(open_model_job, path, fallback_num_steps, probe)
        self.message_posted.emit(Words.formatted(lambda: self.tr("Opening {name}…"), name=Path(path).name), "info")

    def load_checkpoint(self, path: str, run_name: str) -> None:
        """Offer a followed run's latest checkpoint once it is read (in the background)."""
        self._accept_checkpoints = True
        self._checkpoint_loader.submit(checkpoint_record, path, run_name)

    def save(self, path: str, source_name: str) -> bool:
        """Save the model on offer to ``path``; False with a message on failure."""
        if self.record is None:
            self.message_posted.emit(Words(
                lambda: self.tr("There is no model to save yet (pause or finish training first).")),
                                     "error")
            return False
        try:
            saved = save_record(path, self.record, source_name)
        except (CheckpointError, OSError, ValueError) as exc:
            self.message_posted.emit(Words.formatted(
                lambda: self.tr("Could not save the model: {error}"), error=exc), "alert")
            return False
        self.message_posted.emit(Words.formatted(lambda: self.tr("Saved the model to {path}."), path=saved), "info")
        return True

    def shutdown(self, timeout_ms: int) -> None:
        self.opening = None
        self._file_loader.shutdown(min(timeout_ms, 500))
        self._checkpoint_loader.shutdown(min(timeout_ms, 500))

    @Slot(object)
    def _on_file_loader_result_ready(self, opened: OpenedModel) -> None:
        path, self.opening = self.opening, None
        if path is None:
            return
        self.model_opened.emit(opened)
        self.path = path
        self.model_open_finished.emit(True)

    @Slot(str)
    def _on_file_loader_failed(self, message: str) -> None:
        self.opening = None
        self.message_posted.emit(Words.formatted(
            lambda: self.tr("Could not open the model: {error}"), error=message), "alert")
        self.model_open_finished.emit(False)

    @Slot(object)
    def _on_checkpoint_loader_result_ready(self, record: ModelRecord) -> None:
        if self._accept_checkpoints:
            self.record = record
            self.model_changed.emit(record)

    @Slot(str)
    def _on_checkpoint_loader_failed(self, message: str) -> None:
        self.message_posted.emit(Words.formatted(
            lambda: self.tr("The run's checkpoint could not be read yet: {error}"), error=message),
                                 "error")


def history_of(loss: LossRecord) -> TrainingHistory:
    """The run's losses as a core ``TrainingHistory`` (saved with the model)."""
    return TrainingHistory(step_loss=loss.steps.view()[:, 3].tolist(), epoch_loss=loss.epochs.view()[:, 3].tolist())
