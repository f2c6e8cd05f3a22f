"""The beam view (book §10.8.3 beam search): every expansion of a beam search drawn as a tree, nodes
labelled with their token and score, the best path highlighted; selecting a node shows the attention of the step
that produced it (every layer and head over the source tokens, or a decoder-only model's prompt and the path's
tokens before it). A view of :class:`DebugState`."""
from __future__ import annotations

from html import escape
from typing import Any

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QRectF, Qt, Slot
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (QGraphicsRectItem, QGraphicsScene, QGraphicsSimpleTextItem, QGraphicsView,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QSplitter, QVBoxLayout,
                               QWidget)

from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.inspector.debug_state import DebugState
from explorer.ui.panels.inspector.step_attention_widget import StepAttentionMap, StepAttentionViews

NODE_W, NODE_H, GAP_X, GAP_Y = 96.0, 34.0, 36.0, 8.0
#: Node statuses as shown.
STATUS_NAMES = {"root": QT_TRANSLATE_NOOP("BeamTreeView", "root"), "kept": QT_TRANSLATE_NOOP("BeamTreeView", "kept"),
                "finished": QT_TRANSLATE_NOOP("BeamTreeView", "finished"),
                "stopped": QT_TRANSLATE_NOOP("BeamTreeView", "stopped"),
                "pruned": QT_TRANSLATE_NOOP("BeamTreeView", "pruned")}
FILL = {"root": QColor(220, 220, 220), "kept": QColor(214, 234, 248), "finished": QColor(213, 245, 227),
        "stopped": QColor(252, 243, 207), "pruned": QColor(245, 245, 245)}
BEST = QColor(192, 57, 43)


class BeamNodeItem(QGraphicsRectItem):
    """One node of the tree: a selectable box with its token and score."""

    def __init__(self, node: Any, best: bool) -> None:
        super().__init__(QRectF(0, 0, NODE_W, NODE_H))
        self.node = node
        self.setFlag(QGraphicsRectItem.GraphicsItemFlag.ItemIsSelectable)
        self.setBrush(QBrush(FILL.get(node.status, FILL["kept"])))
        self.setPen(QPen(BEST, 2.5) if best else QPen(QColor(120, 120, 120), 1))
        label = QGraphicsSimpleTextItem(f"{node.token}\n{node.score:.2f}", self)
        label.setBrush(QBrush(QColor(20, 20, 20) if node.status != "pruned" else QColor(140, 140, 140)))
        label.setPos(4, 2)
        status = QCoreApplication.translate("BeamTreeView", STATUS_NAMES.get(node.status, node.status))
        tip = QCoreApplication.translate("BeamTreeView", "{token} · {status} · log p {log_p:.3f} · score "
                                         "{score:.3f}").format(token=node.token, status=status,
                                                               log_p=node.log_prob, score=node.score)
        # Qt guesses whether a tool tip is rich text: a token such as <s> would vanish as a tag, so it always is
        self.setToolTip(f"<qt>{escape(tip)}</qt>")


