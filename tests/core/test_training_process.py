"""Training in a child process (the book's §11.7 run, launched by ``TrainingProcess``): the event stream, the
weights sent on pause, step and finish, errors fit for users, and a killed child. Real processes, tiny models."""
from __future__ import annotations

import os
import queue
import signal
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest
import torch

from explorer.core.data.sources import load_source
from explorer.core.training.events import (EpochEvent, ErrorEvent, FinishedEvent, ModelStateEvent, SnapshotEvent,
                                  StartedEvent, StepEvent)
from explorer.core.training.probe import probe_attention
from explorer.core.data.text import Vocab, build_dataset
from explorer.core.training.trainer import Trainer, model_state
from explorer.core.training.config import TrainingConfig
from explorer.core.runs.process import TrainingJob, TrainingProcess, warm_up
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

WAIT_S = 60.0  # generous: the first start waits for the fork server to import torch on a shared machine
PROBE = ("1 2 3", "1 2 3")


def _config(**kw: object) -> TrainingConfig:
    model = TransformerConfig(num_hiddens=8, num_layers=1, num_heads=2, ffn_num_hiddens=16, dropout=0.0)
    base = dict(model=model, batch_size=16, num_steps=8, num_epochs=3, snapshot_every=2, device="cpu",
                min_freq=1, seed=3)
    base.update(kw)
    return TrainingConfig(**base)  # type: ignore[arg-type]


def _job(config: TrainingConfig, spec: str = "task:copy", probe: tuple[str, str] | None = PROBE) -> TrainingJob:
    """The child trains on one thread, as the in-process references do (``_reference_on_one_thread``): with more, the
    sums' order may differ between two runs, and the weights drift apart by more than the tolerance over enough
    steps (a stop that arrives some ten steps later, as the child's sender paces its writes, was enough)."""
    return TrainingJob(config=config.to_dict(), data_spec=spec, num_examples=40, data_seed=0, probe=probe,
                       num_threads=1)


class _Stream:
    """Runs ``events()`` on a thread, as the GUI will; the test reads with timeouts, so nothing can hang."""

    def __init__(self, process: TrainingProcess) -> None:
        self.items: queue.Queue = queue.Queue()
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._consume, args=(process,), daemon=True)
        self.thread.start()

    def _consume(self, process: TrainingProcess) -> None:
        try:
            for event in process.events(poll_s=0.05):
                self.items.put(event)
        finally:
            self.ended.set()

    def until(self, done, timeout: float = WAIT_S) -> list:
        """Events up to and including the first for which ``done(event)`` is true."""
        got, deadline = [], time.monotonic() + timeout
        while True:
            got.append(self.items.get(timeout=max(deadline - time.monotonic(), 0.01)))
            if done(got[-1]):
                return got

    def rest(self, timeout: float = WAIT_S) -> list:
        """Every event until ``events()`` ends."""
        assert self.ended.wait(timeout), "events() did not end"
        self.thread.join(timeout)
        return list(self.items.queue)


@pytest.fixture(autouse=True)
def _reference_on_one_thread(one_torch_thread: None) -> None:
    """The in-process references train on one thread, as every child here does (``_job``)."""


@pytest.fixture(scope="module", autouse=True)
def fork_server() -> None:
    warm_up()  # as the GUI does when the studio opens; returns at once


@pytest.fixture
def run() -> Iterator:
    """Start a process for a job (optionally after some commands); close every one at the end."""
    started: list[TrainingProcess] = []

    def start(job: TrainingJob, before=()) -> tuple[TrainingProcess, _Stream]:
        process = TrainingProcess(job)
        started.append(process)
        for command in before:
            getattr(process, command)()
        process.start()
        return process, _Stream(process)

    yield start
    for process in started:
        process.close(timeout_s=5.0)


def _reference(config: TrainingConfig, steps: set[int]) -> tuple[Trainer, dict[int, dict[str, np.ndarray]]]:
    """An in-process Trainer on the same data, with the weights after each of ``steps`` (0: the initial ones)."""
    pairs = load_source("task:copy", 40, seed=0).pairs
    trainer = Trainer(config, build_dataset(pairs, config.num_steps, config.min_freq), probe=PROBE)
    states = {0: model_state(trainer.model)} if 0 in steps else {}
    for event in trainer:
        if isinstance(event, StepEvent) and event.step in steps:
            states[event.step] = model_state(trainer.model)
            if event.step == max(steps):
                break
    return trainer, states


def _assert_same_weights(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert got.keys() == want.keys()
    for name in want:  # the same thread count on both sides; a tolerance all the same (another process)
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-7, err_msg=name)


def _is(kind: str, reason: str | None = None):
    return lambda e: e.kind == kind and (reason is None or e.reason == reason)


