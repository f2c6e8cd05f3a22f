"""The status bar's messages from panels: a panel's message is shown while that panel is current, and again when
it comes back before the message has expired; another panel's message never stays on screen for it."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject, Slot

from explorer.ui.i18n.words import again

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStatusBar

    from explorer.ui.panels.base_panel import BasePanel

STATUS_MESSAGE_MS = 10_000


class PanelStatus(QObject):
    """Each panel's latest status message with its expiry, for one main window's status bar ``bar``;
    ``current_key`` names the panel shown now."""

    def __init__(self, bar: QStatusBar, current_key: Callable[[], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bar = bar
        self._current_key = current_key
        self._panels: dict[str, BasePanel] = {}
        self._messages: dict[str, tuple[str, float]] = {}  # panel key -> (message, monotonic expiry)

    def watch(self, key: str, panel: BasePanel) -> None:
        """Show the ``status_message`` of ``panel`` (the panel of ``key``) from now on."""
        self._panels[key] = panel
        panel.status_message.connect(self._on_panel_status_message)

    def show_for(self, key: str) -> None:
        """Show the unexpired message of ``key`` (it is becoming current), or clear the bar."""
        text, expiry = self._messages.get(key, ("", 0.0))
        remaining_ms = int((expiry - time.monotonic()) * 1000)
        bar = self._bar
        if text and remaining_ms > 0:
            bar.showMessage(text, remaining_ms)
        else:
            bar.clearMessage()

    def retranslate(self) -> None:
        """Word the kept messages again in the language in force, and the one on screen (the bar draws it: not a
        widget's text); messages that are data stay as they are."""
        self._messages = {key: (again(text), expiry) for key, (text, expiry) in self._messages.items()}
        self.show_for(self._current_key())

    @Slot(object)
    def _on_panel_status_message(self, text: str) -> None:
        key = next((k for k, panel in self._panels.items() if panel is self.sender()), None)
        if key is None:
            return
        self._messages[key] = (text, time.monotonic() + STATUS_MESSAGE_MS / 1000)
        if key == self._current_key():
            self._bar.showMessage(text, STATUS_MESSAGE_MS)
