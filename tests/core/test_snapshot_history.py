"""Tests for the bounded, thinned snapshot history behind the studio's scrubber."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.runs.snapshot_history import SnapshotHistory, payload_nbytes


@dataclass
class _Snap:
    step: int
    maps: list[np.ndarray]


def _snap(step: int, size: int = 10) -> _Snap:
    return _Snap(step, [np.zeros((2, 4, size, size), np.float32)])


def test_payload_nbytes_walks_containers() -> None:
    a = np.zeros((3, 4), np.float32)  # 48 bytes
    assert payload_nbytes(_Snap(1, [a, a])) == 96
    assert payload_nbytes({"x": (a, [a]), "y": 3.0}) == 96
    assert payload_nbytes("text") == 0


def test_keeps_everything_below_the_bounds_in_order() -> None:
    h = SnapshotHistory(max_snapshots=10)
    for step in range(0, 50, 5):
        h.append(step, _snap(step))
    assert len(h) == 10
    assert h.steps.tolist() == list(range(0, 50, 5))
    assert h.thinned == 0
    assert h[3].step == 15
    assert h.nbytes == 10 * 2 * 4 * 10 * 10 * 4


def test_thinning_keeps_first_and_recent_snapshots_dense() -> None:
    h = SnapshotHistory(max_snapshots=8)
    for step in range(100):
        h.append(step, _snap(step))
        assert len(h) <= 8
    steps = h.steps
    assert steps[0] == 0  # the start of the run is always kept
    assert steps[-1] == 99  # the newest is always kept
    assert np.all(np.diff(steps) > 0)
    gaps = np.diff(steps)
    assert gaps[-1] <= gaps[0]  # older part sparser than the recent part
    assert h.thinned == 100 - len(h)


def test_byte_budget_is_respected() -> None:
    one = payload_nbytes(_snap(0, 20))
    h = SnapshotHistory(max_snapshots=1000, max_bytes=5 * one)
    for step in range(200):
        h.append(step, _snap(step, 20))
        assert h.nbytes <= 5 * one
    assert h.nbytes == len(h) * one
    assert h.steps[-1] == 199


def test_single_snapshot_over_budget_keeps_newest() -> None:
    h = SnapshotHistory(max_snapshots=4, max_bytes=10)
    h.append(0, _snap(0))
    h.append(1, _snap(1))
    assert h.steps.tolist() == [1]


def test_out_of_order_step_replaces_the_tail() -> None:
    h = SnapshotHistory()
    for step in (0, 10, 20, 30):
        h.append(step, _snap(step))
    h.append(15, _snap(15))
    assert h.steps.tolist() == [0, 10, 15]


@pytest.mark.parametrize(
    ("query", "expected_step"),
    [(-5, 0), (0, 0), (4, 0), (5, 0), (6, 10), (14, 10), (26, 30), (1000, 30)],
)
def test_nearest_index(query: float, expected_step: int) -> None:
    h = SnapshotHistory()
    for step in (0, 10, 30):
        h.append(step, _snap(step))
    assert h.step_at(h.nearest_index(query)) == expected_step


def test_nearest_on_empty_and_clear() -> None:
    h = SnapshotHistory()
    assert h.nearest_index(3) is None
    h.append(1, _snap(1))
    h.clear()
    assert len(h) == 0 and h.nbytes == 0 and h.nearest_index(1) is None


def test_bad_bounds_are_rejected() -> None:
    with pytest.raises(ValueError, match="max_snapshots"):
        SnapshotHistory(max_snapshots=2)
    with pytest.raises(ValueError, match="max_bytes"):
        SnapshotHistory(max_bytes=0)


@settings(max_examples=60, deadline=None)
@given(
    cap=st.integers(4, 40),
    steps=st.lists(st.integers(0, 10_000), min_size=1, max_size=300, unique=True),
    query=st.floats(-100, 11_000, allow_nan=False),
)
def test_bounds_and_nearest_match_brute_force(cap: int, steps: list[int], query: float) -> None:
    h = SnapshotHistory(max_snapshots=cap)
    for s in sorted(steps):
        h.append(s, _snap(s, 2))
    kept = h.steps
    assert 1 <= len(h) <= cap
    assert kept[0] == min(steps) and kept[-1] == max(steps)
    assert set(kept.tolist()) <= set(steps)
    dist = np.abs(kept - query)
    brute = int(np.flatnonzero(dist == dist.min())[0])
    assert h.nearest_index(query) == brute
    assert all(h[i].step == kept[i] for i in range(len(h)))
