"""The grid of attention thumbnails of the studio and the inspector (book §11.7): a block of layers × heads for each
kind a model has (an inspected BERT: encoder only), one colour scale, alignment scores for synthetic tasks, and last
the rollout and flow block (followed_block.py); built in stages, so that no event-loop turn holds the GUI thread long."""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QWidget
from shiboken6 import isValid

from explorer.core.choices import ATTENTION_KINDS
from explorer.core.inspect.interface import masked_bins
from explorer.core.debug.rollout_settings import SELF_KINDS
from explorer.render.colormaps import lookup_table, resolve
from explorer.ui.widgets.followed_block import FollowedBlock
from explorer.ui.widgets.followed_maps import FollowedMapsRunner
from explorer.ui.widgets.heatmap_plot_item import DEFAULT_COLORMAP
from explorer.ui.widgets.map_kinds import (KIND_TITLES, GridLayout, axis_labels, grid_layout, grid_maps, kind_title,
                                           uniform_layout)
from explorer.ui.widgets.thumbnail_item import MASKED_RGBA, Thumbnail
from explorer.ui.pyqtgraph_compat import view_closed
from explorer.ui.worker import PACING_TIMER

# What callers import from here: the grid, and the words about the maps it shows (map_kinds, thumbnail_item).
__all__ = ["ALIGNMENT_TIP", "KIND_TITLES", "MASKED_RGBA", "MIN_THUMBNAIL_PX", "AttentionGrid", "GridLayout",
           "Thumbnail", "axis_labels", "grid_layout", "grid_maps", "kind_title", "uniform_layout"]

ALIGNMENT_TIP = QT_TRANSLATE_NOOP("AttentionGrid",
                                  "Alignment score of this cross-attention head: the mean weight it puts on the source "
                                  "position the task says each output should look at (1 = the ideal pattern, 0 = none "
                                  "of it)")
#: Below this many pixels a thumbnail is unreadable: the grid scrolls instead of shrinking further.
MIN_THUMBNAIL_PX = 44
HEADS_PER_STAGE = 6  # thumbnails built per event-loop turn (a staged build)
#: A build ahead of need (``ahead=True``) starts this long after it is asked for: the view the user opened is drawn
#: first, and the panel walker does not wait for it (its timer paces; it is not a pending change).
AHEAD_START_MS = 300


