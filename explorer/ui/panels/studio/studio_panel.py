"""The Transformer studio (book §11.7): train in a background process, watch the loss and every head's
attention live, scrub the attention history, translate, and save or open models.

The panel only assembles: :class:`StudioState` owns the state, the views subscribe to it, and the panel
connects the user's requests (buttons, menu, drops) to the state's methods.
"""
from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.core.model.transformer import ConfigError
from explorer.ui.i18n.words import Words
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.data_paths import runs_directory
from explorer.ui.settings import coerce
from explorer.ui.panels.studio.model_menu import (MAX_RECENT_RUNS, ModelMenu, ask_dataset_path, dropped_kind,
                                                  remember_run)
from explorer.ui.panels.studio.studio_body_widget import StudioBody
from explorer.ui.panels.studio.studio_keys import install_studio_keys
from explorer.ui.panels.studio.studio_state import StudioState
from explorer.ui.widgets.lazy_detail import LazyDetail

if TYPE_CHECKING:
    from explorer.ui.panels.model_exchange import ModelExchange
    from explorer.ui.panels.studio.translate_widget import TranslateView
    from explorer.ui.widgets.attention_detail_widget import AttentionDetail

EDITABLE_STATES = ("idle", "finished")


class StudioPanel(BasePanel):
    """Train the book's Transformer with live loss and attention; translate; save and open models."""

    key = "studio"
    title = QT_TRANSLATE_NOOP("Panels", "Transformer studio")
    formula_html = QT_TRANSLATE_NOOP("StudioPanel",
                                     "softmax(<i>QK</i><sup>T</sup>/√<i>d</i>)<i>V</i> in every head of every layer: "
                                     "encoder self-attention, masked decoder self-attention, encoder–decoder attention")
    explanation_html = QT_TRANSLATE_NOOP(
        "StudioPanel",
        "Train the Transformer of <i>Dive into Deep Learning</i> §11.7 on English–French pairs or a synthetic "
        "task. The attention of a fixed <b>probe pair</b> is snapshotted every few steps: rows of the grid are "
        "layers, columns heads. Click a thumbnail for a large view, drag the <b>history</b> slider (or click "
        "the loss curve) to replay how each head learned. Pause to translate with the model as it is.")
    #: Show message boxes (run errors, Reset of a trained model); tests and benches turn this off.
    show_dialogs = os.environ.get("ATTENTION_EXPLORER_TEST") != "1"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.studio_state = state = StudioState(self)
        body = self._body = StudioBody(state, self.lazy_page)
        self.body_layout.addWidget(body)
        self.form, self.data, self.controls = body.form, body.data, body.controls
        self.live_settings = body.live_settings
        self.loss_view, self.live, self.detail_page = body.loss_view, body.live, body.detail_page
        self.translate_page, self.tabs, self.loss_stack = body.translate_page, body.tabs, body.loss_stack
        self.loss_plot, self.grid, self.scrubber = self.loss_view.plot, self.live.grid, self.live.scrubber
        self._menu: ModelMenu | None = None
        self._exchange: ModelExchange | None = None  # where the model on offer and the data go for other panels
        #: A dataset request ended (only the newest one): True if loaded, False if refused (message shown).
        self.dataset_load_finished = state.data.load_finished
        #: A Model → Open request ended: True if the model is on offer, False if refused.
        self.model_open_finished = state.models.model_open_finished
        self.recent_runs: list[str] = []
        state.runs_root = runs_directory()

        # views subscribe to the state
        self.data.bind(state.data)
        state.run_state_changed.connect(self.controls.set_state)
        state.run_state_changed.connect(self.translate_page.forward("show_run_state"))  # kept until it is made
        state.run_feed.progress_changed.connect(self.controls.show_progress)
        state.run_feed.progress_changed.connect(self.live_settings.show_progress)
        state.run_feed.settings_changed.connect(self.live_settings.show_settings)
        self.live_settings.settings_requested.connect(self._on_live_settings_settings_requested)
        state.run_feed.loss_changed.connect(self.loss_plot.refresh)
        state.attention.snapshot_shown.connect(self.loss_plot.show_snapshot_marker)
        # the large view is made when its tab is first shown: until then what it would have drawn is kept
        self.detail_page.built.connect(self._on_detail_page_built)
        self.lazy_detail = LazyDetail(self.detail_page, self)
        state.attention.snapshot_shown.connect(self.lazy_detail.show_snapshot)
        state.attention.head_selected.connect(self.lazy_detail.select)
        state.models.model_changed.connect(self.translate_page.forward("show_record"))
        # the user's requests go to the state (or, for form and data choices, through the panel to it)
        self.loss_plot.step_clicked.connect(state.attention.jump_to_step)
        state.attention.head_selected.connect(self._on_attention_head_selected)
        state.run_feed.loss_changed.connect(self._on_run_feed_loss_changed)
        state.run_state_changed.connect(self._on_state_run_state_changed)
        state.models.model_changed.connect(self._on_state_model_changed)
        state.data.changed.connect(self._on_data_state_changed)
        state.data.load_finished.connect(self._on_data_load_finished)
        state.message_posted.connect(self._on_state_message_posted)
        state.settings_opened.connect(self._on_state_settings_opened)
        self.form.settings_changed.connect(self._on_form_settings_changed)
        self.data.source_changed.connect(self._on_data_source_changed)
        self.data.open_file_clicked.connect(self._on_data_open_file_clicked)
        self.controls.start_button.clicked.connect(self._on_start_button_clicked)
        self.controls.pause_button.clicked.connect(self._on_pause_button_clicked)
        self.controls.step_button.clicked.connect(self._on_step_button_clicked)
        self.controls.stop_button.clicked.connect(self._on_stop_button_clicked)
        self.controls.reset_button.clicked.connect(self._on_reset_button_clicked)
        self.controls.replay_speed_chosen.connect(state.set_replay_speed)
        state.replay_changed.connect(self.controls.show_replay)
        state.replay_changed.connect(self.translate_page.forward("show_replay"))
        self.translate_page.built.connect(self._on_translate_page_built)
        # Space, →, Ctrl+←/→ (presenter mode); Space and → act as the Pause and Step buttons do
        self.studio_keys = install_studio_keys(self, state, self.toggle_pause, self.step_once)
        self._load_source()
        self._prebuild_grid()

    # ------------------------------------------------------------------ what tests and the shell read
    @property
    def detail(self) -> AttentionDetail:
        """The "Attention detail" tab's large view (made now if it was not yet)."""
        return self.detail_page.content()

    @property
    def translate_view(self) -> TranslateView:
        """The "Translate" tab (made now if it was not yet, and told what it would have been told so far)."""
        return self.translate_page.content()

    @property
    def state(self) -> str:
        """The run state: ``idle``, ``starting``, ``running``, ``paused``, ``stopping`` or ``finished``."""
        return self.studio_state.run_state

    @property
    def source(self) -> Any:
        """The loaded ``DataSource`` (None if loading failed)."""
        return self.studio_state.data.source

    @property
    def record(self) -> Any:
        """The model on offer (paused, finished or opened), or None."""
        return self.studio_state.record

    @property
    def history(self) -> Any:
        """The attention snapshots of the run (a core ``SnapshotHistory``)."""
        return self.studio_state.history

    @property
    def last_error(self) -> str | None:
        return self.studio_state.last_error

    def is_training(self) -> bool:
        return self.studio_state.is_training()

    def is_loading(self) -> bool:
        return self.studio_state.data.is_loading()

    def is_settling(self) -> bool:  # a followed run: what it had written, read and drawn
        return self.studio_state.is_catching_up()

    # ------------------------------------------------------------------ requests
    def start_training(self) -> bool:
        """Train a fresh model with the form's settings on the loaded data; False (with a message) if impossible."""
        self.clear_inline_message()  # a banner belongs to what failed before the user acted again
        error = self.form.validation_error()
        if error is not None:
            self._on_state_message_posted(error, "error")
            return False
        try:
            config = self.form.config().validate()
        except ConfigError as exc:
            self._on_state_message_posted(Words.formatted(lambda: self.tr("Cannot start: {error}"), error=exc), "error")
            return False
        return self.studio_state.start_run(config, self.data.probe())

    def toggle_pause(self) -> None:
        """Pause the run, or resume it when paused (the Pause button and Space)."""
        self.clear_inline_message()  # a banner belongs to what failed before the user acted again
        if self.state == "paused":
            self.studio_state.resume()
        else:
            self.studio_state.pause()

    def step_once(self) -> None:
        """Train one step while paused (the Step button and →)."""
        self.clear_inline_message()
        self.studio_state.request_step()

    def reset(self, confirm: bool = True) -> bool:
        """Stop any run and forget the model, curves and history; asks first (``confirm``) when a trained model
        would be lost. False if the user declined."""
        if confirm and self.show_dialogs and (self.record is not None or self.is_training()):
            answer = QMessageBox.question(
                self, self.tr("Reset the studio"),
                self.tr("Forget the trained model, its loss curves and its attention history?"))
            if answer != QMessageBox.StandardButton.Yes:
                return False
        self.clear_inline_message()
        self.studio_state.reset()
        return True

    def open_dataset(self, path: str) -> bool:
        """Use a Tatoeba-style file (or zip) as the data source, read in the background; False if refused at once
        (while training). :attr:`dataset_load_finished` tells whether the file was loaded."""
        self.clear_inline_message()
        if self.is_training():
            self._on_state_message_posted(Words(lambda: self.tr("Stop training before choosing another dataset.")),
                                          "error")
            return False
        self.data.choose_file(path)
        return self._load_source(new_file=True) is not False

    def open_model(self, path: str) -> bool:
        """Open a checkpoint (from this app or the CLI) to inspect and translate, read in the background."""
        self.clear_inline_message()
        return self.studio_state.open_model(path, self.form.values()["num_steps"], self.data.probe())

    def save_model_to(self, path: str) -> bool:
        return self.studio_state.save_model(path)

    def open_run(self, path: str) -> bool:
        """Follow a run directory live (finished, or still written by the CLI or torchrun)."""
        self.clear_inline_message()
        opened = self.studio_state.open_run(path)
        if opened:
            self._remember_run(path)
        return opened

    def replay_run(self, path: str, speed: float | None = None) -> bool:
        """Replay a recorded run directory (the demo run, for one) at ``speed``, else the run controls' speed."""
        self.clear_inline_message()
        return self.studio_state.replay_run(path, self.controls.chosen_speed() if speed is None else speed)

    def overlay_run(self, path: str) -> bool:
        """Draw another run's loss curve over the current one."""
        self.clear_inline_message()
        return self.studio_state.run_feed.overlay_run(path)

    def _remember_run(self, path: str) -> None:
        self.recent_runs = remember_run(self.recent_runs, path)
        if self._menu is not None:
            self._menu.set_recent_runs(self.recent_runs)

    def redraw(self) -> None:
        """Draw everything recorded so far now (the state's timer does it in tiers while training)."""
        self.studio_state.redraw()

    def _load_source(self, new_file: bool = False) -> bool | None:
        v = self.form.values()
        return self.studio_state.data.load(self.data.request(v["num_steps"], v["min_freq"], v["seed"]), new_file)

    def _update_can_start(self) -> None:
        self.controls.set_can_start(self.studio_state.can_start() and self.form.validation_error() is None)

    # ------------------------------------------------------------------ state slots
    @Slot(str, int, int)
    def _on_attention_head_selected(self, _kind: str, _layer: int, _head: int) -> None:
        self.tabs.setCurrentWidget(self.detail_page)  # makes the large view the first time

    @Slot(QWidget)
    def _on_translate_page_built(self, _view: QWidget) -> None:
        self.translate_view.map_views.apply_theme(self.dark)  # heatmap and token lines

    @Slot(QWidget)
    def _on_detail_page_built(self, _detail: QWidget) -> None:
        self.detail.residual_changed.connect(self.grid.set_residual)  # one r for rollout in both
        self.detail.apply_theme(self.dark)

    @Slot()
    def _on_run_feed_loss_changed(self) -> None:
        if self.studio_state.loss.steps.size or self.is_training():
            self.loss_stack.show_content()
        else:
            self.loss_stack.show_hint()

    @Slot(str)
    def _on_state_run_state_changed(self, run_state: str) -> None:
        editable = run_state in EDITABLE_STATES
        self.live_settings.set_active(self.is_training() and run_state in ("starting", "running", "paused"))
        if run_state == "idle":
            self.live_settings.clear_rate()
        self.form.set_editable(editable)
        self.data.set_editable(editable)
        self._update_can_start()
        self._update_menu()
        if run_state in ("starting", "idle"):
            self.clear_inline_message()
        if run_state == "starting" and self.studio_state.run_dir is not None:
            self._remember_run(str(self.studio_state.run_dir))

    @Slot(object, object)
    def _on_state_settings_opened(self, config: Any, probe: Any) -> None:
        """An opened run's or model's settings replace the form's (the form would otherwise show the last ones)."""
        values = config.to_dict()
        self.form.set_values({**values.pop("model"), **values})
        if probe is not None:
            self.data.set_probe(*probe)

    @Slot(object)
    def _on_state_model_changed(self, record: object) -> None:
        self._update_menu()
        if self._exchange is not None:
            self._exchange.offer_studio_model(record)

    @Slot()
    def _on_data_state_changed(self) -> None:
        self._update_can_start()
        self._publish_data()

    def _publish_data(self) -> None:
        if self._exchange is not None:
            data = self.studio_state.data
            self._exchange.set_studio_data(data.source.pairs if data.source is not None else [], data.task())

    @Slot(bool)
    def _on_data_load_finished(self, loaded: bool) -> None:
        if loaded:  # the banner of an earlier refusal no longer applies
            self.clear_inline_message()

    @Slot(object, str)
    def _on_state_message_posted(self, text: str, level: str) -> None:
        if level in ("error", "alert"):
            self.show_inline_message(text)
        self.status_message.emit(text)
        if level == "alert" and self.show_dialogs:
            QMessageBox.warning(self, self.class_text("title"), text)

    # ------------------------------------------------------------------ view slots
    @Slot()
    def _on_start_button_clicked(self) -> None:
        self.start_training()

    @Slot()
    def _on_pause_button_clicked(self) -> None:
        self.toggle_pause()

    @Slot(object)
    def _on_live_settings_settings_requested(self, values: dict[str, float]) -> None:
        self.studio_state.change_settings(values)

    @Slot()
    def _on_step_button_clicked(self) -> None:
        self.step_once()

    @Slot()
    def _on_stop_button_clicked(self) -> None:
        self.clear_inline_message()
        self.studio_state.stop()

    @Slot()
    def _on_reset_button_clicked(self) -> None:
        self.reset()

    def _prebuild_grid(self) -> None:
        v = self.form.values()
        if self.state in EDITABLE_STATES and v["num_layers"] * v["num_heads"] <= 64:
            self.live.prebuild(v["num_layers"], v["num_heads"], ahead=True)

    @Slot()
    def _on_form_settings_changed(self) -> None:
        self._prebuild_grid()
        loaded = self.studio_state.data.loaded or self.studio_state.data.failed
        v = self.form.values()
        if loaded is None or (loaded.min_freq, loaded.num_steps, loaded.seed) != (v["min_freq"], v["num_steps"],
                                                                                 v["seed"]):
            self._load_source()  # the vocabularies (or a task's pairs) change
        self._update_can_start()

    @Slot()
    def _on_data_source_changed(self) -> None:
        self._load_source()

    @Slot()
    def _on_data_open_file_clicked(self) -> None:
        path = ask_dataset_path(self)
        if path:
            self.open_dataset(path)

    # ------------------------------------------------------------------ shell hooks (BasePanel)
    def _update_menu(self) -> None:
        if self._menu is not None:
            self._menu.enable_for(self.record is not None, self.is_training())

    def panel_menu(self) -> ModelMenu:
        if self._menu is None:
            self._menu = ModelMenu(self)
            self._menu.save_chosen.connect(self.save_model_to)
            self._menu.open_chosen.connect(self.open_model)
            self._menu.dataset_chosen.connect(self.open_dataset)
            self._menu.run_chosen.connect(self.open_run)
            self._menu.replay_chosen.connect(self.replay_run)
            self._menu.overlay_chosen.connect(self.overlay_run)
            self._menu.overlays_cleared.connect(self.studio_state.run_feed.clear_overlays)
            self._menu.set_recent_runs(self.recent_runs)
            self._update_menu()
        return self._menu

    def handle_drop(self, paths: list[str]) -> bool:
        openers = {"run": self.open_run, "model": self.open_model, "dataset": self.open_dataset}
        for path in paths:
            kind = dropped_kind(path)
            if kind is not None:
                openers[kind](path)
                return True
        return False

    def busy_reason(self) -> str | None:
        if not self.is_training():
            return None
        step, config = self.studio_state.latest_step, self.studio_state.run_config
        if step is not None and config is not None:
            return self.tr("The Transformer studio is training (epoch {epoch} of {epochs}); closing stops it and loses "
                           "the unsaved model.").format(epoch=step.epoch, epochs=config.num_epochs)
        return self.tr("The Transformer studio is training; closing stops it and loses the unsaved model.")

    def shutdown(self, timeout_ms: int) -> None:
        self.studio_state.shutdown(timeout_ms)
        self.grid.shutdown(timeout_ms)  # the rollout and flow workers of the grid and the large view
        self.lazy_detail.shutdown(timeout_ms)

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("loss curve", self.loss_plot.getPlotItem(), self.loss_plot.step_table,
                             label=self.tr("Loss curve")),
                ExportTarget("attention grid", self.grid, None, label=self.tr("Attention grid")),
                self.detail.export_target(), self.translate_view.export_target()]

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.loss_plot.apply_theme(dark)
        self.grid.apply_theme(dark)
        self.lazy_detail.apply_theme(dark)  # heatmap, token lines and bars
        if self.translate_page.is_built():
            self.translate_view.map_views.apply_theme(dark)  # heatmap and token lines

    def join_exchange(self, exchange: ModelExchange) -> None:
        """Offer the model on offer and the loaded pairs to other panels (the inspector), now and on every change."""
        self._exchange = exchange
        exchange.offer_studio_model(self.record)
        self._publish_data()

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue(self.settings_key("form"), json.dumps(self.form.values()))
        settings.setValue(self.settings_key("recent_runs"), json.dumps(self.recent_runs))
        self.loss_view.save_settings(settings, self.settings_key)

    def restore_settings(self, settings: QSettings) -> None:
        self.form.set_values(coerce(settings.value(self.settings_key("form")), {}))
        recent = coerce(settings.value(self.settings_key("recent_runs")), [])
        self.recent_runs = [p for p in recent if isinstance(p, str)][:MAX_RECENT_RUNS]
        if self._menu is not None:
            self._menu.set_recent_runs(self.recent_runs)
        self.loss_view.restore_settings(settings, self.settings_key)
