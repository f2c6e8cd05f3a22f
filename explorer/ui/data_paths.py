"""Where the app keeps what it writes on its own (not the user's exports): the runs trained in the studio.

``ATTENTION_EXPLORER_DATA_DIR`` overrides the platform's application data folder (tests point it at a temp dir).
"""
from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "ATTENTION_EXPLORER_DATA_DIR"


def data_directory() -> Path:
    """The app's data folder (created on first use by whoever writes there)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    from PySide6.QtCore import QStandardPaths

    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(location or Path.home() / ".attention-explorer")


def runs_directory() -> Path:
    """Where the studio records the runs it trains (one run directory each)."""
    return data_directory() / "runs"
