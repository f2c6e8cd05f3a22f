"""The main window's menu bar: File (exports, lessons), View (panels, theme, language, palette, explanation,
presenter mode, lock), the current panel's menu, Help."""
from __future__ import annotations

from dataclasses import dataclass, field

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


def _add(menu: QMenu, text: str, shortcut: str = "", checkable: bool = False, checked: bool = False) -> QAction:
    action = menu.addAction(text)
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
    file_menu = bar.addMenu(translate("MainMenus", "&File"))
    export = file_menu.addAction(translate("MainMenus", "&Export current plot…"))
    export.setShortcut(QKeySequence("Ctrl+E"))
    export_all = _add(file_menu, translate("MainMenus", "Export &all plots and tables…"), "Ctrl+Shift+E")
    timelapse = _add(file_menu, translate("MainMenus", "Export training &time-lapse…"))
    file_menu.addSeparator()
    open_lesson = _add(file_menu, translate("MainMenus", "&Open lesson…"), "Ctrl+O")
    save_lesson = _add(file_menu, translate("MainMenus", "&Save lesson…"), "Ctrl+S")
    file_menu.addSeparator()
    quit_action = file_menu.addAction(translate("MainMenus", "&Quit"))
    quit_action.setShortcut(QKeySequence("Ctrl+Q"))
    quit_action.setMenuRole(QAction.MenuRole.QuitRole)

    view_menu = bar.addMenu(translate("MainMenus", "&View"))
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
    theme_menu = view_menu.addMenu(translate("MainMenus", "&Theme"))
    theme_group = QActionGroup(owner)
    theme_names = {"system": translate("MainMenus", "Follow system"), "light": translate("MainMenus", "Light"),
                   "dark": translate("MainMenus", "Dark")}
    for mode in THEMES:
        action = theme_menu.addAction(theme_names[mode])
        action.setCheckable(True)
        action.setData(mode)
        action.setChecked(mode == theme_mode)
        theme_group.addAction(action)
    language_menu = view_menu.addMenu(translate("MainMenus", "&Language"))
    language_group = QActionGroup(owner)
    for choice in LANGUAGES:  # each language by its own name, so anyone finds theirs
        name = LANGUAGE_NAMES.get(choice) or translate("MainMenus", "Follow system")
        action = _add(language_menu, name, checkable=True, checked=choice == language)
        action.setData(choice)
        language_group.addAction(action)
    colour_blind = _add(view_menu, translate("MainMenus", "&Colour-blind-safe colours"), checkable=True,
                        checked=palette == "colour_blind")
    explanation = view_menu.addAction(translate("MainMenus", "Show formula and &explanation"))
    explanation.setCheckable(True)
    explanation.setShortcut(QKeySequence("Ctrl+I"))
    explanation.setChecked(explanation_visible)
    view_menu.addSeparator()
    presenter = _add(view_menu, translate("MainMenus", "&Presenter mode"), "F11", checkable=True)
    scale_menu = view_menu.addMenu(translate("MainMenus", "Presenter &scale"))
    scale_group = QActionGroup(owner)
    for scale in PRESENTER_SCALES:
        action = _add(scale_menu, f"{scale * 100:.0f} %", checkable=True)
        action.setData(scale)
        scale_group.addAction(action)
    lock = _add(view_menu, translate("MainMenus", "&Lock controls"), "Ctrl+Shift+L", checkable=True)
    classroom = ClassroomActions(export_all, timelapse, open_lesson, save_lesson, presenter, scale_group,
                                 colour_blind, lock)
    classroom.check_scale(presenter_scale)

    help_menu = bar.addMenu(translate("MainMenus", "&Help"))
    about = help_menu.addAction(translate("MainMenus", "&About Attention Explorer"))
    about.setMenuRole(QAction.MenuRole.AboutRole)
    return MenuActions(export, quit_action, panels, panel_group, theme_group, language_group, explanation, about,
                       help_menu, classroom)
