"""The one place that knows where the bundled resources live: the top-level ``resources/`` folder, installed as
the package ``explorer.resources`` (a wheel, an editable install) or read beside ``explorer/`` in a bare checkout."""
from __future__ import annotations

from pathlib import Path


def resources_dir() -> Path:
    """Return the folder holding the bundled resources (corpus, icons, stylesheets)."""
    import importlib.resources

    try:
        return Path(str(importlib.resources.files("explorer.resources")))
    except ModuleNotFoundError:  # a checkout run without installing (python main.py): the folder beside the package
        return Path(__file__).resolve().parent.parent / "resources"


def resource_path(name: str) -> Path:
    """Path of one bundled resource file, e.g. ``resource_path("eng_fra.tsv")``."""
    return resources_dir() / name


def demo_run_dir() -> Path:
    """The pre-recorded book run the studio replays (``explorer/resources/demo_run``, a run directory)."""
    return resources_dir() / "demo_run"
