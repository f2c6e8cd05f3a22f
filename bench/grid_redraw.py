#!/usr/bin/env python3
"""CPU of one live redraw of the attention grid: our thumbnails against the stock ``pyqtgraph.ImageItem`` ones.

A shown, offscreen ``AttentionGrid`` (6 layers x 8 heads x 3 kinds of 12 x 12 maps: the studio's large model) is
fed a new snapshot and painted, again and again; rollout and flow are off (their runner is closed), so only the
drawing counts. Two variants in the same process, in turns:

- ``ours``: the grid as the app has it (``ThumbnailImage``: a premultiplied ARGB32 image drawn without smoothing, and
  one bounding rectangle as the view's update region);
- ``stock``: each thumbnail's image a ``pg.ImageItem`` (RGBA8888) and the view's default minimal update region,
  as the grid was drawn before.

CPU time of the GUI thread (``time.thread_time``) per redraw: ``set_snapshot`` (colouring, in numpy) and the paint
(``processEvents``), median over --redraws. The last line is JSON.

Usage: python bench/grid_redraw.py [--redraws 60] [--rounds 3] [--size 1000x700]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


def snapshot(rng: np.random.Generator, layers: int = 6, heads: int = 8, tokens: int = 12):
    """A training snapshot with random row-stochastic maps of every kind."""
    from explorer.core.training.events import SnapshotEvent

    def maps() -> np.ndarray:
        m = rng.random((layers, heads, tokens, tokens)).astype(np.float32) ** 4
        return m / m.sum(-1, keepdims=True)

    words = [f"w{i}" for i in range(tokens)]
    return SnapshotEvent(step=1, epoch=1, maps={"encoder": maps(), "decoder": maps(), "cross": maps()},
                         src_tokens=words, tgt_tokens=words, tgt_input_tokens=words)


def stock_thumbnails(grid) -> None:
    """Give every thumbnail of ``grid`` a stock ``pg.ImageItem`` and the view pyqtgraph's default update mode."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QGraphicsView

    from explorer.ui.widgets.thumbnail_item import MASKED_RGBA

    class StockImage(pg.ImageItem):
        def __init__(self) -> None:
            super().__init__(axisOrder="row-major")

    def stock_set_matrix(thumb, m: np.ndarray, masked: np.ndarray | None = None) -> None:
        """The thumbnail's colouring before: RGBA through the LUT, handed to the ImageItem."""
        reshaped = thumb.matrix is None or thumb.matrix.shape != np.shape(m)
        thumb.matrix = np.array(m, dtype=np.float32, copy=True)
        index = np.clip(np.rint(thumb.matrix * 255.0), 0, 255).astype(np.uint8)
        colours = thumb.lut[index]
        if masked is not None and masked.shape == index.shape:
            colours[masked] = MASKED_RGBA
        thumb.image_item.setImage(colours, autoLevels=False)
        if reshaped:
            thumb._fit()

    for thumb in [t for kind in grid.plots.values() for layer in kind for t in layer]:
        old = thumb.image_item
        old.setParentItem(None)
        thumb.image_item = StockImage()
        thumb.image_item.setParentItem(thumb)
        thumb.set_matrix = partial(stock_set_matrix, thumb)
        if old.scene() is not None:
            old.scene().removeItem(old)
        thumb.matrix = None  # the next set_matrix fits the new image
    grid.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)


def measure(app, grid, snaps: list, redraws: int) -> tuple[float, float]:
    """Median CPU ms of set_snapshot and of the paint that follows."""
    sets, paints = [], []
    for i in range(redraws):
        t0 = time.thread_time()
        grid.set_snapshot(snaps[i % len(snaps)])
        t1 = time.thread_time()
        app.processEvents()
        t2 = time.thread_time()
        sets.append(t1 - t0)
        paints.append(t2 - t1)
    return statistics.median(sets) * 1e3, statistics.median(paints) * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--redraws", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", default="1000x700", help="the grid's size in pixels")
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from explorer.ui.pyqtgraph_compat import apply_work_arounds
    from explorer.ui.widgets.attention_grid_widget import AttentionGrid

    apply_work_arounds()
    rng = np.random.default_rng(0)
    snaps = [snapshot(rng) for _ in range(10)]
    grids = {}
    for name in ("ours", "stock"):
        grid = AttentionGrid()
        grid.followed.shutdown(0)  # rollout and flow off: the drawing alone
        grid.resize(width, height)
        grid.show()
        grid.set_snapshot(snaps[0])
        if name == "stock":
            stock_thumbnails(grid)
            grid.set_snapshot(snaps[1])
        for _ in range(5):
            app.processEvents()
        grids[name] = grid
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in grids}
    for _ in range(args.rounds):
        for name, grid in grids.items():
            for other in grids.values():
                other.setVisible(other is grid)  # one window on screen at a time
            for _ in range(5):
                app.processEvents()
            results[name].append(measure(app, grid, snaps, args.redraws))
    summary = {}
    for name, rows in results.items():
        set_ms = statistics.median(r[0] for r in rows)
        paint_ms = statistics.median(r[1] for r in rows)
        summary[name] = {"set_snapshot_ms": round(set_ms, 2), "paint_ms": round(paint_ms, 2),
                         "redraw_ms": round(set_ms + paint_ms, 2)}
        print(f"{name:6s} set_snapshot {set_ms:6.2f} ms CPU, paint {paint_ms:6.2f} ms CPU, "
              f"redraw {set_ms + paint_ms:6.2f} ms")
    ratio = summary["stock"]["redraw_ms"] / max(summary["ours"]["redraw_ms"], 1e-9)
    print(f"stock / ours per redraw: {ratio:.2f}x")
    print(json.dumps({"thumbnails": 6 * 8 * 3, "size": args.size, **summary, "stock_over_ours": round(ratio, 2),
                      "load_average": [round(v, 2) for v in os.getloadavg()[:2]]}))
    for grid in grids.values():
        grid.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
