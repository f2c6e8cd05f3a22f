"""Where file dialogs open: the folder the user last chose a file in, else their documents folder, never the
process's current folder (a checkout's source tree when the app is started from one)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from explorer.ui.settings import AppSettings

#: The folder of the last file or folder chosen in any of the app's dialogs (a key of the settings' defaults table).
LAST_FOLDER_KEY = "files/last_dir"


def documents_folder() -> str:
    """The user's documents folder where the platform has one, else their home folder."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return location if location and Path(location).is_dir() else str(Path.home())


def start_folder(remembered: str | None = None) -> str:
    """The folder a dialog opens in: ``remembered`` (a dialog's own memory) if it still exists, else the last folder
    chosen in any dialog, else :func:`documents_folder`."""
    for candidate in (remembered, AppSettings().get(LAST_FOLDER_KEY)):
        if candidate and Path(candidate).is_dir():
            return candidate
    return documents_folder()


def remember_choice(path: str) -> str:
    """Remember the folder of a chosen file (or the chosen folder) for the next dialog; returns ``path``."""
    if path:
        chosen = Path(path)
        folder = chosen if chosen.is_dir() else chosen.parent
        settings = AppSettings()
        settings.set(LAST_FOLDER_KEY, str(folder))
        settings.sync()
    return path


def open_file_name(parent: QWidget | None, title: str, filters: str, remembered: str | None = None) -> str:
    """An existing file chosen by the user ('' if cancelled)."""
    path, _ = QFileDialog.getOpenFileName(parent, title, start_folder(remembered), filters)
    return remember_choice(path)


def open_folder_name(parent: QWidget | None, title: str, remembered: str | None = None) -> str:
    """An existing folder chosen by the user ('' if cancelled)."""
    return remember_choice(QFileDialog.getExistingDirectory(parent, title, start_folder(remembered)))


def save_file_name(parent: QWidget | None, title: str, file_name: str, filters: str,
                   remembered: str | None = None, chosen_filter: str = "") -> tuple[str, str]:
    """A file to write, suggested as ``file_name`` in the start folder; ``('', '')`` if cancelled. Returns the
    path and the filter the user picked."""
    suggested = file_name if Path(file_name).is_absolute() else str(Path(start_folder(remembered)) / file_name)
    path, picked = QFileDialog.getSaveFileName(parent, title, suggested, filters, chosen_filter)
    return remember_choice(path), picked
