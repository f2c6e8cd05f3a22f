"""Numbers a run and a translation report say what they are: the words a sentence loses to ``num_steps``, the step a
paused replay stopped at."""
from __future__ import annotations

import threading

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

