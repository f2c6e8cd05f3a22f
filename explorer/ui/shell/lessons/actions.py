"""File → Save lesson / Open lesson for the main window: gather the scene from every panel, and give it back.

Panels stay lazy: a lesson's settings for a panel not built yet wait until it is built (then they replace what
the app's settings restored); a panel not built yet is saved with what the app's settings hold for it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from explorer import __version__
from explorer.ui.i18n.translators import language_manager
from explorer.ui.shell.lessons.lesson import Lesson, OpenedLesson, read_lesson, write_lesson
from explorer.ui.shell.lessons.store import apply_panel, capture_panel, safely, stored_panel
from explorer.ui.shell.lessons.studio import StudioSource, captured_source, lesson_source, locate, open_source, store_source

if TYPE_CHECKING:
    from explorer.ui.panels.base_panel import BasePanel
    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.panel_access import PanelAccess

STUDIO = "studio"


class LessonController(QObject):
    """Saves and opens lessons of the window whose ``panels`` and ``settings`` it is given.

    The look a lesson asks for is said by signals, emitted in this order before its panels' settings are applied.

    Signals
    -------
    problems_found(list): lines ``"where: why"`` from applying a lesson to a panel built after it was opened.
    theme_chosen(str): the lesson's theme (``system``, ``light`` or ``dark``).
    palette_chosen(str): the lesson's palette (``standard`` or ``colour_blind``).
    presenter_scale_chosen(float): the lesson's presenter scale.
    language_chosen(str): the lesson's language (``system``, ``en`` or ``zh_CN``).
    """

    problems_found = Signal(list)
    theme_chosen = Signal(str)
    palette_chosen = Signal(str)
    presenter_scale_chosen = Signal(float)
    language_chosen = Signal(str)

    def __init__(self, panels: PanelAccess, settings: AppSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._panels = panels
        self._settings = settings
        self._pending: dict[str, dict[str, Any]] = {}
        self._pending_source: StudioSource | None = None  # the studio's model or run, until it is built

    # ------------------------------------------------------------------ saving
    def current_lesson(self) -> tuple[Lesson, list[str]]:
        """The scene on screen as a lesson, and the settings that could not be kept (``"where: why"``)."""
        access, settings, dropped = self._panels, self._settings, []
        panels: dict[str, dict[str, Any]] = {}
        for key in access.keys():
            panel = access.panel(key)
            if panel is not None:
                captured = safely(f"panels.{key}", lambda p=panel: capture_panel(p), dropped)
                if captured is None:
                    continue
                panels[key], names = captured
                dropped.extend(self.tr("panels.{key}.settings.{name}: no JSON form").format(key=key, name=name)
                               for name in names)
            elif key in self._pending:
                panels[key] = dict(self._pending[key])
            elif access.panel_error(key) is None:
                panels[key] = stored_panel(settings.qsettings, key)
        lesson = Lesson(current_panel=access.current_key(), theme=settings.theme,
                        palette=settings.palette, presenter_scale=settings.presenter_scale,
                        language=language_manager().choice, panels=panels)
        studio = access.panel(STUDIO)
        store_source(lesson, captured_source(studio) if studio is not None else self._pending_source)
        return lesson, dropped

    def save(self, path: str | os.PathLike[str]) -> tuple[Path, list[str]]:
        """Write the scene to ``path``; returns the file and what could not be kept. Raises ``OSError``."""
        lesson, dropped = self.current_lesson()
        return write_lesson(path, lesson, __version__), dropped

    # ------------------------------------------------------------------ opening
    def open(self, path: str | os.PathLike[str]) -> OpenedLesson:
        """Read the lesson at ``path`` and apply what it can; ``skipped`` of the result lists the rest.

        Raises ``LessonError`` when the file is not a lesson at all (nothing is changed then).
        """
        access = self._panels
        opened = read_lesson(path, access.keys())
        lesson, skipped = opened.lesson, opened.skipped
        if lesson.theme is not None:
            self.theme_chosen.emit(lesson.theme)
        if lesson.palette is not None:
            self.palette_chosen.emit(lesson.palette)
        if lesson.presenter_scale is not None:
            self.presenter_scale_chosen.emit(lesson.presenter_scale)
        if lesson.language is not None:
            self.language_chosen.emit(lesson.language)
        source = locate(lesson_source(lesson), Path(path).parent, skipped)
        self._pending_source = None
        for key, values in lesson.panels.items():
            panel = access.panel(key)
            if panel is None:
                self._pending[key] = values
            else:
                unused = safely(f"panels.{key}", lambda p=panel, v=values: apply_panel(p, v), skipped)
                skipped.extend(f"panels.{key}.settings.{line}" for line in unused or ())
        if source is not None:
            studio = access.panel(STUDIO)
            if studio is None:
                self._pending_source = source
            else:
                open_source(studio, source, skipped)
        if lesson.current_panel is not None:
            access.go_to(lesson.current_panel)
        return opened

    def panel_built(self, key: str, panel: BasePanel) -> None:
        """Give a panel built just now the lesson's settings that waited for it."""
        problems: list[str] = []
        values = self._pending.pop(key, None)
        if values is not None:
            unused = safely(f"panels.{key}", lambda: apply_panel(panel, values), problems)
            problems.extend(f"panels.{key}.settings.{line}" for line in unused or ())
        if key == STUDIO and self._pending_source is not None:
            source, self._pending_source = self._pending_source, None
            open_source(panel, source, problems)
        if problems:
            self.problems_found.emit(problems)

    def pending_keys(self) -> list[str]:
        """Panels whose lesson settings wait for them to be built."""
        return sorted(self._pending)
