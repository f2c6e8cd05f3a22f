"""Explain this cell (book §11.3.3 scaled dot-product attention): click a cell of the large attention
map and see how its weight was computed with the model's own numbers — the head's projected q and k, q ⊙ k, q·k,
÷√d, the mask, exp, the row's normaliser and the weight, equal to the map's value. A view of :class:`DebugState`."""
from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QEvent, Qt, Slot
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QWidget

from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.inspector.debug_state import DebugState

HEIGHT = 170


def _num(value: float) -> str:
    if value == float("-inf"):
        return "−∞"
    if abs(value) > 1e30:
        return f"{value:.3g}"
    return f"{value:.6g}"


class ExplainView(QWidget):
    """The computation of one attention weight: the vectors in a table, the steps beside it."""

    def __init__(self, state: DebugState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.explanation: Any = None
        self.vectors = QTableWidget(0, 3, self)
        self.vectors.setHorizontalHeaderLabels(["q", "k", "q ⊙ k"])
        self.vectors.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.vectors.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.steps = QLabel(self)
        self._steps: str = self._hint()
        self._model: Any = None  # the model the explanation shown (or asked for) comes from
        self.steps.setWordWrap(True)
        self.steps.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.steps.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.addWidget(self.vectors, 2)
        layout.addWidget(self.steps, 3)
        self.setFixedHeight(HEIGHT)
        self.vectors.hide()
        state.explained.connect(self._on_state_explained)
        state.failed.connect(self._on_state_failed)
        state.inspect.model_changed.connect(self._on_inspect_model_changed)
        self.retranslate()

    def _hint(self) -> str:
        return Words(lambda: self.tr("Click a cell of the map to see how its weight is computed "
                                     "(for a text read in the Inspect tab)."))

    def retranslate(self) -> None:
        """Set the texts in the language in force, the steps worded again (at build and on ``LanguageChange``)."""
        self.vectors.setToolTip(self.tr("The head's query and key after projection, and their element-wise product"))
        self.steps.setText(again(self._steps))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def show_steps(self, text: str) -> None:
        """Say ``text`` beside the vectors (kept, to be worded again in another language)."""
        self._steps = text
        self.steps.setText(text)

    def request(self, name: str, layer: int, head: int | None, row: int, col: int) -> None:
        """Explain cell (row, col) of map ``name`` (the grid's name), layer, head (None: the head mean)."""
        if head is None:
            self.show_steps(Words(lambda: self.tr("The mean over heads is not one computation: untick “average over "
                                                  "heads” to explain a cell.")))
            return
        self.show_steps(Words(lambda: self.tr("Computing…")))
        self._model = self.state.model()
        self.state.explain(name, layer, head, row, col)

    @property
    def weight(self) -> float | None:
        """The weight shown (None before a cell is explained)."""
        return None if self.explanation is None else self.explanation.weight

    def clear(self) -> None:
        """Nothing explained: the hint again."""
        self.explanation = self._model = None
        self.vectors.setRowCount(0)
        self.vectors.hide()
        self.steps.setToolTip("")
        self.show_steps(self._hint())

    @Slot(object)
    def _on_inspect_model_changed(self, _info: Any) -> None:
        if self._model is not None and self.state.model() is not self._model:  # another model: not its numbers
            self.clear()

    @Slot(object)
    def _on_state_explained(self, e: Any) -> None:
        if self._model is not None and self._model is not self.state.model():  # asked of a model since replaced
            return
        self.explanation = e
        self.vectors.setRowCount(e.head_dim)
        for i, values in enumerate(zip(e.q, e.k, e.product)):
            for j, value in enumerate(values):
                self.vectors.setItem(i, j, QTableWidgetItem(f"{float(value):.4f}"))
        self.vectors.show()
        self.show_steps(Words(lambda: self._steps_text(e)))
        self.steps.setToolTip(e.note)

    def _steps_text(self, e: Any) -> str:
        bias = self.tr("+ position bias {b}<br>").format(b=_num(e.bias)) if e.bias else ""
        mask = self.tr("masked (−∞): this key is not visible") if e.masked else _num(e.mask)
        text = self.tr(
            "<b>{kind}</b> layer {layer}, head {head}: query {qi} <b>{qt}</b> → key {ki} <b>{kt}</b><br>"
            "q·k = Σ q ⊙ k = {score}<br>"
            "÷√d (d = {d}): × {scale} = {scaled}<br>{bias}"
            "mask: {mask} → logit {logit}<br>"
            "exp(logit − row max {row_max}) = {exp}<br>"
            "row normaliser Σ exp = {norm}<br>"
            "<b>weight = {exp} / {norm} = {weight:.6f}</b> · the map shows {map_weight:.6f}").format(
            kind=escape(e.kind), layer=e.layer + 1, head=e.head + 1, qi=e.query, qt=escape(e.query_token),
            ki=e.key, kt=escape(e.key_token), score=_num(e.score), d=e.head_dim, scale=_num(e.scale),
            scaled=_num(e.scaled), bias=bias, mask=mask, logit=_num(e.logit), row_max=_num(e.row_max),
            exp=_num(e.exp), norm=_num(e.normaliser), weight=e.weight, map_weight=e.map_weight)
        return text

    @Slot(str, object)
    def _on_state_failed(self, tool: str, message: str) -> None:
        if tool == "explain":
            self.explanation = None
            self.vectors.hide()
            self.show_steps(Words(lambda: f"<span style='color:#c0392b'>{escape(again(message))}</span>"))
