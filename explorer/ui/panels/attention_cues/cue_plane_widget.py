"""The plane of the attention-cues panel (book §11.1): keys with their values, a query to drag, a line from the
query to every key as thick as its weight, and the attention pooling output over the plane behind them."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal

from explorer.core.chapter.attention_cues import PLANE, CueSet, clamp_to_plane
from explorer.render.colormaps import resolve

FIELD_COLORMAP = "CET-L17"
KEY_COLOUR, QUERY_COLOUR, DARK_QUERY_COLOUR = "#e67e22", "#1f5f99", "#7fc8ff"


def label_sides(keys: np.ndarray) -> list[bool]:
    """For each key ``(K, 2)``: label above it (True) or below, so that labels of neighbours at about the same
    height (and keys near the top edge) do not collide."""
    above: list[bool] = []
    for i, (x, y) in enumerate(keys):
        side = y < PLANE[1] - 0.7
        for j in range(i):
            if abs(keys[j, 0] - x) < 1.4 and abs(keys[j, 1] - y) < 0.45 and above[j] == side:
                side = not side
        above.append(side)
    return above


class QueryTarget(pg.TargetItem):
    """The query: a target the user drags, kept inside the plane.

    Signals: ``query_moved(x, y)`` on every change of position (drag, click or code).
    """

    query_moved = Signal(float, float)

    def __init__(self, pos: tuple[float, float]) -> None:
        super().__init__(pos=pos, size=16, symbol="crosshair", movable=True, label="q",
                         pen=pg.mkPen(QUERY_COLOUR, width=3), hoverPen=pg.mkPen("#5dade2", width=3),
                         labelOpts={"color": QUERY_COLOUR, "offset": (12, -14)})
        self.setZValue(20)
        self.sigPositionChanged.connect(self._on_self_position_changed)

    def setPos(self, *args) -> None:  # noqa: N802 (pyqtgraph override): the query never leaves the plane
        point = pg.Point(*args)
        super().setPos(pg.Point(*clamp_to_plane(point.x(), point.y())))

    def set_colour(self, colour: str) -> None:
        """Pen and label colour (lighter on a dark background)."""
        self.setPen(pg.mkPen(colour, width=3))
        self.setLabel("q", {"color": colour, "offset": (12, -14)})

    def _on_self_position_changed(self, _item: object) -> None:
        self.query_moved.emit(float(self.pos().x()), float(self.pos().y()))


class CuePlane(pg.PlotWidget):
    """Keys (size ∝ weight), their values, edges query → key (width ∝ weight) and the pooling field.

    Signal ``query_moved(x, y)`` when the query is dragged or the plane clicked.
    """

    query_moved = Signal(float, float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot_item = self.getPlotItem()
        lo, hi = PLANE
        self.plot_item.setRange(xRange=PLANE, yRange=PLANE, padding=0.02)
        self.plot_item.setLimits(xMin=lo - 0.5, xMax=hi + 0.5, yMin=lo - 0.5, yMax=hi + 0.5)
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()
        self.plot_item.setMouseEnabled(x=False, y=False)
        self.setMinimumSize(220, 220)
        self.field = pg.ImageItem(axisOrder="row-major")
        self.field.setColorMap(pg.colormap.get(FIELD_COLORMAP))
        self.field.setOpacity(0.6)
        self.field.setZValue(-10)
        self._cues: CueSet | None = None
        self._key_brushes: list = []
        self._palette = "standard"
        self.edge_items: list[pg.PlotCurveItem] = []
        self.keys_item = pg.ScatterPlotItem(pen=pg.mkPen("#222222", width=1), brush=pg.mkBrush(KEY_COLOUR))
        self.keys_item.setZValue(10)
        self.labels: list[pg.TextItem] = []
        self.query = QueryTarget((0.0, 0.0))
        for item in (self.field, self.keys_item, self.query):
            self.plot_item.addItem(item)
        self.query.query_moved.connect(self.query_moved)
        self.plot_item.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        self._dark = False

    # --- data -------------------------------------------------------------------------------
    def set_keys(self, cues: CueSet) -> None:
        """Place the keys and their labels ``kᵢ: vᵢ`` (labels are created once per key count)."""
        self._cues = cues
        k = len(cues.keys)
        while len(self.labels) < k:
            label = pg.TextItem()
            label.setZValue(15)
            self.plot_item.addItem(label)
            self.labels.append(label)
        while len(self.edge_items) < k:
            edge = pg.PlotCurveItem()
            edge.setZValue(5)
            self.plot_item.addItem(edge)
            self.edge_items.append(edge)
        above = label_sides(cues.keys)
        for i, label in enumerate(self.labels):
            label.setVisible(i < k)
            if i < k:
                label.setText(f"k{i}: v={cues.values[i]:g}", color=self._fg())
                x, y = cues.keys[i]
                label.setAnchor((0.5, 1.0) if above[i] else (0.5, 0.0))
                label.setPos(QPointF(x, y + (0.18 if above[i] else -0.18)))
        for i, edge in enumerate(self.edge_items):
            edge.setVisible(i < k)
        self._colour_keys()

    def _colour_keys(self) -> None:
        """A key has the colour its value has in the field (in the palette in force)."""
        values = self._cues.values
        span = max(float(np.ptp(values)), 1e-6)
        colours = pg.colormap.get(resolve(FIELD_COLORMAP, self._palette)).map((values - values.min()) / span,
                                                                               mode="qcolor")
        self._key_brushes = [pg.mkBrush(c) for c in colours]

    def set_weights(self, query: tuple[float, float], weights: np.ndarray) -> None:
        """Key sizes and edge widths for the query's weights ``(K,)``."""
        keys = self._cues.keys
        self.keys_item.setData(pos=keys, size=8 + 30 * np.sqrt(weights), brush=self._key_brushes)
        for i, edge in enumerate(self.edge_items[:len(keys)]):
            w = float(weights[i])
            colour = pg.mkColor(DARK_QUERY_COLOUR if self._dark else QUERY_COLOUR)
            colour.setAlphaF(min(1.0, 0.15 + 0.85 * w))
            edge.setData([query[0], keys[i, 0]], [query[1], keys[i, 1]], pen=pg.mkPen(colour, width=0.5 + 7 * w))

    def set_field(self, field: np.ndarray | None, levels: tuple[float, float]) -> None:
        """The pooling output over the plane ``(R, R)`` (rows bottom to top), or None to hide it."""
        self.field.setVisible(field is not None)
        if field is not None:
            lo, hi = PLANE
            self.field.setImage(np.ascontiguousarray(field[::-1], dtype=np.float32), levels=levels)  # row 0 on top
            self.field.setRect(QRectF(lo, lo, hi - lo, hi - lo))  # after setImage: the rect scales the image

    def move_query(self, x: float, y: float) -> None:
        """Put the query at (x, y) (clamped), emitting ``query_moved`` if it moved."""
        self.query.setPos(x, y)

    def apply_theme(self, dark: bool) -> None:
        self._dark = dark
        self.setBackground("k" if dark else "w")
        fg = self._fg()
        for name in ("left", "bottom"):
            self.plot_item.getAxis(name).setPen(fg)
            self.plot_item.getAxis(name).setTextPen(fg)
        self.plot_item.titleLabel.setText(self.plot_item.titleLabel.text, color=fg)
        self.keys_item.setPen(pg.mkPen("#eeeeee" if dark else "#222222", width=1))
        for label in self.labels:
            label.setColor(fg)
        self.query.set_colour(DARK_QUERY_COLOUR if dark else QUERY_COLOUR)

    def apply_palette(self, palette: str) -> None:
        """Recolour the keys for ``palette`` (the shell's walk has switched the field's map already)."""
        self._palette = palette
        self.field.setColorMap(pg.colormap.get(resolve(FIELD_COLORMAP, palette)))
        if self._cues is not None:
            self._colour_keys()
            self.keys_item.setBrush(self._key_brushes)

    def _fg(self) -> str:
        return "#dddddd" if self._dark else "#222222"

    # --- slots ------------------------------------------------------------------------------
    def _on_scene_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.isAccepted():
            return
        vb = self.plot_item.vb
        if vb.sceneBoundingRect().contains(event.scenePos()):
            point = vb.mapSceneToView(event.scenePos())
            self.move_query(point.x(), point.y())
