"""The studio's large attention view (book §11.7): one head (or the head average) with token axes,
a hover readout and PNG/SVG/CSV export."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import Slot
from PySide6.QtWidgets import QCheckBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.panels.studio.attention_grid_widget import KIND_TITLES, axis_labels
from explorer.ui.widgets.export import ExportError, export_target
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.hint_stack_widget import HintStack


HINT = "Click a thumbnail in the attention grid to look at it here."


def causal_keep(size: int) -> np.ndarray:
    """Bool (T, T), True where decoder query i may see key j (j <= i)."""
    return np.tril(np.ones((size, size), dtype=bool))


class AttentionDetail(QWidget):
    """One attention map, large: click a thumbnail of the grid to choose it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind, self.layer, self.head = "cross", 0, 0
        self.title = QLabel(HINT, self)
        self.title.setWordWrap(True)
        self.average_box = QCheckBox("average over heads", self)
        self.heatmap = HeatmapWidget()
        self.heatmap.set_axis_labels("queries", "keys")
        self.stack = HintStack(self.heatmap, "No attention map yet.", self)
        self.readout = QLabel("", self)
        self.export_buttons = {fmt: QPushButton(f"Export {fmt.upper()}…", self) for fmt in ("png", "svg", "csv")}
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
        self.average_box.toggled.connect(self._on_average_box_toggled)
        self.heatmap.cell_hovered.connect(self._on_heatmap_cell_hovered)
        self.export_buttons["png"].clicked.connect(self._on_png_button_clicked)
        self.export_buttons["svg"].clicked.connect(self._on_svg_button_clicked)
        self.export_buttons["csv"].clicked.connect(self._on_csv_button_clicked)

    @property
    def has_map(self) -> bool:
        return self._snapshot is not None and self._selected

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
        maps = snap.maps[self.kind]  # (L, h, Tq, Tk)
        self.layer = min(self.layer, maps.shape[0] - 1)
        self.head = min(self.head, maps.shape[1] - 1)
        average = self.average_box.isChecked()
        matrix = maps[self.layer].mean(axis=0) if average else maps[self.layer, self.head]  # (Tq, Tk)
        rows, cols = axis_labels(self.kind, snap)
        mask = causal_keep(matrix.shape[0]) if self.kind == "decoder_self" else None
        self.heatmap.set_matrix(matrix, rows, cols, mask=mask)
        self.stack.show_content()
        who = "all heads (mean)" if average else f"head {self.head + 1}"
        where = f"layer {self.layer + 1} · {who} · step {snap.step}, epoch {snap.epoch}"
        self.title.setText(f"<b>{KIND_TITLES[self.kind]}</b> · {where}")
        self.heatmap.set_title(f"{KIND_TITLES[self.kind]} · {where}")  # exported pictures carry it too
        for button in self.export_buttons.values():
            button.setEnabled(True)

    def export_target(self) -> ExportTarget:
        """The large view for File → Export (PNG/SVG of the heatmap, CSV of its numbers)."""
        return self.heatmap.token_export_target("attention detail")

    def export_to(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the view to ``path`` (format from ``fmt`` or the suffix); raises ``ExportError``."""
        if self.heatmap.matrix is None:
            raise ExportError("There is no attention map to export yet.")
        return export_target(self.export_target(), path, fmt)

    # ---- slots -------------------------------------------------------------------------------
    @Slot(bool)
    def _on_average_box_toggled(self, _on: bool) -> None:
        self._draw()

    @Slot(int, int, float)
    def _on_heatmap_cell_hovered(self, row: int, col: int, value: float) -> None:
        rows, cols = self.heatmap.row_labels, self.heatmap.col_labels
        self.readout.setText(f"query <b>{rows[row]}</b> → key <b>{cols[col]}</b>: weight {value:.4f}")

    def _export_with_dialog(self, fmt: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, f"Export attention as {fmt.upper()}",
                                              f"attention_{self.kind}_L{self.layer + 1}.{fmt}",
                                              f"{fmt.upper()} (*.{fmt})")
        if not path:
            return
        try:
            self.export_to(path, fmt)
        except ExportError as exc:
            self.readout.setText(f"<span style='color:#c0392b'>{exc}</span>")
        else:
            self.readout.setText(f"Saved {Path(path).name}")

    @Slot()
    def _on_png_button_clicked(self) -> None:
        self._export_with_dialog("png")

    @Slot()
    def _on_svg_button_clicked(self) -> None:
        self._export_with_dialog("svg")

    @Slot()
    def _on_csv_button_clicked(self) -> None:
        self._export_with_dialog("csv")
