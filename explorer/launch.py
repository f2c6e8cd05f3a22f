"""The ``attention-explorer`` entry point: imports the GUI only when called.

A training process started by ``multiprocessing`` re-imports the script that launched the app; with the GUI
imported at the top of that script, every Start paid for importing PySide6 again (~150 ms measured).
"""
from __future__ import annotations


def main() -> int:
    """Start the desktop app (see :func:`explorer.ui.app.main`)."""
    from explorer.ui.app import main as run_app

    return run_app()
