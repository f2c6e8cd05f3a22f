"""What a lesson keeps of the Transformer studio (book §11.7): the model file on offer, or the run directory it
shows (trained here, followed, or replayed at some speed; the shipped demo run by name), found again and opened
when the lesson is."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from explorer.paths import demo_run_dir
from explorer.ui.shell.lessons.lesson import DEMO_RUN, Lesson
from explorer.ui.shell.lessons.store import safely

translate = QCoreApplication.translate


@dataclass(frozen=True)
class StudioSource:
    """A model file (``run`` False) or a run directory, followed (``replay_speed`` None) or replayed."""

    path: str
    run: bool = False
    replay_speed: float | None = None


def captured_source(studio: Any) -> StudioSource | None:
    """What the studio panel ``studio`` shows now: its run directory if it has one, else its opened model file."""
    state = getattr(studio, "studio_state", None)
    run_dir = getattr(state, "run_dir", None)
    if run_dir is not None:
        name = DEMO_RUN if Path(run_dir).resolve() == demo_run_dir().resolve() else str(run_dir)
        return StudioSource(name, run=True, replay_speed=getattr(state, "replay_speed", None))
    path = getattr(state, "model_path", None)
    return StudioSource(str(path)) if path else None


def lesson_source(lesson: Lesson) -> StudioSource | None:
    """The studio's source a lesson names (its run in preference to its model file)."""
    if lesson.studio_run:
        return StudioSource(lesson.studio_run, run=True, replay_speed=lesson.studio_replay_speed)
    return StudioSource(lesson.studio_model) if lesson.studio_model else None


def store_source(lesson: Lesson, source: StudioSource | None) -> None:
    """Put ``source`` into ``lesson``'s studio fields."""
    if source is None:
        return
    if source.run:
        lesson.studio_run, lesson.studio_replay_speed = source.path, source.replay_speed
    else:
        lesson.studio_model = source.path


def locate(source: StudioSource | None, folder: Path, skipped: list[str]) -> StudioSource | None:
    """``source`` with a path that exists: as named, else beside the lesson (handed on with it); the demo run by
    name. None (and a line in ``skipped``) when it is nowhere."""
    if source is None:
        return None
    if source.run and source.path == DEMO_RUN:
        return StudioSource(str(demo_run_dir()), True, source.replay_speed)
    for candidate in (Path(source.path).expanduser(), folder / Path(source.path).name):
        if (candidate / "run.json").is_file() if source.run else candidate.is_file():
            return StudioSource(str(candidate), source.run, source.replay_speed)
    field = "run" if source.run else "model_file"
    skipped.append(translate("LessonController", "panels.studio.{field}: {file} was not found").format(
        field=field, file=source.path))
    return None


def open_source(studio: Any, source: StudioSource, problems: list[str]) -> None:
    """Open ``source`` in the studio panel: replay or follow the run, or open the model file."""
    field = "run" if source.run else "model_file"
    if not source.run:
        opener = getattr(studio, "open_model", None)
        call = (lambda: opener(source.path)) if opener is not None else None
    elif source.replay_speed is not None:
        opener = getattr(studio, "replay_run", None)
        call = (lambda: opener(source.path, source.replay_speed)) if opener is not None else None
    else:
        opener = getattr(studio, "open_run", None)
        call = (lambda: opener(source.path)) if opener is not None else None
    if call is None or safely(f"panels.studio.{field}", call, problems) is False:
        problems.append(translate("LessonController", "panels.studio.{field}: the studio did not open {file}").format(
            field=field, file=source.path))
