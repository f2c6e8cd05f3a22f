"""Token-line view hover redraw time at 20 and 100 tokens (goal: within a frame, ≤ 16 ms): hovering a token (its
lines alone; query rows and key columns in turn) and leaving it (every line again), each followed by a
synchronous repaint of the view, offscreen. The worst single hover follows the machine's load (a busy 2-core
machine steps it by its scheduler's slices); the 95th percentile says more.
Side by side in the same run: the plain way, one QGraphicsLineItem per line whose visibility every hover sets.
Four heads overlaid (the book's model), random row-stochastic maps sharpened like trained ones. Ends with one
JSON line.

    python bench/token_lines.py [--hovers 40] [--heads 4]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402


def _maps(heads: int, tokens: int) -> np.ndarray:
    m = np.random.default_rng(0).random((heads, tokens, tokens)) ** 4  # a few strong weights per row
    return (m / m.sum(-1, keepdims=True)).astype(np.float32)


def _time_ms(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def plain_items(view, weights: np.ndarray, threshold: float) -> tuple:
    """The plain way: a QGraphicsLineItem per line drawn; a hover sets every item's visibility."""
    from PySide6.QtCore import QLineF
    from PySide6.QtGui import QColor, QPen
    from PySide6.QtWidgets import QGraphicsLineItem

    from explorer.ui.widgets.token_lines_widget import ROW_HEIGHT, TOP, head_colour

    items = []
    for head in range(weights.shape[0]):
        q, k = np.nonzero(weights[head] >= threshold)
        for a, b in zip(q.tolist(), k.tolist()):
            item = QGraphicsLineItem(QLineF(view._left, TOP + (a + 0.5) * ROW_HEIGHT, view._right,
                                            TOP + (b + 0.5) * ROW_HEIGHT))
            colour = QColor(head_colour(head))
            colour.setAlphaF(float(weights[head][a, b]))
            item.setPen(QPen(colour, 1.0))
            view.scene.addItem(item)
            items.append((a, item))

    def hover(row: int | None) -> None:
        for a, item in items:
            item.setVisible(row is None or a == row)

    return items, hover


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hovers", type=int, default=40)
    parser.add_argument("--heads", type=int, default=4)
    args = parser.parse_args()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from explorer.ui.widgets.token_lines_widget import TokenLinesView

    result: dict[str, float] = {}
    for tokens in (20, 100):
        weights = _maps(args.heads, tokens)
        names = [f"tok{i}" for i in range(tokens)]
        view = TokenLinesView()
        view.resize(640, 720)
        view.show()
        built = _time_ms(lambda: view.set_maps(weights, names, names, [f"head {h + 1}" for h in range(args.heads)],
                                               list(range(args.heads))))
        app.processEvents()
        port = view.view.viewport()
        first = _time_ms(port.repaint)
        hover, leave = [], []
        for i in range(args.hovers):
            side = ("query", "key")[i % 2]  # a key column can hold more lines than a query row
            hover.append(_time_ms(lambda: (view.isolate(side, (i // 2 * 7) % tokens), port.repaint())))
            leave.append(_time_ms(lambda: (view.isolate(None), port.repaint())))
        lines = view.lines.count
        # the plain way, on the same scene with our lines hidden
        view.lines.full.hide()
        items, set_hover = plain_items(view, weights, view.threshold.value())
        view.lines.full.setVisible(False)
        view.lines.token.setVisible(False)
        plain_hover, plain_leave = [], []
        for i in range(max(4, args.hovers // 4)):
            plain_hover.append(_time_ms(lambda: (set_hover(i % tokens), port.repaint())))
            plain_leave.append(_time_ms(lambda: (set_hover(None), port.repaint())))
        h, lv = statistics.median(hover), statistics.median(leave)
        p95 = float(np.percentile(hover, 95))
        ph, pl = statistics.median(plain_hover), statistics.median(plain_leave)
        print(f"{tokens:3d} tokens, {args.heads} heads, {lines} lines: build {built:.1f} ms, first paint "
              f"{first:.1f} ms; hover {h:.2f} ms (95 % {p95:.2f}, max {max(hover):.2f}), leave {lv:.2f} ms (max {max(leave):.2f}); "
              f"one item per line: hover {ph:.1f} ms, leave {pl:.1f} ms")
        result.update({f"hover_ms_{tokens}": round(h, 2), f"leave_ms_{tokens}": round(lv, 2),
                       f"hover_max_ms_{tokens}": round(max(hover), 2),
                       f"hover_p95_ms_{tokens}": round(p95, 2), f"build_ms_{tokens}": round(built, 1),
                       f"lines_{tokens}": lines, f"plain_hover_ms_{tokens}": round(ph, 2),
                       f"plain_leave_ms_{tokens}": round(pl, 2)})
        view.close()
        view.deleteLater()
        app.processEvents()
    result["goal_ms"] = 16
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
