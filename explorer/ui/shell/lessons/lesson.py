"""Lessons: one versioned JSON file holding a teaching scene (every panel's controls, the panel shown, theme,
palette, presenter scale, language, the studio's model file or run directory, followed or replayed), read leniently: what is bad is skipped and named.

No widgets here: :mod:`explorer.ui.shell.lessons.store` moves panel settings in and out of panels.
"""
from __future__ import annotations

import base64
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from PySide6.QtCore import QCoreApplication

from explorer.core.checks import is_number, is_whole
from explorer.core.atomic_file import write_text_atomic

translate = QCoreApplication.translate
from explorer.ui.settings import LANGUAGES, PALETTES, PRESENTER_SCALES, THEMES

FORMAT = "attention-explorer-lesson"
VERSION = 1
SUFFIX = ".json"
_TOP_FIELDS = ("format", "version", "app_version", "current_panel", "theme", "palette", "presenter_scale",
               "language", "panels")
_PANEL_FIELDS = ("settings", "model_file", "run")
DEMO_RUN = "demo"  # a lesson's name for the run shipped with the app (explorer.paths.demo_run_dir)


class LessonError(Exception):
    """The file is not a lesson at all (unreadable, not JSON, another kind of file); the message is fit for users."""


@dataclass
class Lesson:
    """A teaching scene. ``None`` fields (and panels absent from ``panels``) are left as they are when opened.

    ``panels`` maps a panel key to its settings: name (below ``panels/<key>/``) -> a JSON value (a number,
    text, true/false, null, a list of those, or ``{"bytes_base64": …}``).
    """

    current_panel: str | None = None
    theme: str | None = None
    palette: str | None = None
    presenter_scale: float | None = None
    language: str | None = None
    panels: dict[str, dict[str, Any]] = field(default_factory=dict)
    studio_model: str | None = None
    studio_run: str | None = None  # a run directory (or DEMO_RUN), opened in preference to the model file
    studio_replay_speed: float | None = None  # replay the run at this speed instead of following it


@dataclass
class OpenedLesson:
    """A lesson as read: what could be used, the parts skipped (``"where: why"``) and the file's version."""

    lesson: Lesson
    skipped: list[str]
    version: int

    @property
    def newer(self) -> bool:
        """True if a newer version of the app wrote the file."""
        return self.version > VERSION


# ---------------------------------------------------------------------------------------------- values
def is_setting_value(value: Any) -> bool:
    """Whether ``value`` can be stored in a lesson as a panel setting."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(v is None or isinstance(v, (str, bool, int)) or isinstance(v, float) and math.isfinite(v)
                   for v in value)
    if isinstance(value, dict):
        return set(value) == {"bytes_base64"} and isinstance(value["bytes_base64"], str)
    return False


def encode_setting(value: Any) -> Any:
    """A settings value as JSON (bytes as base64; tuples as lists); raises ``ValueError`` if it has no JSON form."""
    if isinstance(value, (bytes, bytearray)):
        return {"bytes_base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, tuple):
        value = list(value)
    if not is_setting_value(value):
        raise ValueError(f"{type(value).__name__} values cannot be stored in a lesson")
    return value


def decode_setting(value: Any) -> Any:
    """The settings value for a JSON value written by :func:`encode_setting`."""
    if isinstance(value, dict):
        return base64.b64decode(value["bytes_base64"].encode("ascii"), validate=True)
    return value


# ---------------------------------------------------------------------------------------------- writing
def lesson_dict(lesson: Lesson, app_version: str = "") -> dict[str, Any]:
    """The JSON object of ``lesson`` (current format and version)."""
    panels: dict[str, Any] = {}
    for key, settings in lesson.panels.items():
        panels[key] = {"settings": {name: encode_setting(v) for name, v in sorted(settings.items())}}
    if lesson.studio_model:
        panels.setdefault("studio", {"settings": {}})["model_file"] = lesson.studio_model
    if lesson.studio_run:
        panels.setdefault("studio", {"settings": {}})["run"] = {"path": lesson.studio_run,
                                                               "replay_speed": lesson.studio_replay_speed}
    return {"format": FORMAT, "version": VERSION, "app_version": app_version,
            "current_panel": lesson.current_panel, "theme": lesson.theme, "palette": lesson.palette,
            "presenter_scale": lesson.presenter_scale, "language": lesson.language, "panels": panels}


def write_lesson(path: str | os.PathLike[str], lesson: Lesson, app_version: str = "") -> Path:
    """Write ``lesson`` to ``path`` (UTF-8 JSON) through a temporary file, so a failure keeps the old file."""
    text = json.dumps(lesson_dict(lesson, app_version), indent=2, ensure_ascii=False) + "\n"
    return write_text_atomic(path, text)


# ---------------------------------------------------------------------------------------------- reading
def read_lesson(path: str | os.PathLike[str], panel_keys: Iterable[str]) -> OpenedLesson:
    """Read a lesson file; see :func:`parse_lesson`. Raises :class:`LessonError` if it is no lesson at all."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonError(translate("Lesson", "Could not read {path}: {error}").format(path=path, error=exc)) from exc
    return parse_lesson(text, panel_keys)