def test_a_run_streams_started_trainer_events_then_the_final_weights(run) -> None:
    config = _config()
    process, stream = run(_job(config))
    events = stream.rest()
    kinds = [e.kind for e in events]
    assert kinds[0] == "started" and kinds[-2:] == ["finished", "model_state"]
    assert "error" not in kinds and kinds.count("model_state") == 1  # no pause: no paused weights
    assert [e.step for e in events if isinstance(e, StepEvent)] == list(range(1, 10))  # 3 batches × 3 epochs
    assert [e.epoch for e in events if isinstance(e, EpochEvent)] == [1, 2, 3]

    started = events[0]
    assert isinstance(started, StartedEvent)
    assert (started.device, started.num_pairs, started.total_steps, started.num_batches) == ("cpu", 40, 9, 3)
    assert started.config == config.to_dict() and started.probe == PROBE
    src_vocab, tgt_vocab = Vocab.from_dict(started.src_vocab), Vocab.from_dict(started.tgt_vocab)
    model = Seq2SeqTransformer(TransformerConfig.from_dict(started.config["model"]), len(src_vocab), len(tgt_vocab))
    assert started.num_parameters == sum(p.numel() for p in model.parameters())

    final = events[-1]
    assert isinstance(final, ModelStateEvent) and final.reason == "final" and (final.step, final.epoch) == (9, 3)
    assert not events[-2].stopped
    model.load_state_dict({k: torch.from_numpy(v) for k, v in final.state.items()})
    reference, _ = _reference(config, {9})
    ours = probe_attention(model, src_vocab, tgt_vocab, *PROBE, config.num_steps)
    theirs = probe_attention(reference.model, reference.src_vocab, reference.tgt_vocab, *PROBE, config.num_steps)
    last_snapshot = next(e for e in reversed(events) if isinstance(e, SnapshotEvent))
    for name in ("encoder", "decoder", "cross"):
        np.testing.assert_allclose(ours.maps[name], theirs.maps[name], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours.maps[name], last_snapshot.maps[name], rtol=1e-5, atol=1e-6)
    assert process.close() is True and process.exitcode == 0 and not process.is_alive()


def test_pause_and_single_step_send_the_weights_of_that_step_then_stop_sends_the_final_ones(run) -> None:
    config = _config(num_epochs=5000, snapshot_every=0)  # 15,000 steps: stopped long before the end
    process, stream = run(_job(config))
    before = stream.until(lambda e: isinstance(e, StepEvent) and e.step >= 2)
    process.pause()
    before += stream.until(_is("model_state"), timeout=15.0)
    paused = before[-1]
    steps = [e.step for e in before if isinstance(e, StepEvent)]
    assert paused.reason == "paused" and paused.step == steps[-1]  # taken after the last step, before the next

    process.request_step()
    one = stream.until(_is("model_state"), timeout=15.0)
    assert [e.step for e in one if isinstance(e, StepEvent)] == [paused.step + 1]
    assert one[-1].reason == "paused" and one[-1].step == paused.step + 1
    time.sleep(0.2)
    assert stream.items.empty()  # still paused

    process.resume()
    stream.until(lambda e: isinstance(e, StepEvent) and e.step >= paused.step + 3)
    process.stop()
    tail = stream.rest()
    finished, final = tail[-2], tail[-1]
    assert isinstance(finished, FinishedEvent) and finished.stopped
    assert final.kind == "model_state" and final.reason == "final" and final.step == finished.step
    assert not any(e.kind == "model_state" and e.reason == "paused" for e in tail)  # one per pause entry

    _, want = _reference(config, {paused.step, paused.step + 1, final.step})
    _assert_same_weights(paused.state, want[paused.step])
    _assert_same_weights(one[-1].state, want[paused.step + 1])
    _assert_same_weights(final.state, want[final.step])
    assert process.close() is True and process.exitcode == 0


def test_commands_sent_before_start_apply_from_the_first_step(run) -> None:
    config = _config(snapshot_every=0)
    process, stream = run(_job(config), before=("pause",))
    first = stream.until(_is("model_state"))
    assert [e.kind for e in first] == ["started", "model_state"] and first[-1].step == 0
    _, want = _reference(config, {0})
    _assert_same_weights(first[-1].state, want[0])
    process.stop()
    tail = stream.rest()
    assert [e.kind for e in tail] == ["finished", "model_state"] and tail[0].stopped and tail[1].step == 0


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no process priorities here")
def test_a_nice_job_trains_at_a_lower_priority(run) -> None:
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    process, stream = run(TrainingJob(**{**_job(_config(snapshot_every=0)).__dict__, "nice": 5}), before=("pause",))
    stream.until(_is("model_state"))  # started and paused: the child is alive
    assert os.getpriority(os.PRIO_PROCESS, process.pid) == min(mine + 5, 19)
    process.stop()
    stream.rest()
    plain, plain_stream = run(_job(_config(snapshot_every=0)), before=("pause",))
    plain_stream.until(_is("model_state"))
    assert os.getpriority(os.PRIO_PROCESS, plain.pid) == mine
    plain.stop()
    plain_stream.rest()


