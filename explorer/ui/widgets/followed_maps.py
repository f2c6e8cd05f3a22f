"""Rollout and flow as extra maps of the grid and the large view: their names (``rollout:encoder``), and the runner
that asks :mod:`explorer.core.debug.rollout` for them on a worker, for a training snapshot or an inspection."""
from __future__ import annotations

import math
import time
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from explorer.core.debug.rollout_settings import DEFAULT_RESIDUAL, METHODS, SELF_KINDS
from explorer.ui.worker import PACING_TIMER, LatestOnlyRunner

#: Flow in the GUI is computed only when it takes about this long or less (the studio's texts: a few ms).
GUI_FLOW_LIMIT_S = 5.0
#: The most of one core the maps of newer and newer snapshots may take: after a computation that took t CPU seconds,
#: the next one starts no sooner than t · (1 / MAX_DUTY − 1) later (the newest snapshot asked meanwhile). Flow of a
#: 6-layer model over a 20-token probe takes ~0.12 s; asked for at every redraw of a live grid (2.5 Hz) it took a
#: third of a core from the training beside it. A short text's maps (a few ms) still follow every redraw.
MAX_DUTY = 0.1
#: ... but a rest lasts at most this long: a text inspected soon after a slow one (flow of up to GUI_FLOW_LIMIT_S)
#: would otherwise wait for up to nine times that.
MAX_REST_S = 1.0


def extra_name(method: str, kind: str) -> str:
    """The name of an extra map: ``rollout:encoder``, ``flow:decoder``."""
    return f"{method}:{kind}"


def split_extra(name: str) -> tuple[str, str] | None:
    """``(method, kind)`` of an extra map's name, or None for a raw kind (``encoder``, ``cross``)."""
    method, _, kind = name.partition(":")
    return (method, kind) if method in METHODS and kind in SELF_KINDS else None


def full_maps(snapshot: Any) -> dict[str, Any]:
    """The full-resolution ``[layer] (h, q, k)`` maps of a snapshot or an inspection ({} when only pooled)."""
    maps = getattr(snapshot, "maps", None)
    return dict(maps) if maps else {}


def self_kinds(snapshot: Any) -> tuple[str, ...]:
    """The self-attention kinds whose rollout can be shown for ``snapshot``."""
    maps = full_maps(snapshot)
    return tuple(kind for kind in SELF_KINDS if kind in maps and len(maps[kind]))


def _follow(snapshot: Any, residual: float, limit_s: float) -> tuple[Any, Any, float]:
    """``(snapshot, FollowedMaps, CPU seconds of this thread)``: a lower bound where BLAS threads helped (a long
    text's rollout); flow, the costly part, runs on this thread alone."""
    from explorer.core.debug.rollout import follow_all

    start = time.thread_time()
    maps = follow_all(full_maps(snapshot), residual, limit_s)
    return snapshot, maps, time.thread_time() - start


class FollowedMapsRunner(QObject):
    """Computes every rollout and flow map of a snapshot off the GUI thread (the newest request only), taking at most
    ``max_duty`` of a core while requests keep coming (:data:`MAX_DUTY`, rests of at most ``max_rest_s``); a new
    residual is computed at once.

    Signals: ``computed(snapshot, FollowedMaps)``, ``failed(str)``."""

    computed = Signal(object, object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.residual = DEFAULT_RESIDUAL
        self.limit_s = GUI_FLOW_LIMIT_S
        self._runner = LatestOnlyRunner(self)
        self._runner.result_ready.connect(self._on_runner_result_ready)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.busy_changed.connect(self._on_runner_busy_changed)
        self.error = ""  # the last failure's message
        self._asked: Any = None
        self.latest: tuple[Any, Any] | None = None  # (snapshot, FollowedMaps)
        self.closed = False  # after shutdown: nothing is asked, and a late result is dropped
        self.max_duty, self.max_rest_s = MAX_DUTY, MAX_REST_S
        self._rest_until = 0.0  # time.monotonic() before which no computation starts
        self._waiting: Any = None  # the newest snapshot asked for while resting
        self._rest_timer = QTimer(self)  # paces the work: the panel walker does not wait for it
        self._rest_timer.setObjectName(PACING_TIMER)
        self._rest_timer.setSingleShot(True)
        self._rest_timer.timeout.connect(self._on_rest_timer_timeout)

    def request(self, snapshot: Any) -> None:
        """Compute the maps of ``snapshot`` unless they are known or asked for already: now, or once the running
        computation and the rest after it are over (a newer request replaces a waiting one)."""
        if self.closed or snapshot is None or not self_kinds(snapshot):
            return
        if self._asked is snapshot or (self.latest is not None and self.latest[0] is snapshot):
            self._waiting = None  # a snapshot asked for in between (and left) is not computed after all
            self._rest_timer.stop()
            return
        self._waiting = snapshot
        if not self._runner.is_busy():
            self._start_when_rested()

    def _start_when_rested(self) -> None:
        """Start the waiting request now, or arm the timer for the end of the rest."""
        if self._waiting is None or self.closed:
            return
        rest_s = self._rest_until - time.monotonic()
        if rest_s > 0:
            if not self._rest_timer.isActive():
                self._rest_timer.start(math.ceil(rest_s * 1000))
            return
        self._submit(self._waiting)

    def _submit(self, snapshot: Any) -> None:
        self._waiting = None
        self._asked = snapshot
        self._runner.submit(_follow, snapshot, self.residual, self.limit_s)

    def set_residual(self, residual: float) -> bool:
        """Use ``residual`` (r of Ã = r·A + (1 − r)·I) from now on; True when it changed, and the maps known are
        forgotten (a job still running for the old r is superseded by the next request)."""
        if residual == self.residual:
            return False
        self.residual = residual
        self.latest, self._asked = None, None
        self._runner.cancel()  # a computation with the old r still running is dropped when it ends
        self._rest_until, self._waiting = 0.0, None  # the user asked: no rest (the caller asks for what it shows)
        self._rest_timer.stop()
        return True

    def result_for(self, snapshot: Any) -> Any:
        """The ``FollowedMaps`` of ``snapshot`` when computed, else None."""
        return self.latest[1] if self.latest is not None and self.latest[0] is snapshot else None

    def shutdown(self, timeout_ms: int = 1000) -> bool:
        """Ask nothing more, drop what is still on its way and wait up to ``timeout_ms`` for the running job."""
        self.closed = True
        self._waiting = None
        self._rest_timer.stop()
        return self._runner.shutdown(timeout_ms)

    @Slot()
    def _on_rest_timer_timeout(self) -> None:
        if not self._runner.is_busy():
            self._start_when_rested()

    @Slot(bool)
    def _on_runner_busy_changed(self, busy: bool) -> None:
        if not busy:  # the computation ended (its result, if kept, came first): the waiting request may go next
            self._start_when_rested()

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        if self.closed:
            return
        self.error = message
        self._asked = None  # asking again may succeed (a newer snapshot, or the same once the model is free)
        self.failed.emit(message)

    @Slot(object)
    def _on_runner_result_ready(self, result: tuple[Any, Any, float]) -> None:
        if self.closed:
            return
        snapshot, maps, cpu_s = result
        duty = min(max(self.max_duty, 1e-3), 1.0)
        self._rest_until = time.monotonic() + min(cpu_s * (1.0 / duty - 1.0), self.max_rest_s)
        self.latest = (snapshot, maps)
        self._asked = None
        self.computed.emit(snapshot, maps)
