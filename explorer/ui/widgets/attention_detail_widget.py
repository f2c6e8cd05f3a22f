"""The large attention view (book §11.7) of the studio and the inspector: one head (or the head average) with token
axes, a hover readout and PNG/SVG/CSV export; for an inspected model whose maps were only pooled (long texts), the
head is computed at full resolution on demand, off the GUI thread, while the view says so."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Slot
from PySide6.QtWidgets import QCheckBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.widgets.attention_grid_widget import axis_labels, grid_layout, kind_title
from explorer.ui.widgets.export import ExportError, export_target
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.hint_stack_widget import HintStack

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance


class HeadSource(Protocol):
    """What computes an inspected model's heads on demand (the inspector's ``InspectState``): ``request_head`` is
    answered by ``head_computed`` (an object with ``inspection, name, layer, head, matrix``) or ``head_failed``."""

    head_computed: SignalInstance
    head_failed: SignalInstance

    def request_head(self, name: str, layer: int, head: int | None) -> None: ...


HINT = QT_TRANSLATE_NOOP("AttentionDetail", "Click a thumbnail in the attention grid to look at it here.")
#: Above this many queries the causal mask is not hatched (its cells are 0 anyway; the hatch would take ~64 MB).
MASK_LIMIT = 1024


def causal_keep(size: int) -> np.ndarray:
    """Bool (T, T), True where decoder query i may see key j (j <= i)."""
    return np.tril(np.ones((size, size), dtype=bool))


class AttentionDetail(QWidget):
    """One attention map, large: click a thumbnail of the grid to choose it. ``inspect``: the state that computes
    an inspected model's heads on demand (its results are drawn when they arrive)."""

    def __init__(self, inspect: HeadSource | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind, self.layer, self.head = "cross", 0, 0
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.average_box = QCheckBox(self)
        self.heatmap = HeatmapWidget()
        self.stack = HintStack(self.heatmap, "", self)
        self._hint: str = Words(lambda: self.tr("No attention map yet."))
        self.readout = QLabel("", self)
        self._readout = ""  # what the line under the map says (hover, export)
        self.export_buttons = {fmt: QPushButton(self) for fmt in ("png", "svg", "csv")}
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.average_box)
        bottom = QHBoxLayout()
        bottom.addWidget(self.readout, 1)
        for button in self.export_buttons.values():
            button.setEnabled(False)
            bottom.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)
        layout.addLayout(bottom)
        self._snapshot: Any = None
        self._selected = False
        self._inspect = inspect
        self._computed: Any = None  # the newest head computed on demand
        self._waiting: tuple | None = None  # (inspection, kind, layer, head) asked for and not yet drawn
        if inspect is not None:
            inspect.head_computed.connect(self._on_inspect_head_computed)
            inspect.head_failed.connect(self._on_inspect_head_failed)
        self.average_box.toggled.connect(self._on_average_box_toggled)
        self.heatmap.cell_hovered.connect(self._on_heatmap_cell_hovered)
        self.export_buttons["png"].clicked.connect(self._on_png_button_clicked)
        self.export_buttons["svg"].clicked.connect(self._on_svg_button_clicked)
        self.export_buttons["csv"].clicked.connect(self._on_csv_button_clicked)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, those about the map shown worded again (at build and on
        ``LanguageChange``)."""
        self.average_box.setText(self.tr("average over heads"))
        self.heatmap.set_axis_labels(self.tr("queries"), self.tr("keys"))
        for fmt, button in self.export_buttons.items():
            button.setText(self.tr("Export {format}…").format(format=fmt.upper()))
        self.stack.hint_label.setText(again(self._hint))
        self.readout.setText(again(self._readout))
        if self.has_map:
            self._show_titles()
        else:
            self.title.setText(self.tr(HINT))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _show_hint(self, text: str) -> None:
        self._hint = text
        self.stack.show_hint(text)

    def _say(self, text: str) -> None:
        self._readout = text
        self.readout.setText(text)

    @property
    def has_map(self) -> bool:
        return self._snapshot is not None and self._selected

    @property
    def computing(self) -> bool:
        """Whether the head on display is being computed at full resolution."""
        return self._waiting is not None

    @Slot(str, int, int)
    def select(self, kind: str, layer: int, head: int) -> None:
        """Choose which map to show (drawn from the snapshot given to :meth:`show_snapshot`)."""
        self.kind, self.layer, self.head = kind, layer, head
        self._selected = True
        self._draw()

    @Slot(object)
    def show_snapshot(self, snapshot: Any) -> None:
        """Draw the selected map of a ``SnapshotEvent``-like object (maps ``(L, h, Tq, Tk)``); None clears."""
        self._snapshot = snapshot
        self._waiting = None
        if snapshot is None:
            self._selected = False
            self._show_hint(Words(lambda: self.tr("No attention map yet.")))
            self.title.setText(self.tr(HINT))
            self._say("")
            for button in self.export_buttons.values():
                button.setEnabled(False)
            return
        self._draw()

    def current_matrix(self) -> np.ndarray | None:
        """The (Q, K) matrix on display."""
        return self.heatmap.matrix

    def _draw(self) -> None:
        snap = self._snapshot
        if snap is None or not self._selected:
            return
        shapes = {kind: (layers, heads) for kind, layers, heads in grid_layout(snap)}
        if self.kind not in shapes:  # a model without this kind (BERT has no cross-attention)
            self.kind = next(iter(shapes))
        self.layer = min(self.layer, shapes[self.kind][0] - 1)
        self.head = min(self.head, shapes[self.kind][1] - 1)
        average = self.average_box.isChecked()
        self.title.setText(f"<b>{kind_title(self.kind)}</b> · {self._where()}")
        matrix = self._matrix(snap, None if average else self.head)  # (Tq, Tk), None while it is computed
        if matrix is None:
            return
        rows, cols = axis_labels(self.kind, snap)
        causal = self.kind == "decoder" and matrix.shape[0] <= MASK_LIMIT
        # an inspection's maps are never written again: no copy (a first 64 MB copy of a 4,096² head took ~300 ms)
        owned = getattr(snap, "thumbnails", None) is not None
        self.heatmap.plot.set_matrix(matrix, rows, cols, causal_keep(matrix.shape[0]) if causal else None, owned=owned)
        self.stack.show_content()
        self.heatmap.set_title(f"{kind_title(self.kind)} · {self._where()}")  # exported pictures carry it too
        for button in self.export_buttons.values():
            button.setEnabled(True)

    def _where(self) -> str:
        """Which map is shown: layer, head (or the mean), and the model or the training step."""
        snap = self._snapshot
        who = (self.tr("all heads (mean)") if self.average_box.isChecked() else
               self.tr("head {number}").format(number=self.head + 1))
        if getattr(snap, "thumbnails", None) is not None:
            return self.tr("layer {layer} · {heads} · {model}").format(layer=self.layer + 1, heads=who,
                                                                      model=snap.model_name)
        return self.tr("layer {layer} · {heads} · step {step}, epoch {epoch}").format(
            layer=self.layer + 1, heads=who, step=snap.step, epoch=snap.epoch)

    def _show_titles(self) -> None:
        """The line above the map and the map's own title (exported pictures carry it), worded anew."""
        self.title.setText(f"<b>{kind_title(self.kind)}</b> · {self._where()}")
        if self.heatmap.matrix is not None and self._waiting is None:
            self.heatmap.set_title(f"{kind_title(self.kind)} · {self._where()}")

    def _matrix(self, snap: Any, head: int | None) -> Any:
        """The map to draw: from a training snapshot, an inspection's held maps, or the head computed on demand
        (asked for here; None until it arrives)."""
        if getattr(snap, "thumbnails", None) is None:
            maps = snap.maps[self.kind]  # (L, h, Tq, Tk)
            return maps[self.layer].mean(axis=0) if head is None else maps[self.layer][head]
        held = snap.head_map(self.kind, self.layer, head)
        if held is not None or self._inspect is None:
            self._waiting = None
            return held
        wanted = (snap, self.kind, self.layer, head)
        done = self._computed
        if done is not None and (done.inspection, done.name, done.layer, done.head) == wanted:
            self._waiting = None
            return done.matrix
        if self._waiting != wanted:
            self._waiting = wanted
            self._inspect.request_head(self.kind, self.layer, head)
        q, k = snap.map_size(self.kind)
        layer = self.layer
        self._show_hint(Words(lambda: (
            self.tr("Computing the mean of all heads of layer {layer} at full resolution ({q:,} × {k:,})…")
            if head is None else
            self.tr("Computing head {head} of layer {layer} at full resolution ({q:,} × {k:,})…")
        ).format(head=(head or 0) + 1, layer=layer + 1, q=q, k=k)))
        for button in self.export_buttons.values():
            button.setEnabled(False)
        return None

    def export_target(self) -> ExportTarget:
        """The large view for File → Export (PNG/SVG of the heatmap, CSV of its numbers)."""
        target = self.heatmap.token_export_target("attention detail")
        target.label = self.tr("Attention detail")
        return target

    def export_to(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the view to ``path`` (format from ``fmt`` or the suffix); raises ``ExportError``."""
        if self.heatmap.matrix is None:
            raise ExportError(self.tr("There is no attention map to export yet."))
        return export_target(self.export_target(), path, fmt)

    # ---- slots -------------------------------------------------------------------------------
    @Slot(object)
    def _on_inspect_head_computed(self, head_map: Any) -> None:
        self._computed = head_map
        if self._waiting == (head_map.inspection, head_map.name, head_map.layer, head_map.head):
            self._draw()

    @Slot(object)
    def _on_inspect_head_failed(self, message: str) -> None:
        if self._waiting is not None:
            self._waiting = None
            self._show_hint(Words(lambda: self.tr("Could not compute this head: {error}").format(
                error=again(message))))

    @Slot(bool)
    def _on_average_box_toggled(self, _on: bool) -> None:
        self._draw()

    @Slot(int, int, float)
    def _on_heatmap_cell_hovered(self, row: int, col: int, value: float) -> None:
        rows, cols = self.heatmap.row_labels, self.heatmap.col_labels
        query, key = rows[row], cols[col]
        self._say(Words(lambda: self.tr("query <b>{query}</b> → key <b>{key}</b>: weight {weight:.4f}").format(
            query=query, key=key, weight=value)))

    def _export_with_dialog(self, fmt: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export attention as {format}").format(format=fmt.upper()),
                                              f"attention_{self.kind}_L{self.layer + 1}.{fmt}",
                                              f"{fmt.upper()} (*.{fmt})")
        if not path:
            return
        try:
            self.export_to(path, fmt)
        except ExportError as exc:
            self._say(f"<span style='color:#c0392b'>{exc}</span>")
        else:
            name = Path(path).name
            self._say(Words(lambda: self.tr("Saved {name}").format(name=name)))

    @Slot()
    def _on_png_button_clicked(self) -> None:
        self._export_with_dialog("png")

    @Slot()
    def _on_svg_button_clicked(self) -> None:
        self._export_with_dialog("svg")

    @Slot()
    def _on_csv_button_clicked(self) -> None:
        self._export_with_dialog("csv")
