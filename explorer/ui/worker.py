"""The one way the GUI runs work in the background: superqt workers on Qt's global thread pool.

superqt's workers follow napari's protocol (started / yielded / returned / errored / finished, quit), emit
their signals from the pool thread and Qt queues them to receivers on the GUI thread, so a slot never runs
on a worker thread. Everything here rides on them:

- :func:`function_worker` — one call off the GUI thread (closing a training process, a file read);
- :func:`generator_worker` — a long iteration whose items arrive one by one (a training run's events);
- :class:`LatestOnlyRunner` — slider-driven recomputation that keeps only the newest request.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, QThreadPool, Signal, Slot
from superqt.utils import FunctionWorker, GeneratorWorker, WorkerBase, create_worker

from explorer.ui.process_settings import reserve_worker_threads

#: The object name of a single-shot timer that paces background work (a rest between computations) rather than
#: holding back a pending change: the panel walker does not wait for such a timer to settle a panel.
PACING_TIMER = "pacing"


def _run_plainly(worker: FunctionWorker | GeneratorWorker) -> None:
    """superqt's ``WorkerBase.run`` without its warnings capture.

    superqt wraps every job in ``warnings.catch_warnings()`` and points the process-wide
    ``warnings.showwarning`` at that job's ``warned`` signal. Both are global, not per thread: with jobs that
    overlap (a training run's reader is one for the whole run), one job restores what another had set, leaving
    ``showwarning`` pointing at a finished job's deleted signals object, so a later warning anywhere crashed or
    vanished. Warnings here behave as in any Python thread. A ``RuntimeError`` raised by the job is reported
    through ``errored`` like any other error (superqt dropped it, and ``finished`` with it).
    """
    worker.started.emit()
    worker._running = True
    try:
        result = worker.work()
        if isinstance(result, Exception):  # GeneratorWorker.work returns a RuntimeError raised by the generator
            raise result
        if not worker.abort_requested:
            worker.returned.emit(result)
    except Exception as exc:  # noqa: BLE001 - every failure of a job reaches the GUI as errored
        worker.errored.emit(exc)
    worker._running = False
    worker.finished.emit()
    worker._finished.emit(worker)


def _start_at_once(worker: FunctionWorker | GeneratorWorker) -> None:
    """superqt's ``WorkerBase.start`` without its wait for the event loop's next timer turn.

    Called from inside the event loop, superqt puts the start on a 1 ms timer (so that its caller may connect after
    ``start()``): the job waited behind everything already queued, ~80 ms of layout and paint for the first panel's
    job at start-up. Every caller here connects first, and the worker's signals reach the GUI thread queued, after
    the code that started it has returned.
    """
    if not all(hasattr(worker, name) for name in ("_worker_set", "_finished", "_set_discard")):
        WorkerBase.start(worker)  # a superqt that keeps its workers otherwise: its own start
        return
    if worker in worker._worker_set:
        raise RuntimeError("This worker is already started!")
    worker._worker_set.add(worker)  # kept alive until it has finished, as superqt keeps it
    worker._finished.connect(worker._set_discard)
    QThreadPool.globalInstance().start(worker)


class FunctionJob(FunctionWorker):
    """A superqt function worker that leaves the process-wide warnings machinery alone (see :func:`_run_plainly`)
    and starts at once (:func:`_start_at_once`)."""

    def start(self) -> None:  # noqa: D102 - superqt's, at once
        _start_at_once(self)

    def run(self) -> None:  # noqa: D102 - called by QThreadPool
        _run_plainly(self)


class GeneratorJob(GeneratorWorker):
    """A superqt generator worker that leaves the process-wide warnings machinery alone and starts at once."""

    def start(self) -> None:  # noqa: D102 - superqt's, at once
        _start_at_once(self)

    def run(self) -> None:  # noqa: D102 - called by QThreadPool
        _run_plainly(self)


def function_worker(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> FunctionJob:
    """A worker that will call ``fn(*args, **kwargs)`` on the pool: connect ``returned``/``errored``/``finished``,
    then ``start()`` it (a signal emitted before its connection is made would be lost)."""
    reserve_worker_threads()
    return create_worker(fn, *args, _start_thread=False, _ignore_errors=True, _worker_class=FunctionJob, **kwargs)


def generator_worker(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> GeneratorJob:
    """A worker that will iterate the generator function ``fn(*args, **kwargs)`` on the pool; items arrive as
    ``yielded``. Connect, then ``start()``."""
    reserve_worker_threads()
    return create_worker(fn, *args, _start_thread=False, _ignore_errors=True, _worker_class=GeneratorJob, **kwargs)


def _call_then_set(done: threading.Event, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    try:
        return fn(*args, **kwargs)
    finally:
        done.set()


class LatestOnlyRunner(QObject):
    """Run ``fn(*args)`` on a worker thread; at most one job runs and one waits.

    ``submit`` while a job runs replaces the waiting request (older waiting work is never run). When a job
    finishes and a newer request exists, its result is superseded and dropped, unless
    ``drop_superseded=False``, in which case it is still shown (useful when a computation is slower than
    the drag that feeds it). ``result_ready`` / ``failed`` are emitted on the GUI thread.
    """

    result_ready = Signal(object)
    failed = Signal(str)
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, drop_superseded: bool = True) -> None:
        super().__init__(parent)
        self._drop_superseded = drop_superseded
        self._latest_id = 0
        self._running_id: int | None = None
        self._running_done = threading.Event()
        self._worker: FunctionWorker | None = None
        self._outcome: tuple[bool, Any] | None = None
        self._pending: tuple[int, Callable[..., Any], tuple, dict] | None = None
        self._closed = False

    # ------------------------------------------------------------------ public API
    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
        """Request ``fn(*args, **kwargs)``; returns the request id (ignored after ``shutdown``)."""
        if self._closed:
            return -1
        self._latest_id += 1
        request = (self._latest_id, fn, args, kwargs)
        if self._running_id is None:
            self._start(request)
            self.busy_changed.emit(True)
        else:
            self._pending = request  # replaces any older waiting request
        return self._latest_id

    def cancel(self) -> None:
        """Forget waiting work and drop the result of the running job."""
        self._pending = None
        self._latest_id += 1

    def is_busy(self) -> bool:
        """True while a job runs or waits."""
        return self._running_id is not None or self._pending is not None

    def shutdown(self, timeout_ms: int = 1000) -> bool:
        """Stop accepting work and wait up to ``timeout_ms`` for the running job; True if it ended."""
        self._closed = True
        self.cancel()
        if self._running_id is None:
            return True
        return self._running_done.wait(max(0, timeout_ms) / 1000)

    # ------------------------------------------------------------------ internals
    def _start(self, request: tuple[int, Callable[..., Any], tuple, dict]) -> None:
        request_id, fn, args, kwargs = request
        self._running_id = request_id
        self._running_done = threading.Event()
        self._outcome = None
        worker = function_worker(_call_then_set, self._running_done, fn, args, kwargs)
        worker.returned.connect(self._on_worker_returned)
        worker.errored.connect(self._on_worker_errored)
        worker.finished.connect(self._on_worker_finished)
        self._worker = worker
        worker.start()

    @Slot(object)
    def _on_worker_returned(self, result: object) -> None:
        self._outcome = (True, result)

    @Slot(object)
    def _on_worker_errored(self, exc: object) -> None:
        self._outcome = (False, str(exc) or type(exc).__name__)

    @Slot()
    def _on_worker_finished(self) -> None:
        request_id, self._running_id, self._worker = self._running_id, None, None
        outcome, self._outcome = self._outcome, None
        if self._closed or request_id is None:
            return
        superseded = request_id != self._latest_id
        cancelled = superseded and self._pending is None
        if outcome is not None and (not superseded or (not self._drop_superseded and not cancelled)):
            ok, payload = outcome
            if ok:
                self.result_ready.emit(payload)
            else:
                self.failed.emit(str(payload))
        if self._pending is not None:
            request, self._pending = self._pending, None
            self._start(request)
        else:
            self.busy_changed.emit(False)
