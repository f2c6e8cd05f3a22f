"""Typed settings: one defaults table, values survive a reopen, bad stored values fall back to defaults."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from explorer.ui import settings as settings_mod
from explorer.ui.settings import DEFAULTS, AppSettings, coerce, open_qsettings, set_settings_dir, settings_dir


def test_defaults_when_empty(tmp_path: Path) -> None:
    s = AppSettings(tmp_path)
    for key, default in DEFAULTS.items():
        assert s.get(key) == default
    assert s.theme == "system"


def test_round_trip_through_the_file(tmp_path: Path) -> None:
    s = AppSettings(tmp_path)
    s.set("window/geometry", b"\x00\x01binary\xff")
    s.set("view/explanation_visible", False)
    s.set("export/png_width", 1234)
    s.theme = "dark"
    s.last_panel = "positional"
    s.sync()
    assert Path(s.file_name()).parent == tmp_path
    again = AppSettings(tmp_path)
    assert again.get("window/geometry") == b"\x00\x01binary\xff"
    assert again.get("view/explanation_visible") is False
    assert again.get("export/png_width") == 1234
    assert again.theme == "dark"
    assert again.last_panel == "positional"


def test_bad_stored_values_fall_back(tmp_path: Path) -> None:
    raw = open_qsettings(tmp_path)
    raw.setValue("view/theme", "purple")
    raw.setValue("export/png_width", "wide")
    raw.setValue("view/explanation_visible", "maybe")
    raw.sync()
    s = AppSettings(tmp_path)
    assert s.theme == "system"
    assert s.get("export/png_width") == DEFAULTS["export/png_width"]
    assert s.get("view/explanation_visible") is True


def test_unknown_theme_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Unknown theme"):
        AppSettings(tmp_path).theme = "purple"
    with pytest.raises(KeyError):
        AppSettings(tmp_path).get("no/such/key")


@pytest.mark.parametrize(("value", "default", "expected"), [
    ("true", False, True), ("0", True, False), ("3", 1, 3), ("2.5", 1.0, 2.5), ("nan", 1.0, 1.0),
    ("x", 1.0, 1.0), (None, "a", "a"), (7, "a", "a"), (b"ab", b"", b"ab"), ("ab", b"", b""),
    ('{"a": 1}', {}, {"a": 1}), ('["r"]', [], ["r"]), ("[1]", {}, {}), ("{bad", [], []), ("null", {}, {}),
])
def test_coerce(value, default, expected) -> None:
    assert coerce(value, default) == expected


def test_redirection_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATTENTION_EXPLORER_SETTINGS_DIR", str(tmp_path / "env"))
    assert settings_dir() == tmp_path / "env"
    set_settings_dir(tmp_path / "fn")
    try:
        assert settings_dir() == tmp_path / "fn"
        assert Path(AppSettings().file_name()).parent == tmp_path / "fn"
    finally:
        set_settings_dir(None)
    monkeypatch.delenv("ATTENTION_EXPLORER_SETTINGS_DIR")
    monkeypatch.setenv("ATTENTION_EXPLORER_TEST", "1")
    temp = settings_dir()
    assert temp is not None and temp.is_dir() and temp == settings_dir()  # one folder per process
    monkeypatch.delenv("ATTENTION_EXPLORER_TEST")
    assert settings_dir() is None
    native = open_qsettings()
    assert native.format() == QSettings.Format.IniFormat
    assert settings_mod.APPLICATION in native.fileName()
