"""Typed access to the app's QSettings with one table of defaults, and where the settings file lives.

Tests redirect the file with ``ATTENTION_EXPLORER_SETTINGS_DIR`` or ``set_settings_dir``; when
``ATTENTION_EXPLORER_TEST`` is set and neither is given, a per-process temporary folder is used so a
test run never touches the user's settings.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from explorer.render.colormaps import PALETTES

ORGANIZATION = "AttentionExplorer"
APPLICATION = "Attention Explorer"
SETTINGS_FILE = "attention-explorer.ini"
THEMES: tuple[str, ...] = ("system", "light", "dark")
LANGUAGES: tuple[str, ...] = ("system", "en", "zh_CN")  # follow the system, English, 简体中文 (explorer.ui.i18n.translators)
PRESENTER_SCALES: tuple[float, ...] = (1.25, 1.5, 1.75, 2.0)

DEFAULTS: dict[str, Any] = {
    "window/geometry": b"",
    "window/splitter": b"",
    "window/last_panel": "attention_cues",  # the first panel (book §11.1)
    "view/theme": "system",
    "view/language": "system",  # explorer.ui.i18n.translators.LANGUAGES
    "view/explanation_visible": True,
    "files/last_dir": "",  # the folder last chosen in any file dialog (widgets/file_dialogs.py)
    "export/last_dir": "",
    "export/last_format": "png",
    "export/png_width": 1600,
    "export/all_last_dir": "",
    "view/palette": "standard",
    "view/presenter_scale": 1.5,
    "lesson/last_dir": "",
    "timelapse/last_dir": "",
    "timelapse/fps": 4,
    "timelapse/max_frames": 120,
}

_dir_override: Path | None = None
_test_dir: Path | None = None


def set_settings_dir(path: str | os.PathLike[str] | None) -> None:
    """Keep settings in ``path/attention-explorer.ini`` from now on (``None`` undoes it)."""
    global _dir_override
    _dir_override = Path(path) if path is not None else None


def settings_dir() -> Path | None:
    """The folder holding the settings file, or ``None`` for the platform's user location."""
    global _test_dir
    if _dir_override is not None:
        return _dir_override
    env = os.environ.get("ATTENTION_EXPLORER_SETTINGS_DIR")
    if env:
        return Path(env)
    if os.environ.get("ATTENTION_EXPLORER_TEST"):
        if _test_dir is None:
            _test_dir = Path(tempfile.mkdtemp(prefix="attention-explorer-settings-"))
        return _test_dir
    return None


def open_qsettings(directory: str | os.PathLike[str] | None = None) -> QSettings:
    """An INI-format ``QSettings`` in ``directory`` (default: ``settings_dir()``)."""
    folder = Path(directory) if directory is not None else settings_dir()
    if folder is None:
        return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)
    folder.mkdir(parents=True, exist_ok=True)
    return QSettings(str(folder / SETTINGS_FILE), QSettings.Format.IniFormat)


def coerce(value: Any, default: Any) -> Any:
    """Convert a stored ``value`` to the type of ``default``; unusable values give ``default``.

    INI files hand back strings ("true", "3"); this is the one place that turns them into typed values.
    Panels may use it in ``restore_settings``: ``coerce(s.value(k), 0.5)``. A dict or list default reads a value
    stored as JSON text (``json.dumps``), of that type.
    """
    if value is None:
        return default
    try:
        if isinstance(default, (dict, list)):
            result = json.loads(value) if isinstance(value, str) else value
            return result if isinstance(result, type(default)) else default
        if isinstance(default, bool):
            if isinstance(value, str):
                lowered = value.strip().lower()
                if lowered in ("true", "1", "yes", "on"):
                    return True
                if lowered in ("false", "0", "no", "off"):
                    return False
                return default
            return bool(value)
        if isinstance(default, int):
            return int(float(value)) if isinstance(value, str) else int(value)
        if isinstance(default, float):
            result = float(value)
            return result if result == result else default  # NaN is never a setting
        if isinstance(default, bytes):
            if isinstance(value, QByteArray):
                return bytes(value.data())
            return bytes(value) if isinstance(value, (bytes, bytearray)) else default
        if isinstance(default, str):
            return value if isinstance(value, str) else default
    except (TypeError, ValueError, OverflowError):
        return default
    return value


class AppSettings:
    """The app's own settings: typed reads against ``DEFAULTS``; ``qsettings`` is handed to panels."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.qsettings = open_qsettings(directory)

    def get(self, key: str) -> Any:
        """The stored value of ``key`` converted to its default's type (``KeyError`` if not in DEFAULTS)."""
        default = DEFAULTS[key]
        return coerce(self.qsettings.value(key), default)

    def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` (``KeyError`` if not in DEFAULTS)."""
        default = DEFAULTS[key]
        if isinstance(default, bytes):
            value = QByteArray(bytes(value))
        self.qsettings.setValue(key, value)

    def sync(self) -> None:
        """Write to disk now."""
        self.qsettings.sync()

    def file_name(self) -> str:
        """Path of the settings file."""
        return self.qsettings.fileName()

    # Typed shortcuts for values the shell validates.
    @property
    def theme(self) -> str:
        """``"system"``, ``"light"`` or ``"dark"``."""
        value = self.get("view/theme")
        return value if value in THEMES else DEFAULTS["view/theme"]

    @theme.setter
    def theme(self, value: str) -> None:
        if value not in THEMES:
            raise ValueError(f"Unknown theme {value!r}; choose one of {', '.join(THEMES)}.")
        self.set("view/theme", value)

    @property
    def language(self) -> str:
        """``"system"``, ``"en"`` or ``"zh_CN"``."""
        value = self.get("view/language")
        return value if value in LANGUAGES else DEFAULTS["view/language"]

    @language.setter
    def language(self, value: str) -> None:
        if value not in LANGUAGES:
            raise ValueError(f"Unknown language {value!r}; choose one of {', '.join(LANGUAGES)}.")
        self.set("view/language", value)

    @property
    def last_panel(self) -> str:
        """Key of the panel shown when the app last closed."""
        return self.get("window/last_panel")

    @last_panel.setter
    def last_panel(self, key: str) -> None:
        self.set("window/last_panel", key)

    @property
    def palette(self) -> str:
        """``"standard"`` or ``"colour_blind"`` (the colour maps of every heatmap)."""
        value = self.get("view/palette")
        return value if value in PALETTES else DEFAULTS["view/palette"]

    @palette.setter
    def palette(self, value: str) -> None:
        if value not in PALETTES:
            raise ValueError(f"Unknown palette {value!r}; choose one of {', '.join(PALETTES)}.")
        self.set("view/palette", value)

    @property
    def presenter_scale(self) -> float:
        """Presenter mode's scale of fonts and line widths, within 1.25–2."""
        value = self.get("view/presenter_scale")
        lo, hi = PRESENTER_SCALES[0], PRESENTER_SCALES[-1]
        return value if lo <= value <= hi else DEFAULTS["view/presenter_scale"]

    @presenter_scale.setter
    def presenter_scale(self, value: float) -> None:
        lo, hi = PRESENTER_SCALES[0], PRESENTER_SCALES[-1]
        if not lo <= float(value) <= hi:
            raise ValueError(f"The presenter scale must be between {lo} and {hi}, not {value!r}.")
        self.set("view/presenter_scale", float(value))
