"""The studio's model hand-over (book §11.7): offer a paused or finished model, save it, open a saved one
to inspect and translate, and the "Model" menu and drops that lead there."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Slot

from explorer.core.checkpoint import CheckpointError
from explorer.ui.panels.studio_model_io import (DATASET_SUFFIXES, SUFFIX, ModelMenu, ModelRecord, cpu_copy,
                                                history_rows, open_record, probe_snapshot, save_record)


class StudioModels:
    """Mixin of :class:`StudioPanel` holding everything about models the user can save, open or translate
    with. Uses the panel's ``record``, ``_menu``, ``session``, views and ``_report``/``_set_state``."""

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
        """Open a checkpoint (from this app or the CLI) to inspect and translate without training."""
        if self.is_training():
            self._report("Stop training before opening a model.", error=True)
            return False
        try:
            record, _loaded = open_record(path, self.form.values()["num_steps"])
        except (CheckpointError, OSError, ValueError) as exc:
            self._report(f"Could not open the model: {exc}", error=True, dialog=True)
            return False
        self.session.forget()
        self.record = record
        self.translate_view.set_model(record.model, record.src_vocab, record.tgt_vocab, record.num_steps,
                                      f"Model: {record.origin}.")
        step_rows = self.loss_plot.load_history(*history_rows(record.history))
        self.live.clear(self.data.task_name())
        self.clear_inline_message()
        try:
            self.live.add_snapshot(probe_snapshot(record, self.data.probe(), step=step_rows))
        except ValueError as exc:
            self._report(f"The probe pair cannot be shown with this model: {exc}", error=True)
        self.redraw()
        self._set_state("finished" if self.state == "finished" else "idle")
        self._report(f"Model: {record.origin}. Translate with it in the Translate tab.")
        return True

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
