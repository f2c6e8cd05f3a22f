"""Model diff (book §11.7 attention maps): the Inspect tab's model (A) and a second one (B: another
checkpoint of the run or another run, chosen with a file or folder dialog) on the same sentence — per-head maps
of B − A in a grid like the attention grid (a diverging colour map centred at 0), and both translations with
their BLEU. A view of :class:`DebugState`."""
from __future__ import annotations

from html import escape
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Slot
from PySide6.QtWidgets import (QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout,
                               QWidget)

from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.inspector.debug_state import DebugState
from explorer.ui.widgets.form_controls import set_row_labels
from explorer.ui.widgets.file_dialogs import open_file_name, open_folder_name
from explorer.ui.widgets.kind_names import short_kind
from explorer.ui.pyqtgraph_compat import view_closed

KIND_TITLES = {"encoder": QT_TRANSLATE_NOOP("ModelDiffView", "encoder self-attention"),
               "decoder": QT_TRANSLATE_NOOP("ModelDiffView", "decoder self-attention"),
               "cross": QT_TRANSLATE_NOOP("ModelDiffView", "cross-attention")}


def diff_peak(diff: dict[str, list[np.ndarray]]) -> float:
    """The largest |B − A| over every head (the colour scale's half-range; never 0)."""
    return max([float(np.abs(m).max()) for maps in diff.values() for m in maps if m.size] + [1e-6])


class DiffGrid(pg.GraphicsLayoutWidget):
    """Per-head difference maps: one block per kind, rows = layers, columns = heads; one symmetric colour bar."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: dict[str, list[list[pg.ImageItem]]] = {}
        self.cmap = pg.colormap.get("CET-D1")
        self.bar: pg.ColorBarItem | None = None
        self._worded: list[tuple[Any, Any]] = []  # (label, words) of the title and the blocks' names

    def retranslate(self) -> None:
        """Word the title and the blocks' names in the language in force (on ``LanguageChange``)."""
        for label, words in self._worded:
            label.setText(words())

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange and not view_closed(self):
            self.retranslate()
        super().changeEvent(event)

    def show_diff(self, diff: dict[str, list[np.ndarray]], title: str) -> float:
        """Draw ``diff{kind: [layer] (h, q, k)}``; returns the colour scale's half-range."""
        self.clear()
        self.images = {}
        peak = diff_peak(diff)
        self._worded = [(self.addLabel(title, row=0, col=0, colspan=max(1, len(diff))), lambda: again(title))]
        for col, (kind, maps) in enumerate(diff.items()):
            block = self.addLayout(row=1, col=col)
            name = KIND_TITLES.get(kind, kind)
            label = block.addLabel(QCoreApplication.translate("ModelDiffView", name),
                                   colspan=maps[0].shape[0] if maps else 1)
            self._worded.append((label, lambda name=name: QCoreApplication.translate("ModelDiffView", name)))
            block.nextRow()
            self.images[kind] = []
            for layer, heads in enumerate(maps):
                row = []
                for head in range(heads.shape[0]):
                    box = block.addViewBox(lockAspect=False, enableMouse=False)
                    box.invertY(True)
                    image = pg.ImageItem(np.ascontiguousarray(heads[head], dtype=np.float32), axisOrder="row-major")
                    image.setLevels((-peak, peak))
                    image.setColorMap(self.cmap)
                    box.addItem(image)
                    row.append(image)
                self.images[kind].append(row)
                block.nextRow()
        self.bar = pg.ColorBarItem(values=(-peak, peak), colorMap=self.cmap, interactive=False, width=12)
        self.addItem(self.bar, row=1, col=len(diff))
        return peak

    def matrix(self, kind: str, layer: int, head: int) -> np.ndarray:
        """The difference map drawn for one head."""
        return self.images[kind][layer][head].image


