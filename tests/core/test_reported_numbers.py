"""Numbers a run and a translation report say what they are: the words a sentence loses to ``num_steps``, the step a
paused replay stopped at."""
from __future__ import annotations

import threading

import pytest

from explorer.core.data.text import Vocab, encode_sentence
from explorer.core.runs.follower import RunFollower
from explorer.core.runs.replay import ReplayClock, replay_run
from explorer.paths import demo_run_dir


def test_an_encoded_sentence_names_the_words_cut_to_num_steps() -> None:
    vocab = Vocab(["very", "good"], min_freq=0)
    long = encode_sentence(" ".join(["very"] * 13), vocab, 10)
    assert long.tokens == ["very"] * 10 and long.dropped == ["very"] * 3
    exact = encode_sentence(" ".join(["good"] * 10), vocab, 10)  # every word read, only <eos> cut
    assert exact.dropped == [] and exact.truncated
    assert encode_sentence("very good", vocab, 10).dropped == []


def test_a_paused_replay_says_so_after_the_last_step_it_handed_out() -> None:
    clock = ReplayClock(speed=1.0)
    replay = replay_run(RunFollower(demo_run_dir()), clock)
    clock.pause()
    watchdog = threading.Timer(20.0, clock.stop)  # a replay that never says it paused ends instead of hanging
    watchdog.start()
    batches = []
    try:
        while not any(e.kind == "replay_paused" for batch in batches for e in batch):
            batches.append(next(replay))
    finally:
        watchdog.cancel()
    events = [e for batch in batches for e in batch]
    assert events[-1].kind == "replay_paused"  # nothing of the run after it
    clock.request_step()
    step_batch = next(replay)
    assert [e.kind for e in step_batch].count("step") == 1 and step_batch[-1].kind == "replay_paused"
    clock.stop()
    assert list(replay) == []



def test_a_resumed_run_reports_the_tokens_per_second_of_an_unbroken_one(monkeypatch) -> None:
    """On a clock that advances the same for every reading, a run resumed after epoch 2 reports the same tokens
    per second for its epochs and steps as one trained without a break: its clock and token count continue."""
    import sys
    import types
    from pathlib import Path

    import explorer.core.training.trainer as trainer_module
    from explorer.core.training.trainer import Trainer

    sys.path.insert(0, str(Path(__file__).parent))
    from run_helpers import tiny_config, tiny_dataset

    def run(epochs: int, resume=None):  # type: ignore[no-untyped-def]
        ticks = iter(range(1, 10**7))
        clock = types.SimpleNamespace(perf_counter=lambda: next(ticks) * 0.01)
        monkeypatch.setattr(trainer_module, "time", clock)
        trainer = Trainer(tiny_config(epochs, snapshot_every=0), tiny_dataset(), resume=resume)
        return trainer, [e for e in trainer if e.kind in ("step", "epoch")]

    _, unbroken = run(4)
    first, _ = run(2)
    _, resumed = run(4, first.state())
    tail = unbroken[len(unbroken) - len(resumed):]
    assert [(e.kind, e.step) for e in resumed] == [(e.kind, e.step) for e in tail]
    for a, b in zip(resumed, tail):
        if a.kind == "epoch":  # an epoch's own rate: the same clock readings, the same tokens
            assert a.tokens_per_s == pytest.approx(b.tokens_per_s, rel=1e-9)
    assert resumed[0].tokens_per_s == pytest.approx(tail[0].tokens_per_s, rel=0.05)  # the run's rate goes on
