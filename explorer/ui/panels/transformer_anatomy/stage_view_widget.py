"""The tensors entering and leaving one box of a Transformer block (book §11.7): a line naming the box and the
shapes, then one heatmap (tokens × features) per tensor, inputs above the output."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSignalBlocker, Qt, Slot
from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout, QWidget

from explorer.core.chapter.block_trace import Stage, TensorView
from explorer.ui.panels.transformer_anatomy.stage_names import stage_title, tensor_name
from explorer.ui.widgets.form_controls import set_item_texts
from explorer.ui.widgets.heatmap_widget import HeatmapWidget

DIVERGING = "CET-D1"
WHAT = {
    "input": QT_TRANSLATE_NOOP("StageView",
                               "the block's input X (the first block: embedding × √d plus the positional encoding)"),
    "attention": QT_TRANSLATE_NOOP("StageView",
                                   "softmax(QKᵀ/√d)V per head; queries, keys and values are all projections of X"),
    "masked_attention": QT_TRANSLATE_NOOP("StageView",
                                          "self-attention (Q, K, V from X) where position i sees positions ≤ i only"),
    "cross_attention": QT_TRANSLATE_NOOP("StageView",
                                         "queries from the decoder, keys and values from the encoder output"),
    "addnorm": QT_TRANSLATE_NOOP("StageView",
                                 "LayerNorm(X + sublayer(X)): residual connection, then layer normalization"),
    "norm": QT_TRANSLATE_NOOP("StageView", "layer normalization of the sublayer's input (Pre-LN)"),
    "add": QT_TRANSLATE_NOOP("StageView", "X + sublayer(LayerNorm(X)): the residual connection (Pre-LN)"),
    "ffn": QT_TRANSLATE_NOOP("StageView", "Linear → ReLU → Linear applied to every position alike"),
}


def shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")"


def symmetric_levels(*arrays: np.ndarray) -> tuple[float, float]:
    """(−m, m) with m the largest magnitude in ``arrays`` (so 0 is the middle colour)."""
    m = max(float(np.abs(a).max()) for a in arrays if a.size) if arrays else 1.0
    return (-m, m) if m > 0 else (-1.0, 1.0)


class StageView(QWidget):
    """A caption, the tensor entering (a combo picks which, when a box has two inputs) and the one leaving."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stage: Stage | None = None
        self.where = ""  # the block the stage belongs to, as its owner words it ("encoder block 1")
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.input_combo = QComboBox()
        self.input_map = HeatmapWidget(colormap=DIVERGING, levels=(-1.0, 1.0))
        self.output_map = HeatmapWidget(colormap=DIVERGING, levels=(-1.0, 1.0))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.input_combo)
        for heatmap in (self.input_map, self.output_map):
            heatmap.plot.max_ticks = 12
            layout.addWidget(heatmap, 1)
        self.input_map.plot.hideAxis("bottom")  # features are numbered once, under the output
        self.input_combo.currentIndexChanged.connect(self._on_input_combo_current_index_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, the stage's worded from what it shows (at build and on
        ``LanguageChange``; the owner re-words ``where`` itself)."""
        self.input_combo.setToolTip(self.tr("this box takes two tensors: the one drawn above the output"))
        if self.stage is None:
            self.caption.setText(self.tr("Click a box of the diagram."))
            return
        self._show_texts()
        self._title_input()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @property
    def heatmaps(self) -> list[HeatmapWidget]:
        return [self.input_map, self.output_map]

    def show_stage(self, stage: Stage, where: str) -> None:
        """Draw ``stage`` (``where`` names it, e.g. "encoder block 1")."""
        self.stage, self.where = stage, where
        count = len(stage.inputs)
        keep = min(self.input_combo.currentIndex(), count - 1) if self.input_combo.count() == count else 0
        with QSignalBlocker(self.input_combo):
            self.input_combo.clear()
            self.input_combo.addItems([""] * count)
            self.input_combo.setCurrentIndex(max(keep, 0))
        self.input_combo.setVisible(count > 1)
        self._show_texts()
        self._draw_input()
        out = stage.output
        self.output_map.set_matrix(out.values, out.tokens, [str(j) for j in range(out.values.shape[1])],
                                   levels=symmetric_levels(out.values))

    def _show_texts(self) -> None:
        """The caption, the inputs' names in the combo and the output's title, for the stage shown."""
        stage = self.stage
        ins = ", ".join(f"{tensor_name(t.name)} {shape_text(t.shape)}" for t in stage.inputs)
        self.caption.setText(self.tr(
            "<b>{box}</b> ({where}): {what}.<br>in: {inputs} &nbsp;→&nbsp; out: {shape}").format(
            box=stage_title(stage.title), where=self.where, what=self.tr(WHAT.get(stage.kind, "")), inputs=ins,
            shape=shape_text(stage.output.shape)))
        set_item_texts(self.input_combo, [self.tr("in: {name} {shape}").format(
            name=tensor_name(t.name), shape=shape_text(t.shape)) for t in stage.inputs])
        self.output_map.set_title(self.tr("out"))

    def shown_input(self) -> TensorView | None:
        """The input drawn now."""
        if self.stage is None:
            return None
        return self.stage.inputs[max(self.input_combo.currentIndex(), 0)]

    def _draw_input(self) -> None:
        t = self.shown_input()
        if t is None:
            return
        self.input_map.set_matrix(t.values, t.tokens, [str(j) for j in range(t.values.shape[1])],
                                  levels=symmetric_levels(t.values))
        self._title_input()

    def _title_input(self) -> None:
        t = self.shown_input()
        if t is not None:
            self.input_map.set_title(self.tr("in: {name}").format(name=tensor_name(t.name)))

    @Slot(int)
    def _on_input_combo_current_index_changed(self, _index: int) -> None:
        self._draw_input()

    def apply_theme(self, dark: bool) -> None:
        for heatmap in self.heatmaps:
            heatmap.apply_theme(dark)
