"""The studio's model hand-over (book §11.7): offer a paused or finished model, save it, open a saved one
to inspect and translate, and the "Model" menu and drops that lead there."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Slot

from explorer.core.checkpoint import CheckpointError
from explorer.ui.panels.studio.model_files import (DATASET_SUFFIXES, SUFFIX, ModelMenu, ModelRecord, OpenedModel,
                                                cpu_copy, open_model_job, save_record)


class StudioModels:
    """Mixin of :class:`StudioPanel` holding everything about models the user can save, open or translate
    with. Uses the panel's ``record``, ``_menu``, ``session``, ``_model_loader`` (a ``LatestOnlyRunner``
    connected to the two ``_on_model_loader_*`` slots), views and ``_report``/``_set_state``."""

    _opening: str | None = None

    def _offer_model(self, description: str) -> None:
        """Hand a model the training thread does not touch to the translate view and the Model menu."""
        trainer = self.trainer
        if trainer is None:
            return
        model = trainer.model if not self.is_training() else cpu_copy(trainer.model)
        self.record = ModelRecord(model, trainer.src_vocab, trainer.tgt_vocab, trainer.config, trainer.history,
                                  trainer.config.num_steps, description)
        self.translate_view.set_model(model, trainer.src_vocab, trainer.tgt_vocab, trainer.config.num_steps,
                                      f"Model: {description}.")
        self._set_state(self.state)

    def save_model_to(self, path: str) -> bool:
        """Save the model on offer (paused, finished or opened) to ``path``; False with a message on failure."""
        if self.record is None:
            self._report("There is no model to save yet (pause or finish training first).", error=True)
            return False
        try:
            saved = save_record(path, self.record, self.source.name if self.source is not None else "")
        except (CheckpointError, OSError, ValueError) as exc:
            self._report(f"Could not save the model: {exc}", error=True, dialog=True)
            return False
        self._report(f"Saved the model to {saved}.")
        return True

    def open_model(self, path: str) -> bool:
        """Open a checkpoint (from this app or the CLI) to inspect and translate without training.

        The file is read and the model built in the background; the model on offer stays until the new
        one is ready. False if refused at once (while training); :attr:`model_open_finished` follows."""
        if self.is_training():
            self._report("Stop training before opening a model.", error=True)
            return False
        self._opening = path
        self._model_loader.submit(open_model_job, path, self.form.values()["num_steps"], self.data.probe())
        self._report(f"Opening {Path(path).name}…")
        self._update_can_start()
        return True

    def is_opening_model(self) -> bool:
        """True while a checkpoint is read in the background."""
        return self._opening is not None

    @Slot(object)
    def _on_model_loader_result_ready(self, opened: OpenedModel) -> None:
        self._opening = None
        self._update_can_start()
        if self.is_training():  # cannot happen through the GUI (Start waits); keep the run
            self.model_open_finished.emit(False)
            return
        record = opened.record
        self.session.forget()
        self.record = record
        self.translate_view.set_model(record.model, record.src_vocab, record.tgt_vocab, record.num_steps,
                                      f"Model: {record.origin}.")
        self.loss_plot.load_history(opened.step_rows, opened.epoch_rows)
        self.live.clear(self.data.task_name())
        self.clear_inline_message()
        if opened.snapshot is not None:
            self.live.add_snapshot(opened.snapshot)
        else:
            self._report(f"The probe pair cannot be shown with this model: {opened.probe_error}", error=True)
        self.redraw()
        self._set_state("finished" if self.state == "finished" else "idle")
        self._report(f"Model: {record.origin}. Translate with it in the Translate tab.")
        self.model_open_finished.emit(True)

    @Slot(str)
    def _on_model_loader_failed(self, message: str) -> None:
        self._opening = None
        self._update_can_start()
        self._report(f"Could not open the model: {message}", error=True, dialog=True)
        self.model_open_finished.emit(False)

    @Slot(str)
    def _on_menu_save_chosen(self, path: str) -> None:
        self.save_model_to(path)

    @Slot(str)
    def _on_menu_open_chosen(self, path: str) -> None:
        self.open_model(path)

    @Slot(str)
    def _on_menu_dataset_chosen(self, path: str) -> None:
        self.open_dataset(path)

    # ------------------------------------------------------------------ shell hooks (BasePanel)
    def panel_menu(self) -> ModelMenu:
        if self._menu is None:
            self._menu = ModelMenu(self)
            self._menu.save_chosen.connect(self._on_menu_save_chosen)
            self._menu.open_chosen.connect(self._on_menu_open_chosen)
            self._menu.dataset_chosen.connect(self._on_menu_dataset_chosen)
            self._set_state(self.state)
        return self._menu

    def handle_drop(self, paths: list[str]) -> bool:
        for path in paths:
            suffix = Path(path).suffix.lower()
            if suffix == SUFFIX:
                self.open_model(path)
                return True
            if suffix in DATASET_SUFFIXES:
                self.open_dataset(path)
                return True
        return False
