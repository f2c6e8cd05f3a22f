"""The main window's language: View → Language chooses it (remembered), and when the language in force changes
every text of the window, its panels, menus and dialogs is re-set in it (:mod:`explorer.ui.i18n.retranslate`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction

from explorer.ui.i18n.translators import language_manager

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.main_menus import MenuActions


class WindowLanguage(QObject):
    """The language choice of the window ``root``; ``shown`` is the language of the texts on screen.

    Signals
    -------
    retranslated(object): the texts on screen were re-set; carries ``convert(text)``, which returns a text of the
    old language in the new one (or None for a text that is no known message), for texts kept elsewhere.
    """

    retranslated = Signal(object)

    def __init__(self, settings: AppSettings, actions: MenuActions, root: QWidget,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self._actions = actions
        self._root = root
        self.shown = language_manager().language
        actions.language_group.triggered.connect(self._on_language_group_triggered)

    def choose(self, choice: str) -> None:
        """Show the app in ``choice`` (``system``, ``en`` or ``zh_CN``) from now on, remembered; the texts on
        screen change at once (the window's ``changeEvent`` calls :meth:`retranslate`)."""
        self._settings.language = choice
        self._actions.check_language(choice)
        language_manager().apply(choice)

    def retranslate(self) -> None:
        """Re-set every text of the window, its panels, menus and dialogs in the language in force."""
        from explorer.ui.i18n.converter import converter_for
        from explorer.ui.i18n.retranslate import own_popups, retranslate_tree

        new = language_manager().language
        if new == self.shown:
            return
        old, self.shown = self.shown, new
        retranslate_tree([self._root, *own_popups(self._root)], old, new)
        self.retranslated.emit(converter_for(old, new).convert)

    @Slot(QAction)
    def _on_language_group_triggered(self, action: QAction) -> None:
        self.choose(action.data())
