"""One decoding step's attention (book §10.7.6 prediction, §11.7 attention of a trained model): every layer and head
of the step that produced a token over what that step could see — the source (cross-attention) or, for a
decoder-only model, the prompt and the tokens produced before it — with the step's top next-token probabilities."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QWidget

from explorer.ui.i18n.words import Words, again
from explorer.ui.widgets.heatmap_widget import HeatmapWidget


class StepAttentionMap(HeatmapWidget):
    """A heatmap of one step's rows: ``L·h`` rows (``L1 h1``, …) by the keys the step saw; a dashed line parts a
    decoder-only model's prompt from the tokens it produced."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attends = "cross"
        self.token = ""
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
                  step: int, prob: float, top: Sequence[tuple[str, float]] = (), prompt: int = 0) -> None:
        """Show the rows ``(L, h, keys)`` of the step (1-based ``step``) that produced ``token`` with probability
        ``prob``; ``attends`` is ``"cross"`` or ``"decoder"`` (then the first ``prompt`` keys are the prompt);
        ``top`` the step's most probable tokens."""
        self.attends, self.token = attends, token
        self.boundary.setVisible(attends == "decoder" and rows is not None and 0 < prompt < rows.shape[-1])
        self.boundary.setPos(prompt)  # cells span [j, j + 1): the line falls between prompt and output
        if rows is None:
            self._title = Words(lambda: self.tr("“{t}” has no attention row (the start token)").format(t=token))
            self._note = ""
            self.retranslate()
            return
        layers, heads, width = rows.shape
        matrix = np.ascontiguousarray(rows.reshape(layers * heads, width), dtype=np.float32)  # (L·h, keys)
        labels = [f"L{layer + 1} h{head + 1}" for layer in range(layers) for head in range(heads)]
        self.set_matrix(matrix, labels, list(keys)[:width])
        self._title = (Words(lambda: self.tr("step {n}: “{t}” · self-attention over the prompt and the tokens before "
                                             "it").format(n=step, t=token)) if attends == "decoder" else
                       Words(lambda: self.tr("step {n}: “{t}” · cross-attention over the source").format(
                           n=step, t=token)))
        ranked = "  ".join(f"{tok} {p:.3f}" for tok, p in top)
        self._note = Words(lambda: self.tr("p(“{t}”) = {p:.3f} · most probable: {ranked}").format(
            t=token, p=prob, ranked=ranked))
        self.retranslate()
