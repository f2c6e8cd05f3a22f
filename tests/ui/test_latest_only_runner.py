"""LatestOnlyRunner: work runs off the GUI thread, stale requests never run, superseded results are dropped."""
from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QThread

from explorer.ui.worker import LatestOnlyRunner


class Recorder:
    """A job function that records which inputs actually ran and on which thread."""

    def __init__(self, delay: float = 0.0, gate: threading.Event | None = None) -> None:
        self.delay = delay
        self.gate = gate
        self.ran: list[int] = []
        self.threads: set[int] = set()

    def __call__(self, value: int) -> int:
        if self.gate is not None:
            self.gate.wait(5)
        time.sleep(self.delay)
        self.ran.append(value)
        self.threads.add(threading.get_ident())
        return value * 10


@pytest.fixture
def runner(qtbot):
    r = LatestOnlyRunner()
    yield r
    r.shutdown(2000)


def test_result_arrives_on_gui_thread_from_a_worker(qtbot, runner) -> None:
    job = Recorder()
    seen: list[tuple[object, bool]] = []
    runner.result_ready.connect(lambda v: seen.append((v, QThread.currentThread() is runner.thread())))
    with qtbot.waitSignal(runner.result_ready, timeout=3000):
        runner.submit(job, 4)
    assert seen == [(40, True)]
    assert threading.get_ident() not in job.threads


def test_burst_runs_first_and_last_only_and_emits_last(qtbot, runner) -> None:
    gate = threading.Event()
    job = Recorder(gate=gate)
    results: list[object] = []
    runner.result_ready.connect(results.append)
    for value in range(20):  # a slider drag while the first job is still blocked
        runner.submit(job, value)
    assert runner.is_busy()
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=3000)
    assert job.ran == [0, 19]  # the 18 stale requests in between never ran
    assert results == [190]  # job 0 was superseded while running: its result is dropped


def test_keep_superseded_results_when_asked(qtbot) -> None:
    runner = LatestOnlyRunner(drop_superseded=False)
    gate = threading.Event()
    job = Recorder(gate=gate)
    results: list[object] = []
    runner.result_ready.connect(results.append)
    for value in range(5):
        runner.submit(job, value)
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=3000)
    assert results == [0, 40]
    runner.shutdown(2000)


def test_failure_is_reported_as_text(qtbot, runner) -> None:
    def boom() -> None:
        raise ValueError("bandwidth must be positive")

    with qtbot.waitSignal(runner.failed, timeout=3000) as blocker:
        runner.submit(boom)
    assert blocker.args == ["bandwidth must be positive"]


def test_busy_changed_brackets_the_work(qtbot, runner) -> None:
    states: list[bool] = []
    runner.busy_changed.connect(states.append)
    job = Recorder(delay=0.02)
    runner.submit(job, 1)
    runner.submit(job, 2)
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=3000)
    assert states == [True, False]


def test_cancel_drops_running_result(qtbot, runner) -> None:
    gate = threading.Event()
    job = Recorder(gate=gate)
    results: list[object] = []
    runner.result_ready.connect(results.append)
    runner.submit(job, 1)
    runner.cancel()
    gate.set()
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=3000)
    assert job.ran == [1] and results == []


def test_shutdown_waits_and_refuses_new_work(qtbot) -> None:
    runner = LatestOnlyRunner()
    job = Recorder(delay=0.1)
    results: list[object] = []
    runner.result_ready.connect(results.append)
    runner.submit(job, 1)
    assert runner.shutdown(3000) is True
    assert job.ran == [1]
    assert runner.submit(job, 2) == -1
    qtbot.wait(50)
    assert results == [] and job.ran == [1]
