"""Heads of an inspected model computed on demand: the maps of a long text are held only pooled, so the large view
asks for the head it shows at full resolution (computed off the GUI thread) and draws it when it arrives."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from PySide6.QtCore import QObject, Signal, Slot

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance


class HeadSource(Protocol):
    """What computes an inspected model's heads on demand (the inspector's ``InspectState``): ``request_head`` is
    answered by ``head_computed`` (an object with ``inspection, name, layer, head, matrix``) or ``head_failed``."""

    head_computed: SignalInstance
    head_failed: SignalInstance

    def request_head(self, name: str, layer: int, head: int | None) -> None: ...


class HeadRequests(QObject):
    """The head the large view waits for from ``source`` (None: heads are only ever held, never computed).

    Signals: ``arrived()`` when the head waited for has been computed; ``failed(object)`` with why it could not be
    (a ``str`` or ``Words``)."""

    arrived = Signal()
    failed = Signal(object)

    def __init__(self, source: HeadSource | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._computed: Any = None  # the newest head computed on demand
        self.waiting: tuple | None = None  # (inspection, name, layer, head) asked for and not yet drawn
        if source is not None:
            source.head_computed.connect(self._on_source_head_computed)
            source.head_failed.connect(self._on_source_head_failed)

    def matrix(self, inspection: Any, name: str, layer: int, head: int | None) -> np.ndarray | None:
        """Head ``head`` (None: the mean of all) of ``name``'s ``layer``, (Tq, Tk): held by the inspection or computed
        before; else None, and asked for (once) unless there is no source."""
        held = inspection.head_map(name, layer, head)
        if held is not None or self._source is None:
            self.waiting = None
            return held
        wanted = (inspection, name, layer, head)
        done = self._computed
        if done is not None and (done.inspection, done.name, done.layer, done.head) == wanted:
            self.waiting = None
            return done.matrix
        if self.waiting != wanted:
            self.waiting = wanted
            self._source.request_head(name, layer, head)
        return None

    @Slot(object)
    def _on_source_head_computed(self, head_map: Any) -> None:
        self._computed = head_map
        if self.waiting == (head_map.inspection, head_map.name, head_map.layer, head_map.head):
            self.arrived.emit()

    @Slot(object)
    def _on_source_head_failed(self, message: Any) -> None:
        if self.waiting is not None:
            self.waiting = None
            self.failed.emit(message)
