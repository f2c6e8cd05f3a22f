"""One decoding step's attention (book §10.7.6 prediction, §11.7 attention of a trained model): every layer and head
of the step that produced a token over what that step could see — the source (cross-attention) or, for a
decoder-only model, the prompt and the tokens produced before it — with the step's top next-token probabilities."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QWidget

from explorer.core.inspect.interface import masked_bins
from explorer.ui.i18n.words import Words, again
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.map_views_widget import LinesData, MapViews


class StepAttentionMap(HeatmapWidget):
    """A heatmap of one step's rows: ``L·h`` rows (``L1 h1``, ``L1 h2 · KV 1`` where query heads share key/value
    heads) by the keys the step saw; a dashed line parts a decoder-only model's prompt from the tokens it produced,
    and keys a sliding window hides are hatched (masked, not attended with weight 0).

    Signals: ``step_shown()`` after a step (or none) is shown."""

    step_shown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attends = "cross"
        self.token = ""
        self.rows: np.ndarray | None = None  # (L, h, keys) of the step shown
        self.keys: list[str] = []
        self.head_labels: list[str] = []  # per head of a layer: "h2 · KV 1"
        self._title: str = ""
        self._note: str = ""
        self.boundary = pg.InfiniteLine(angle=90, movable=False,
                                        pen=pg.mkPen("#e74c3c", width=2, style=Qt.PenStyle.DashLine))
        self.boundary.setZValue(10)
        self.boundary.hide()
        self.plot.addItem(self.boundary, ignoreBounds=True)
        self.retranslate()

    def retranslate(self) -> None:
        """Axis captions, title and probabilities line in the language in force (at build and on
        ``LanguageChange``)."""
        cols = self.tr("prompt and output so far") if self.attends == "decoder" else self.tr("source")
        self.set_axis_labels(self.tr("layer · head"), cols)
        if self._title:
            self.set_title(again(self._title))
        if self._note:
            self.set_note(again(self._note))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def show_step(self, token: str, rows: np.ndarray | None, keys: Sequence[str], attends: str,
                  step: int, prob: float, top: Sequence[tuple[str, float]] = (), prompt: int = 0,
                  info: Any = None) -> None:
        """Show the rows ``(L, h, keys)`` of the step (1-based ``step``) that produced ``token`` with probability
        ``prob``; ``attends`` is ``"cross"`` or ``"decoder"`` (then the first ``prompt`` keys are the prompt);
        ``top`` the step's most probable tokens; ``info`` the model's ``ModelInfo`` (key/value heads, windows)."""
        self.attends, self.token = attends, token
        self.boundary.setVisible(attends == "decoder" and rows is not None and 0 < prompt < rows.shape[-1])
        self.boundary.setPos(prompt)  # cells span [j, j + 1): the line falls between prompt and output
        self.rows = None
        if rows is None:
            self.plot.clear_matrix()  # not the rows of the node shown before
            self._title = Words(lambda: self.tr("“{t}” has no attention row (the start token)").format(t=token))
            self._note = ""
            self.retranslate()
            self.step_shown.emit()
            return
        layers, heads, width = rows.shape
        matrix = np.ascontiguousarray(rows.reshape(layers * heads, width), dtype=np.float32)  # (L·h, keys)
        kind = "decoder" if attends == "decoder" else "cross"
        if info is not None and (info.layers.get(kind), info.heads.get(kind)) != (layers, heads):
            info = None  # the rows of a model no longer inspected
        labels = []
        for layer in range(layers):
            for head in range(heads):
                kv = None if info is None else info.kv_head(kind, head)
                labels.append(f"L{layer + 1} h{head + 1}" + ("" if kv is None else f" · KV {kv + 1}"))
        self.set_matrix(matrix, labels, list(keys)[:width], mask=self._seen(info, kind, layers, heads, width))
        self.rows, self.keys = np.asarray(rows, dtype=np.float32), list(keys)[:width]
        self.head_labels = [label.partition(" ")[2] for label in labels[:heads]]
        self._title = (Words(lambda: self.tr("step {n}: “{t}” · self-attention over the prompt and the tokens before "
                                             "it").format(n=step, t=token)) if attends == "decoder" else
                       Words(lambda: self.tr("step {n}: “{t}” · cross-attention over the source").format(
                           n=step, t=token)))
        ranked = "  ".join(f"{tok} {p:.3f}" for tok, p in top)
        self._note = Words(lambda: self.tr("p(“{t}”) = {p:.3f} · most probable: {ranked}").format(
            t=token, p=prob, ranked=ranked))
        self.retranslate()
        self.step_shown.emit()

    @staticmethod
    def _seen(info: Any, kind: str, layers: int, heads: int, width: int) -> np.ndarray | None:
        """True where a key is within each layer's sliding window, ``(L·h, keys)``; None without windows. The step's
        query is the last key (a decoder-only model's own token)."""
        windows = () if info is None or kind != "decoder" else tuple(info.windows.get(kind, ()))
        if not any(windows):
            return None
        hidden = np.stack([masked_bins(windows[layer] if layer < len(windows) else 0, width, width)[-1]
                           for layer in range(layers)])  # (L, keys)
        return ~np.repeat(hidden, heads, axis=0)  # (L·h, keys)


class StepAttentionViews(MapViews):
    """A step's heatmap (``step_map``) or its token lines: the produced token joined to each key it saw, the heads
    of one layer overlaid (the last layer first; ``layer_combo`` chooses). A click on the heatmap or on a key
    chooses that key in both views."""

    def __init__(self, step_map: StepAttentionMap, parent: QWidget | None = None) -> None:
        super().__init__(step_map, self._lines_data, rows_are_queries=False, parent=parent)
        self.step_map = step_map
        self.layer_combo = QComboBox(self)
        self.bar.insertWidget(1, self.layer_combo)
        self.layer_combo.setVisible(False)
        self.retranslate()
        step_map.step_shown.connect(self._on_step_map_step_shown)
        self.layer_combo.currentIndexChanged.connect(self._on_layer_combo_current_index_changed)

    def retranslate(self) -> None:
        super().retranslate()
        if not hasattr(self, "layer_combo"):  # called by the base class before the combo exists
            return
        self.layer_combo.setToolTip(self.tr("The layer whose heads the token lines overlay"))
        if self.step_map.rows is not None:
            self._fill_layers(self.step_map.rows.shape[0])

    def _fill_layers(self, layers: int) -> None:
        """One item per layer ("layer 3"); the choice stays while the number of layers does."""
        combo = self.layer_combo
        current = combo.currentIndex() if combo.count() == layers else layers - 1
        combo.blockSignals(True)
        combo.clear()
        combo.addItems([self.tr("layer {number}").format(number=i + 1) for i in range(layers)])
        combo.setCurrentIndex(current)
        combo.blockSignals(False)

    def _lines_data(self) -> LinesData:
        rows = self.step_map.rows
        if rows is None:
            return None
        layer = min(max(self.layer_combo.currentIndex(), 0), rows.shape[0] - 1)
        weights = rows[layer][:, None, :]  # (h, 1, keys): one query, the step's
        return weights, [self.step_map.token], self.step_map.keys, self.step_map.head_labels, \
            list(range(rows.shape[1]))

    @Slot()
    def _on_step_map_step_shown(self) -> None:
        rows = self.step_map.rows
        if rows is not None:
            self._fill_layers(rows.shape[0])
            self.selection.fit(1, rows.shape[-1])
        self.layer_combo.setVisible(rows is not None and self.showing_lines)
        self.refresh()

    @Slot(int)
    def _on_layer_combo_current_index_changed(self, _index: int) -> None:
        self.refresh()

    @Slot(int)
    def _on_tabs_current_changed(self, index: int) -> None:
        self.layer_combo.setVisible(index == 1 and self.step_map.rows is not None)
        super()._on_tabs_current_changed(index)
