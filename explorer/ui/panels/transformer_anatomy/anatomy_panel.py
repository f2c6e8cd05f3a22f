"""Transformer anatomy panel (book §11.7.1–11.7.4): the position-wise FFN on a repeated word, LayerNorm against
BatchNorm, and one encoder and one decoder block as a clickable diagram showing the tensors entering and leaving each
box for a typed sentence pair. core.anatomy_views computes everything on a `LatestOnlyRunner` (building the model
reads the corpus; forward passes stay off the GUI thread)."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, QSignalBlocker, Slot
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLineEdit, QTabWidget, QWidget

from explorer.core.chapter.anatomy_views import AnatomyInputs, AnatomyViews, anatomy_views
from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.panels.transformer_anatomy.anatomy_exports import export_targets
from explorer.ui.panels.transformer_anatomy.blocks_tab_widget import BlocksTab
from explorer.ui.panels.transformer_anatomy.model_source_widget import ModelSource
from explorer.ui.panels.transformer_anatomy.sublayer_views_widget import FFNView, NormView
from explorer.ui.widgets.form_controls import form_group, restore_controls, save_controls, set_row_labels, spin_box
from explorer.ui.widgets.side_column_widget import SideColumn
from explorer.ui.worker import LatestOnlyRunner

DEFAULTS = AnatomyInputs()
TABS = (QT_TRANSLATE_NOOP("AnatomyPanel", "Position-wise FFN"), QT_TRANSLATE_NOOP("AnatomyPanel", "Add && norm"),
        QT_TRANSLATE_NOOP("AnatomyPanel", "Encoder and decoder blocks"))  # && shows one &




class AnatomyPanel(BasePanel):
    """Inside the Transformer: FFN, AddNorm, and the blocks' boxes with their tensors."""

    key = "transformer_anatomy"
    title = QT_TRANSLATE_NOOP("Panels", "Transformer anatomy")
    formula_html = QT_TRANSLATE_NOOP(
        "AnatomyPanel",
        "FFN(<b>x</b>) = <b>W</b><sub>2</sub> ReLU(<b>W</b><sub>1</sub><b>x</b> + <b>b</b><sub>1</sub>) + "
        "<b>b</b><sub>2</sub> per position &nbsp;|&nbsp; AddNorm(X, Y) = LayerNorm(X + Y), &nbsp;"
        "LayerNorm(<b>x</b>) = (<b>x</b> − μ<sub><b>x</b></sub>) / σ<sub><b>x</b></sub>")
    explanation_html = QT_TRANSLATE_NOOP(
        "AnatomyPanel",
        "Every block stacks sublayers, each wrapped in a residual connection and layer normalization (add &amp; "
        "norm): attention mixes positions; the position-wise FFN transforms each position on its own, so a repeated "
        "word without positions gives the same output. LayerNorm normalizes each token over its features; "
        "BatchNorm's statistics mix the batch and its padding. The decoder adds masked self-attention and "
        "encoder–decoder attention. Click a box to see the tensors entering and leaving it: the shape "
        "(batch, steps, num_hiddens) never changes.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.views: AnatomyViews | None = None
        self._stale: set[int] = set()  # tabs not drawn since ``views`` arrived (drawn when shown)
        self._model_key: tuple | None = None  # the source of the model in ``views``
        self._pending_key: tuple | None = None  # the source of the model asked for last
        self._load_failed = False  # the inline message says why no model can be loaded
        self.model_source = ModelSource()
        self.source_edit = QLineEdit(DEFAULTS.source)
        self.target_edit = QLineEdit(DEFAULTS.target)
        self.ffn_edit = QLineEdit(DEFAULTS.ffn_sentence)
        self.layer_spin = spin_box(1, 2, 1)
        self.positions_check = QCheckBox()
        self.batch_edit = QLineEdit(DEFAULTS.batch)
        self.steps_spin = spin_box(2, 24, DEFAULTS.num_steps)
        self.groups = [form_group("", [("sentence", self.ffn_edit), ("block", self.layer_spin),
                                       ("", self.positions_check)]),
                       form_group("", [("sentences", self.batch_edit), ("steps", self.steps_spin)]),
                       form_group("", [("source", self.source_edit), ("target", self.target_edit)])]
        side = SideColumn(width=230)
        side.add_widget(self.model_source)
        for group in self.groups:
            side.add_widget(group)
        self.ffn_view = FFNView()
        self.norm_page = self.lazy_page(NormView)  # made when first shown (or asked for)
        # made now, though hidden: its height-for-width is what the panel's layout is measured by, as before
        self.blocks_tab = BlocksTab()
        self.tabs = QTabWidget()
        for widget in (self.ffn_view, self.norm_page, self.blocks_tab):
            self.tabs.addTab(widget, "")
        row = QHBoxLayout()
        row.addWidget(side)
        row.addWidget(self.tabs, 1)
        self.body_layout.addLayout(row)

        self.controls: dict[str, QWidget] = {
            "source_kind": self.model_source.combo, "seed": self.model_source.seed_spin,
            "model_path": self.model_source.path_edit, "source": self.source_edit, "target": self.target_edit,
            "ffn_sentence": self.ffn_edit, "ffn_block": self.layer_spin, "positions": self.positions_check,
            "batch": self.batch_edit, "num_steps": self.steps_spin}
        self.runner = LatestOnlyRunner(self)
        self.runner.result_ready.connect(self._on_runner_result_ready)
        self.runner.failed.connect(self._on_runner_failed)
        self.model_source.source_changed.connect(self._on_model_source_source_changed)
        for edit in (self.source_edit, self.target_edit, self.ffn_edit, self.batch_edit):
            edit.editingFinished.connect(self._on_input_changed)
        for spin in (self.layer_spin, self.steps_spin):
            spin.valueChanged.connect(self._on_input_changed)
        self.positions_check.toggled.connect(self._on_input_changed)
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self._on_tabs_current_changed(self.tabs.currentIndex())
        self.apply_theme(False)
        self.retranslate()
        self.recompute()

    @property
    def norm_view(self) -> NormView:
        """The "Add & norm" tab's view (made now if it was not yet)."""
        return self.norm_page.content()

    def retranslate(self) -> None:
        super().retranslate()
        self.source_edit.setToolTip(self.tr("source sentence (encoder input)"))
        self.target_edit.setToolTip(self.tr("target sentence (decoder input after <bos>, teacher forcing)"))
        self.ffn_edit.setToolTip(self.tr("a sentence in which a word occurs twice"))
        self.layer_spin.setToolTip(self.tr("which encoder block's FFN"))
        self.positions_check.setText(self.tr("add positional encoding"))
        self.positions_check.setToolTip(self.tr("with positions the two occurrences are different vectors"))
        self.batch_edit.setToolTip(self.tr("sentences of the batch, separated by |"))
        self.steps_spin.setToolTip(self.tr("num_steps: every sentence is padded to this length"))
        ffn, batch, pair = self.groups
        ffn.setTitle(self.tr("FFN input"))
        set_row_labels(ffn.layout(), [(self.ffn_edit, self.tr("sentence")), (self.layer_spin, self.tr("block"))])
        batch.setTitle(self.tr("Batch"))
        set_row_labels(batch.layout(), [(self.batch_edit, self.tr("sentences")), (self.steps_spin, self.tr("steps"))])
        pair.setTitle(self.tr("Sentence pair"))
        set_row_labels(pair.layout(), [(self.source_edit, self.tr("source")), (self.target_edit, self.tr("target"))])
        for index, name in enumerate(TABS):
            self.tabs.setTabText(index, self.tr(name))
        if self.views is not None:
            self._show_origin(self.views)
        if self._load_failed:  # the refusal, worded again (messages from the views re-word themselves)
            self.recompute()

    # --- compute and draw ---------------------------------------------------------------------
    def inputs(self) -> AnatomyInputs:
        return AnatomyInputs(source=self.source_edit.text(), target=self.target_edit.text(),
                             ffn_sentence=self.ffn_edit.text(), batch=self.batch_edit.text(),
                             positions=self.positions_check.isChecked(), layer=self.layer_spin.value() - 1,
                             num_steps=self.steps_spin.value())

    def recompute(self) -> None:
        """Ask core (on the worker thread) for every view; the model is reused while its source stays the same."""
        key = self.model_source.key()
        try:
            model = self.views.model if self.views is not None and key == self._model_key else \
                self.model_source.loader()
        except ValueError as err:
            self.runner.cancel()
            self.show_inline_message(str(err))
            self.tabs.currentWidget().setEnabled(False)
            self._load_failed = True
            return
        self._load_failed = False
        self._pending_key = key
        self.runner.submit(anatomy_views, model, self.inputs())

    def _draw(self, v: AnatomyViews) -> None:
        """Draw the tab on screen; the others are drawn when they are shown (or exported)."""
        if self.layer_spin.maximum() != v.model.config.num_layers:
            with QSignalBlocker(self.layer_spin):
                self.layer_spin.setMaximum(v.model.config.num_layers)
        for widget, name in ((self.ffn_view, "ffn"), (self.norm_page, "norms"), (self.blocks_tab, "blocks")):
            widget.setEnabled(name not in v.errors)
        self._stale = {0, 1, 2}
        self._draw_tab(self.tabs.currentIndex())
        self._show_origin(v)
        self._show_message(v)

    def _draw_tab(self, index: int) -> None:
        """Bring tab ``index`` up to the views computed last, if it is behind them."""
        v = self.views
        if v is None or index not in self._stale:
            return
        self._stale.discard(index)
        if index == 0 and v.ffn is not None:
            self.ffn_view.show_demo(v.ffn)
        elif index == 1:
            self.norm_view.show_book(v.book)
            if v.batch is not None:
                self.norm_view.show_batch(v.batch)
        elif index == 2 and v.trace is not None:
            self.blocks_tab.show_trace(v.trace)

    def _show_origin(self, v: AnatomyViews) -> None:
        """Which model the views come from, and its sizes."""
        self.model_source.set_origin(self.tr("{origin}: {layers} layers, d = {hiddens}, {heads} heads").format(
            origin=self.model_source.origin_text(self._model_key, v.model.origin), layers=v.model.config.num_layers,
            hiddens=v.model.config.num_hiddens, heads=v.model.config.num_heads))

    def _show_message(self, v: AnatomyViews) -> None:
        """Why a view could not be drawn, or which words were read as <unk>."""
        unknown = list(dict.fromkeys([*(v.trace.unknown if v.trace else []), *(v.ffn.unknown if v.ffn else []),
                                      *(v.batch.unknown if v.batch else [])]))
        errors = list(dict.fromkeys(v.errors.values()))
        if errors:
            self.show_inline_message(" ".join(errors))
        elif unknown:
            self.show_inline_message(lambda: self.tr("Not in the model's vocabulary, read as <unk>: {words}").format(
                words=" ".join(unknown)), error=False)
        else:
            self.clear_inline_message()

    # --- slots --------------------------------------------------------------------------------
    @Slot(object)
    def _on_runner_result_ready(self, views: object) -> None:
        self.views = views
        self._model_key = self._pending_key
        self._draw(views)

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self.show_inline_message(lambda: self.tr("Could not open the model: {message}").format(message=message))

    @Slot()
    def _on_model_source_source_changed(self) -> None:
        self.recompute()

    @Slot()
    def _on_input_changed(self, *_args) -> None:
        self.recompute()

    @Slot(int)
    def _on_tabs_current_changed(self, index: int) -> None:
        for i, group in enumerate(self.groups):
            group.setVisible(i == index)  # only the inputs of the view on screen
        self._draw_tab(index)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self.model_source.refresh_studio():  # the studio may have trained or opened a model meanwhile
            self.recompute()

    # --- panel hooks --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        save_controls(self, settings, self.controls)

    def restore_settings(self, settings: QSettings) -> None:
        depth = self.layer_spin.maximum()
        self.layer_spin.setMaximum(64)  # the model's depth narrows it again
        changed = restore_controls(self, settings, self.controls)
        if self.model_source.sync_controls() or changed:
            self.recompute()
        else:  # the views computed when the panel was made stand, and so does the block's range they set
            with QSignalBlocker(self.layer_spin):
                self.layer_spin.setMaximum(depth)

    def export_targets(self) -> list[ExportTarget]:
        for index in sorted(self._stale):  # every view is exported, shown or not
            self._draw_tab(index)
        return export_targets(self.ffn_view, self.norm_view, self.blocks_tab.stage_view, lambda: self.views)

    def apply_theme(self, dark: bool) -> None:
        super().apply_theme(dark)
        self.ffn_view.apply_theme(dark)
        if self.norm_page.is_built():  # a page made later is restyled then
            self.norm_view.apply_theme(dark)
        self.blocks_tab.apply_theme(dark)

    def shutdown(self, timeout_ms: int) -> None:
        self.runner.shutdown(timeout_ms)
