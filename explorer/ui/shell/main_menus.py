"""The main window's menu bar: File (exports, lessons), View (panels, theme, language, palette, explanation,
presenter mode, lock), the current panel's menu, Help."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

from explorer.ui.i18n.translators import LANGUAGE_NAMES, translate
from explorer.ui.shell.panel_registry import PanelSpec, panel_title
from explorer.ui.settings import LANGUAGES, PRESENTER_SCALES, THEMES


@dataclass
class ClassroomActions:
    """File and View entries for teaching: exports of everything, lessons, presenter mode, palette, lock."""

    export_all: QAction
    timelapse: QAction
    open_lesson: QAction
    save_lesson: QAction
    presenter: QAction
    scale_group: QActionGroup
    colour_blind: QAction
    lock: QAction

    def shortcut_actions(self) -> list[QAction]:
        """The entries with shortcuts (kept working while a text field has focus)."""
        return [self.export_all, self.open_lesson, self.save_lesson, self.presenter, self.lock]

    def check_scale(self, scale: float) -> None:
        """Tick the presenter scale nearest ``scale``."""
        actions = self.scale_group.actions()
        nearest = min(actions, key=lambda a: abs(float(a.data()) - scale))
        nearest.setChecked(True)


@dataclass
class MenuActions:
    """The actions the main window connects to; ``panel_menus`` holds each panel's inserted menu."""

    export: QAction
    quit: QAction
    panels: list[QAction]
    panel_group: QActionGroup
    theme_group: QActionGroup
    language_group: QActionGroup
    explanation: QAction
    about: QAction
    help_menu: QMenu
    classroom: ClassroomActions
    panel_menus: dict[str, QAction] = field(default_factory=dict)
    #: (setter, words) of every text of the menus, re-set by :meth:`retranslate`.
    worded: list[tuple[Callable[[str], Any], Callable[[], str]]] = field(default_factory=list)

    def retranslate(self) -> None:
        """Set the menus' texts in the language in force (the window calls it on ``LanguageChange``)."""
        for setter, words in self.worded:
            setter(words())

    def shell_actions(self) -> list[QAction]:
        """The window's own actions with shortcuts (kept working while a text field has focus)."""
        return [self.export, self.quit, *self.panels, self.explanation, *self.classroom.shortcut_actions()]

    def check_theme(self, mode: str) -> None:
        """Tick the theme entry for ``mode``."""
        for action in self.theme_group.actions():
            action.setChecked(action.data() == mode)

    def check_language(self, choice: str) -> None:
        """Tick the language entry for ``choice`` (``system``, ``en`` or ``zh_CN``)."""
        for action in self.language_group.actions():
            action.setChecked(action.data() == choice)

    def show_panel_menu(self, bar: QMenuBar, key: str, menu: QMenu | None) -> None:
        """Insert ``menu`` for ``key`` (once, before Help) and show only the menu of ``key``."""
        if menu is not None and key not in self.panel_menus:
            self.panel_menus[key] = bar.insertMenu(self.help_menu.menuAction(), menu)
        for other, action in self.panel_menus.items():
            action.setVisible(other == key)


class _Words:
    """The texts of the menus being built, each set now and kept with how it is worded."""

    def __init__(self) -> None:
        self.worded: list[tuple[Callable[[str], Any], Callable[[], str]]] = []

    def __call__(self, setter: Callable[[str], Any], words: Callable[[], str]) -> None:
        self.worded.append((setter, words))
        setter(words())

    def menu(self, parent: QMenuBar | QMenu, text: str) -> QMenu:
        """A sub-menu titled ``translate("MainMenus", text)``."""
        menu = parent.addMenu("")
        self(menu.setTitle, lambda: translate("MainMenus", text))
        return menu


def _add(menu: QMenu, text: str, shortcut: str = "", checkable: bool = False, checked: bool = False,
         words: _Words | None = None) -> QAction:
    """An entry of ``menu``; with ``words``, ``text`` is a source text of the ``MainMenus`` context."""
    action = menu.addAction(text)
    if words is not None:
        words(action.setText, lambda: translate("MainMenus", text))
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    if checkable:
        action.setCheckable(True)
        action.setChecked(checked)
    return action


