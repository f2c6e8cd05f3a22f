"""Training time-lapse frames (core): which snapshots, the tiled heads, the loss at each frame's step."""
from __future__ import annotations

import numpy as np
import pytest

from explorer.core.training.events import SnapshotEvent
from explorer.core.runs.timelapse import build_timelapse, colorize, head_mosaic, loss_at, subsample


def snapshots(count: int, layers: int = 2, heads: int = 2, t: int = 3) -> list[SnapshotEvent]:
    """Attention that moves from uniform (early) to the diagonal (late)."""
    out = []
    for i in range(count):
        sharp = i / max(count - 1, 1)
        m = (1 - sharp) * np.full((t, t), 1 / t) + sharp * np.eye(t)  # (t, t), rows sum to 1
        maps = {k: np.broadcast_to(m, (layers, heads, t, t)).astype(np.float32).copy()
                for k in ("encoder", "decoder", "cross")}
        out.append(SnapshotEvent(step=10 * (i + 1), epoch=i // 2 + 1, maps=maps, src_tokens=list("ab") + ["<eos>"],
                                 tgt_tokens=list("xy") + ["<eos>"], tgt_input_tokens=["<bos>", "x", "y"]))
    return out


def test_subsample_keeps_first_and_last_and_at_most_the_limit() -> None:
    assert subsample(5, None) == [0, 1, 2, 3, 4] and subsample(5, 10) == [0, 1, 2, 3, 4]
    picked = subsample(100, 7)
    assert len(picked) == 7 and picked[0] == 0 and picked[-1] == 99 and picked == sorted(set(picked))
    assert subsample(0, 3) == [] and subsample(9, 1) == [8]


def test_frames_follow_the_snapshots_and_the_loss() -> None:
    snaps = snapshots(6)
    steps, losses = np.array([0.0, 30, 60]), np.array([4.0, 2.0, 1.0])
    lapse = build_timelapse(snaps, steps, losses, "cross", (1, 0))
    assert len(lapse.frames) == len(snaps)
    assert [f.step for f in lapse.frames] == [10, 20, 30, 40, 50, 60]
    assert [f.epoch for f in lapse.frames] == [1, 1, 2, 2, 3, 3]
    assert lapse.frames[0].loss == pytest.approx(4 - 2 * 10 / 30) and lapse.frames[-1].loss == pytest.approx(1.0)
    assert lapse.frames[0].image.shape == (3, 3) and not np.allclose(lapse.frames[0].image, lapse.frames[-1].image)
    assert lapse.row_labels == ["x", "y", "<eos>"] and lapse.col_labels == ["a", "b", "<eos>"]
    assert len(build_timelapse(snaps, steps, losses, max_frames=3).frames) == 3


def test_all_heads_are_tiled_with_gaps() -> None:
    maps = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2) / 24  # (L, h, Tq, Tk)
    tiled = head_mosaic(maps)
    assert tiled.shape == (2 * 2 + 1, 3 * 2 + 2)
    assert np.isnan(tiled[2]).all() and np.isnan(tiled[:, 2]).all()
    assert np.array_equal(tiled[3:5, 6:8], maps[1, 2])
    rgba = colorize(tiled, np.array([[0, 0, 0, 255], [255, 255, 255, 255]], dtype=np.uint8), (1, 2, 3, 4))
    assert rgba.shape == (5, 8, 4) and tuple(rgba[2, 0]) == (1, 2, 3, 4)


def test_bad_requests_say_why() -> None:
    with pytest.raises(ValueError, match="no attention snapshots"):
        build_timelapse([], np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError, match="no layer 3, head 1"):
        build_timelapse(snapshots(2), np.zeros(0), np.zeros(0), head=(2, 0))
    with pytest.raises(ValueError, match="Unknown kind"):
        build_timelapse(snapshots(2), np.zeros(0), np.zeros(0), kind="self")
    assert np.isnan(loss_at(np.zeros(0), np.zeros(0), 5))


def test_a_snapshot_before_the_first_step_has_no_loss() -> None:
    import math

    from explorer.core.runs.timelapse import loss_at

    steps, values = np.array([1.0, 2.0, 4.0]), np.array([5.0, 4.0, 2.0])
    assert math.isnan(loss_at(steps, values, 0))
    assert loss_at(steps, values, 3) == 3.0 and loss_at(steps, values, 9) == 2.0
