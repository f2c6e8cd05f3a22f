"""One encoder block and one decoder block as a clickable diagram (book Fig. 11.7.1): a column of boxes each, data
flowing upward, the encoder's output feeding the decoder's encoder–decoder attention. Boxes are buttons, so the
diagram works from the keyboard too."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import QButtonGroup, QGridLayout, QLabel, QPushButton, QSizePolicy, QWidget

from explorer.ui.panels.transformer_anatomy.stage_names import short_stage_title, stage_title

#: Box colours per stage kind, (light, dark), after the book's figure.
BOX_COLOURS = {
    "input": ("#f4cccc", "#5b3535"), "attention": ("#fce5cd", "#6b4a26"), "masked_attention": ("#fce5cd", "#6b4a26"),
    "cross_attention": ("#fce5cd", "#6b4a26"), "addnorm": ("#fff2cc", "#5c5326"), "norm": ("#fff2cc", "#5c5326"),
    "add": ("#fff2cc", "#5c5326"), "ffn": ("#cfe2f3", "#2c4a63"),
}


class BlockDiagram(QWidget):
    """Two columns of boxes, built from the stages of one encoder and one decoder block.

    Signal ``stage_clicked(side, index)``: a box was chosen (``side`` "encoder" or "decoder").
    """

    stage_clicked = Signal(str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(4)
        self.grid.setVerticalSpacing(0)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.group.idClicked.connect(self._on_group_id_clicked)
        self.buttons: dict[tuple[str, int], QPushButton] = {}
        self._ids: dict[int, tuple[str, int]] = {}
        self._layout_key: tuple = ()
        self._titles: dict[tuple[str, int], str] = {}  # core's title of each box
        self._captions: list[QLabel] = []
        self._dark = False
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def set_stages(self, encoder: list[tuple[str, str]], decoder: list[tuple[str, str]]) -> None:
        """Boxes for the ``(kind, title)`` of each stage, bottom to top; rebuilt only when they change."""
        key = (tuple(encoder), tuple(decoder))
        if key == self._layout_key:
            return
        self._layout_key = key
        for button in self.buttons.values():
            self.group.removeButton(button)
            button.deleteLater()
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.buttons, self._ids, self._titles = {}, {}, {}
        cross = next((j for j, (kind, _) in enumerate(decoder) if kind == "cross_attention"), len(decoder) - 1)
        shift = cross - (len(encoder) - 1)  # the encoder's last box level with the decoder's cross-attention
        top = max(len(decoder) - 1, len(encoder) - 1 + shift)
        bottom = min(0, shift)
        self._captions = [self._caption(), self._caption()]
        self.grid.addWidget(self._captions[0], 0, 0)
        self.grid.addWidget(self._captions[1], 0, 2)
        for col, side, stages, offset in ((0, "encoder", encoder, shift), (2, "decoder", decoder, 0)):
            for i, (kind, title) in enumerate(stages):
                row = 1 + 2 * (top - (i + offset))  # bottom to top, an arrow row between boxes
                button = QPushButton()
                button.setCheckable(True)
                self._titles[(side, i)] = title
                button.setProperty("kind", kind)
                button.setMinimumHeight(24)
                self._ids[len(self._ids)] = (side, i)
                self.group.addButton(button, len(self._ids) - 1)
                self.buttons[(side, i)] = button
                self.grid.addWidget(button, row, col)
                if i + 1 < len(stages):
                    self.grid.addWidget(self._arrow("↑"), row - 1, col)
        cross_row = 1 + 2 * (top - cross)
        self.grid.addWidget(self._arrow("→"), cross_row, 1)  # the encoder's output enters the cross-attention
        self.grid.setRowMinimumHeight(1 + 2 * (top - bottom), 0)
        self.retranslate()
        self._style()

    def retranslate(self) -> None:
        """Word the captions and the boxes in the language in force (on ``LanguageChange``)."""
        for label, text in zip(self._captions, (self.tr("encoder block"), self.tr("decoder block"))):
            label.setText(text)
        for where, button in self.buttons.items():
            title = self._titles[where]
            button.setText(short_stage_title(title).replace("&", "&&"))  # a single & would underline the next letter
            button.setToolTip(self.tr("{box}: click to see the tensors entering and leaving it").format(
                box=stage_title(title)))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def select(self, side: str, index: int) -> None:
        """Check the box of ``(side, index)`` without emitting."""
        button = self.buttons.get((side, index))
        if button is not None:
            button.setChecked(True)

    def selected(self) -> tuple[str, int] | None:
        checked = self.group.checkedId()
        return self._ids.get(checked) if checked >= 0 else None

    def apply_theme(self, dark: bool) -> None:
        self._dark = dark
        self._style()

    # --- internals --------------------------------------------------------------------------
    def _caption(self) -> QLabel:
        label = QLabel()
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        return label

    def _arrow(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setFixedHeight(label.fontMetrics().height())
        return label

    def _style(self) -> None:
        fg, border = ("#eeeeee", "#aaaaaa") if self._dark else ("#222222", "#777777")
        checked = "#ffb74d" if self._dark else "#d35400"
        rules = []
        for kind, colours in BOX_COLOURS.items():
            rules.append(f'QPushButton[kind="{kind}"] {{ background: {colours[int(self._dark)]}; color: {fg}; '
                         f'border: 1px solid {border}; border-radius: 3px; padding: 2px 6px; }}')
        rules.append(f"QPushButton:checked {{ border: 3px solid {checked}; font-weight: bold; }}")
        self.setStyleSheet("\n".join(rules))

    @Slot(int)
    def _on_group_id_clicked(self, button_id: int) -> None:
        side, index = self._ids[button_id]
        self.stage_clicked.emit(side, index)
