"""File dialogs open in the folder last chosen, else the user's documents folder: never the process's current
folder (the source tree when the app runs from a checkout)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from explorer.ui.settings import set_settings_dir
from explorer.ui.widgets import file_dialogs


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The start folder of every dialog shown; each dialog answers with ``tmp_path/picked/model.safetensors``."""
    set_settings_dir(tmp_path / "settings")
    picked = tmp_path / "picked"
    picked.mkdir()
    starts: list[str] = []

    def answer_file(_parent, _title, start, *_rest):
        starts.append(start)
        return str(picked / "model.safetensors"), ""

    def answer_folder(_parent, _title, start, *_rest):
        starts.append(start)
        return str(picked)

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(answer_file))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(answer_file))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(answer_folder))
    monkeypatch.chdir(tmp_path)  # the "source tree" a dialog must not open in
    yield starts
    set_settings_dir(None)


def test_first_dialog_opens_in_documents_then_in_the_last_folder_chosen(qapp, asked: list[str], tmp_path: Path) -> None:
    assert file_dialogs.open_file_name(None, "Open", "*") == str(tmp_path / "picked" / "model.safetensors")
    assert asked[0] == file_dialogs.documents_folder() and asked[0] not in ("", os.getcwd())
    file_dialogs.open_folder_name(None, "Open folder")
    path, _ = file_dialogs.save_file_name(None, "Save", "lesson.json", "*")
    assert asked[1] == str(tmp_path / "picked")
    assert asked[2] == str(tmp_path / "picked" / "lesson.json")


def test_a_dialogs_own_memory_wins_while_its_folder_exists(qapp, asked: list[str], tmp_path: Path) -> None:
    own = tmp_path / "lessons"
    own.mkdir()
    file_dialogs.open_file_name(None, "Open", "*", remembered=str(own))
    file_dialogs.open_file_name(None, "Open", "*", remembered=str(tmp_path / "deleted"))
    assert asked == [str(own), str(tmp_path / "picked")]


def test_every_dialog_of_the_app_goes_through_the_start_folder() -> None:
    """No dialog is opened with an empty folder (Qt's current folder) outside the module that picks one."""
    root = Path(__file__).resolve().parents[2] / "explorer" / "ui"
    offenders = []
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name != "file_dialogs.py" and any(f"QFileDialog.{name}" in text for name in
                                                   ("getOpenFileName", "getExistingDirectory")):
            offenders.append(path.name)
    assert offenders == []
