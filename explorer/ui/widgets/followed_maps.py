"""Rollout and flow as extra maps of the grid and the large view: their names (``rollout:encoder``), and the runner
that asks :mod:`explorer.core.debug.rollout` for them on a worker, for a training snapshot or an inspection."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from explorer.core.debug.rollout_settings import DEFAULT_RESIDUAL, METHODS, SELF_KINDS
from explorer.ui.worker import LatestOnlyRunner

#: Flow in the GUI is computed only when it takes about this long or less (the studio's texts: a few ms).
GUI_FLOW_LIMIT_S = 5.0


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


def _follow(snapshot: Any, residual: float, limit_s: float) -> tuple[Any, Any]:
    from explorer.core.debug.rollout import follow_all

    return snapshot, follow_all(full_maps(snapshot), residual, limit_s)


class FollowedMapsRunner(QObject):
    """Computes every rollout and flow map of a snapshot off the GUI thread (the newest request only).

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
        self.error = ""  # the last failure's message
        self._asked: Any = None
        self.latest: tuple[Any, Any] | None = None  # (snapshot, FollowedMaps)
        self.closed = False  # after shutdown: nothing is asked, and a late result is dropped

    def request(self, snapshot: Any) -> None:
        """Compute the maps of ``snapshot`` unless they are known or asked for already."""
        if self.closed or snapshot is None or not self_kinds(snapshot):
            return
        if self._asked is snapshot or (self.latest is not None and self.latest[0] is snapshot):
            return
        self._asked = snapshot
        self._runner.submit(_follow, snapshot, self.residual, self.limit_s)

    def set_residual(self, residual: float) -> bool:
        """Use ``residual`` (r of Ã = r·A + (1 − r)·I) from now on; True when it changed, and the maps known are
        forgotten (a job still running for the old r is superseded by the next request)."""
        if residual == self.residual:
            return False
        self.residual = residual
        self.latest, self._asked = None, None
        return True

    def result_for(self, snapshot: Any) -> Any:
        """The ``FollowedMaps`` of ``snapshot`` when computed, else None."""
        return self.latest[1] if self.latest is not None and self.latest[0] is snapshot else None

    def shutdown(self, timeout_ms: int = 1000) -> bool:
        """Ask nothing more, drop what is still on its way and wait up to ``timeout_ms`` for the running job."""
        self.closed = True
        return self._runner.shutdown(timeout_ms)

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        if self.closed:
            return
        self.error = message
        self._asked = None  # asking again may succeed (a newer snapshot, or the same once the model is free)
        self.failed.emit(message)

    @Slot(object)
    def _on_runner_result_ready(self, result: tuple[Any, Any]) -> None:
        if self.closed:
            return
        self.latest = result
        self._asked = None
        self.computed.emit(*result)
