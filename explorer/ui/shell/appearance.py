"""How every panel of the main window looks: the theme (light, dark or following the system; the palette and
presenter scale go on top of it) and View → Show formula and explanation, given to each panel as it is built.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QAction, QGuiApplication

from explorer.ui import theme

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from explorer.ui.panels.base_panel import BasePanel
    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.main_menus import MenuActions

log = logging.getLogger(__name__)


class Appearance(QObject):
    """The theme and the explanation boxes of one main window; ``dark`` is the theme in force.

    Parameters
    ----------
    settings : AppSettings
        Where the theme and the explanation boxes' state are remembered.
    actions : MenuActions
        The View menu's theme and explanation entries are connected here.
    root : QWidget
        The window, re-polished when the theme changes.
    loaded_panels : callable returning the panels built so far
        Restyled when the theme changes.

    Signals
    -------
    panel_restyled(object): a panel was restyled for the theme; the palette and presenter scale go on top of it.
    """

    panel_restyled = Signal(object)

    def __init__(self, settings: AppSettings, actions: MenuActions, root: QWidget,
                 loaded_panels: Callable[[], list[BasePanel]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self._actions = actions
        self._root = root
        self._loaded_panels = loaded_panels
        self.dark = theme.resolve_dark(settings.theme)
        self._folded_for_presenter = False
        actions.theme_group.triggered.connect(self._on_theme_group_triggered)
        actions.explanation.toggled.connect(self._on_explanation_action_toggled)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_style_hints_color_scheme_changed)

    def set_theme_mode(self, mode: str) -> None:
        """Switch to ``system``/``light``/``dark``, remembered, restyling every built panel."""
        self._settings.theme = mode
        self._actions.check_theme(mode)
        self._apply_dark(theme.resolve_dark(mode))

    def panel_built(self, panel: BasePanel) -> None:
        """Give a panel built just now the explanation box's state and the theme; its box's folding is followed."""
        panel.explanation_box.toggled.connect(self._on_explanation_box_toggled)
        panel.set_explanation_visible(self._actions.explanation.isChecked())
        panel.page_built.connect(self._on_panel_page_built)  # a page made later gets the same look
        self.apply_to(panel)

    @Slot()
    def _on_panel_page_built(self) -> None:
        # the sender, not a bound copy of the panel: a connection holding the panel would keep it past its window
        panel = self.sender()
        if panel is not None:
            self.apply_to(panel)

    @Slot(bool)
    def fold_for_presenter(self, fold: bool) -> None:
        """Fold every formula box while presenter mode needs the room (True); False unfolds them again if the
        user had them open. The remembered choice is the user's, never the one presenter mode made."""
        if fold == self._folded_for_presenter:
            return
        self._folded_for_presenter = fold
        wanted = False if fold else bool(self._settings.get("view/explanation_visible"))
        if self._actions.explanation.isChecked() != wanted:
            self._actions.explanation.setChecked(wanted)
        else:
            for panel in self._loaded_panels():
                panel.set_explanation_visible(wanted)

    def apply_to(self, panel: BasePanel) -> None:
        """Restyle ``panel`` for the theme in force, then say so: the palette and presenter scale, which the theme
        may reset, are put back on top by whoever listens to ``panel_restyled``."""
        try:
            theme.restyle_plots(panel, self.dark)
            panel.apply_theme(self.dark)
        except Exception:  # a panel's theme hook failing is cosmetic
            log.exception("applying the theme to %s failed", panel.key)
        self.panel_restyled.emit(panel)

    def _apply_dark(self, dark: bool) -> None:
        self.dark = dark
        theme.apply_app_theme(dark, self._root)
        for panel in self._loaded_panels():
            self.apply_to(panel)

    @Slot(QAction)
    def _on_theme_group_triggered(self, action: QAction) -> None:
        self.set_theme_mode(action.data())

    @Slot(Qt.ColorScheme)
    def _on_style_hints_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self._settings.theme == "system":
            self._apply_dark(scheme == Qt.ColorScheme.Dark)

    @Slot(bool)
    def _on_explanation_action_toggled(self, visible: bool) -> None:
        if not self._folded_for_presenter or visible:  # unfolding by hand while presenting is the user's choice
            self._settings.set("view/explanation_visible", visible)
        for panel in self._loaded_panels():
            panel.set_explanation_visible(visible)

    @Slot(bool)
    def _on_explanation_box_toggled(self, visible: bool) -> None:
        self._actions.explanation.setChecked(visible)  # all panels follow the one the user folded
