"""The training worker: events cross threads as signals; pause/step/resume/stop; clean shutdown."""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass

import numpy as np
import pytest
from PySide6.QtCore import QThread

from explorer.ui.worker import TrainingWorker


@dataclass
class _Event:
    kind: str
    step: int = 0
    loss: float = 0.0
    message: str = ""
    weights: np.ndarray | None = None


class _FakeTrainer:
    """A trainer with the core's control surface; each step sleeps ``step_s``."""

    def __init__(self, steps: int = 50, step_s: float = 0.002, fail_at: int | None = None) -> None:
        self.steps, self.step_s, self.fail_at = steps, step_s, fail_at
        self._stop = threading.Event()
        self._go = threading.Event()
        self._go.set()
        self._one = threading.Event()
        self.threads: set[int] = set()

    def pause(self) -> None:
        self._go.clear()

    def resume(self) -> None:
        self._go.set()

    def stop(self) -> None:
        self._stop.set()
        self._go.set()

    def request_step(self) -> None:
        self._one.set()

    def __iter__(self):
        for step in range(1, self.steps + 1):
            while not self._go.is_set() and not self._one.is_set():
                time.sleep(0.001)
            self._one.clear()
            if self._stop.is_set():
                break
            self.threads.add(threading.get_ident())
            time.sleep(self.step_s)
            if step == self.fail_at:
                raise RuntimeError("boom")
            yield _Event("step", step=step, loss=1.0 / step)
            if step % 10 == 0:
                yield _Event("snapshot", step=step, weights=np.full((2, 2), step, np.float32))
        yield _Event("finished", step=step)


def test_events_arrive_on_gui_thread_in_order(qtbot) -> None:
    trainer = _FakeTrainer(steps=30)
    worker = TrainingWorker(trainer)
    steps, snaps, finished, gui_threads = [], [], [], set()

    def on_step(e):
        steps.append(e.step)
        gui_threads.add(threading.get_ident())

    worker.step_finished.connect(on_step)
    worker.snapshot_taken.connect(lambda e: snaps.append(float(e.weights[0, 0])))
    worker.training_finished.connect(finished.append)
    switch = sys.getswitchinterval()
    with qtbot.waitSignal(worker.stopped, timeout=5000):
        worker.start()
        assert sys.getswitchinterval() <= 0.001  # quick GIL hand-overs while training
    assert sys.getswitchinterval() == switch
    qtbot.wait(20)
    assert steps == list(range(1, 31))
    assert snaps == [10.0, 20.0, 30.0]
    assert len(finished) == 1
    assert gui_threads == {threading.get_ident()}
    assert threading.get_ident() not in trainer.threads  # training ran elsewhere
    assert not worker.is_running()
    with pytest.raises(RuntimeError, match="only once"):
        worker.start()


def test_pause_step_resume_stop(qtbot) -> None:
    trainer = _FakeTrainer(steps=100_000, step_s=0.001)
    worker = TrainingWorker(trainer)
    steps: list[int] = []
    worker.step_finished.connect(lambda e: steps.append(e.step))
    worker.start()
    qtbot.waitUntil(lambda: len(steps) >= 3, timeout=5000)
    worker.pause()
    assert worker.is_paused()
    qtbot.wait(100)  # in-flight steps land
    frozen = len(steps)
    qtbot.wait(150)
    assert len(steps) == frozen  # paused: nothing new
    worker.request_step()
    qtbot.waitUntil(lambda: len(steps) == frozen + 1, timeout=3000)
    qtbot.wait(100)
    assert len(steps) == frozen + 1  # exactly one batch
    worker.resume()
    qtbot.waitUntil(lambda: len(steps) >= frozen + 20, timeout=5000)
    with qtbot.waitSignal(worker.stopped, timeout=2000):
        worker.stop()
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert not worker.is_running()


def test_exception_in_trainer_becomes_message(qtbot) -> None:
    worker = TrainingWorker(_FakeTrainer(steps=20, fail_at=5))
    messages: list[str] = []
    worker.training_failed.connect(messages.append)
    with qtbot.waitSignal(worker.stopped, timeout=5000):
        worker.start()
    assert len(messages) == 1 and "RuntimeError: boom" in messages[0]


def test_error_event_becomes_message(qtbot) -> None:
    class _Failing(_FakeTrainer):
        def __iter__(self):
            yield _Event("step", step=1, loss=1.0)
            yield _Event("error", message="Loss became NaN at step 2.")

    worker = TrainingWorker(_Failing())
    with qtbot.waitSignal(worker.training_failed, timeout=5000) as blocker:
        worker.start()
    assert blocker.args == ["Loss became NaN at step 2."]
    qtbot.waitUntil(lambda: not worker.is_running(), timeout=2000)


def test_shutdown_while_running_and_paused_is_fast(qtbot) -> None:
    for pause in (False, True):
        trainer = _FakeTrainer(steps=10**9, step_s=0.005)
        worker = TrainingWorker(trainer)
        worker.start()
        qtbot.wait(50)
        if pause:
            worker.pause()
        t0 = time.perf_counter()
        assert worker.shutdown(1000)
        assert time.perf_counter() - t0 < 1.0
        assert not worker.is_running()
        assert worker._thread is not None and worker._thread.isFinished()


def test_shutdown_timeout_parks_the_thread(qtbot) -> None:
    from explorer.ui import worker as worker_mod

    class _Stubborn(_FakeTrainer):
        def __iter__(self):
            yield _Event("step", step=1)
            time.sleep(0.4)  # ignores stop for a while

    worker = TrainingWorker(_Stubborn())
    worker.start()
    qtbot.wait(30)
    thread: QThread = worker._thread
    assert worker.shutdown(50) is False
    assert thread in worker_mod._PARKED
    del worker
    qtbot.waitUntil(thread.isFinished, timeout=3000)
    qtbot.waitUntil(lambda: thread not in worker_mod._PARKED, timeout=3000)


def test_shutdown_before_start_is_a_no_op(qtbot) -> None:
    assert TrainingWorker(_FakeTrainer()).shutdown(10)
