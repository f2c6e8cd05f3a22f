"""The main window's language: View → Language chooses it (remembered). When the language in force changes, Qt
sends ``LanguageChange`` to every widget and each re-sets its own texts; the window re-sets what it draws itself."""
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
    retranslated(): the language on screen changed: the window re-sets the texts no widget of its own holds
    (menus, navigation, status messages).
    """

    retranslated = Signal()

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
        """Called on the window's ``LanguageChange``: says so once per language."""
        new = language_manager().language
        if new == self.shown:
            return
        self.shown = new
        self.retranslated.emit()

    @Slot(QAction)
    def _on_language_group_triggered(self, action: QAction) -> None:
        self.choose(action.data())
