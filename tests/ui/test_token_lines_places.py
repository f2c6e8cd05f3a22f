"""Rollout workers stop with their panel (a late result is dropped, no deleted widget touched); the token-line view
in the studio's Translate tab and in a generation step; the rollout residual control; the time-lapse dialog with a
rollout thumbnail chosen."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from explorer.core.debug import rollout as ro
from explorer.core.training.events import SnapshotEvent
from explorer.ui.widgets.attention_detail_widget import AttentionDetail
from explorer.ui.widgets.attention_grid_widget import AttentionGrid

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform, on showing a top window


def _snapshot(tokens: int = 4) -> SnapshotEvent:
    rng = np.random.default_rng(0)
    maps = {kind: rng.random((2, 2, tokens, tokens)).astype(np.float32) for kind in ("encoder", "cross")}
    for m in maps.values():
        m /= m.sum(-1, keepdims=True)
    src = [f"s{i}" for i in range(tokens)]
    tgt = [f"t{i}" for i in range(tokens)]
    return SnapshotEvent(step=10, epoch=1, maps=maps, src_tokens=src, tgt_tokens=tgt,
                         tgt_input_tokens=["<bos>", *tgt[:-1]])


@pytest.fixture
def slow_rollout(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``follow_all`` that takes 0.6 s; the event is set when a job has ended."""
    done = threading.Event()
    real = ro.follow_all

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            time.sleep(0.6)
            return real(*args, **kwargs)
        finally:
            done.set()

    monkeypatch.setattr(ro, "follow_all", slow)
    return done


@pytest.mark.parametrize("which", ["studio", "inspector"])
def test_closing_a_panel_drops_a_rollout_still_on_its_way(qtbot, monkeypatch, slow_rollout, which) -> None:
    late: list[str] = []
    for cls in (AttentionDetail, AttentionGrid):
        real = cls._on_followed_computed
        monkeypatch.setattr(cls, "_on_followed_computed",
                            lambda self, *a, _real=real, _name=cls.__name__: (late.append(_name), _real(self, *a)))
    if which == "studio":
        from explorer.ui.panels.studio.studio_panel import StudioPanel as Panel
    else:
        from explorer.ui.panels.inspector.inspector_panel import InspectorPanel as Panel
    panel = Panel()
    snap = _snapshot()
    panel.grid.set_snapshot(snap)
    panel.detail.show_snapshot(snap)
    panel.detail.select("rollout:encoder", 0, 0)
    qtbot.waitUntil(lambda: panel.grid.followed._runner.is_busy() and panel.detail._followed._runner.is_busy())
    panel.shutdown(0)  # the jobs are still running
    panel.close()  # closed, not yet deleted: its slots would still run
    assert slow_rollout.wait(5)
    qtbot.wait(400)  # the jobs' ends are delivered now: dropped
    assert late == []
    panel.deleteLater()


def test_a_widget_deleted_while_its_rollout_runs_is_not_touched(qtbot, slow_rollout) -> None:
    grid = AttentionGrid()
    snap = _snapshot()
    grid.set_snapshot(snap)
    qtbot.waitUntil(lambda: grid.followed._runner.is_busy())
    grid.deleteLater()  # without shutdown: Qt disconnects the deleted receivers
    qtbot.wait(10)
    assert slow_rollout.wait(5)
    qtbot.wait(400)  # pytest-qt fails the test on an exception in a slot
