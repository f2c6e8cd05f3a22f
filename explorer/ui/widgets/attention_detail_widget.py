"""The large attention view (book §11.7) of the studio and the inspector: one head (or the head average), or the
rollout or flow of all layers, as a heatmap with token axes or as lines between tokens (one token selection for
both), a hover readout and PNG/SVG/CSV export; rollout and flow add a bar chart of one output token's inputs. For an
inspected model whose maps were only pooled (long texts), the head is computed at full resolution on demand, off the
GUI thread, while the view says so."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Signal, Slot
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.core.inspect.interface import masked_bins
from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.widgets.export import ExportError
from explorer.ui.widgets.file_dialogs import save_file_name
from explorer.ui.widgets.followed_maps import FollowedMapsRunner, self_kinds, split_extra
from explorer.ui.widgets.head_requests import HeadRequests, HeadSource
from explorer.ui.widgets.heatmap_widget import HeatmapWidget
from explorer.ui.widgets.map_kinds import axis_labels, grid_layout, kind_title
from explorer.ui.widgets.map_views_widget import LinesData, MapViews
from explorer.ui.widgets.token_bars_widget import TokenBars

HINT = QT_TRANSLATE_NOOP("AttentionDetail", "Click a thumbnail in the attention grid to look at it here.")
#: Above this many queries the causal mask is not hatched (its cells are 0 anyway; the hatch would take ~64 MB).
MASK_LIMIT = 1024


def causal_keep(size: int, window: int = 0) -> np.ndarray:
    """Bool (T, T), True where decoder query i may see key j (j <= i, and i - j < ``window`` where one is set)."""
    if window:
        return ~masked_bins(window, size, size)  # core's band, as the grid greys it
    return np.tril(np.ones((size, size), dtype=bool))


class AttentionDetail(QWidget):
    """One attention map, large: click a thumbnail of the grid to choose it. ``inspect``: the state that computes
    an inspected model's heads on demand (its results are drawn when they arrive).

    Signals: ``residual_changed(float)`` when the user sets rollout's residual weight r (the grid follows it)."""

    residual_changed = Signal(float)

    def __init__(self, inspect: HeadSource | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind, self.layer, self.head = "cross", 0, 0
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.average_box = QCheckBox(self)
        self.heatmap = HeatmapWidget()
        # the title, then Heatmap | Token lines over the hint or the map
        self.map_views = MapViews(self.heatmap, self._lines_data, parent=self, hint="", lead=self.title)
        self.selection = self.map_views.selection  # the token chosen: one for the heatmap, the lines and the bars
        self.token_lines = self.map_views.token_lines
        assert self.map_views.stack is not None
        self.stack = self.map_views.stack
        self.bars = TokenBars(self)  # rollout and flow: what one output token draws on
        self.bars.hide()
        self._followed = FollowedMapsRunner(self)
        self.residual_label = QLabel(self)  # rollout's r, shown with rollout and flow only
        self.residual_spin = QDoubleSpinBox(self)
        self.residual_spin.setRange(0.0, 1.0)
        self.residual_spin.setDecimals(2)
        self.residual_spin.setSingleStep(0.05)
        self.residual_spin.setValue(self._followed.residual)
        self._show_residual(False)
        self._hint: str = Words(lambda: self.tr("No attention map yet."))
        self.readout = QLabel("", self)
        self._readout = ""  # what the line under the map says (hover, export)
        self.export_buttons = {fmt: QPushButton(self) for fmt in ("png", "svg", "csv")}
        for widget in (self.residual_label, self.residual_spin, self.average_box):
            self.map_views.bar.addWidget(widget)
        bottom = QHBoxLayout()
        bottom.addWidget(self.readout, 1)
        for button in self.export_buttons.values():
            button.setEnabled(False)
            bottom.addWidget(button)
        self.map_views.add_below(self.bars, 1, views_stretch=3)  # the bar chart: a quarter of the map's height
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.map_views, 1)
        layout.addLayout(bottom)
        self._snapshot: Any = None
        self._selected = False
        self.windows: dict[str, tuple[int, ...]] = {}  # an inspected model's sliding window per kind and layer
        self.model_info: Any = None  # an inspected model's ModelInfo: which key/value head each query head shares
        self._heads = HeadRequests(inspect, self)  # an inspection's heads held only pooled, computed on demand
        self._heads.arrived.connect(self._on_heads_arrived)
        self._heads.failed.connect(self._on_heads_failed)
        self.average_box.toggled.connect(self._on_average_box_toggled)
        self.residual_spin.valueChanged.connect(self._on_residual_spin_value_changed)
        self.heatmap.cell_hovered.connect(self._on_heatmap_cell_hovered)
        self.selection.changed.connect(self._on_selection_changed)
        self.map_views.lines_refused.connect(self._on_map_views_lines_refused)
        self._followed.computed.connect(self._on_followed_computed)
        self._followed.failed.connect(self._on_followed_failed)
        for fmt, button in self.export_buttons.items():
            button.clicked.connect(partial(self._export_with_dialog, fmt))
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force, those about the map shown worded again (at build and on
        ``LanguageChange``)."""
        self.average_box.setText(self.tr("average over heads"))
        self.residual_label.setText(self.tr("residual r"))
        tip = self.tr("Rollout and flow weigh each layer's attention A against the residual connection I: "
                      "r·A + (1 − r)·I (0.5 in the paper)")
        self.residual_label.setToolTip(tip)
        self.residual_spin.setToolTip(tip)
        self.heatmap.set_axis_labels(self.tr("queries"), self.tr("keys"))
        for fmt, button in self.export_buttons.items():
            button.setText(self.tr("Export {format}…").format(format=fmt.upper()))
        self.stack.hint_label.setText(again(self._hint))
        self.bars.retranslate()
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
        return self._heads.waiting is not None

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
        self._heads.waiting = None
        if snapshot is None:
            self._selected = False
            self._show_hint(Words(lambda: self.tr("No attention map yet.")))
            self.title.setText(self.tr(HINT))
            self._say("")
            self.bars.hide()
            self._show_residual(False)
            self.token_lines.clear()
            self._enable_export(False)
            return
        self._draw()

    def _keep(self, shape: tuple[int, ...]) -> np.ndarray:
        """The cells the selected decoder layer may see: causal, within its sliding window where it has one."""
        windows = self.windows.get(self.kind, ())
        return causal_keep(shape[0], windows[self.layer] if self.layer < len(windows) else 0)

    def current_matrix(self) -> np.ndarray | None:
        """The (Q, K) matrix on display."""
        return self.heatmap.matrix

    def _draw(self) -> None:
        snap = self._snapshot
        if snap is None or not self._selected:
            self._show_residual(False)
            return
        extra = split_extra(self.kind)
        self._show_residual(extra is not None)
        if extra is not None and extra[1] in self_kinds(snap):
            self._draw_followed(snap, *extra)
            return
        self.bars.hide()
        self.average_box.setEnabled(True)
        shapes = {kind: (layers, heads) for kind, layers, heads in grid_layout(snap)}
        if self.kind not in shapes:  # a model without this kind (BERT has no cross-attention), or without rollout
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
        self._show_matrix(matrix, rows, cols, self._keep(matrix.shape) if causal else None,
                          f"{kind_title(self.kind)} · {self._where()}", owned)

    def _show_matrix(self, matrix: np.ndarray, rows: list[str], cols: list[str], keep: np.ndarray | None, title: str,
                     owned: bool = False) -> None:
        """Show ``matrix`` (Tq, Tk) with its tokens, cells outside ``keep`` masked, under ``title`` (exported pictures
        carry it too), in the heatmap and, now or when their view is shown, as lines."""
        self.heatmap.plot.set_matrix(matrix, rows, cols, keep, owned=owned)
        self.stack.show_content()
        self.heatmap.set_title(title)
        self.heatmap.highlight_row(self.selection.query)
        self._enable_export(True)
        self.map_views.refresh()

    def _enable_export(self, enabled: bool) -> None:
        for button in self.export_buttons.values():
            button.setEnabled(enabled)

    def _lines_data(self) -> LinesData:
        """The token-line view's maps: every head of the layer shown ``(h, q, k)`` with their tokens, their names and
        the heads to overlay (the one chosen, or all for the mean); a pooled inspection's head computed alone."""
        matrix = self.heatmap.matrix
        if matrix is None:
            return None
        rows, cols = self.heatmap.row_labels, self.heatmap.col_labels
        if split_extra(self.kind) is not None:
            return matrix[None], rows, cols, [self._followed_label()], [0]
        snap = self._snapshot
        maps = snap.maps.get(self.kind) if getattr(snap, "maps", None) else None
        if maps is None or len(maps) <= self.layer:
            label = self.tr("all heads (mean)") if self.average_box.isChecked() else self._head_name(self.head)
            return matrix[None], rows, cols, [label], [0]
        heads = np.asarray(maps[self.layer])  # (h, q, k)
        labels = [self._head_name(h) for h in range(heads.shape[0])]
        shown = list(range(heads.shape[0])) if self.average_box.isChecked() else [self.head]
        return heads, rows, cols, labels, shown

    def _head_name(self, head: int) -> str:
        """"head 3", or "head 3 · KV 2" where the model's query heads share key/value heads (the grid's wording)."""
        kv = None if self.model_info is None else self.model_info.kv_head(self.kind, head)
        if kv is None:
            return self.tr("head {number}").format(number=head + 1)
        return self.tr("head {number} · KV {kv}").format(number=head + 1, kv=kv + 1)

    def _followed_label(self) -> str:
        method, _kind = split_extra(self.kind) or ("rollout", "")
        return self.tr("rollout") if method == "rollout" else self.tr("flow")

    def _draw_followed(self, snap: Any, method: str, kind: str) -> None:
        """Rollout or flow of ``kind``'s self-attention over all layers: asked of core on a worker, drawn when it
        arrives (with the bar chart of one output token)."""
        self.average_box.setEnabled(False)
        result = self._followed.result_for(snap)
        title = self._followed_title(method, kind)
        self.title.setText(f"<b>{title}</b> · {self._where()}")
        if result is None:
            self._followed.request(snap)
            self._show_hint(Words(lambda: self.tr("Computing {what}…").format(what=self._followed_title(method,
                                                                                                         kind))))
            self.bars.hide()
            return
        matrix = result.maps[method].get(kind)
        if matrix is None:  # flow of a long text: refused with its estimate
            reason = result.refused.get(kind, "")
            self._show_hint(Words(lambda: self.tr("Attention flow is not computed here: {reason}").format(
                reason=reason)))
            self.bars.hide()
            return
        rows, cols = axis_labels(kind, snap)
        causal = kind == "decoder" and matrix.shape[0] <= MASK_LIMIT
        self._show_matrix(matrix, rows, cols, causal_keep(matrix.shape[0]) if causal else None,
                          f"{title} · {self._where()}")
        self.bars.show()
        self._show_bars()

    def _show_residual(self, shown: bool) -> None:
        self.residual_label.setVisible(shown)
        self.residual_spin.setVisible(shown)

    def _followed_title(self, method: str, kind: str) -> str:
        name = kind_title(kind)
        if method == "rollout":
            return self.tr("Rollout · {kind}").format(kind=name)
        return self.tr("Flow · {kind}").format(kind=name)

    def _show_bars(self) -> None:
        """The bar chart: how much the chosen output token (or the last) draws on each input token."""
        matrix = self.heatmap.matrix
        if matrix is None or split_extra(self.kind) is None:
            return
        row = self.selection.query if self.selection.query is not None else matrix.shape[0] - 1
        row = min(row, matrix.shape[0] - 1)
        token = self.heatmap.row_labels[row] if row < len(self.heatmap.row_labels) else str(row)
        self.bars.show_row(matrix[row], self.heatmap.col_labels, Words(lambda: self.tr(
            "Output token {number} “{token}” draws on these input tokens (click a row or a token to choose another)"
        ).format(number=row + 1, token=token)))

    def _where(self) -> str:
        """Which map is shown: layer, head (or the mean), and the model or the training step."""
        snap = self._snapshot
        if split_extra(self.kind) is not None:  # rollout and flow: every layer, every head
            r = self._followed.residual
            if getattr(snap, "thumbnails", None) is not None:
                return self.tr("all layers · r = {r:g} · {model}").format(r=r, model=snap.model_name)
            return self.tr("all layers · r = {r:g} · step {step}, epoch {epoch}").format(r=r, step=snap.step,
                                                                                        epoch=snap.epoch)
        who = self.tr("all heads (mean)") if self.average_box.isChecked() else self._head_name(self.head)
        if getattr(snap, "thumbnails", None) is not None:
            return self.tr("layer {layer} · {heads} · {model}").format(layer=self.layer + 1, heads=who,
                                                                      model=snap.model_name)
        return self.tr("layer {layer} · {heads} · step {step}, epoch {epoch}").format(
            layer=self.layer + 1, heads=who, step=snap.step, epoch=snap.epoch)

    def _show_titles(self) -> None:
        """The line above the map and the map's own title (exported pictures carry it), worded anew."""
        extra = split_extra(self.kind)
        title = kind_title(self.kind) if extra is None else self._followed_title(*extra)
        self.title.setText(f"<b>{title}</b> · {self._where()}")
        if self.heatmap.matrix is not None and not self.computing:
            self.heatmap.set_title(f"{title} · {self._where()}")
        if extra is not None and self.bars.isVisible():
            self._show_bars()

    def _matrix(self, snap: Any, head: int | None) -> Any:
        """The map to draw: from a training snapshot, an inspection's held maps, or the head computed on demand
        (asked for here; None until it arrives)."""
        if getattr(snap, "thumbnails", None) is None:
            maps = snap.maps[self.kind]  # (L, h, Tq, Tk)
            return maps[self.layer].mean(axis=0) if head is None else maps[self.layer][head]
        matrix = self._heads.matrix(snap, self.kind, self.layer, head)
        if matrix is not None or not self.computing:
            return matrix
        q, k = snap.map_size(self.kind)
        layer = self.layer
        self._show_hint(Words(lambda: (
            self.tr("Computing the mean of all heads of layer {layer} at full resolution ({q:,} × {k:,})…")
            if head is None else
            self.tr("Computing head {head} of layer {layer} at full resolution ({q:,} × {k:,})…")
        ).format(head=(head or 0) + 1, layer=layer + 1, q=q, k=k)))
        self._enable_export(False)
        return None

    def export_target(self) -> ExportTarget:
        """The large view for File → Export (PNG/SVG of the heatmap, CSV of its numbers)."""
        target = self.heatmap.token_export_target("attention detail")
        target.label = self.tr("Attention detail")
        return target

    def export_to(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the view shown to ``path`` (format from ``fmt`` or the suffix): the heatmap, or the token lines as
        SVG or PNG; raises ``ExportError``."""
        if self.heatmap.matrix is None:
            raise ExportError(self.tr("There is no attention map to export yet."))
        fmt = (fmt or Path(path).suffix.lstrip(".")).lower()
        return self.map_views.export_to(path, fmt, self.export_target())

    def show_view(self, which: str) -> None:
        """Show the ``"heatmap"`` or the ``"lines"``."""
        self.map_views.show_view(which)

    def apply_theme(self, dark: bool) -> None:
        """Colours of the heatmap, the token lines and the bars."""
        self.map_views.apply_theme(dark)
        self.bars.apply_theme(dark)

    def shutdown(self, timeout_ms: int = 1000) -> bool:
        """Stop the rollout worker (called when the panel closes)."""
        return self._followed.shutdown(timeout_ms)

    # ---- slots -------------------------------------------------------------------------------
    @Slot()
    def _on_heads_arrived(self) -> None:
        self._draw()

    @Slot(object)
    def _on_heads_failed(self, message: Any) -> None:
        self._show_hint(Words(lambda: self.tr("Could not compute this head: {error}").format(error=again(message))))

    @Slot(bool)
    def _on_average_box_toggled(self, _on: bool) -> None:
        self._draw()

    @Slot(float)
    def _on_residual_spin_value_changed(self, value: float) -> None:
        if self._followed.set_residual(value):
            self._draw()  # asks the worker again (the newest r only) and says so meanwhile
            self.residual_changed.emit(value)

    @Slot()
    def _on_selection_changed(self) -> None:
        self._show_bars()  # the heatmap's row is highlighted by the views

    @Slot(int)
    def _on_map_views_lines_refused(self, count: int) -> None:
        self._say(Words(lambda: self.tr("{count:,} tokens are too many for lines; the heatmap shows them.").format(
            count=count)))

    @Slot(object, object)
    def _on_followed_computed(self, snapshot: Any, _maps: Any) -> None:
        if snapshot is self._snapshot and split_extra(self.kind) is not None:
            self._draw()

    @Slot(str)
    def _on_followed_failed(self, message: str) -> None:
        if split_extra(self.kind) is not None:
            self._show_hint(Words(lambda: self.tr("Could not compute this map: {error}").format(error=message)))

    @Slot(int, int, float)
    def _on_heatmap_cell_hovered(self, row: int, col: int, value: float) -> None:
        rows, cols = self.heatmap.row_labels, self.heatmap.col_labels
        query, key = rows[row], cols[col]
        self._say(Words(lambda: self.tr("query <b>{query}</b> → key <b>{key}</b>: weight {weight:.4f}").format(
            query=query, key=key, weight=value)))

    def _export_with_dialog(self, fmt: str, _checked: bool = False) -> None:
        """An export button clicked: ask where, write the view shown there, and say how it went."""
        path, _ = save_file_name(self, self.tr("Export attention as {format}").format(format=fmt.upper()),
                                 f"attention_{self.kind}_L{self.layer + 1}.{fmt}", f"{fmt.upper()} (*.{fmt})")
        if not path:
            return
        try:
            self.export_to(path, fmt)
        except ExportError as exc:
            self._say(f"<span style='color:#c0392b'>{exc}</span>")
        else:
            name = Path(path).name
            self._say(Words(lambda: self.tr("Saved {name}").format(name=name)))
