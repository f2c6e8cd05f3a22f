"""The large attention view (book §11.7) of the studio and the inspector: one head (or the head average) with token
axes, a hover readout and PNG/SVG/CSV export; for an inspected model whose maps were only pooled (long texts), the
head is computed at full resolution on demand, off the GUI thread, while the view says so."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, Slot
from PySide6.QtWidgets import QCheckBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

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
        self.title = QLabel(self.tr(HINT), self)
        self.title.setWordWrap(True)
        self.average_box = QCheckBox(self.tr("average over heads"), self)
        self.heatmap = HeatmapWidget()
        self.heatmap.set_axis_labels(self.tr("queries"), self.tr("keys"))
        self.stack = HintStack(self.heatmap, self.tr("No attention map yet."), self)
        self.readout = QLabel("", self)
        self.export_buttons = {fmt: QPushButton(self.tr("Export {format}…").format(format=fmt.upper()), self)
                               for fmt in ("png", "svg", "csv")}
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
            self.stack.show_hint()
            self.title.setText(HINT)
            self.readout.setText("")
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
        who = self.tr("all heads (mean)") if average else self.tr("head {number}").format(number=self.head + 1)
        if getattr(snap, "thumbnails", None) is not None:
            where = self.tr("layer {layer} · {heads} · {model}").format(layer=self.layer + 1, heads=who,
                                                                       model=snap.model_name)
        else:
            where = self.tr("layer {layer} · {heads} · step {step}, epoch {epoch}").format(
                layer=self.layer + 1, heads=who, step=snap.step, epoch=snap.epoch)
        self.title.setText(f"<b>{kind_title(self.kind)}</b> · {where}")
        matrix = self._matrix(snap, None if average else self.head)  # (Tq, Tk), None while it is computed
        if matrix is None:
            return
        rows, cols = axis_labels(self.kind, snap)
        causal = self.kind == "decoder" and matrix.shape[0] <= MASK_LIMIT
        # an inspection's maps are never written again: no copy (a first 64 MB copy of a 4,096² head took ~300 ms)
        owned = getattr(snap, "thumbnails", None) is not None
        self.heatmap.plot.set_matrix(matrix, rows, cols, causal_keep(matrix.shape[0]) if causal else None, owned=owned)
        self.stack.show_content()
        self.heatmap.set_title(f"{kind_title(self.kind)} · {where}")  # exported pictures carry it too
        for button in self.export_buttons.values():
            button.setEnabled(True)

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
        self.stack.show_hint((self.tr("Computing the mean of all heads of layer {layer} at full resolution "
                                      "({q:,} × {k:,})…") if head is None else
                              self.tr("Computing head {head} of layer {layer} at full resolution ({q:,} × {k:,})…")
                              ).format(head=(head or 0) + 1, layer=self.layer + 1, q=q, k=k))
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

    @Slot(str)
    def _on_inspect_head_failed(self, message: str) -> None:
        if self._waiting is not None:
            self._waiting = None
            self.stack.show_hint(self.tr("Could not compute this head: {error}").format(error=message))

    @Slot(bool)
    def _on_average_box_toggled(self, _on: bool) -> None:
        self._draw()

    @Slot(int, int, float)
    def _on_heatmap_cell_hovered(self, row: int, col: int, value: float) -> None:
        rows, cols = self.heatmap.row_labels, self.heatmap.col_labels
        self.readout.setText(self.tr("query <b>{query}</b> → key <b>{key}</b>: weight {weight:.4f}").format(
            query=rows[row], key=cols[col], weight=value))

    def _export_with_dialog(self, fmt: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export attention as {format}").format(format=fmt.upper()),
                                              f"attention_{self.kind}_L{self.layer + 1}.{fmt}",
                                              f"{fmt.upper()} (*.{fmt})")
        if not path:
            return
        try:
            self.export_to(path, fmt)
        except ExportError as exc:
            self.readout.setText(f"<span style='color:#c0392b'>{exc}</span>")
        else:
            self.readout.setText(self.tr("Saved {name}").format(name=Path(path).name))

    @Slot()
    def _on_png_button_clicked(self) -> None:
        self._export_with_dialog("png")

    @Slot()
    def _on_svg_button_clicked(self) -> None:
        self._export_with_dialog("svg")

    @Slot()
    def _on_csv_button_clicked(self) -> None:
        self._export_with_dialog("csv")
