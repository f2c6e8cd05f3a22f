"""Test-wide setup: Qt renders offscreen (set before any Qt import) and settings live in a temp dir."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")


import pytest  # noqa: E402  (after the environment is set, before any Qt import)


@pytest.fixture
def studio_panel(qtbot):  # type: ignore[no-untyped-def]
    """A fresh Transformer studio panel, shut down (worker and loads stopped) after the test."""
    from explorer.ui.panels.studio.studio_panel import StudioPanel

    p = StudioPanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown(3000)
