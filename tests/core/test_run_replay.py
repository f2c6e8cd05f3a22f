"""Replaying a recorded run (a demo without waiting): the clock follows speed, pause and single steps;
a replay hands out exactly the events a follower reads, in order, paced by their recorded times; the demo run
shipped in the package is a whole, readable book run whose model translates."""
from __future__ import annotations

import math
import threading

import pytest

from explorer.core.training.checkpoint import load_model
from explorer.core.runs.run_dir import kept_model_at, kept_models
from explorer.core.runs.follower import RunFollower
from explorer.core.runs.stream import follow_run
from explorer.core.runs.replay import ReplayClock, checked_speed, read_recorded_run, replay_run
from explorer.paths import demo_run_dir


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_clock_advances_by_speed_and_holds_while_paused() -> None:
    t = FakeTime()
    clock = ReplayClock(speed=2.0, now=t)
    t.now += 1.5
    assert clock.position() == pytest.approx(3.0)
    clock.set_speed(10.0)
    t.now += 0.5
    assert clock.position() == pytest.approx(8.0)
    clock.pause()
    t.now += 100
    assert clock.position() == pytest.approx(8.0)
    clock.resume()
    t.now += 0.1
    assert clock.position() == pytest.approx(9.0)


def test_step_requests_count_only_while_paused() -> None:
    clock = ReplayClock(now=FakeTime())
    clock.request_step()
    assert not clock.take_step()
    clock.pause()
    clock.request_step()
    clock.request_step()
    assert clock.take_step() and clock.take_step() and not clock.take_step()


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "fast"])
def test_impossible_speeds_are_refused(bad) -> None:
    with pytest.raises(ValueError):
        checked_speed(bad)


def test_speeds_are_kept_within_range() -> None:
    assert checked_speed(1e9) == 1000.0 and checked_speed(1e-9) == 0.01


def test_the_demo_run_is_a_whole_book_run() -> None:
    path = demo_run_dir()
    size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    assert size < 4 * 2**20  # "a few MB at most"
    recorded = read_recorded_run(RunFollower(path))
    assert not recorded.problems
    kinds = [e.kind for e in recorded.events]
    assert kinds[0] == "started" and kinds[-1] == "finished"
    snapshot_steps = [e.step for e in recorded.events if e.kind == "snapshot"]
    assert snapshot_steps == sorted(snapshot_steps)
    for i, event in enumerate(recorded.events):  # a snapshot comes right after the step it was taken at
        if event.kind == "snapshot" and event.step:
            before = next(e for e in reversed(recorded.events[:i]) if e.kind == "step")
            assert before.step == event.step
    assert kinds.count("step") == 2000 and kinds.count("epoch") == 200 and kinds.count("snapshot") > 100
    assert recorded.times == sorted(recorded.times) and recorded.duration_s > 1.0
    loaded = load_model(recorded.checkpoint, device="cpu")
    assert loaded.src_vocab is not None and len(loaded.history.epoch_loss) == 200
    kept = kept_models(path)
    assert [epoch for epoch, _ in kept] == [1, 2, 5, 10, 20, 50, 100]
    early = load_model(kept[0][1], device="cpu")
    assert len(early.history.epoch_loss) == 1 and early.history.epoch_loss[0] > loaded.history.epoch_loss[-1]


def test_the_kept_model_of_a_step_is_the_latest_trained_no_further() -> None:
    path = demo_run_dir()
    assert kept_model_at(path, 9, 10) is None  # before the end of epoch 1
    assert kept_model_at(path, 10, 10)[0] == 1 and kept_model_at(path, 49, 10)[0] == 2
    assert kept_model_at(path, 1999, 10)[0] == 100 and kept_model_at(path, 500, 0) is None


def test_a_fast_replay_hands_out_every_event_in_order_then_the_model() -> None:
    path = demo_run_dir()
    expected = read_recorded_run(RunFollower(path)).events
    batches = list(replay_run(RunFollower(path), ReplayClock(speed=100.0)))
    events = [e for batch in batches for e in batch]
    assert [e.kind for e in events[:-1]] == [e.kind for e in expected]
    assert [getattr(e, "step", None) for e in events[:-1]] == [getattr(e, "step", None) for e in expected]
    assert events[-1].kind == "checkpoint" and events[-1].path.endswith("last.safetensors")
    assert len(batches) > 1  # paced: not one hand-over of the whole run


def test_a_paused_replay_hands_out_one_recorded_step_per_request() -> None:
    clock = ReplayClock(speed=1.0)
    clock.pause()
    replay = replay_run(RunFollower(demo_run_dir()), clock)
    clock.request_step()
    first = next(replay)
    assert [e.kind for e in first].count("step") == 1 and first[0].kind == "started"
    clock.request_step()
    second = next(replay)
    steps = [e for e in second if e.kind == "step"]
    assert len(steps) == 1 and steps[0].step == 2
    clock.stop()
    assert list(replay) == []  # a stopped replay ends without handing out the rest


def test_a_resumed_run_replays_in_the_order_it_was_written(tmp_path) -> None:
    import shutil
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from run_helpers import tiny_dataset, train_into

    run, dataset = tmp_path / "run", tiny_dataset()
    train_into(run, dataset, 3, keep_checkpoints=True)
    # as if killed after epoch 3 with only epoch 1 on disk: resume from there, to 4 epochs
    shutil.copy(run / "checkpoints" / "epoch-0001.safetensors", run / "checkpoints" / "last.safetensors")
    train_into(run, dataset, 4, resume=True)
    follower_order = [(e.kind, getattr(e, "step", None)) for e in read_recorded_run(RunFollower(run)).events
                      if e.kind != "snapshot"]
    raw = []
    follower = RunFollower(run, max_snapshots=1000)
    while batch := follower.poll():
        raw.extend((e.kind, getattr(e, "step", None)) for e in batch if e.kind != "snapshot")
    assert follower_order == raw  # the resume and the steps trained again keep their place
    recorded = read_recorded_run(RunFollower(run))
    assert recorded.times == sorted(recorded.times)
    resumed = next(i for i, e in enumerate(recorded.events) if e.kind == "resumed")
    again = [t for e, t in zip(recorded.events[resumed:], recorded.times[resumed:]) if e.kind == "step"]
    assert again[0] < again[-1]  # played at their pace, not all at once
    snapshots = [(i, e.step) for i, e in enumerate(recorded.events) if e.kind == "snapshot"]
    for i, step in snapshots:  # each snapshot right after a step at or before its own
        previous = [e for e in recorded.events[:i] if e.kind == "step"]
        assert not previous or previous[-1].step <= step


def test_a_follower_is_caught_up_once_a_poll_reads_all_there_is() -> None:
    follower = RunFollower(demo_run_dir(), max_snapshots=8)
    assert not follower.caught_up
    snapshots = polls = 0
    while not follower.caught_up:
        snapshots += sum(e.kind == "snapshot" for e in follower.poll())
        polls += 1
    assert snapshots == 201 and polls == 26  # 8 a poll: the 26th read the last 1 and was not cut short
    assert follower.poll() == [] and follower.caught_up


def test_a_followed_run_says_once_when_what_it_had_written_has_arrived() -> None:
    stop = threading.Event()
    seen: list[str] = []
    for batch in follow_run(RunFollower(demo_run_dir(), max_snapshots=8), stop, poll_s=0.01, finished_grace_s=0.2):
        seen.extend(e.kind for e in batch)
    assert seen.count("caught_up") == 1
    first = seen.index("caught_up")
    assert seen[:first].count("snapshot") == 201 and "finished" in seen[:first]