def build_menus(bar: QMenuBar, specs: tuple[PanelSpec, ...], theme_mode: str, explanation_visible: bool,
                owner: QWidget, palette: str = "standard", presenter_scale: float = 1.5,
                language: str = "system") -> MenuActions:
    """Fill ``bar`` and return its actions (unconnected)."""
    words = _Words()
    file_menu = words.menu(bar, QT_TRANSLATE_NOOP("MainMenus", "&File"))
    export = _add(file_menu, QT_TRANSLATE_NOOP("MainMenus", "&Export current plot…"), "Ctrl+E", words=words)
    export_all = _add(file_menu, QT_TRANSLATE_NOOP("MainMenus", "Export &all plots and tables…"), "Ctrl+Shift+E",
                      words=words)
    timelapse = _add(file_menu, QT_TRANSLATE_NOOP("MainMenus", "Export training &time-lapse…"), words=words)
    file_menu.addSeparator()
    open_lesson = _add(file_menu, QT_TRANSLATE_NOOP("MainMenus", "&Open lesson…"), "Ctrl+O", words=words)
    save_lesson = _add(file_menu, QT_TRANSLATE_NOOP("MainMenus", "&Save lesson…"), "Ctrl+S", words=words)
    file_menu.addSeparator()
    quit_action = _add(file_menu, QT_TRANSLATE_NOOP("MainMenus", "&Quit"), "Ctrl+Q", words=words)
    quit_action.setMenuRole(QAction.MenuRole.QuitRole)

    view_menu = words.menu(bar, QT_TRANSLATE_NOOP("MainMenus", "&View"))
    panel_group = QActionGroup(owner)
    panels: list[QAction] = []
    for i, spec in enumerate(specs, 1):
        action = view_menu.addAction(panel_title(spec))
        action.setCheckable(True)
        action.setData(spec.key)
        if i <= 9:
            action.setShortcut(QKeySequence(f"Ctrl+{i}"))
        panel_group.addAction(action)
        panels.append(action)
    view_menu.addSeparator()
    theme_menu = words.menu(view_menu, QT_TRANSLATE_NOOP("MainMenus", "&Theme"))
    theme_group = QActionGroup(owner)
    theme_names = {"system": QT_TRANSLATE_NOOP("MainMenus", "Follow system"),
                   "light": QT_TRANSLATE_NOOP("MainMenus", "Light"), "dark": QT_TRANSLATE_NOOP("MainMenus", "Dark")}
    for mode in THEMES:
        action = _add(theme_menu, theme_names[mode], words=words)
        action.setCheckable(True)
        action.setData(mode)
        action.setChecked(mode == theme_mode)
        theme_group.addAction(action)
    language_menu = words.menu(view_menu, QT_TRANSLATE_NOOP("MainMenus", "&Language"))
    language_group = QActionGroup(owner)
    for choice in LANGUAGES:  # each language by its own name (never translated), so anyone finds theirs
        name = LANGUAGE_NAMES.get(choice)
        action = _add(language_menu, name or QT_TRANSLATE_NOOP("MainMenus", "Follow system"), checkable=True,
                      checked=choice == language, words=None if name else words)
        action.setData(choice)
        language_group.addAction(action)
    colour_blind = _add(view_menu, QT_TRANSLATE_NOOP("MainMenus", "&Colour-blind-safe colours"), checkable=True,
                        checked=palette == "colour_blind", words=words)
    explanation = _add(view_menu, QT_TRANSLATE_NOOP("MainMenus", "Show formula and &explanation"), "Ctrl+I",
                       checkable=True, checked=explanation_visible, words=words)
    view_menu.addSeparator()
    presenter = _add(view_menu, QT_TRANSLATE_NOOP("MainMenus", "&Presenter mode"), "F11", checkable=True, words=words)
    scale_menu = words.menu(view_menu, QT_TRANSLATE_NOOP("MainMenus", "Presenter &scale"))
    scale_group = QActionGroup(owner)
    for scale in PRESENTER_SCALES:
        action = _add(scale_menu, f"{scale * 100:.0f} %", checkable=True)
        action.setData(scale)
        scale_group.addAction(action)
    lock = _add(view_menu, QT_TRANSLATE_NOOP("MainMenus", "&Lock controls"), "Ctrl+Shift+L", checkable=True,
                words=words)
    classroom = ClassroomActions(export_all, timelapse, open_lesson, save_lesson, presenter, scale_group,
                                 colour_blind, lock)
    classroom.check_scale(presenter_scale)

    help_menu = words.menu(bar, QT_TRANSLATE_NOOP("MainMenus", "&Help"))
    about = _add(help_menu, QT_TRANSLATE_NOOP("MainMenus", "&About Attention Explorer"), words=words)
    about.setMenuRole(QAction.MenuRole.AboutRole)
    return MenuActions(export, quit_action, panels, panel_group, theme_group, language_group, explanation, about,
                       help_menu, classroom, worded=words.worded)
