"""The ``attention-explorer`` entry point: imports the GUI only when called.

A training process started by ``multiprocessing`` re-imports the script that launched the app; with the GUI
imported at the top of that script, every Start paid for importing PySide6 again (~150 ms measured).
"""
from __future__ import annotations

from collections.abc import Callable


def main() -> int:
    """Start the desktop app (see :func:`explorer.ui.app.main`)."""
    return load_app()()


def load_app() -> Callable[[], int]:
    """Import the GUI, its modules with Python's own import (``qt_compat.plain_imports``), and return its ``main``."""
    from explorer.ui.qt_compat import plain_imports, remember_plain_import

    remember_plain_import()  # before PySide6 replaces it
    import PySide6.QtCore  # noqa: F401 - puts PySide's import hook in place, so the app's modules can pass it by

    with plain_imports():
        from explorer.ui.app import main as run_app
    return run_app
