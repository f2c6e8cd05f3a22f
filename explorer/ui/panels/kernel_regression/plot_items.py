"""Plot items of the kernel regression panel (book §11.2): draggable training points, stem plot, block reduction."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal


class DraggablePoints(pg.ScatterPlotItem):
    """A scatter whose points can be dragged with the left mouse button.

    Signals: ``point_dragged(index, x, y)`` during a drag, ``drag_finished()`` at its end.
    """

    point_dragged = Signal(int, float, float)
    drag_finished = Signal()

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._drag_index: int | None = None
        self._drag_offset = np.zeros(2)

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            hits = self.pointsAt(ev.buttonDownPos())
            if len(hits) == 0:
                ev.ignore()
                return
            self._drag_index = int(hits[0].index())
            down = ev.buttonDownPos()
            self._drag_offset = np.array([hits[0].pos().x() - down.x(), hits[0].pos().y() - down.y()])
        elif self._drag_index is None:
            ev.ignore()
            return
        ev.accept()
        pos = ev.pos()
        self.point_dragged.emit(self._drag_index, pos.x() + self._drag_offset[0], pos.y() + self._drag_offset[1])
        if ev.isFinish():
            self._drag_index = None
            self.drag_finished.emit()

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        ev.ignore()  # clicks go through to the plot (they pick a query)


def stem_xy(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Line data for a stem plot: pairs (xᵢ, 0) → (xᵢ, wᵢ), for `connect="pairs"`. (2N,) each."""
    xs = np.repeat(np.asarray(x, dtype=np.float64), 2)  # (2N,)
    ys = np.zeros(xs.size)
    ys[1::2] = w
    return xs, ys


def kernel_curve(kernel_name: str, bandwidth: float, half_width: float = 2.5,
                 points: int = 401) -> tuple[np.ndarray, np.ndarray]:
    """The kernel K(d/h) over distances d in [−half_width, half_width], for the inset plot."""
    from explorer.core.chapter.kernel_regression import kernel

    d = np.linspace(-half_width, half_width, points)
    return d, kernel(kernel_name, d / bandwidth).astype(np.float64)


def _block_sum(a: np.ndarray, f: int, axis: int, buffers: dict) -> np.ndarray:
    """Sums over consecutive blocks of `f` entries along `axis` (the last block may be shorter).

    The result lives in a buffer from `buffers` that is reused by the next call of the same shape
    (fresh megabyte arrays cost page faults on every drag step).
    """
    n = a.shape[axis]
    full, blocks = n // f, -(-n // f)
    shape = (blocks, a.shape[1]) if axis == 0 else (a.shape[0], blocks)
    out = buffers.get((axis, shape))
    if out is None:
        out = buffers[(axis, shape)] = np.empty(shape, dtype=np.float32)

    def part(x: np.ndarray, s: slice) -> np.ndarray:
        return x[s] if axis == 0 else x[:, s]

    head = part(out, slice(0, full))
    np.copyto(head, part(a, slice(0, full * f, f)))  # strided adds: fast, unlike np.add.reduceat
    for k in range(1, f):
        head += part(a, slice(k, full * f, f))
    if blocks > full:
        part(a, slice(full * f, n)).sum(axis=axis, keepdims=True, dtype=np.float32, out=part(out, slice(full, None)))
    return out


def block_reduce(w: np.ndarray, max_rows: int, max_cols: int, buffers: dict | None = None
                 ) -> tuple[np.ndarray, int, int]:
    """Shrink a (Q, N) weight matrix for display to at most (max_rows, max_cols).

    Rows (queries) are averaged over blocks of `fr`, columns (training points) summed over
    blocks of `fc`, so each row still sums to 1 and a narrow kernel stays as bright as it is.
    `buffers` (a dict kept by the caller) lets repeated calls reuse their output arrays.

    Returns
    -------
    (ceil(Q/fr), ceil(N/fc)) float32, fr, fc. `w` itself when it already fits.
    """
    buffers = {} if buffers is None else buffers
    q, n = w.shape
    fr, fc = max(1, -(-q // max_rows)), max(1, -(-n // max_cols))
    out = w
    if fr > 1:
        out = _block_sum(out, fr, 0, buffers)
        counts = np.full(out.shape[0], fr, dtype=np.float32)
        counts[-1] = q - fr * (out.shape[0] - 1)
        out /= counts[:, None]
    if fc > 1:
        out = _block_sum(out, fc, 1, buffers)
    return out, fr, fc
