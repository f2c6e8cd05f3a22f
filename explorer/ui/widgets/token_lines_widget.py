"""The token-line view of an attention map (BertViz's head view): query tokens on the left, key tokens on the right,
a line from each query to each key whose opacity is the weight (painted by token_line_items.py), several heads overlaid
in their own colours. Here: the two columns' layout, hover and click (shared selection), the head choice, export."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont, QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (QCheckBox, QDoubleSpinBox, QGraphicsRectItem, QGraphicsScene, QGraphicsSimpleTextItem,
                               QGraphicsView, QHBoxLayout, QLabel, QVBoxLayout, QWidget)

from explorer.core.atomic_file import atomic_path
from explorer.ui.widgets.export import ExportError
from explorer.ui.widgets.token_line_items import ROW_HEIGHT, TOP, LineItems, head_colour
from explorer.ui.widgets.token_selection import TokenSelection

LINE_SPAN = 220  # px between the two columns
#: Weights below this draw no line (a 100-token map would otherwise be a grey wall of 10,000 lines per head).
DEFAULT_THRESHOLD = 0.02


class _Token(QGraphicsSimpleTextItem):
    """One token of a column: reports hover and click to the view."""

    def __init__(self, side: str, index: int, report: Callable[[str, int, str], None]) -> None:
        super().__init__()
        self.side, self.index, self._report = side, index, report
        self.setAcceptHoverEvents(True)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self._report(self.side, self.index, "enter")

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self._report(self.side, self.index, "leave")

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        event.accept()
        self._report(self.side, self.index, "click")


class TokenLinesView(QWidget):
    """Tokens in two columns joined by attention lines. ``set_maps(weights (h, q, k), rows, cols, head_labels,
    shown)``; the heads to overlay are chosen with the check boxes of the legend; lines below the threshold are
    not drawn; the columns scroll. ``selection`` is shared with the heatmap: a click here chooses a token there.

    Signals: ``heads_changed(list)`` when the user changes the heads overlaid."""

    heads_changed = Signal(list)

    def __init__(self, selection: TokenSelection | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.selection = selection if selection is not None else TokenSelection(self)
        self._dark = False
        self._weights: np.ndarray | None = None  # (h, q, k)
        self._rows: list[str] = []
        self._cols: list[str] = []
        self._labels: list[str] = []
        self._shown: list[int] = []
        self.hovered: tuple[str, int] | None = None
        self.scene = QGraphicsScene(self)
        self.scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)  # a few hundred items that move
        self.view = QGraphicsView(self.scene, self)
        self.view.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self.view.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.lines = LineItems(self.scene)
        self._marks = {side: QGraphicsRectItem() for side in ("query", "key")}  # the chosen or hovered token
        for mark in self._marks.values():
            mark.setPen(Qt.PenStyle.NoPen)
            mark.setZValue(-1)
            mark.hide()
            self.scene.addItem(mark)
        self._tokens: dict[str, list[_Token]] = {"query": [], "key": []}
        self._legend: list[QGraphicsSimpleTextItem] = []
        self.head_boxes: list[QCheckBox] = []
        self.heads_label = QLabel(self)
        self.threshold_label = QLabel(self)
        self.threshold = QDoubleSpinBox(self)
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setDecimals(3)
        self.threshold.setSingleStep(0.01)
        self.threshold.setValue(DEFAULT_THRESHOLD)
        self._head_row = QHBoxLayout()
        self._head_row.addWidget(self.heads_label)
        self._head_row.addStretch(1)
        self._head_row.addWidget(self.threshold_label)
        self._head_row.addWidget(self.threshold)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._head_row)
        layout.addWidget(self.view, 1)
        self.threshold.valueChanged.connect(self._on_threshold_value_changed)
        self.selection.changed.connect(self._on_selection_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """Texts in the language in force (at build and on ``LanguageChange``)."""
        self.heads_label.setText(self.tr("Heads:"))
        self.threshold_label.setText(self.tr("hide lines below"))
        self.threshold.setToolTip(self.tr("Lines of smaller weights are not drawn, so that long texts stay "
                                          "readable; hover a token to see its lines alone"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # ---- data ----------------------------------------------------------------------------------
    @property
    def shown_heads(self) -> list[int]:
        return list(self._shown)

    @property
    def weights(self) -> np.ndarray | None:
        return self._weights

    @property
    def head_labels(self) -> list[str]:
        """The heads' names as the legend shows them."""
        return list(self._labels)

    def set_maps(self, weights: np.ndarray, rows: Sequence[str], cols: Sequence[str], head_labels: Sequence[str],
                 shown: Sequence[int]) -> None:
        """Show ``weights`` (h, q, k) with query tokens ``rows`` and key tokens ``cols``; overlay ``shown`` heads."""
        weights = np.asarray(weights, dtype=np.float32)
        if weights.ndim == 2:
            weights = weights[None]
        self._weights = weights
        self._rows, self._cols, self._labels = [str(t) for t in rows], [str(t) for t in cols], list(head_labels)
        self._shown = [h for h in shown if 0 <= h < weights.shape[0]] or [0]
        self._sync_head_boxes()
        self._place_tokens()
        self._redraw_lines()
        self.selection.fit(weights.shape[1], weights.shape[2])
        self._show_isolated()

    def set_shown_heads(self, heads: Sequence[int]) -> None:
        """Overlay ``heads`` (indices into the maps given to :meth:`set_maps`)."""
        if self._weights is None:
            return
        shown = sorted({h for h in heads if 0 <= h < self._weights.shape[0]})
        if shown and shown != self._shown:
            self._shown = shown
            self._sync_head_boxes()
            self._redraw_lines()

    def clear(self) -> None:
        self._weights = None
        self.lines.set_lines(np.zeros((1, 0, 0), np.float32), [], [], 1.0, 0, 0)
        for items in self._tokens.values():
            for item in items:
                item.hide()
        for item in self._legend:
            item.hide()

    # ---- layout ----------------------------------------------------------------------------------
    def _sync_head_boxes(self) -> None:
        """One check box per head (created when the number of heads changes), checked for those shown."""
        count = 0 if self._weights is None else self._weights.shape[0]
        if len(self.head_boxes) != count:
            self._drop_head_boxes()
            for head in range(count):
                box = QCheckBox(self)
                swatch = QPixmap(10, 10)
                swatch.fill(head_colour(head, self._dark))
                box.setIcon(QIcon(swatch))
                box.toggled.connect(self._on_head_box_toggled)
                self._head_row.insertWidget(1 + head, box)
                self.head_boxes.append(box)
        for head, box in enumerate(self.head_boxes):
            box.blockSignals(True)
            box.setText(self._labels[head] if head < len(self._labels) else str(head + 1))
            box.setChecked(head in self._shown)
            box.blockSignals(False)

    def _drop_head_boxes(self) -> None:
        for box in self.head_boxes:
            self._head_row.removeWidget(box)
            box.hide()  # at once: deleteLater waits for the event loop, and the box would show meanwhile
            box.deleteLater()
        self.head_boxes = []

    def _place_tokens(self) -> None:
        """Texts of both columns: items made once and reused (only their text and place change)."""
        font = QFont(self.font())
        widths = {}
        for side, texts in (("query", self._rows), ("key", self._cols)):
            items = self._tokens[side]
            while len(items) < len(texts):
                item = _Token(side, len(items), self._on_token)
                item.setFont(font)
                self.scene.addItem(item)
                items.append(item)
            for index, item in enumerate(items):
                item.setVisible(index < len(texts))
                if index < len(texts):
                    item.setText(texts[index])
                    item.setBrush(QColor("#dddddd" if self._dark else "#222222"))
            widths[side] = max((items[i].boundingRect().width() for i in range(len(texts))), default=0.0)
        self._left = widths["query"] + 8
        self._right = self._left + LINE_SPAN
        for index, item in enumerate(self._tokens["query"][:len(self._rows)]):
            item.setPos(self._left - 4 - item.boundingRect().width(), TOP + index * ROW_HEIGHT)
        for index, item in enumerate(self._tokens["key"][:len(self._cols)]):
            item.setPos(self._right + 4, TOP + index * ROW_HEIGHT)
        height = TOP + max(len(self._rows), len(self._cols)) * ROW_HEIGHT + 4
        self._marks["query"].setRect(0, 0, self._left - 2, ROW_HEIGHT)
        self._marks["key"].setRect(0, 0, widths["key"] + 8, ROW_HEIGHT)
        self.scene.setSceneRect(0, 0, self._right + widths["key"] + 10, height)

    def _redraw_lines(self) -> None:
        if self._weights is None:
            return
        colours = [head_colour(h, self._dark) for h in self._shown]
        self.lines.set_lines(self._weights, self._shown, colours, self.threshold.value(), self._left, self._right)
        while len(self._legend) < len(self._shown):
            item = QGraphicsSimpleTextItem()
            self.scene.addItem(item)
            self._legend.append(item)
        x = 0.0
        for index, item in enumerate(self._legend):
            item.setVisible(index < len(self._shown))
            if index < len(self._shown):
                head = self._shown[index]
                item.setText(f"━ {self._labels[head] if head < len(self._labels) else head + 1}")
                item.setBrush(head_colour(head, self._dark))
                item.setPos(x, 2)
                x += item.boundingRect().width() + 12

    # ---- isolation and selection ------------------------------------------------------------------
    def isolate(self, side: str | None, index: int = 0) -> None:
        """Keep only the lines of query row ``index`` (``side`` "query") or key column ``index`` ("key"); None
        shows every line again (or those of the token chosen in the selection)."""
        self.hovered = None if side is None else (side, index)
        self._show_isolated()

    def _show_isolated(self) -> None:
        which = self.hovered
        if which is None and self.selection.query is not None:
            which = ("query", self.selection.query)
        elif which is None and self.selection.key is not None:
            which = ("key", self.selection.key)
        self.lines.isolate(which)
        for side, mark in self._marks.items():
            if which is not None and which[0] == side:
                x = 0.0 if side == "query" else self._right + 2
                mark.setPos(x, TOP + which[1] * ROW_HEIGHT)
                mark.setBrush(QColor(255, 215, 0, 90 if self._dark else 140))
                mark.show()
            else:
                mark.hide()

    def _on_token(self, side: str, index: int, what: str) -> None:
        if what == "enter":
            self.isolate(side, index)
        elif what == "leave":
            if self.hovered == (side, index):
                self.isolate(None)
        elif side == "query":
            self.selection.select_query(index)
        else:
            self.selection.select_key(index)

    @Slot()
    def _on_selection_changed(self) -> None:
        self._show_isolated()

    @Slot(bool)
    def _on_head_box_toggled(self, _on: bool) -> None:
        shown = [h for h, box in enumerate(self.head_boxes) if box.isChecked()]
        if not shown:  # at least one head stays: re-check the box just cleared
            self._sync_head_boxes()
            return
        self._shown = shown
        self._redraw_lines()
        self.heads_changed.emit(list(shown))

    @Slot(float)
    def _on_threshold_value_changed(self, _value: float) -> None:
        self._redraw_lines()

    # ---- look and export -----------------------------------------------------------------------------
    def apply_theme(self, dark: bool) -> None:
        self._dark = dark
        self.view.setBackgroundBrush(QColor("#1e1e1e" if dark else "#ffffff"))
        if self._weights is not None:
            self._drop_head_boxes()
            self._sync_head_boxes()
            self._place_tokens()
            self._redraw_lines()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(480, 400)

    def render_image(self, scale: float = 2.0) -> QImage:
        """The whole scene (every token, not only those scrolled into view) as an image."""
        rect = self.scene.sceneRect()
        image = QImage(max(1, int(rect.width() * scale)), max(1, int(rect.height() * scale)),
                       QImage.Format.Format_ARGB32)
        image.fill(QColor("#1e1e1e" if self._dark else "#ffffff"))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.scene.render(painter, QRectF(image.rect()), rect)
        painter.end()
        return image

    def export_to(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the view as SVG (``QSvgGenerator``) or PNG, atomically; raises ``ExportError``."""
        target = Path(path)
        fmt = (fmt or target.suffix.lstrip(".")).lower()
        if self._weights is None:
            raise ExportError(self.tr("There is no attention map to export yet."))
        if fmt not in ("svg", "png"):
            raise ExportError(self.tr("The token-line view is exported as SVG or PNG, not {format}.").format(
                format=fmt.upper() or "?"))
        try:
            with atomic_path(target) as temp:
                if fmt == "png":
                    if not self.render_image().save(str(temp), "PNG"):
                        raise OSError("the image could not be written")
                else:
                    rect = self.scene.sceneRect()
                    generator = QSvgGenerator()
                    generator.setFileName(str(temp))
                    generator.setSize(rect.size().toSize())
                    generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
                    generator.setTitle(self.tr("Attention as lines between tokens"))
                    painter = QPainter(generator)
                    painter.fillRect(QRectF(0, 0, rect.width(), rect.height()),
                                     QColor("#1e1e1e" if self._dark else "#ffffff"))
                    self.scene.render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
                    painter.end()
        except OSError as exc:
            raise ExportError(self.tr("Could not write {path}: {error}").format(path=str(target),
                                                                               error=exc.strerror or exc)) from exc
        return target

    def token_position(self, side: str, index: int) -> QPointF:
        """Where a token sits in the scene (tests hover it there)."""
        return self._tokens[side][index].scenePos() + QPointF(2, ROW_HEIGHT / 2)
