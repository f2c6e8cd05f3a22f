"""What panels hand each other without importing each other (book §11.7): the Transformer studio's model on offer
and its training pairs, read by the model inspector. The shell owns the one instance and gives it to every panel
it builds (``BasePanel.join_exchange``); a panel built alone works without one."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal


class ModelExchange(QObject):
    """The studio's model on offer and its data, for any panel that reads models.

    Signals
    -------
    studio_model_changed(object): the studio's model on offer (its ``ModelRecord``: paused, finished or opened),
        or None when it has none (training moved on, reset).
    studio_data_changed(): :attr:`studio_pairs` or :attr:`studio_task` changed.
    """

    studio_model_changed = Signal(object)
    studio_data_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.studio_model: Any = None
        self.studio_pairs: list[tuple[str, str]] = []
        self.studio_task: str | None = None

    def offer_studio_model(self, record: Any) -> None:
        """The studio offers ``record`` (None: nothing) from now on."""
        if record is not self.studio_model:
            self.studio_model = record
            self.studio_model_changed.emit(record)

    def set_studio_data(self, pairs: list[tuple[str, str]], task: str | None) -> None:
        """The studio's loaded sentence pairs (source, target) and its synthetic task (None for a corpus)."""
        if pairs is not self.studio_pairs or task != self.studio_task:
            self.studio_pairs, self.studio_task = pairs, task
            self.studio_data_changed.emit()