class AttentionGrid(pg.GraphicsLayoutWidget):
    """One block of ``layers × heads`` thumbnails per kind of attention, sharing one colour bar.

    Signals
    -------
    thumbnail_clicked(str, int, int): kind, layer, head of the thumbnail clicked.
    """

    thumbnail_clicked = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = False
        self._palette = "default"
        self._lut = pg.colormap.get(DEFAULT_COLORMAP).getLookupTable(0.0, 1.0, 256, alpha=True)  # (256, 4)
        self._last: tuple[Any, np.ndarray | None] | None = None
        self._stage_timer = QTimer(self)  # a child: it dies with the grid, so no stage runs after that
        self._stage_timer.setSingleShot(True)
        self._stage_timer.timeout.connect(self._on_stage_timer)
        self.kv_heads: dict[str, int] = {}  # key/value heads per kind where query heads share them
        self.windows: dict[str, tuple[int, ...]] | None = None  # masks drawn: per kind, each layer's window
        self.followed = FollowedMapsRunner(self)  # rollout and flow, the extra maps, computed on a worker
        self.followed.computed.connect(self._on_followed_computed)
        self.clear_grid()
        self.setBackground("w")
        self.setMinimumHeight(180)
        # one rectangle around what changed, not the region of every thumbnail: clipped to a region of a hundred
        # rectangles, each thumbnail's drawImage took ~50 µs instead of ~4 (bench/grid_redraw.py)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)

    @property
    def shape(self) -> tuple[int, int] | None:
        """``(layers, heads)`` of the thumbnails on display (the most of any kind), or None before the first."""
        if self._layout is None:
            return None
        return max(layers for _, layers, _ in self._layout), max(heads for _, _, heads in self._layout)

    @property
    def extra_plots(self) -> dict[str, Thumbnail]:
        """The thumbnails of rollout and flow, by name (``rollout:encoder``)."""
        return self._extra.plots

    @property
    def layout(self) -> GridLayout | None:
        """The kinds on display with their layers and heads, or None before the first snapshot."""
        return self._layout

    def clear_grid(self, hint: bool = True) -> None:
        """Remove every thumbnail (``hint``: say where they will come from)."""
        self.ci.clear()
        self._worded: list[tuple[Callable[[str], Any], Callable[[], str]]] = []  # (setter, words) of every text
        if hint:
            label = self.ci.addLabel("", color="#dddddd" if self._dark else "#555555", size="10pt")
            self._word(label.setText, lambda: self.tr(
                "Start training (or open a model) to see every head's attention here."))
            self._last = None
        self.plots: dict[str, list[list[Thumbnail]]] = {k: [] for k in ATTENTION_KINDS}
        self._extra = FollowedBlock()  # rollout and flow of each self-attention kind
        self.score_labels: list[list[pg.LabelItem]] = []
        self.scores: dict[str, np.ndarray] = {}
        self._layout: GridLayout | None = None
        self._staged_layout: GridLayout | None = None
        self._stages: list[Callable[[], None]] = []  # the rest of a staged build
        self.color_bar: pg.ColorBarItem | None = None

    def set_head_info(self, kv_heads: dict[str, int], windows: dict[str, tuple[int, ...]] | None) -> None:
        """Label heads with the key/value head they share (``kv_heads`` per kind) and draw masked cells of the causal
        decoder self-attention in grey (``windows``: per kind, each layer's sliding window, 0 for none; None: no
        masks drawn). The grid is built again when the labels change."""
        if dict(kv_heads) != self.kv_heads:
            self._layout = self._staged_layout = None
        self.kv_heads = dict(kv_heads)
        self.windows = None if windows is None else dict(windows)

    def _masked(self, snapshot: Any, kind: str, layer: int, shape: tuple[int, ...]) -> np.ndarray | None:
        """Where a decoder thumbnail's bins are wholly masked (core computes it), or None."""
        size = getattr(snapshot, "map_size", None)
        if self.windows is None or kind != "decoder" or size is None:
            return None
        windows = self.windows.get(kind, ())
        window = windows[layer] if layer < len(windows) else 0
        return masked_bins(window, *size(kind), *shape[-2:])

    def prepare_layout(self, layout: GridLayout, staged: bool = False, ahead: bool = False) -> None:
        """Build the thumbnails for ``layout`` unless they exist: now, or (``staged``) one layer of one kind
        per event-loop turn, so that no single turn holds the GUI thread for the whole build (~100 ms for the
        book's model in pyqtgraph, ~180 ms for 6 × 8 × 3). A snapshot drawn meanwhile finishes the build first.
        ``ahead``: staged, for thumbnails not needed yet (hidden until a run starts), beginning after
        :data:`AHEAD_START_MS`; a later call for the same layout without ``ahead`` makes it a build for now."""
        layout = tuple(layout)
        staged = staged or ahead
        if self._staged_layout == layout and staged and not ahead and self._stage_timer.objectName() == PACING_TIMER:
            self._stage_timer.setObjectName("")  # needed now: go on with the stages at once
            self._stage_timer.start(0)
            return
        if self._layout == layout or self._staged_layout == layout and staged:
            return
        self.clear_grid(hint=False)
        self._staged_layout = layout
        self._stages = [partial(self._build_block, col, kind, layers, heads)
                        for col, (kind, layers, heads) in enumerate(layout)]
        extra_kinds = [kind for kind, _, _ in layout if kind in SELF_KINDS]
        if extra_kinds:
            self._stages.append(partial(self._build_extra, len(layout), extra_kinds))
        self._stages.append(partial(self._finish_build, layout))
        if staged:
            self._stage_timer.setObjectName(PACING_TIMER if ahead else "")
            self._stage_timer.start(AHEAD_START_MS if ahead else 0)
        else:
            self._run_stages()

    def _run_stages(self) -> None:
        while self._stages:
            self._stages.pop(0)()

    @Slot()
    def _on_stage_timer(self) -> None:
        if not isValid(self.ci):  # closed (pyqtgraph's close() deletes the scene's items): the build goes with it
            self._stages.clear()
            self._staged_layout = None
            return
        if self._stages:
            self._stages.pop(0)()
            if self._stages:
                self._stage_timer.start(0)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        self._stage_timer.stop()  # a staged build must not outlive the grid's items
        self._stages.clear()
        self._staged_layout = None
        self._last = None  # nor a rollout still on its way: it finds no snapshot to fill
        super().closeEvent(event)

    def _build_block(self, col: int, kind: str, layers: int, heads: int) -> None:
        """One kind's block: its title and head labels now, then one stage per layer (≈10 ms each for 8 heads)."""
        fg = "#dddddd" if self._dark else "#222222"
        block = self.ci.addLayout(row=0, col=col)
        block.setSpacing(2)
        self._word(block.addLabel("", colspan=heads + 1, color=fg, size="9pt").setText, partial(kind_title, kind))
        block.nextRow()
        block.addLabel("", color=fg)
        kv = self.kv_heads.get(kind, 0)
        for h in range(heads):
            if 0 < kv < heads:  # grouped-query attention: the key/value head each query head shares
                self._word(block.addLabel("", color=fg, size="8pt").setText,
                           lambda h=h: self.tr("head {number} · KV {kv}").format(
                               number=h + 1, kv=h // (heads // kv) + 1))
            else:
                self._word(block.addLabel("", color=fg, size="8pt").setText,
                           lambda h=h: self.tr("head {number}").format(number=h + 1))
        layer_stages = [partial(self._build_layer, block, kind, layer, heads) for layer in range(layers)]
        self._stages[:0] = layer_stages  # next, before the other blocks

    def _build_layer(self, block: Any, kind: str, layer: int, heads: int) -> None:
        fg = "#dddddd" if self._dark else "#222222"
        if kind == "cross":  # a row for the alignment scores of synthetic tasks
            block.nextRow()
            align = block.addLabel("", color=fg, size="7pt")
            self._word(align.setText, lambda: self.tr("align."))
            labels = [block.addLabel("", color=fg, size="8pt") for _ in range(heads)]
            for label in [align, *labels]:
                self._word(label.setToolTip, lambda: self.tr(ALIGNMENT_TIP))
            self.score_labels.append(labels)
        block.nextRow()
        self._word(block.addLabel("", angle=-90, color=fg, size="8pt").setText,
                   lambda: self.tr("layer {number}").format(number=layer + 1))
        self.plots[kind].append([])
        # pyqtgraph lays the whole block out again after each item it adds (~2 ms each with 150 items): a wide
        # layer goes in a few stages of at most HEADS_PER_STAGE heads, so no turn holds the GUI thread long
        chunks = [partial(self._build_heads, block, kind, layer, h, min(heads, h + HEADS_PER_STAGE))
                  for h in range(0, heads, HEADS_PER_STAGE)]
        chunks[0]()
        self._stages[:0] = chunks[1:]

    def _build_heads(self, block: Any, kind: str, layer: int, start: int, stop: int) -> None:
        for h in range(start, stop):
            thumb = Thumbnail(self._lut)
            thumb.image_item.clicked.connect(partial(self._on_thumbnail_clicked, kind, layer, h))
            self._word(thumb.image_item.setToolTip,
                       lambda h=h: self.tr("{map}, layer {layer}, head {head}: click for a large view").format(
                           map=kind_title(kind), layer=layer + 1, head=h + 1))
            block.addItem(thumb)
            self.plots[kind][layer].append(thumb)

    def _build_extra(self, col: int, kinds: list[str]) -> None:
        """The block of the extra maps: rollout and flow of each self-attention kind, filled when core has computed
        them."""
        block = self.ci.addLayout(row=0, col=col)
        block.setSpacing(2)
        self._extra.build(block, kinds, self._lut, "#dddddd" if self._dark else "#222222", self._word,
                          self._on_extra_clicked)

    def _finish_build(self, layout: GridLayout) -> None:
        colormap = pg.colormap.get(resolve(DEFAULT_COLORMAP, self._palette))
        self.color_bar = pg.ColorBarItem(values=(0, 1), colorMap=colormap, interactive=False, width=12)
        self.ci.addItem(self.color_bar, row=0, col=len(layout) + (1 if self.extra_plots else 0))
        # titles, head/layer labels and the colour-bar axis never change during a run: draw them from a cache
        for item in self.scene().items():
            if isinstance(item, (pg.LabelItem, pg.AxisItem)):
                item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._layout = layout
        self._staged_layout = None
        self.setMinimumSize(self.minimumSize().expandedTo(self.content_minimum()))

    def fit_minimum(self, layout: GridLayout) -> None:
        """Thumbnails shrink with the window down to :data:`MIN_THUMBNAIL_PX`; below that the grid (in a scroll
        area) scrolls. Once ``layout`` is built, its titles and labels may ask for more (a long block title)."""
        width = sum(heads * (MIN_THUMBNAIL_PX + 4) + 24 for _, _, heads in layout) + 70
        extra = sum(kind in SELF_KINDS for kind, _, _ in layout)
        width += extra * (MIN_THUMBNAIL_PX + 4) + 24 if extra else 0
        height = max(layers for _, layers, _ in layout) * (MIN_THUMBNAIL_PX + 22) + 40
        if self.layout == tuple(layout):
            self.setMinimumSize(self.content_minimum().expandedTo(QSize(width, height)))
        else:
            self.setMinimumSize(width, height)

    def content_minimum(self) -> QSize:
        """The least size that shows every block and the colour bar (titles and labels included)."""
        hint = self.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        return QSize(math.ceil(hint.width()) + 2, math.ceil(hint.height()) + 2)

    def set_snapshot(self, snapshot: Any, scores: np.ndarray | None = None) -> None:
        """Draw a ``SnapshotEvent``-like object (``maps`` of ``(L, h, Tq, Tk)``, token lists) or an inspection
        (its pooled ``thumbnails``): the kinds it has, each with its own layers and heads.

        ``scores`` ``(L, h)``: alignment score of each cross-attention head, or None.
        """
        layout = grid_layout(snapshot)
        if self._staged_layout == layout:
            self._run_stages()  # a build in progress: finish it now
        self.prepare_layout(layout)
        self._last = (snapshot, scores)
        maps = grid_maps(snapshot)
        for kind, layers, heads in layout:
            stacked = maps[kind]  # (L, h, Tq, Tk)
            for layer in range(layers):
                masked = self._masked(snapshot, kind, layer, stacked.shape)
                for h in range(heads):
                    self.plots[kind][layer][h].set_matrix(stacked[layer, h], masked)
        had_scores = bool(self.scores)
        self.scores = {} if scores is None or not self.score_labels else {"cross": np.asarray(scores)}
        if self.scores or had_scores:
            color = "#dddddd" if self._dark else "#222222"
            for layer, labels in enumerate(self.score_labels):
                for h in range(len(labels)):
                    text = f"{float(scores[layer, h]):.2f}" if self.scores else ""
                    labels[h].setText(text, color=color, size="8pt")
        self._show_followed(snapshot)
        self.followed.request(snapshot)

    def _show_followed(self, snapshot: Any) -> None:
        self._extra.show(snapshot, self.followed.result_for(snapshot))

    @Slot(object, object)
    def _on_followed_computed(self, snapshot: Any, _maps: Any) -> None:
        if self._last is not None and self._last[0] is snapshot:
            self._show_followed(snapshot)

    def matrix(self, kind: str, layer: int, head: int) -> np.ndarray | None:
        """The matrix a thumbnail shows (an extra map by its name, ``rollout:encoder``), or None."""
        if kind in self.extra_plots:
            return self.extra_plots[kind].matrix
        if not self.plots.get(kind):
            return None
        return self.plots[kind][layer][head].matrix

    def apply_palette(self, palette: str) -> None:
        """Colour the thumbnails and the colour bar with the app's palette (e.g. colour-blind safe); redrawn."""
        self._palette = palette
        self._lut = lookup_table(DEFAULT_COLORMAP, palette)
        self.apply_theme(self._dark)

    @Slot(float)
    def set_residual(self, residual: float) -> None:
        """Compute rollout and flow with residual weight ``residual`` (the large view's control), again now."""
        if self.followed.set_residual(residual) and self._last is not None:
            self._show_followed(self._last[0])
            self.followed.request(self._last[0])

    def shutdown(self, timeout_ms: int = 1000) -> bool:
        """Stop the rollout and flow worker (called when the panel closes); a result still on its way is dropped."""
        self._stage_timer.stop()
        return self.followed.shutdown(timeout_ms)

    def apply_theme(self, dark: bool) -> None:
        """Background and label colours (the grid is rebuilt and redrawn)."""
        self._dark = dark
        self.setBackground("k" if dark else "w")
        last, layout = self._last, self._layout
        if layout is not None:
            self._layout = None
            self.prepare_layout(layout)
            if last is not None:
                self.set_snapshot(*last)

    def _word(self, setter: Callable[[str], Any], words: Callable[[], str]) -> None:
        """Set a text (a label's, a tool tip) to ``words()`` now and again in :meth:`retranslate`."""
        self._worded.append((setter, words))
        setter(words())

    def retranslate(self) -> None:
        """Word the titles, labels and tool tips in the language in force (called on ``LanguageChange``); the
        thumbnails stay as they are."""
        for setter, words in self._worded:
            setter(words())

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange and not view_closed(self):
            self.retranslate()
        super().changeEvent(event)

    def _on_thumbnail_clicked(self, kind: str, layer: int, head: int) -> None:
        self.thumbnail_clicked.emit(kind, layer, head)

    def _on_extra_clicked(self, name: str) -> None:
        self.thumbnail_clicked.emit(name, 0, 0)
