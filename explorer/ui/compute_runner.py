"""Run panel computations off the GUI thread, keeping only the newest request (slider drags coalesce)."""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot


class _Bridge(QObject):
    """Lives in the GUI thread; jobs emit ``finished`` from the worker, Qt queues it back."""

    finished = Signal(int, bool, object)  # request id, ok, result or message


class _Job(QRunnable):
    def __init__(self, request_id: int, fn: Callable[..., Any], args: tuple, kwargs: dict,
                 bridge: _Bridge) -> None:
        super().__init__()
        self._request_id = request_id
        self._fn = fn
        self._args = args
        self._kwargs = kwargs
        self._bridge = bridge

    def run(self) -> None:
        try:
            result: Any = self._fn(*self._args, **self._kwargs)
            ok = True
        except Exception as exc:  # reported through LatestOnlyRunner.failed, never raised in a thread
            result, ok = (str(exc) or type(exc).__name__), False
        try:
            self._bridge.finished.emit(self._request_id, ok, result)
        except RuntimeError:  # the runner was deleted while we computed: nobody is listening
            pass


class LatestOnlyRunner(QObject):
    """Run ``fn(*args)`` on a worker thread; at most one job runs and one waits.

    ``submit`` while a job runs replaces the waiting request (older waiting work is never run).
    When a job finishes and a newer request exists, its result is superseded and dropped, unless
    ``drop_superseded=False``, in which case it is still shown (useful when a computation is slower
    than the drag that feeds it). ``result_ready`` / ``failed`` are emitted on the GUI thread.

    Parameters
    ----------
    parent : QObject, optional
    drop_superseded : bool
        Drop results of requests that a newer ``submit`` has superseded (default True).
    """

    result_ready = Signal(object)
    failed = Signal(str)
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, drop_superseded: bool = True) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._bridge = _Bridge(self)
        self._bridge.finished.connect(self._on_bridge_finished)
        self._drop_superseded = drop_superseded
        self._latest_id = 0
        self._running_id: int | None = None
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
        return self._pool.waitForDone(timeout_ms)

    # ------------------------------------------------------------------ internals
    def _start(self, request: tuple[int, Callable[..., Any], tuple, dict]) -> None:
        request_id, fn, args, kwargs = request
        self._running_id = request_id
        self._pool.start(_Job(request_id, fn, args, kwargs, self._bridge))

    @Slot(int, bool, object)
    def _on_bridge_finished(self, request_id: int, ok: bool, payload: object) -> None:
        self._running_id = None
        if self._closed:
            return
        superseded = request_id != self._latest_id
        cancelled = superseded and self._pending is None
        if not superseded or (not self._drop_superseded and not cancelled):
            if ok:
                self.result_ready.emit(payload)
            else:
                self.failed.emit(str(payload))
        if self._pending is not None:
            request, self._pending = self._pending, None
            self._start(request)
        else:
            self.busy_changed.emit(False)
