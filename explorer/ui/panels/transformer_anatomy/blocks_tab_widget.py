"""The anatomy panel's block view (book §11.7.1, Fig. 11.7.1): the clickable diagram of one encoder and one decoder
block beside the tensors of the box chosen, with the block (layer) to look at."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, Slot
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from explorer.core.chapter.block_trace import BlockTrace, Stage
from explorer.ui.panels.transformer_anatomy.block_diagram_widget import BlockDiagram
from explorer.ui.panels.transformer_anatomy.stage_view_widget import StageView
from explorer.ui.widgets.form_controls import set_row_labels, spin_box


class BlocksTab(QWidget):
    """Diagram (left) and `StageView` (right); ``block_spin`` picks the block of the stack (1-based)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trace: BlockTrace | None = None
        self.side, self.index = "encoder", 1  # the box shown: the encoder's self-attention
        self.block_spin: QSpinBox = spin_box(1, 2, 1)
        self.diagram = BlockDiagram()
        self.stage_view = StageView()
        self.shape_note = QLabel()
        self.shape_note.setWordWrap(True)
        self.shape_note.setEnabled(False)
        left = QVBoxLayout()
        self._form = form = QFormLayout()
        form.addRow("", self.block_spin)
        left.addLayout(form)
        left.addWidget(self.diagram)
        left.addWidget(self.shape_note)
        left.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(left)
        layout.addWidget(self.stage_view, 1)
        self.diagram.stage_clicked.connect(self._on_diagram_stage_clicked)
        self.block_spin.valueChanged.connect(self._on_block_spin_value_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, those about the trace worded from it (at build and on
        ``LanguageChange``)."""
        self.block_spin.setToolTip(self.tr("which block of the stack (each has the same boxes)"))
        set_row_labels(self._form, [(self.block_spin, self.tr("block"))])
        self._show_shape_note()
        self._draw()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def block(self) -> int:
        """The block shown, 0-based."""
        return self.block_spin.value() - 1

    def stage(self) -> Stage | None:
        """The stage on display (None before the first trace)."""
        if self.trace is None:
            return None
        stages = self.trace.stages[(self.side, min(self.block(), self.trace.num_layers - 1))]
        return stages[min(self.index, len(stages) - 1)]

    def show_trace(self, trace: BlockTrace) -> None:
        """Take a new trace: diagram for its kind of block (Post-LN or Pre-LN), the chosen box redrawn."""
        self.trace = trace
        with QSignalBlocker(self.block_spin):
            self.block_spin.setMaximum(trace.num_layers)
        block = self.block()
        self.diagram.set_stages([(s.kind, s.title) for s in trace.stages[("encoder", block)]],
                                [(s.kind, s.title) for s in trace.stages[("decoder", block)]])
        self._show_shape_note()
        self._draw()

    def _show_shape_note(self) -> None:
        trace = self.trace
        if trace is None:
            return
        d = trace.stages[("encoder", 0)][0].output.shape[-1]
        self.shape_note.setText(self.tr("Every box keeps the shape (batch, steps, num_hiddens): (1, {source}, {d}) in "
                                        "the encoder, (1, {target}, {d}) in the decoder.").format(
            source=len(trace.src_tokens), target=len(trace.dec_tokens), d=d))

    def _draw(self) -> None:
        stage = self.stage()
        if stage is None:
            return
        self.diagram.select(self.side, self.index)
        where = (self.tr("encoder block {number}") if self.side == "encoder"
                 else self.tr("decoder block {number}")).format(number=self.block() + 1)
        self.stage_view.show_stage(stage, where)

    def select(self, side: str, index: int) -> None:
        """Show box ``index`` of the ``side`` block (as a click on it does)."""
        self.side, self.index = side, index
        self._draw()

    def apply_theme(self, dark: bool) -> None:
        self.diagram.apply_theme(dark)
        self.stage_view.apply_theme(dark)

    @Slot(str, int)
    def _on_diagram_stage_clicked(self, side: str, index: int) -> None:
        self.select(side, index)

    @Slot(int)
    def _on_block_spin_value_changed(self, _value: int) -> None:
        self._draw()
