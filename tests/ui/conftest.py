"""The ui suite's helpers (``layout_checks``, ``i18n_checks``) importable from its test modules; every test runs
with the English catalogue installed and leaves English behind."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True, scope="session")
def _english_catalogue(qapp) -> None:  # type: ignore[no-untyped-def]
    """The app always runs with a catalogue installed: English has one of plural forms ("1 hop", "4 hops")."""
    from explorer.ui.i18n.translators import language_manager

    language_manager().apply("en")


@pytest.fixture(autouse=True, scope="session")
def _pyqtgraph_as_in_the_app() -> None:
    """The app patches pyqtgraph before its first plot (``theme.configure_pyqtgraph``); a test that builds a panel
    or a plot on its own gets the same plots."""
    from explorer.ui.pyqtgraph_compat import apply_work_arounds

    apply_work_arounds()


@pytest.fixture(autouse=True)
def _language_restored() -> Iterator[None]:
    """A test that switches the language leaves English behind for the next one."""
    yield
    from explorer.ui.i18n.translators import language_manager

    if language_manager().language != "en":
        language_manager().apply("en")