class ModelDiffView(QWidget):
    """Second model, sentence, Compare; translations and BLEU of both; the difference grid."""

    def __init__(self, state: DebugState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.result: Any = None
        self.model_b_label = QLabel(self)
        self._model_b: str = Words(lambda: self.tr("B: none chosen"))
        self.file_button = QPushButton(self)
        self.folder_button = QPushButton(self)
        self.source_edit = QLineEdit(state.inspect.source, self)
        self.target_edit = QLineEdit(self)
        self.compare_button = QPushButton(self)
        self.summary = QLabel(self)
        self._summary: str = Words(lambda: self.tr("A is the Inspect tab's model; choose B, then Compare."))
        self.summary.setWordWrap(True)
        self.grid = DiffGrid(self)
        pick = QHBoxLayout()
        pick.addWidget(self.model_b_label, 1)
        pick.addWidget(self.file_button)
        pick.addWidget(self.folder_button)
        self._form = form = QFormLayout()
        form.addRow("", self.source_edit)
        row = QHBoxLayout()
        row.addWidget(self.target_edit, 1)
        row.addWidget(self.compare_button)
        form.addRow("", row)
        self._target_row = row
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(pick)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.grid, 1)
        self.file_button.clicked.connect(self._on_file_button_clicked)
        self.folder_button.clicked.connect(self._on_folder_button_clicked)
        self.compare_button.clicked.connect(self._on_compare_button_clicked)
        state.model_b_changed.connect(self._on_state_model_b_changed)
        state.diffed.connect(self._on_state_diffed)
        state.failed.connect(self._on_state_failed)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, B's name and the summary worded again (at build and on
        ``LanguageChange``)."""
        self.file_button.setText(self.tr("B from a checkpoint…"))
        self.folder_button.setText(self.tr("B from a folder…"))
        self.folder_button.setToolTip(self.tr("A run directory (its last checkpoint) or a Hugging Face model folder"))
        self.target_edit.setPlaceholderText(self.tr("optional: teacher-forced target and BLEU reference"))
        self.compare_button.setText(self.tr("Compare"))
        set_row_labels(self._form, [(self.source_edit, self.tr("source")), (self._target_row, self.tr("target"))])
        self.model_b_label.setText(again(self._model_b))
        self.summary.setText(again(self._summary))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _say(self, text: str) -> None:
        self._summary = text
        self.summary.setText(text)

    def _name_b(self, text: str) -> None:
        self._model_b = text
        self.model_b_label.setText(text)

    def compare(self) -> bool:
        target = self.target_edit.text().strip()
        self._say(Words(lambda: self.tr("Comparing…")))
        return self.state.diff(self.source_edit.text().strip() or self.state.inspect.source, target, target)

    @Slot()
    def _on_file_button_clicked(self) -> None:
        path = open_file_name(self, self.tr("Second model"), self.tr("Checkpoints (*.safetensors);;All files (*)"))
        if path:
            self._name_b(Words(lambda: self.tr("B: opening…")))
            self.state.open_model_b(path)

    @Slot()
    def _on_folder_button_clicked(self) -> None:
        path = open_folder_name(self, self.tr("Second model: a run directory or a model folder"))
        if path:
            self._name_b(Words(lambda: self.tr("B: opening…")))
            self.state.open_model_b(path)

    @Slot()
    def _on_compare_button_clicked(self) -> None:
        self.compare()

    @Slot(str)
    def _on_state_model_b_changed(self, name: str) -> None:
        self._name_b(Words(lambda: self.tr("B: <b>{name}</b>").format(name=escape(name))))

    @Slot(object)
    def _on_state_diffed(self, d: Any) -> None:
        self.result = d
        self._say(Words(lambda: self._summary_text(d)))
        self.grid.show_diff(d.diff, Words(lambda: self.tr(
            "B − A per head (colour scale ±{p:.3f}, blue: less in B, red: more)").format(p=diff_peak(d.diff))))

    def _summary_text(self, d: Any) -> str:
        def bleu(value: float | None) -> str:
            return self.tr("no reference") if value is None else f"BLEU {value:.3f}"

        top = d.changes[0] if d.changes else None
        most = "" if top is None else self.tr(" · largest change: {kind} L{layer} h{head} (max |Δ| {m:.3f})").format(
            kind=short_kind(top.kind), layer=top.layer + 1, head=top.head + 1, m=top.max_abs)
        return self.tr("<b>A</b> {a}: {ta} ({ba})<br><b>B</b> {b}: {tb} ({bb}){most}").format(
            a=escape(d.name_a), ta=escape(d.translation_a), ba=bleu(d.bleu_a), b=escape(d.name_b),
            tb=escape(d.translation_b), bb=bleu(d.bleu_b), most=most)

    @Slot(str, object)
    def _on_state_failed(self, tool: str, message: str) -> None:
        if tool == "diff":
            self._say(Words(lambda: f"<span style='color:#c0392b'>{escape(again(message))}</span>"))
