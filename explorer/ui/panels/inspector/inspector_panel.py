"""The model inspector (book §11.5–11.7 on any model): open a model (the studio's, a saved one, a run directory or a
Hugging Face folder), read every head's attention for a text, and debug it: ablation, explain-a-cell, decoding
probabilities, the beam tree, a model diff and head summaries.

The panel only assembles: :class:`InspectorState` owns the state, the views subscribe to it, and the panel connects
the user's requests (menu, drops) and the shell's hooks to it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.core.training.checkpoint_read import SUFFIX
from explorer.core.runs.run_dir import is_run_dir
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.panels.inspector.inspector_body_widget import InspectorBody
from explorer.ui.panels.inspector.inspector_menu import InspectorMenu
from explorer.ui.panels.inspector.inspector_state import InspectorState

if TYPE_CHECKING:
    from explorer.ui.panels.model_exchange import ModelExchange
    from explorer.ui.widgets.attention_detail_widget import AttentionDetail


def is_model_folder(path: str | Path) -> bool:
    """A folder holding ``config.json``: a Hugging Face model to inspect."""
    return Path(path).is_dir() and (Path(path) / "config.json").is_file()


class InspectorPanel(BasePanel):
    """Inspect and debug any model's attention: ours, a run's, a Hugging Face model's."""

    key = "inspector"
    title = QT_TRANSLATE_NOOP("Panels", "Model inspector")
    formula_html = QT_TRANSLATE_NOOP("InspectorPanel",
                                     "softmax(<i>QK</i><sup>T</sup>/√<i>d</i>)<i>V</i> in every head of every layer of "
                                     "any model: the studio's, a saved one, a run's, a Hugging Face model's")
    explanation_html = QT_TRANSLATE_NOOP(
        "InspectorPanel",
        "Open a model (Model menu, or drop a folder or file here): a Hugging Face folder (BERT, GPT-2, Marian, T5 …), "
        "a model saved by the studio or the command line, a run directory, or the studio's own model once it is "
        "paused or finished. <b>Inspect</b> reads every head's attention for a text; click a thumbnail for a large "
        "view and a cell to see how its weight is computed. <b>Debug</b> switches heads off, shows each decoding "
        "step's probabilities, draws the beam search tree, compares two models and summarizes what each head does.")
    #: Show message boxes (a model that cannot be opened); tests and benches turn this off.
    show_dialogs = os.environ.get("ATTENTION_EXPLORER_TEST") != "1"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.inspector_state = state = InspectorState(self)
        body = self._body = InspectorBody(state, self.lazy_page)
        self.body_layout.addWidget(body)
        self.tabs, self.inspect_view, self.debug = body, body.inspect_view, body.debug
        self.detail_page = body.detail_page
        self.grid = body.grid
        self.detail_page.built.connect(self._on_detail_page_built)
        self._menu: InspectorMenu | None = None
        #: An :meth:`open_model` request ended: True if the model is now inspected, False if refused.
        self.model_open_finished = state.inspect.open_finished
        state.message_posted.connect(self._on_state_message_posted)
        state.inspect.busy_changed.connect(self._on_inspect_busy_changed)

    @property
    def detail(self) -> AttentionDetail:
        """The "Attention detail" tab's large view (made now if it was not yet)."""
        return self._body.detail

    @Slot(QWidget)
    def _on_detail_page_built(self, _detail: QWidget) -> None:
        self.detail.residual_changed.connect(self.grid.set_residual)  # one r for rollout in both
        self.detail.apply_theme(self.dark)

    # ------------------------------------------------------------------ requests
    def open_model(self, path: str) -> None:
        """Inspect a Hugging Face model folder, a saved model or a run directory (read in the background; the
        Inspect tab shows it once open)."""
        self.inspector_state.inspect.open(path)

    # ------------------------------------------------------------------ state slots
    @Slot(object, str)
    def _on_state_message_posted(self, text: str, level: str) -> None:
        if level in ("error", "alert"):
            self.show_inline_message(text)
        else:
            self.clear_inline_message()
        self.status_message.emit(text)
        if level == "alert" and self.show_dialogs:
            QMessageBox.warning(self, self.class_text("title"), text)

    @Slot(bool)
    def _on_inspect_busy_changed(self, busy: bool) -> None:
        if busy:  # the user asked for a new reading: the banner of what failed before goes
            self.clear_inline_message()

    # ------------------------------------------------------------------ shell hooks (BasePanel)
    def join_exchange(self, exchange: ModelExchange) -> None:
        """The studio's model on offer becomes a choice; its loaded pairs, the debugging tools' "data" set."""
        self.inspector_state.join(exchange)

    def panel_menu(self) -> InspectorMenu:
        if self._menu is None:
            self._menu = InspectorMenu(self)
            self._menu.model_chosen.connect(self.open_model)
        return self._menu

    def handle_drop(self, paths: list[str]) -> bool:
        for path in paths:
            if is_model_folder(path) or (Path(path).is_dir() and is_run_dir(path)) or Path(path).suffix.lower() == SUFFIX:
                self.open_model(path)
                return True
        return False

    def shutdown(self, timeout_ms: int) -> None:
        self.inspector_state.shutdown(timeout_ms)
        self.grid.shutdown(timeout_ms)  # the rollout and flow workers of the grid and the large view
        self._body.lazy_detail.shutdown(timeout_ms)

    def export_targets(self) -> list[ExportTarget]:
        return [ExportTarget("attention grid", self.grid, None, label=self.tr("Attention grid")),
                self.detail.export_target()]

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.grid.apply_theme(dark)
        self._body.lazy_detail.apply_theme(dark)  # heatmap, token lines and bars (one made later: then)
        self.debug.apply_theme(dark)

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue(self.settings_key("source"), self.inspect_view.source_edit.toPlainText())
        settings.setValue(self.settings_key("target"), self.inspect_view.target_edit.text())

    def restore_settings(self, settings: QSettings) -> None:
        state, view = self.inspector_state.inspect, self.inspect_view
        source = settings.value(self.settings_key("source"), None)
        if isinstance(source, str) and source.strip():
            state.source = source
            view.source_edit.setPlainText(source)
        target = settings.value(self.settings_key("target"), None)
        if isinstance(target, str):
            state.target = target
            view.target_edit.setText(target)
