"""The one place that knows where the bundled resources live (``explorer/resources/``, in a checkout and in
an installed wheel alike: it is package data of ``explorer.resources``)."""
from __future__ import annotations

from pathlib import Path


def resources_dir() -> Path:
    """Return the folder holding the bundled resources (corpus, icons, stylesheets)."""
    import importlib.resources

    return Path(str(importlib.resources.files("explorer.resources")))


def resource_path(name: str) -> Path:
    """Path of one bundled resource file, e.g. ``resource_path("eng_fra.tsv")``."""
    return resources_dir() / name


def demo_run_dir() -> Path:
    """The pre-recorded book run the studio replays (``explorer/resources/demo_run``, a run directory)."""
    return resources_dir() / "demo_run"
