"""Rollout and flow of a live grid take a bounded share of a core: after a computation the runner rests for
(1 / max_duty − 1) times its CPU time (at most max_rest_s), keeps only the newest snapshot asked for meanwhile, drops a
waiting one when the view goes back to a computed one, computes a new residual at once, and its rest does not hold
the panel walker."""
from __future__ import annotations

import time

import numpy as np
import pytest

from explorer.core.debug import rollout as ro
from explorer.core.training.events import SnapshotEvent
from explorer.ui.widgets.followed_maps import FollowedMapsRunner


def _snapshot(seed: int, layers: int = 6, heads: int = 8, tokens: int = 12) -> SnapshotEvent:
    rng = np.random.default_rng(seed)

    def maps() -> np.ndarray:
        m = rng.random((layers, heads, tokens, tokens)).astype(np.float32) ** 4
        return m / m.sum(-1, keepdims=True)

    words = [f"w{i}" for i in range(tokens)]
    return SnapshotEvent(step=seed, epoch=1, maps={"encoder": maps(), "decoder": maps(), "cross": maps()},
                         src_tokens=words, tgt_tokens=words, tgt_input_tokens=words)


@pytest.fixture
def runner(qtbot):
    ro.follow_all(_snapshot(0).maps)  # imports and first calls out of the way: the rest follows the CPU time taken
    made = FollowedMapsRunner()
    computed: list[SnapshotEvent] = []
    made.computed.connect(lambda snap, _maps: computed.append(snap))
    made.computed_list = computed  # type: ignore[attr-defined]
    yield made
    made.shutdown(5000)


def test_requests_during_the_rest_wait_and_only_the_newest_is_computed(qtbot, runner) -> None:
    runner.max_duty, runner.max_rest_s = 0.001, 1.0  # any computation of 1 ms or more rests the full second
    first, skipped, newest = _snapshot(1), _snapshot(2), _snapshot(3)
    runner.request(first)
    qtbot.waitUntil(lambda: runner.result_for(first) is not None, timeout=10_000)
    computed_at = time.monotonic()
    runner.request(skipped)
    runner.request(newest)
    qtbot.wait(200)
    assert runner.computed_list == [first]  # resting: nothing started yet
    qtbot.waitUntil(lambda: runner.result_for(newest) is not None, timeout=30_000)
    assert runner.computed_list == [first, newest]  # the request it replaced never ran
    assert time.monotonic() - computed_at > 0.3
    np.testing.assert_allclose(runner.result_for(newest).maps["rollout"]["encoder"],
                               ro.rollout(newest.maps["encoder"], residual=runner.residual), atol=1e-6)


def test_without_a_rest_every_request_is_computed_in_turn(qtbot, runner) -> None:
    runner.max_duty = 1.0
    snaps = [_snapshot(i) for i in range(3)]
    for snap in snaps:
        runner.request(snap)
        qtbot.waitUntil(lambda snap=snap: runner.result_for(snap) is not None, timeout=10_000)
    assert runner.computed_list == snaps


def test_a_new_residual_is_computed_at_once(qtbot, runner) -> None:
    runner.max_duty, runner.max_rest_s = 0.001, 60.0  # a rest of a minute or so
    snap = _snapshot(5)
    runner.request(snap)
    qtbot.waitUntil(lambda: runner.result_for(snap) is not None, timeout=10_000)
    assert runner.set_residual(0.3)
    runner.request(snap)
    qtbot.waitUntil(lambda: runner.result_for(snap) is not None, timeout=10_000)
    np.testing.assert_allclose(runner.result_for(snap).maps["rollout"]["encoder"],
                               ro.rollout(snap.maps["encoder"], residual=0.3), atol=1e-6)


def test_going_back_to_a_computed_snapshot_drops_the_waiting_one(qtbot, runner) -> None:
    runner.max_duty, runner.max_rest_s = 0.001, 0.5
    shown, passed = _snapshot(6), _snapshot(7)
    runner.request(shown)
    qtbot.waitUntil(lambda: runner.result_for(shown) is not None, timeout=10_000)
    runner.request(passed)  # waits for the rest
    runner.request(shown)  # back before the rest is over: nothing more to compute
    qtbot.wait(1200)
    assert runner.computed_list == [shown] and runner.result_for(shown) is not None


def test_the_panel_walker_does_not_wait_for_a_rest(qtbot, runner) -> None:
    from PySide6.QtWidgets import QWidget

    from explorer.ui.shell.panel_walker import PanelWalker

    class Panels(QWidget):
        def __init__(self, panel: QWidget) -> None:
            super().__init__()
            self._panel = panel

        def show_panel(self, _key: str) -> None:
            pass

        def panel(self, _key: str) -> QWidget:
            return self._panel

    panel = QWidget()
    qtbot.addWidget(panel)
    runner.setParent(panel)
    runner.max_duty, runner.max_rest_s = 0.001, 30.0
    first, waiting = _snapshot(8), _snapshot(9)
    runner.request(first)
    qtbot.waitUntil(lambda: runner.result_for(first) is not None, timeout=10_000)
    runner.request(waiting)  # resting for up to 30 s with a snapshot waiting
    panels = Panels(panel)
    settled: list[str] = []
    walker = PanelWalker(panels, ["one"], settled.append, lambda: None, min_wait_ms=0, max_wait_ms=20_000, poll_ms=5)
    walker.start()
    qtbot.waitUntil(lambda: settled == ["one"], timeout=5_000)