@pytest.mark.parametrize("job, reason, fragment", [
    (_job(_config(), spec="task:nope"), "data", "unknown task"),
    (_job(_config(), spec="/nonexistent/corpus.txt"), "data", "corpus.txt"),
    (_job(_config(), probe=("", "1 2")), "data", "empty"),
    (TrainingJob(config={**_config().to_dict(), "model": {**_config().model.to_dict(), "num_heads": 3}},
                 data_spec="task:copy", num_examples=40, data_seed=0, probe=None), "config", "divisible"),
], ids=["unknown-task", "missing-file", "empty-probe", "heads-do-not-divide"])
def test_bad_data_or_config_becomes_one_error_event(run, job: TrainingJob, reason: str, fragment: str) -> None:
    process, stream = run(job)
    events = stream.rest()
    assert len(events) == 1 and isinstance(events[0], ErrorEvent), events
    assert events[0].reason == reason and fragment in events[0].message.lower()
    assert "Traceback" not in events[0].message
    assert process.close() is True and process.exitcode == 0


def test_a_killed_child_is_reported_as_crashed_and_events_end(run) -> None:
    process, stream = run(_job(_config(num_epochs=5000, snapshot_every=0)))
    stream.until(lambda e: isinstance(e, StepEvent))
    os.kill(process.pid, signal.SIGKILL)
    tail = stream.rest(timeout=10.0)
    crash = tail[-1]
    assert isinstance(crash, ErrorEvent) and crash.reason == "crashed"
    assert "exit code -9" in crash.message and "last weights received are kept" in crash.message
    assert process.exitcode == -signal.SIGKILL and not process.is_alive()
    process.pause()  # no-ops once the child has ended
    process.stop()
    assert process.close() is True and process.close() is True


def test_close_without_a_consumer_ends_a_paused_child_quickly() -> None:
    process = TrainingProcess(_job(_config(num_epochs=5000, snapshot_every=0)))
    process.start()
    process.pause()
    time.sleep(0.3)
    t0 = time.monotonic()
    assert process.close(timeout_s=10.0) is True and time.monotonic() - t0 < 5.0
    assert process.exitcode == 0 and not process.is_alive()
    process.resume()  # a no-op after close
    with pytest.raises(RuntimeError, match="starts once"):
        process.start()


def test_close_does_not_wait_on_a_consumer_that_stopped_between_two_events() -> None:
    # The studio's worker, told to quit, stops asking for events without closing the generator. The child then
    # writes its last steps and final weights (more than the 64 kB pipe holds) to a reader nobody runs: close()
    # has to read them away, or the child never exits and is terminated after the whole timeout.
    model = TransformerConfig(num_hiddens=64, num_layers=2, num_heads=4, ffn_num_hiddens=128, dropout=0.0)
    process = TrainingProcess(_job(_config(model=model, num_epochs=5000, snapshot_every=0)))
    process.start()
    events = process.events(poll_s=0.05)
    assert isinstance(next(events), StartedEvent)
    time.sleep(1.0)  # steps pile up in the pipe: the next read takes many at once
    assert isinstance(next(events), StepEvent)  # stops at a step, generator kept open, the rest of its read pending
    t0 = time.monotonic()
    assert process.close(timeout_s=20.0) is True
    assert time.monotonic() - t0 < 10.0 and process.exitcode == 0
    assert list(events) == []  # the abandoned stream ends quietly


def test_paced_batches_hold_every_event_in_order_and_come_at_most_once_per_pace() -> None:
    """What the studio reads: each list holds what had arrived, lists come at most every ``pace_s``, and flattened
    they are the whole stream, in order, ending with the final weights."""
    config = _config(num_epochs=40, snapshot_every=5)  # ~120 steps: far more than one per pace
    process = TrainingProcess(_job(config))
    try:
        process.start()
        arrivals, batches = [], []
        for batch in process.event_batches(pace_s=0.25, poll_s=0.05):
            arrivals.append(time.monotonic())
            batches.append(batch)
    finally:
        process.close(timeout_s=5.0)
    events = [event for batch in batches for event in batch]
    assert isinstance(events[0], StartedEvent)
    assert isinstance(events[-1], ModelStateEvent) and events[-1].reason == "final"
    steps = [e.step for e in events if isinstance(e, StepEvent)]
    assert steps == list(range(1, len(steps) + 1)) and len(steps) == events[0].total_steps
    assert all(b - a >= 0.25 - 0.01 for a, b in zip(arrivals, arrivals[1:]))
    assert max(len(batch) for batch in batches) > 1  # events waited in the pipe and came together
