"""The Transformer studio (book §11.7): train in a background thread, watch the loss and every head's
attention live, scrub the attention history, translate, and save or open models."""
from __future__ import annotations

import json
import os
from typing import Any

from PySide6.QtCore import QSettings, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.core.text import DatasetError, build_dataset
from explorer.core.training import Trainer
from explorer.core.transformer import ConfigError
from explorer.ui.compute_runner import LatestOnlyRunner
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.panels.studio.data_box_widget import LoadRequest, source_label
from explorer.ui.panels.studio.studio_body_widget import StudioBody
from explorer.ui.panels.studio.data_loading import StudioLoading
from explorer.ui.panels.studio.live_attention_widget import snapshot_caption
from explorer.ui.panels.studio.model_files import ModelMenu, ModelRecord, ask_dataset_path
from explorer.ui.panels.studio.model_handover import StudioModels
from explorer.ui.panels.studio.training_session import TrainingSession
from explorer.ui.worker import TrainingWorker


class StudioPanel(StudioLoading, StudioModels, BasePanel):
    """Train the book's Transformer with live loss and attention; translate; save and open models."""

    key = "studio"
    title = "Transformer studio"
    formula_html = ("softmax(<i>QK</i><sup>T</sup>/√<i>d</i>)<i>V</i> in every head of every layer: "
                    "encoder self-attention, masked decoder self-attention, encoder–decoder attention")
    explanation_html = (
        "Train the Transformer of <i>Dive into Deep Learning</i> §11.7 on English–French pairs or a synthetic "
        "task. The attention of a fixed <b>probe pair</b> is snapshotted every few steps: rows of the grid are "
        "layers, columns heads. Click a thumbnail for a large view, drag the <b>history</b> slider (or click "
        "the loss curve) to replay how each head learned. Pause to translate with the model as it is.")
    #: A dataset request ended (only the newest one): True if it was loaded, False if refused (message shown).
    dataset_load_finished = Signal(bool)
    #: A Model → Open request ended (only the newest one): True if the model is on offer, False if refused.
    model_open_finished = Signal(bool)
    #: Show a message box on training errors (tests and benches turn this off).
    show_dialogs = os.environ.get("ATTENTION_EXPLORER_TEST") != "1"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record: ModelRecord | None = None
        self._menu: ModelMenu | None = None
        self._loaded_min_freq = -1
        self._loading: LoadRequest | None = None
        self._loaded_spec: str | None = None
        self._unconfirmed_files: set[str] = set()
        self._previous_info: str | None = None
        self._loader = LatestOnlyRunner(self)
        self._loader.result_ready.connect(self._on_loader_result_ready)
        self._loader.failed.connect(self._on_loader_failed)
        self._model_loader = LatestOnlyRunner(self)
        self._model_loader.result_ready.connect(self._on_model_loader_result_ready)
        self._model_loader.failed.connect(self._on_model_loader_failed)
        self._build_widgets()
        self.session = TrainingSession(self.loss_plot, self.live, self.controls, self)
        self.session.step_drawn.connect(self._on_session_step_drawn)
        self.session.run_finished.connect(self._on_session_run_finished)
        self.session.run_failed.connect(self._on_session_run_failed)
        self.session.run_ended.connect(self._on_session_run_ended)
        self._load_source()

    # ------------------------------------------------------------------ layout
    def _build_widgets(self) -> None:
        body = StudioBody()
        self.form, self.data, self.controls = body.form, body.data, body.controls
        self.loss_view, self.live, self.detail = body.loss_view, body.live, body.detail
        self.translate_view, self.tabs = body.translate_view, body.tabs
        self.loss_plot = self.loss_view.plot
        self.history = self.live.history
        self.grid = self.live.grid
        self.scrubber = self.live.scrubber
        self.body_layout.addWidget(body)

        self.form.settings_changed.connect(self._on_form_settings_changed)
        self.data.source_changed.connect(self._on_data_source_changed)
        self.data.open_file_clicked.connect(self._on_data_open_file_clicked)
        self.controls.start_button.clicked.connect(self._on_start_button_clicked)
        self.controls.pause_button.clicked.connect(self._on_pause_button_clicked)
        self.controls.step_button.clicked.connect(self._on_step_button_clicked)
        self.controls.stop_button.clicked.connect(self._on_stop_button_clicked)
        self.controls.reset_button.clicked.connect(self._on_reset_button_clicked)
        self.loss_plot.step_clicked.connect(self._on_loss_plot_step_clicked)
        self.live.thumbnail_clicked.connect(self._on_live_thumbnail_clicked)
        self.live.snapshot_shown.connect(self._on_live_snapshot_shown)

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> str:
        """``idle``, ``running``, ``paused``, ``stopping`` or ``finished`` (as the controls show)."""
        return self.controls.state

    @property
    def trainer(self) -> Trainer | None:
        """The trainer of the current (or last) run."""
        return self.session.trainer

    @property
    def worker(self) -> TrainingWorker | None:
        return self.session.worker

    @property
    def last_error(self) -> str | None:
        """The message of the error that ended the last run, if one did."""
        return self.session.last_error

    def is_training(self) -> bool:
        return self.session.is_running()

    def _set_state(self, state: str) -> None:
        self.controls.set_state(state)
        self.form.set_editable(state in ("idle", "finished"))
        self.data.set_editable(state in ("idle", "finished"))
        if self._menu is not None:
            self._menu.save_action.setEnabled(self.record is not None and state != "running")
            self._menu.open_action.setEnabled(not self.is_training())
            self._menu.dataset_action.setEnabled(not self.is_training())

    def _report(self, text: str, error: bool = False, dialog: bool = False) -> None:
        if error:
            self.show_inline_message(text)
        self.status_message.emit(text)
        if dialog and self.show_dialogs:
            QMessageBox.warning(self, "Transformer studio", text)

    # ------------------------------------------------------------------ data
    @property
    def source(self) -> Any:
        """The loaded ``DataSource`` (None if loading failed)."""
        return self.data.source

    def _update_can_start(self) -> None:
        self.controls.set_can_start(self.source is not None and not self.is_loading() and not self.is_opening_model()
                                    and self.form.validation_error() is None)

    # ------------------------------------------------------------------ training
    def start_training(self) -> bool:
        """Build a trainer from the form and run it on a worker thread; False (with a message) if impossible."""
        if self.is_training():
            return False
        error = self.form.validation_error()
        if self.is_loading():
            self._report(f"Still loading {source_label(self._loading.spec)}; start when it is ready.", error=True)
            return False
        if error or self.source is None:
            self._report(error or "Choose a data source first.", error=True)
            return False
        config = self.form.config().validate()
        try:
            dataset = build_dataset(self.source.pairs, config.num_steps, config.min_freq)
            trainer = Trainer(config, dataset, probe=self.data.probe())
        except (ConfigError, DatasetError, ValueError, RuntimeError) as exc:
            self._report(f"Cannot start: {exc}", error=True)
            return False
        self.clear_inline_message()
        self.record = None
        self.translate_view.set_model(None, None, None, config.num_steps,
                                      "Training… pause or stop to translate with the model as it is.")
        self.session.start(trainer, self.data.task_name())
        self._set_state("running")
        self._report(f"Training on {trainer.device} ({len(dataset)} pairs, {trainer.total_steps} steps).")
        return True

    def redraw(self) -> None:
        """Draw everything the current run has produced so far (the timer does this in tiers)."""
        self.session.redraw()

    # ------------------------------------------------------------------ session slots
    @Slot(object)
    def _on_session_step_drawn(self, step: Any) -> None:
        if self.state == "paused":  # a requested single step landed: offer the updated model
            self._offer_model(f"paused at step {step.step}")

    @Slot(object)
    def _on_session_run_finished(self, event: Any) -> None:
        verb = "Stopped" if event.stopped else "Finished"
        self._report(f"{verb} at epoch {event.epoch}, step {event.step}: loss {event.loss:.4f}, "
                     f"{event.tokens_per_s:,.0f} tokens/s on {event.device}.")

    @Slot(str)
    def _on_session_run_failed(self, message: str) -> None:
        self._report(f"Training stopped: {message}", error=True, dialog=True)

    @Slot()
    def _on_session_run_ended(self) -> None:
        step = self.trainer.step if self.trainer is not None else 0
        self._set_state("finished")
        self._offer_model(f"trained here ({step} steps{', stopped by an error' if self.last_error else ''})")

    # ------------------------------------------------------------------ control slots
    @Slot()
    def _on_start_button_clicked(self) -> None:
        self.start_training()

    @Slot()
    def _on_pause_button_clicked(self) -> None:
        if not self.is_training():
            return
        if self.state == "paused":
            self.session.resume()
            self.record = None
            self.translate_view.set_model(None, None, None, 10, "Training… pause or stop to translate.")
            self._set_state("running")
        elif self.state == "running":
            self.session.pause()
            self._set_state("paused")
            step = self.session.latest_step.step if self.session.latest_step is not None else 0
            self._offer_model(f"paused at step {step}")

    @Slot()
    def _on_step_button_clicked(self) -> None:
        if self.state == "paused":
            self.session.request_step()

    @Slot()
    def _on_stop_button_clicked(self) -> None:
        if self.is_training():
            self.session.stop()
            self.controls.set_state("stopping")

    @Slot()
    def _on_reset_button_clicked(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Stop any run and forget the model, the curves and the attention history."""
        self.session.forget()
        self.record = None
        self.live.clear()
        self.loss_plot.clear_all()
        self.controls.reset_progress()
        self.translate_view.set_model(None, None, None, 10, "No model yet: train one, or open a saved model.")
        self._set_state("idle")
        self._report("Reset.")

    # ------------------------------------------------------------------ view slots
    @Slot()
    def _on_form_settings_changed(self) -> None:
        if self.form.values()["min_freq"] != self._loaded_min_freq:  # the vocabulary sizes change
            self._load_source()
        else:
            self._update_can_start()

    @Slot()
    def _on_data_source_changed(self) -> None:
        self._load_source()

    @Slot()
    def _on_data_open_file_clicked(self) -> None:
        path = ask_dataset_path(self)
        if path:
            self.open_dataset(path)

    @Slot(float)
    def _on_loss_plot_step_clicked(self, step: float) -> None:
        self.live.jump_to_step(step)

    @Slot(object)
    def _on_live_snapshot_shown(self, snap: Any) -> None:
        self.loss_plot.set_marker(snap.step)
        if self.detail.has_map:
            self.detail.show_snapshot(snap, snapshot_caption(snap))

    @Slot(str, int, int)
    def _on_live_thumbnail_clicked(self, kind: str, layer: int, head: int) -> None:
        self.detail.select(kind, layer, head)
        snap = self.live.current()
        if snap is not None:
            self.detail.show_snapshot(snap, snapshot_caption(snap))
        self.tabs.setCurrentWidget(self.detail)

    # ------------------------------------------------------------------ shell hooks
    def busy_reason(self) -> str | None:
        if not self.is_training():
            return None
        step = self.session.latest_step
        where = f" (epoch {step.epoch} of {self.trainer.config.num_epochs})" if step and self.trainer else ""
        return f"The Transformer studio is training{where}; closing stops it and loses the unsaved model."

    def shutdown(self, timeout_ms: int) -> None:
        self._loading = None
        self._opening = None
        self._loader.shutdown(min(timeout_ms, 500))
        self._model_loader.shutdown(min(timeout_ms, 500))
        self.session.shutdown(timeout_ms)

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("loss curve", self.loss_plot.getPlotItem(), self.loss_plot.step_table),
                ExportTarget("attention grid", self.grid, None),
                self.detail.export_target(), self.translate_view.export_target()]

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.loss_plot.apply_theme(dark)
        self.grid.apply_theme(dark)
        self.detail.heatmap.apply_theme(dark)
        self.translate_view.heatmap.apply_theme(dark)

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue(self.settings_key("form"), json.dumps(self.form.values()))
        self.loss_view.save_settings(settings, self.settings_key)

    def restore_settings(self, settings: QSettings) -> None:
        try:
            values = json.loads(str(settings.value(self.settings_key("form"), "{}")))
        except (TypeError, ValueError):
            values = {}
        if isinstance(values, dict):
            self.form.set_values(values)
        self.loss_view.restore_settings(settings, self.settings_key)
