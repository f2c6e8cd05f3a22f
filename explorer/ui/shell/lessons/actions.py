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
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.panels.base_panel import BasePanel

STUDIO = "studio"


class LessonController(QObject):
    """Saves and opens lessons for ``window``; ``problems_found`` reports what a deferred panel could not take.

    Signals
    -------
    problems_found(list): lines ``"where: why"`` from applying a lesson to a panel built after it was opened.
    """

    problems_found = Signal(list)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._pending: dict[str, dict[str, Any]] = {}
        self._pending_source: StudioSource | None = None  # the studio's model or run, until it is built

    # ------------------------------------------------------------------ saving
    def current_lesson(self) -> tuple[Lesson, list[str]]:
        """The scene on screen as a lesson, and the settings that could not be kept (``"where: why"``)."""
        window, dropped = self._window, []
        panels: dict[str, dict[str, Any]] = {}
        for key in window.keys():
            panel = window.panel(key)
            if panel is not None:
                captured = safely(f"panels.{key}", lambda p=panel: capture_panel(p), dropped)
                if captured is None:
                    continue
                panels[key], names = captured
                dropped.extend(self.tr("panels.{key}.settings.{name}: no JSON form").format(key=key, name=name)
                               for name in names)
            elif key in self._pending:
                panels[key] = dict(self._pending[key])
            elif window.panel_error(key) is None:
                panels[key] = stored_panel(window.settings.qsettings, key)
        lesson = Lesson(current_panel=window.current_key(), theme=window.settings.theme,
                        palette=window.settings.palette, presenter_scale=window.settings.presenter_scale,
                        language=language_manager().choice, panels=panels)
        studio = window.panel(STUDIO)
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
        window = self._window
        opened = read_lesson(path, window.keys())
        lesson, skipped = opened.lesson, opened.skipped
        if lesson.theme is not None:
            window.appearance.set_theme_mode(lesson.theme)
        if lesson.palette is not None:
            window.classroom.set_palette(lesson.palette)
        if lesson.presenter_scale is not None:
            window.classroom.set_presenter_scale(lesson.presenter_scale)
        if lesson.language is not None:
            window.language.choose(lesson.language)
        source = locate(lesson_source(lesson), Path(path).parent, skipped)
        self._pending_source = None
        for key, values in lesson.panels.items():
            panel = window.panel(key)
            if panel is None:
                self._pending[key] = values
            else:
                safely(f"panels.{key}", lambda p=panel, v=values: apply_panel(p, v), skipped)
        if source is not None:
            studio = window.panel(STUDIO)
            if studio is None:
                self._pending_source = source
            else:
                open_source(studio, source, skipped)
        if lesson.current_panel is not None:
            if window.isVisible():
                window.show_panel(lesson.current_panel)
            else:
                window.select_panel(lesson.current_panel)
        return opened

    def panel_built(self, key: str, panel: BasePanel) -> None:
        """Give a panel built just now the lesson's settings that waited for it."""
        problems: list[str] = []
        values = self._pending.pop(key, None)
        if values is not None:
            safely(f"panels.{key}", lambda: apply_panel(panel, values), problems)
        if key == STUDIO and self._pending_source is not None:
            source, self._pending_source = self._pending_source, None
            open_source(panel, source, problems)
        if problems:
            self.problems_found.emit(problems)

    def pending_keys(self) -> list[str]:
        """Panels whose lesson settings wait for them to be built."""
        return sorted(self._pending)
