"""Fixtures shared by the UI tests."""
from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def studio_panel(qtbot) -> Iterator[object]:
    """A fresh Transformer studio panel, shut down (worker and loads stopped) after the test."""
    from explorer.ui.panels.studio_panel import StudioPanel

    p = StudioPanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown(3000)
