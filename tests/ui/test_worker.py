"""The one background mechanism: superqt workers; items and results arrive on the GUI thread, in order."""
from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QThread, QThreadPool, Slot

from explorer.ui.process_settings import MIN_POOL_THREADS
from explorer.ui.worker import function_worker, generator_worker


class _Sink(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.items: list[int] = []
        self.threads: set[bool] = set()
        self.errors: list[str] = []

    @Slot(object)
    def on_item(self, item: object) -> None:
        self.items.append(int(item))
        self.threads.add(QThread.currentThread() is self.thread())

    @Slot(object)
    def on_error(self, exc: object) -> None:
        self.errors.append(str(exc))


def test_generator_items_arrive_on_the_gui_thread_in_order(qtbot) -> None:
    worker_threads: set[int] = set()

    def count(n: int):
        for i in range(n):
            worker_threads.add(threading.get_ident())
            yield i

    sink = _Sink()
    worker = generator_worker(count, 50)
    worker.yielded.connect(sink.on_item)
    with qtbot.waitSignal(worker.finished, timeout=5000):
        worker.start()
    assert sink.items == list(range(50)) and sink.threads == {True}
    assert threading.get_ident() not in worker_threads
    assert QThreadPool.globalInstance().maxThreadCount() >= MIN_POOL_THREADS


def test_function_errors_arrive_as_signals_not_exceptions(qtbot) -> None:
    def fail() -> None:
        raise ValueError("no such file")

    sink = _Sink()
    worker = function_worker(fail)
    worker.errored.connect(sink.on_error)
    with qtbot.waitSignal(worker.finished, timeout=5000):
        worker.start()
    assert sink.errors == ["no such file"]


def test_overlapping_jobs_leave_the_warnings_machinery_alone(qtbot) -> None:
    """superqt's own run() pointed the process-wide warnings.showwarning at each job's signal and restored it in
    the wrong order when jobs overlapped, leaving it on a finished job's deleted signals (a crash later)."""
    import warnings

    before = warnings.showwarning
    gate = threading.Event()

    def long_job():
        gate.wait(5)
        yield 1

    def short_job() -> int:
        return 2

    sink = _Sink()
    slow = generator_worker(long_job)
    slow.yielded.connect(sink.on_item)
    quick = function_worker(short_job)
    with qtbot.waitSignal(quick.finished, timeout=5000):
        slow.start()
        quick.start()
    with qtbot.waitSignal(slow.finished, timeout=5000):
        gate.set()
    assert warnings.showwarning is before


def test_a_runtime_error_in_a_generator_is_reported_and_finishes(qtbot) -> None:
    def broken():
        yield 1
        raise RuntimeError("the CUDA device went away")

    sink = _Sink()
    worker = generator_worker(broken)
    worker.yielded.connect(sink.on_item)
    worker.errored.connect(sink.on_error)
    with qtbot.waitSignal(worker.finished, timeout=5000):
        worker.start()
    assert sink.items == [1] and sink.errors == ["the CUDA device went away"]


def test_a_job_started_inside_the_event_loop_runs_at_once(qtbot) -> None:
    """superqt would start it on the loop's next timer turn, after what is queued (a panel's paint); ours starts it
    while the code that started it still runs, and its result still arrives afterwards, on the GUI thread."""
    from PySide6.QtCore import QTimer

    from explorer.ui.worker import LatestOnlyRunner

    ran = threading.Event()
    seen: dict[str, object] = {}
    runner = LatestOnlyRunner()

    def in_the_loop() -> None:  # a slot, like a panel's build
        runner.submit(lambda: ran.set() or "done")
        seen["ran_meanwhile"] = ran.wait(2.0)  # the GUI thread still in this turn
        seen["result_yet"] = "result" in seen

    runner.result_ready.connect(lambda result: seen.setdefault("result", result))
    with qtbot.waitSignal(runner.result_ready, timeout=5000):
        QTimer.singleShot(0, in_the_loop)
    assert seen == {"ran_meanwhile": True, "result_yet": False, "result": "done"}
    release = threading.Event()
    worker = function_worker(release.wait, 5)
    worker.start()
    try:
        worker.start()  # started twice is refused, as superqt refuses it
    except RuntimeError as exc:
        assert "already started" in str(exc)
    else:
        raise AssertionError("a second start was accepted")
    finally:
        with qtbot.waitSignal(worker.finished, timeout=5000):
            release.set()
