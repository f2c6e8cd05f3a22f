"""Panel state for lessons, through the hooks every panel already has: ``save_settings`` into a scratch
``QSettings`` read back as JSON values, and JSON values written to a scratch ``QSettings`` for
``restore_settings``. A panel not built yet is described by what the app's own settings hold for it.
"""
from __future__ import annotations

import logging
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from PySide6.QtCore import QByteArray, QSettings

from explorer.ui.shell.lessons.lesson import decode_setting, encode_setting

if TYPE_CHECKING:
    from explorer.ui.panels.base_panel import BasePanel

log = logging.getLogger(__name__)


@contextmanager
def scratch_settings() -> Iterator[QSettings]:
    """An INI ``QSettings`` in a temporary folder, removed afterwards (values keep their types in memory)."""
    with tempfile.TemporaryDirectory(prefix="attention-explorer-lesson-") as folder:
        settings = QSettings(str(Path(folder) / "panel.ini"), QSettings.Format.IniFormat)
        try:
            yield settings
        finally:
            settings.sync()  # written while the folder still exists
            del settings


def _json_value(value: Any) -> Any:
    if isinstance(value, QByteArray):
        value = bytes(value.data())
    return encode_setting(value)


def settings_under(settings: QSettings, prefix: str) -> tuple[dict[str, Any], list[str]]:
    """Values stored below ``prefix`` (``panels/<key>/``) as JSON values by relative name, and the names of
    values that have no JSON form (skipped)."""
    values: dict[str, Any] = {}
    dropped: list[str] = []
    for full in settings.allKeys():
        if not full.startswith(prefix):
            continue
        name = full[len(prefix):]
        try:
            values[name] = _json_value(settings.value(full))
        except ValueError:
            dropped.append(name)
    return values, dropped


def capture_panel(panel: BasePanel) -> tuple[dict[str, Any], list[str]]:
    """The settings ``panel.save_settings`` writes, as JSON values by name; plus names that could not be kept."""
    with scratch_settings() as settings:
        panel.save_settings(settings)
        return settings_under(settings, panel.settings_key(""))


def apply_panel(panel: BasePanel, values: dict[str, Any]) -> list[str]:
    """Give ``panel`` the settings ``values`` (JSON values by name) through its ``restore_settings``; returns
    the values it could not use as they were (``"name: why"``: not a number, not a choice, out of range)."""
    panel.setting_problems.clear()
    with scratch_settings() as settings:
        for name, value in values.items():
            decoded = decode_setting(value)
            settings.setValue(panel.settings_key(name), QByteArray(decoded) if isinstance(decoded, bytes)
                              else decoded)
        panel.restore_settings(settings)
    problems, panel.setting_problems = list(panel.setting_problems), []
    return problems


def stored_panel(settings: QSettings, key: str) -> dict[str, Any]:
    """What the app's settings hold for panel ``key`` (restored when it is built), as JSON values by name."""
    return settings_under(settings, f"panels/{key}/")[0]


def safely(what: str, action: Callable[[], Any], problems: list[str]) -> Any:
    """Run ``action``; an exception is logged and becomes one line of ``problems`` (``"what: message"``)."""
    try:
        return action()
    except Exception as exc:  # one panel's hook failing never stops a lesson
        log.exception("%s failed", what)
        problems.append(f"{what}: {type(exc).__name__}: {exc}")
        return None