class BeamTreeView(QWidget):
    """A source line, beam width, Build; the tree; the selected node's cross-attention."""

    def __init__(self, state: DebugState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.tree: Any = None
        self.items: dict[int, BeamNodeItem] = {}
        self.source_edit = QLineEdit(state.inspect.source, self)
        self.width_spin = QSpinBox(self)
        self.width_spin.setRange(1, 8)
        self.width_spin.setValue(3)
        self.build_button = QPushButton(self)
        self.info = QLabel(self)
        self._info: str = Words(lambda: self.tr(
            "Build the tree of a beam search; click a node to see the attention of the step that produced it."))
        self.info.setWordWrap(True)
        self.scene = QGraphicsScene(self)
        self.view = QGraphicsView(self.scene, self)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.view.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.heatmap = StepAttentionMap()
        top = QHBoxLayout()
        top.addWidget(self.source_edit, 1)
        top.addWidget(self.width_spin)
        top.addWidget(self.build_button)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.view)
        self.step_views = StepAttentionViews(self.heatmap)  # Heatmap | Token lines
        split.addWidget(self.step_views)
        split.setSizes([330, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.info)
        layout.addWidget(split, 1)
        self.build_button.clicked.connect(self._on_build_button_clicked)
        self.source_edit.returnPressed.connect(self._on_build_button_clicked)
        self.scene.selectionChanged.connect(self._on_scene_selection_changed)
        state.beam_built.connect(self._on_state_beam_built)
        state.failed.connect(self._on_state_failed)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, the line above the tree worded again (at
        build and on ``LanguageChange``)."""
        self.source_edit.setPlaceholderText(self.tr("source text"))
        self.width_spin.setPrefix(self.tr("width "))
        self.build_button.setText(self.tr("Build tree"))
        self.heatmap.plot.set_empty_hint(self.tr("Build the tree, then click a node to see its attention here."))
        self.info.setText(again(self._info))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _say(self, text: str) -> None:
        self._info = text
        self.info.setText(text)

    def build(self) -> bool:
        self._say(Words(lambda: self.tr("Searching…")))
        return self.state.build_beam(self.source_edit.text().strip() or self.state.inspect.source,
                                     self.width_spin.value())

    def best_path(self) -> list[int]:
        """Node ids of the highlighted best path, root first."""
        return [] if self.tree is None else [0, *self.tree.path(self.tree.best)]  # nodes[0] is the root

    def select_node(self, node_id: int) -> None:
        """Select a node as a click would (its cross-attention is shown)."""
        self.scene.clearSelection()
        self.items[node_id].setSelected(True)

    def _draw(self, tree: Any) -> None:
        self.scene.clear()
        self.items = {}
        best = {0, *tree.path(tree.best)}
        rows: dict[int, float] = {}  # next free y per depth: children stay near their parent
        for node in tree.nodes:
            item = BeamNodeItem(node, node.id in best)
            parent = self.items.get(node.parent) if node.parent is not None else None
            wanted = parent.y() if parent is not None else 0.0
            y = max(wanted, rows.get(node.depth, 0.0))
            rows[node.depth] = y + NODE_H + GAP_Y
            item.setPos(node.depth * (NODE_W + GAP_X), y)
            self.scene.addItem(item)
            self.items[node.id] = item
            if parent is not None:
                on_best = node.id in best and node.parent in best
                pen = QPen(BEST, 2.5) if on_best else QPen(QColor(150, 150, 150), 1)
                line = self.scene.addLine(parent.x() + NODE_W, parent.y() + NODE_H / 2, item.x(),
                                          item.y() + NODE_H / 2, pen)
                line.setZValue(-1)
        self.scene.setSceneRect(self.scene.itemsBoundingRect().adjusted(-8, -8, 8, 8))

    @Slot()
    def _on_build_button_clicked(self) -> None:
        self.build()

    @Slot(object)
    def _on_state_beam_built(self, tree: Any) -> None:
        self.tree = tree
        self._draw(tree)
        words = [tree.nodes[i].token for i in tree.path(tree.best)]
        self._say(Words(lambda: self.tr(
            "<b>best:</b> {text} · score {score:.3f} · {n} nodes · red: the best path").format(
                text=escape(" ".join(words)), score=tree.nodes[tree.best].score, n=len(tree.nodes))))
        self.view.ensureVisible(self.items[tree.best])

    @Slot()
    def _on_scene_selection_changed(self) -> None:
        chosen = [i for i in self.scene.selectedItems() if isinstance(i, BeamNodeItem)]
        if not chosen or self.tree is None:
            return
        node = chosen[0].node
        parent = self.tree.nodes[node.parent] if node.parent is not None else None
        top = list(zip(parent.next_tokens, parent.next_probs)) if parent is not None else []
        self.heatmap.show_step(node.token, node.attention, self.tree.key_tokens(node.id), self.tree.attends,
                               node.depth, float(np.exp(node.token_log_prob)), top, len(self.tree.source_tokens),
                               self.state.inspect.info())

    @Slot(str, object)
    def _on_state_failed(self, tool: str, message: str) -> None:
        if tool == "beam":
            self._say(Words(lambda: f"<span style='color:#c0392b'>{escape(again(message))}</span>"))
