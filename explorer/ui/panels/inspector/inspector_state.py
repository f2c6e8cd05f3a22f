"""The one owner of the model inspector's state (book §11.5–11.7 on any model): the model read and its inspections
(:class:`InspectState`), the debugging tools (:class:`DebugState`) and the head chosen for the large view. Views
subscribe to its signals and call its methods; the studio's model and data arrive through the shell's exchange."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from explorer.ui.panels.inspector.debug_state import DebugState
from explorer.ui.panels.inspector.inspect_state import InspectState

if TYPE_CHECKING:
    from explorer.ui.panels.model_exchange import ModelExchange


class InspectorState(QObject):
    """The inspected model, its results, the debugging tools and the selection.

    Signals
    -------
    head_selected(str, int, int): kind (``encoder``, ``decoder``, ``cross``), layer, head chosen for the
        detail view.
    message_posted(object, str): text (``Words`` when worded here) and level: ``info``, ``error`` (inline) or
        ``alert`` (a dialog too).
    """

    head_selected = Signal(str, int, int)
    message_posted = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.inspect = InspectState(self)
        self.inspect.message_posted.connect(self.message_posted)  # a signal-to-signal connection, no slot
        self.debug = DebugState(self.inspect, self)
        self.selected_head: tuple[str, int, int] | None = None
        self._exchange: ModelExchange | None = None

    def select_head(self, kind: str, layer: int, head: int) -> None:
        self.selected_head = (kind, layer, head)
        self.head_selected.emit(kind, layer, head)

    def join(self, exchange: ModelExchange) -> None:
        """Offer the studio's model as a choice and use its loaded pairs as the "data" sentence set, now and on
        every change."""
        if self._exchange is not None:
            self._exchange.studio_model_changed.disconnect(self._on_exchange_studio_model_changed)
            self._exchange.studio_data_changed.disconnect(self._on_exchange_studio_data_changed)
        self._exchange = exchange
        exchange.studio_model_changed.connect(self._on_exchange_studio_model_changed)
        exchange.studio_data_changed.connect(self._on_exchange_studio_data_changed)
        self.inspect.offer(exchange.studio_model)
        self.debug.set_data(exchange.studio_pairs, exchange.studio_task)

    def shutdown(self, timeout_ms: int) -> None:
        """Stop the readers and every debugging job, waiting at most about ``timeout_ms``."""
        self.inspect.shutdown(timeout_ms)
        self.debug.shutdown(timeout_ms)

    @Slot(object)
    def _on_exchange_studio_model_changed(self, record: object) -> None:
        self.inspect.offer(record)

    @Slot()
    def _on_exchange_studio_data_changed(self) -> None:
        self.debug.set_data(self._exchange.studio_pairs, self._exchange.studio_task)
