"""The main window's teaching tools: presenter mode, the colour-blind-safe palette, locked controls, lessons,
Export all and the training time-lapse, connected to their File and View menu entries.

Every panel gets the palette and the presenter scale when it is built and whenever the theme restyles it
(``Appearance.panel_restyled`` is connected to :meth:`Classroom.restyle`).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

from explorer.ui import palette as palettes
from explorer.ui.shell.control_lock import ControlLock
from explorer.ui.shell.lessons.lesson import SUFFIX, LessonError
from explorer.ui.shell.lessons.actions import LessonController
from explorer.ui.shell.presenter import Presenter
from explorer.ui.widgets.file_dialogs import open_file_name, open_folder_name, save_file_name

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QWidget

    from explorer.ui.panels.base_panel import BasePanel
    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.export_all import ExportAllJob, ExportAllResult
    from explorer.ui.shell.main_menus import ClassroomActions
    from explorer.ui.shell.panel_access import PanelAccess

log = logging.getLogger(__name__)
MESSAGE_MS = 10_000


class Classroom(QObject):
    """Presenter mode, palette, lock, lessons and exports of one main window (see the module docstring).

    Parameters
    ----------
    actions : ClassroomActions
        The File and View entries connected here.
    settings : AppSettings
        Palette, presenter scale and the folders last used are remembered there.
    window : QMainWindow
        Goes full screen in presenter mode; its status bar shows the lock and the reports; parent of dialogs.
    area : QWidget
        The panel stack, whose controls the lock holds still.
    panels : PanelAccess
        The panels lessons and exports read and show.
    is_dark : callable returning bool
        Whether the theme in force is dark (the time-lapse is drawn in it).
    """

    #: Show message boxes (lesson reports); tests turn this off and read :attr:`last_report`.
    show_dialogs = True

    def __init__(self, actions: ClassroomActions, settings: AppSettings, window: QMainWindow, area: QWidget,
                 panels: PanelAccess, is_dark: Callable[[], bool]) -> None:
        super().__init__(window)
        self._window = window
        self._settings = settings
        self._panels = panels
        self._is_dark = is_dark
        self.actions = actions
        self.presenter = Presenter(window, settings.presenter_scale)
        self.lock = ControlLock(area, self)
        window.statusBar().addPermanentWidget(self.lock.indicator)
        self.lessons = LessonController(panels, settings, self)
        self.export_job: ExportAllJob | None = None
        self.timelapse_job: QObject | None = None
        self.last_report = ""
        actions.presenter.toggled.connect(self._on_presenter_toggled)
        actions.scale_group.triggered.connect(self._on_scale_group_triggered)
        actions.colour_blind.toggled.connect(self._on_colour_blind_toggled)
        actions.lock.toggled.connect(self.lock.set_locked)
        actions.open_lesson.triggered.connect(self._on_open_lesson_triggered)
        actions.save_lesson.triggered.connect(self._on_save_lesson_triggered)
        actions.export_all.triggered.connect(self._on_export_all_triggered)
        actions.timelapse.triggered.connect(self._on_timelapse_triggered)
        self.lock.input_refused.connect(self._on_lock_input_refused)
        self.lessons.problems_found.connect(self._on_lessons_problems_found)
        self.lessons.palette_chosen.connect(self.set_palette)
        self.lessons.presenter_scale_chosen.connect(self.set_presenter_scale)

    # ------------------------------------------------------------------ what the window calls
    def restyle(self, panel: BasePanel) -> None:
        """Give ``panel`` the palette and the presenter scale in force (after the theme restyled it)."""
        try:
            name = self._settings.palette
            palettes.restyle_maps(panel, name)
            panel.apply_palette(name)
            self.presenter.apply_to(panel)
        except Exception:  # cosmetic, like the theme
            log.exception("applying the palette or presenter scale to %s failed", panel.key)

    def panel_built(self, key: str, panel: BasePanel) -> None:
        """A panel was built (its settings restored, the theme applied): lesson settings waiting for it."""
        self.lessons.panel_built(key, panel)

    def shutdown(self) -> None:
        """Stop exports, leave presenter mode (the window's geometry is saved as a normal window) and unlock."""
        if self.export_job is not None:
            self.export_job.cancel()
        if self.timelapse_job is not None:
            self.timelapse_job.cancel()
        self.actions.presenter.setChecked(False)
        self.lock.set_locked(False)

    # ------------------------------------------------------------------ settings
    def set_palette(self, name: str) -> None:
        """Use palette ``name`` (``standard`` or ``colour_blind``) everywhere, remembered."""
        self._settings.palette = name
        self.actions.colour_blind.setChecked(name == "colour_blind")  # re-enters once, harmlessly
        for panel in self._panels.loaded_panels():
            self.restyle(panel)

    def set_presenter_scale(self, scale: float) -> None:
        """Scale fonts and lines by ``scale`` (1.25–2) in presenter mode, remembered."""
        self.presenter.set_scale(scale)
        self._settings.presenter_scale = self.presenter.scale
        self.actions.check_scale(self.presenter.scale)

    # ------------------------------------------------------------------ lessons
    def open_lesson(self, path: str) -> bool:
        """Open the lesson at ``path``; says what it skipped. False if the file is not a lesson."""
        try:
            opened = self.lessons.open(path)
        except LessonError as exc:
            self._report(self.tr("Could not open the lesson"), str(exc), warning=True)
            return False
        name = Path(path).name
        if opened.newer:
            intro = self.tr("{name} was saved by a newer version of Attention Explorer (lesson format {version}); "
                            "what this version understands was opened.").format(name=name, version=opened.version)
        else:
            intro = self.tr("Opened the lesson {name}.").format(name=name)
        if opened.skipped:
            details = self.tr("Skipped:\n{items}").format(items="\n".join(f"• {s}" for s in opened.skipped))
            self._report(self.tr("Lesson opened in part"), f"{intro}\n\n{details}", warning=True)
        else:
            self._report(self.tr("Lesson opened"), intro, dialog=opened.newer)
        return True

    def save_lesson(self, path: str) -> bool:
        """Save the scene to ``path``; False (with a message) on failure."""
        try:
            written, dropped = self.lessons.save(path)
        except OSError as exc:
            self._report(self.tr("Could not save the lesson"), str(exc), warning=True)
            return False
        self._settings.set("lesson/last_dir", str(written.parent))
        if dropped:
            items = "\n".join(f"• {d}" for d in dropped)
            self._report(self.tr("Lesson saved in part"),
                         self.tr("Saved the lesson to {path}; these settings could not be kept:\n{items}")
                         .format(path=written, items=items), warning=True)
        else:
            self._report(self.tr("Lesson saved"), self.tr("Saved the lesson to {path}.").format(path=written))
        return True

    def _report(self, title: str, text: str, warning: bool = False, dialog: bool | None = None) -> None:
        self.last_report = text
        self._window.statusBar().showMessage(text.replace("\n", " "), MESSAGE_MS)
        if self.show_dialogs and (warning if dialog is None else dialog):
            box = QMessageBox.warning if warning else QMessageBox.information
            box(self._window, title, text)

    # ------------------------------------------------------------------ exports
    def export_all(self, folder: str, png_width: int | None = None, min_wait_ms: int = 300) -> ExportAllJob:
        """Start exporting every panel into ``folder`` (see :mod:`explorer.ui.shell.export_all`); returns the job."""
        from explorer.ui.shell.export_all import ExportAllJob

        if self.export_job is not None:
            self.export_job.cancel()
        job = ExportAllJob(self._panels, folder, png_width, min_wait_ms=min_wait_ms)
        job.progressed.connect(self._on_export_job_progressed)
        job.finished.connect(self._on_export_job_finished)
        self.export_job = job
        job.start()
        return job

    def start_timelapse(self, path: str, **options: object) -> QObject | None:
        """Start writing the studio's time-lapse to ``path`` (format from its suffix; ``options`` as
        :func:`~explorer.ui.shell.timelapse_dialog.timelapse_job` takes them), in place of one still running;
        progress goes to the status bar. Returns the job, or None (with a status message) when there is nothing to
        show or the request is bad."""
        from explorer.ui.shell.timelapse_dialog import timelapse_job

        job = timelapse_job(self._panels.panel("studio"), self._window.statusBar(), self._settings.palette,
                            self._is_dark(), path, parent=self, **options)
        if job is not None:
            if self.timelapse_job is not None:
                self.timelapse_job.cancel()
            self.timelapse_job = job
            job.start()
        return job

    @Slot(int, str)
    def _on_export_job_progressed(self, _done: int, text: str) -> None:
        self._window.statusBar().showMessage(text, MESSAGE_MS)

    @Slot(object)
    def _on_export_job_finished(self, result: ExportAllResult) -> None:
        self.export_job = None
        if result.failures:
            text = self.tr("Exported {count} files to {folder} (index: {index}); not exported:\n{items}").format(
                count=len(result.files), folder=result.folder, index=result.index,
                items="\n".join(f"• {f}" for f in result.failures))
        else:
            text = self.tr("Exported {count} files to {folder} (index: {index}).").format(
                count=len(result.files), folder=result.folder, index=result.index)
        self.last_report = text
        self._window.statusBar().showMessage(text.replace("\n", " "), MESSAGE_MS)

    # ------------------------------------------------------------------ slots
    @Slot(bool)
    def _on_presenter_toggled(self, on: bool) -> None:
        if on:
            self.presenter.enter()
        else:
            self.presenter.leave()

    @Slot(QAction)
    def _on_scale_group_triggered(self, action: QAction) -> None:
        self.set_presenter_scale(float(action.data()))

    @Slot(bool)
    def _on_colour_blind_toggled(self, on: bool) -> None:
        self.set_palette("colour_blind" if on else "standard")

    @Slot()
    def _on_lock_input_refused(self) -> None:
        self._window.statusBar().showMessage(
            self.tr("The controls are locked: View → Lock controls unlocks them."), 3000)

    @Slot(list)
    def _on_lessons_problems_found(self, problems: list) -> None:
        self._report(self.tr("Lesson opened in part"), self.tr("Skipped:\n{items}").format(
            items="\n".join(f"• {p}" for p in problems)), warning=True)

    @Slot()
    def _on_open_lesson_triggered(self) -> None:
        path = open_file_name(self._window, self.tr("Open lesson"), self._lesson_filter(),
                              self._settings.get("lesson/last_dir"))
        if path:
            self.open_lesson(path)

    @Slot()
    def _on_save_lesson_triggered(self) -> None:
        path, _ = save_file_name(self._window, self.tr("Save lesson"), f"lesson{SUFFIX}", self._lesson_filter(),
                                 self._settings.get("lesson/last_dir"))
        if path:
            self.save_lesson(path if path.lower().endswith(SUFFIX) else f"{path}{SUFFIX}")

    def _lesson_filter(self) -> str:
        return self.tr("Attention Explorer lesson (*{suffix})").format(suffix=SUFFIX)

    @Slot()
    def _on_export_all_triggered(self) -> None:
        folder = open_folder_name(self._window, self.tr("Export all plots and tables into"),
                                  self._settings.get("export/all_last_dir"))
        if folder:
            self._settings.set("export/all_last_dir", folder)
            self.export_all(folder, self._settings.get("export/png_width"))

    @Slot()
    def _on_timelapse_triggered(self) -> None:
        from explorer.ui.shell.timelapse_dialog import ask_timelapse

        request = ask_timelapse(self._panels.panel("studio"), self._settings, self._window.statusBar(), self._window)
        if request is not None:
            self.start_timelapse(**request)
