"""A grid built ahead of need (the studio's thumbnails before any run) starts after the panel's own view has been
drawn and is not waited for; asked for now (a run starting), the same build goes on at once and is waited for."""
from __future__ import annotations

import time

import pytest
from PySide6.QtWidgets import QVBoxLayout, QWidget

from explorer.ui.shell.panel_walker import panel_busy
from explorer.ui.widgets.attention_grid_widget import AHEAD_START_MS, AttentionGrid, uniform_layout

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
LAYOUT = uniform_layout(2, 4)


@pytest.fixture
def page_and_grid(qtbot):
    page = QWidget()  # the panel the grid sits in, as the walker sees it
    qtbot.addWidget(page)
    grid = AttentionGrid()
    QVBoxLayout(page).addWidget(grid)
    return page, grid


def test_a_build_ahead_waits_and_is_not_waited_for(qtbot, page_and_grid) -> None:
    page, grid = page_and_grid
    asked = time.monotonic()
    grid.prepare_layout(LAYOUT, ahead=True)
    qtbot.wait(AHEAD_START_MS // 3)
    assert grid.shape is None and not panel_busy(page)  # nothing built yet, and the panel has settled
    qtbot.waitUntil(lambda: grid.shape == (2, 4), timeout=5000)
    assert time.monotonic() - asked >= AHEAD_START_MS / 1000
    assert not panel_busy(page)


def test_asked_for_now_a_build_ahead_goes_on_at_once(qtbot, page_and_grid) -> None:
    page, grid = page_and_grid
    grid.prepare_layout(LAYOUT, ahead=True)
    asked = time.monotonic()
    grid.prepare_layout(LAYOUT, staged=True)  # a run of this shape starts
    assert panel_busy(page)  # now a build the walker waits for
    qtbot.waitUntil(lambda: grid.shape == (2, 4), timeout=5000)
    assert time.monotonic() - asked < AHEAD_START_MS / 1000
    assert not panel_busy(page)


def test_the_studio_builds_its_thumbnails_ahead(qtbot) -> None:
    from explorer.ui.panels.studio.studio_panel import StudioPanel

    panel = StudioPanel()
    qtbot.addWidget(panel)
    grid = panel.live.grid
    assert grid.shape is None and not panel_busy(panel)
    qtbot.waitUntil(lambda: grid.shape is not None, timeout=10_000)
