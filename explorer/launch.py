"""The ``attention-explorer`` entry point: imports the GUI only when called.

A training process started by ``multiprocessing`` re-imports the script that launched the app; with the GUI
imported at the top of that script, every Start paid for importing PySide6 again (~150 ms measured).
"""
from __future__ import annotations


def main() -> int:
    """Start the desktop app (see :func:`explorer.ui.app.main`)."""
    from explorer.ui.qt_compat import remember_plain_import

    remember_plain_import()  # before PySide6 replaces it: panels are imported with it (qt_compat.plain_imports)
    from explorer.ui.app import main as run_app

    return run_app()
