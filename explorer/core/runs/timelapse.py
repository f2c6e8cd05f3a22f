"""A training time-lapse of attention (book §11.7): which snapshots become frames, each frame's picture of one
head (or of every head of a layer stack, tiled) and where it sits on the loss curve. numpy only; the GUI draws.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.core.choices import ATTENTION_KINDS

DEFAULT_KIND = "cross"  # the time-lapse dialog's and the CLI's default map


@dataclass(frozen=True)
class TimelapseFrame:
    """One frame: snapshot ``snapshot_index`` of the history, taken at ``step`` in ``epoch``.

    ``image`` is ``(H, W)`` float32 in [0, 1]; NaN marks the gaps between tiles. ``loss`` is the training loss
    at ``step`` (interpolated; NaN when unknown).
    """

    snapshot_index: int
    step: int
    epoch: int
    image: np.ndarray
    loss: float


@dataclass(frozen=True)
class Timelapse:
    """Frames in training order and the whole run's loss curve ``(loss_steps, loss_values)``.

    ``head`` is ``(layer, head)`` (0-based) or None when every head is tiled ``tiles = (layers, heads)``;
    ``row_labels`` and ``col_labels`` name the queries and keys of one tile.
    """

    frames: list[TimelapseFrame]
    loss_steps: np.ndarray
    loss_values: np.ndarray
    kind: str
    head: tuple[int, int] | None
    tiles: tuple[int, int]
    row_labels: list[str]
    col_labels: list[str]


def subsample(count: int, max_frames: int | None) -> list[int]:
    """Indices of at most ``max_frames`` of ``count`` snapshots, evenly spread, first and last always kept."""
    if count <= 0:
        return []
    if max_frames is None or max_frames >= count:
        return list(range(count))
    if max_frames < 2:
        return [count - 1]
    return sorted({int(round(i)) for i in np.linspace(0, count - 1, max_frames)})


def head_mosaic(maps: np.ndarray, head: tuple[int, int] | None = None, gap: int = 1) -> np.ndarray:
    """One head of ``maps`` ``(L, h, Tq, Tk)`` as ``(Tq, Tk)``, or all heads tiled (rows layers, columns heads)
    as ``(L*Tq + (L-1)*gap, h*Tk + (h-1)*gap)`` with NaN in the gaps; float32, clipped to [0, 1]."""
    maps = np.asarray(maps, dtype=np.float32)
    if maps.ndim != 4:
        raise ValueError(f"expected maps shaped (layers, heads, queries, keys), got {maps.shape}")
    if head is not None:
        layer, h = head
        return np.clip(maps[layer, h], 0.0, 1.0)  # (Tq, Tk)
    layers, heads, tq, tk = maps.shape
    out = np.full((layers * tq + (layers - 1) * gap, heads * tk + (heads - 1) * gap), np.nan, dtype=np.float32)
    for i in range(layers):
        for j in range(heads):
            r, c = i * (tq + gap), j * (tk + gap)
            out[r:r + tq, c:c + tk] = np.clip(maps[i, j], 0.0, 1.0)
    return out


def loss_at(steps: np.ndarray, values: np.ndarray, step: float) -> float:
    """The loss at training ``step`` by linear interpolation of the finite points; NaN if there are none or
    ``step`` comes before the first (a snapshot at step 0 is taken before any loss)."""
    steps, values = np.asarray(steps, dtype=np.float64), np.asarray(values, dtype=np.float64)
    keep = np.isfinite(steps) & np.isfinite(values)
    if not keep.any() or step < steps[keep].min():
        return float("nan")
    return float(np.interp(step, steps[keep], values[keep]))


def build_timelapse(snapshots: Sequence[Any], loss_steps: np.ndarray, loss_values: np.ndarray,
                    kind: str = DEFAULT_KIND, head: tuple[int, int] | None = None,
                    max_frames: int | None = None) -> Timelapse:
    """The frames of a time-lapse of ``snapshots`` (``SnapshotEvent``-like: ``step``, ``epoch``, ``maps`` of
    ``(L, h, Tq, Tk)``, token lists) showing map ``kind``, one ``head`` ``(layer, head)`` or all heads.

    Raises ``ValueError`` for an empty history, an unknown kind or a head the maps do not have.
    """
    if kind not in ATTENTION_KINDS:
        raise ValueError(f"Unknown kind of attention map {kind!r}; choose one of {', '.join(ATTENTION_KINDS)}.")
    if not len(snapshots):
        raise ValueError("There are no attention snapshots to make a time-lapse of.")
    first = snapshots[0].maps[kind]  # (L, h, Tq, Tk)
    layers, heads = first.shape[:2]
    if head is not None and not (0 <= head[0] < layers and 0 <= head[1] < heads):
        raise ValueError(f"The model has {layers} layers of {heads} heads; there is no layer {head[0] + 1}, "
                         f"head {head[1] + 1}.")
    steps, values = np.asarray(loss_steps, dtype=np.float64), np.asarray(loss_values, dtype=np.float64)
    frames = []
    for index in subsample(len(snapshots), max_frames):
        snap = snapshots[index]
        frames.append(TimelapseFrame(index, int(snap.step), int(snap.epoch), head_mosaic(snap.maps[kind], head),
                                     loss_at(steps, values, snap.step)))
    rows, cols = _labels(kind, snapshots[-1])
    return Timelapse(frames, steps, values, kind, head, (1, 1) if head is not None else (layers, heads),
                     rows, cols)


def _labels(kind: str, snapshot: Any) -> tuple[list[str], list[str]]:
    """Query and key tokens of one tile (decoder queries of cross attention: the tokens they predict)."""
    if kind == "encoder":
        return list(snapshot.src_tokens), list(snapshot.src_tokens)
    if kind == "decoder":
        return list(snapshot.tgt_input_tokens), list(snapshot.tgt_input_tokens)
    return list(snapshot.tgt_tokens), list(snapshot.src_tokens)


def colorize(image: np.ndarray, lut: np.ndarray, gap_rgba: tuple[int, int, int, int] = (0, 0, 0, 0)) -> np.ndarray:
    """``image`` ``(H, W)`` in [0, 1] (NaN = gap) through ``lut`` ``(n, 4)`` uint8 -> ``(H, W, 4)`` uint8 RGBA."""
    lut = np.asarray(lut, dtype=np.uint8)
    gaps = ~np.isfinite(image)
    index = np.clip(np.rint(np.nan_to_num(image) * (len(lut) - 1)), 0, len(lut) - 1).astype(np.intp)  # (H, W)
    out = lut[index]  # (H, W, 4)
    out[gaps] = gap_rgba
    return np.ascontiguousarray(out)
