"""The one place that knows where the bundled ``resources/`` live (checkout or installed wheel)."""
from __future__ import annotations

from pathlib import Path


def resources_dir() -> Path:
    """Return the folder holding the bundled resources.

    In a source checkout this is the top-level ``resources/``; in an installed wheel the same
    files ship as the package ``explorer.resources``.
    """
    checkout = Path(__file__).resolve().parents[1] / "resources"
    if checkout.is_dir():
        return checkout
    import importlib.resources

    return Path(str(importlib.resources.files("explorer.resources")))


def resource_path(name: str) -> Path:
    """Path of one bundled resource file, e.g. ``resource_path("eng_fra.tsv")``."""
    return resources_dir() / name