def parse_lesson(text: str, panel_keys: Iterable[str]) -> OpenedLesson:
    """Read what can be used from lesson JSON ``text``, for an app with panels ``panel_keys``.

    Bad values, unknown fields and panels this app does not have are skipped and listed; a file of a newer
    version is read the same way. Raises :class:`LessonError` for text that is not a lesson at all.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise LessonError(translate("Lesson", "The file is not valid JSON: {error}").format(error=exc)) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LessonError(translate("Lesson", "The file is not an Attention Explorer lesson."))
    version = data.get("version")
    if not is_whole(version) or version < 1:
        raise LessonError(translate("Lesson", "The lesson has no valid version number (found {value}).").format(
            value=repr(version)))
    keys = list(panel_keys)
    lesson = Lesson()
    skipped = [translate("Lesson", "{where}: unknown field").format(where=name)
               for name in data if name not in _TOP_FIELDS]

    def choice(name: str, allowed: Iterable[str]) -> str | None:
        value = data.get(name)
        allowed = tuple(allowed)
        if value is None or value in allowed:
            return value
        skipped.append(translate("Lesson", "{where}: {value} is not one of {allowed}").format(
            where=name, value=repr(value), allowed=", ".join(allowed)))
        return None

    lesson.current_panel = choice("current_panel", keys)
    lesson.theme = choice("theme", THEMES)
    lesson.palette = choice("palette", PALETTES)
    lesson.language = choice("language", LANGUAGES)
    scale = data.get("presenter_scale")
    if scale is not None:
        if is_number(scale) and PRESENTER_SCALES[0] <= scale <= PRESENTER_SCALES[-1]:
            lesson.presenter_scale = float(scale)
        else:
            skipped.append(translate("Lesson", "{where}: {value} is not between {low} and {high}").format(
                where="presenter_scale", value=repr(scale), low=PRESENTER_SCALES[0], high=PRESENTER_SCALES[-1]))
    panels = data.get("panels", {})
    if not isinstance(panels, dict):
        skipped.append(translate("Lesson", "{where}: not an object").format(where="panels"))
        panels = {}
    for key, entry in panels.items():
        _read_panel(lesson, key, entry, keys, skipped)
    return OpenedLesson(lesson, skipped, version)


def _read_panel(lesson: Lesson, key: str, entry: Any, keys: list[str], skipped: list[str]) -> None:
    where = f"panels.{key}"
    if key not in keys:
        skipped.append(translate("Lesson", "{where}: this version has no such panel").format(where=where))
        return
    if not isinstance(entry, dict):
        skipped.append(translate("Lesson", "{where}: not an object").format(where=where))
        return
    skipped.extend(translate("Lesson", "{where}: unknown field").format(where=f"{where}.{name}")
                   for name in entry if name not in _PANEL_FIELDS)
    settings = entry.get("settings", {})
    if not isinstance(settings, dict):
        skipped.append(translate("Lesson", "{where}: not an object").format(where=f"{where}.settings"))
        settings = {}
    kept: dict[str, Any] = {}
    for name, value in settings.items():
        if not name.strip("/") or not is_setting_value(value):
            skipped.append(translate("Lesson", "{where}: {type} is not a setting value").format(
                where=f"{where}.settings.{name}", type=type(value).__name__))
            continue
        try:
            decode_setting(value)
        except ValueError:  # (binascii.Error is one)
            skipped.append(translate("Lesson", "{where}: not valid base64").format(
                where=f"{where}.settings.{name}"))
            continue
        kept[name] = value
    lesson.panels[key] = kept
    if "run" in entry:
        _read_run(lesson, key, entry["run"], skipped)
    model = entry.get("model_file")
    if model is not None:
        if key == "studio" and isinstance(model, str) and model.strip():
            lesson.studio_model = model
        else:
            skipped.append(translate("Lesson", "{where}: {value} is not a file name").format(
                where=f"{where}.model_file", value=repr(model)))


def _read_run(lesson: Lesson, key: str, run: Any, skipped: list[str]) -> None:
    """``panels.studio.run``: ``{"path": folder or "demo", "replay_speed": number or null}``."""
    where = f"panels.{key}.run"
    path = run.get("path") if isinstance(run, dict) else None
    if key != "studio" or not isinstance(path, str) or not path.strip():
        skipped.append(translate("Lesson", "{where}: {value} is not a run directory").format(
            where=where, value=repr(run)))
        return
    speed = run.get("replay_speed")
    if speed is not None and (not is_number(speed) or speed <= 0):
        skipped.append(translate("Lesson", "{where}: {value} is not a replay speed").format(
            where=f"{where}.replay_speed", value=repr(speed)))
        speed = 1.0  # still a replay, at its recorded speed
    lesson.studio_run, lesson.studio_replay_speed = path, float(speed) if speed is not None else None
