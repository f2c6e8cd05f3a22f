"""The main window's language: View → Language chooses it (remembered), and when the language in force changes
every text of the window, its panels, menus and dialogs is re-set in it (:mod:`explorer.ui.i18n.retranslate`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction

from explorer.ui.i18n.translators import language_manager

if TYPE_CHECKING:
    from explorer.ui.shell.main_window import MainWindow


class WindowLanguage(QObject):
    """The language choice of one main window; ``shown`` is the language of the texts on screen."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self.shown = language_manager().language
        window.menu_actions.language_group.triggered.connect(self._on_language_group_triggered)

    def choose(self, choice: str) -> None:
        """Show the app in ``choice`` (``system``, ``en`` or ``zh_CN``) from now on, remembered; the texts on
        screen change at once (the window's ``changeEvent`` calls :meth:`retranslate`)."""
        self._window.settings.language = choice
        self._window.menu_actions.check_language(choice)
        language_manager().apply(choice)

    def retranslate(self) -> None:
        """Re-set every text of the window, its panels, menus and dialogs in the language in force."""
        from explorer.ui.i18n.converter import converter_for
        from explorer.ui.i18n.retranslate import own_popups, retranslate_tree

        new = language_manager().language
        if new == self.shown:
            return
        old, self.shown = self.shown, new
        window = self._window
        window.set_navigation_texts()  # built from the panel registry, in the language in force
        retranslate_tree([window, *own_popups(window)], old, new)
        window.panel_status.retranslate(converter_for(old, new).convert)

    @Slot(QAction)
    def _on_language_group_triggered(self, action: QAction) -> None:
        self.choose(action.data())
