"""The studio on a classroom projector: it fits 1024×700 idle and training, every head of the grid
is reachable, the run controls never scroll away, and its status and legend say what is true now."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QScrollArea

from explorer.ui.panels.studio.studio_panel import StudioPanel
from layout_checks import settled_problems, window_around

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

TINY = dict(num_hiddens=16, num_layers=2, num_heads=4, ffn_num_hiddens=32, dropout=0.0, batch_size=32,
            lr=0.005, device="cpu", seed=0, snapshot_every=2)


def _inside_scroll_area(widget) -> bool:
    """Inside a scroll area of the studio's own (the panel's body scrolls only when the window is smaller than
    the panel's minimum, e.g. presenter mode on a small screen)."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, StudioPanel):
        if isinstance(parent, QScrollArea) and parent.objectName() != "panel_body_scroll":
            return True
        parent = parent.parentWidget()
    return False


@pytest.fixture
def framed(qtbot):
    """A studio panel in a 1024×700 window like the app's (the window owns it; shut down before it goes)."""
    panel = StudioPanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    yield window, panel
    panel.shutdown(3000)


def test_fits_a_projector_idle_and_training(qtbot, framed) -> None:
    window, panel = framed
    assert settled_problems(qtbot, window, panel) == []
    assert not _inside_scroll_area(panel.controls), "Start/Pause/Stop stay visible while the settings scroll"
    assert _inside_scroll_area(panel.form) and _inside_scroll_area(panel.data)
    panel.form.set_values({**TINY, "num_epochs": 2})
    panel.data.num_examples.setValue(96)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)
    panel.redraw()
    # every head is reachable: the grid fits its area, or that area scrolls to it
    scroll = panel.live.scroll
    grid, viewport = panel.grid, scroll.viewport()
    assert grid.width() <= viewport.width() or scroll.horizontalScrollBar().maximum() >= grid.width() - viewport.width()
    assert grid.height() <= viewport.height() or scroll.verticalScrollBar().maximum() > 0
    assert len(panel.grid.plots["cross"][0]) == 4


def test_status_and_legend_say_what_is_true_now(qtbot, studio_panel) -> None:
    panel = studio_panel
    messages: list[str] = []
    panel.status_message.connect(messages.append)
    panel.data.source_combo.setCurrentIndex(panel.data.source_combo.findData("task:reverse"))
    assert messages[-1] == "Loaded Task: reverse."  # not "Loading Task: reverse…" once it is loaded
    legend = [label.text for _sample, label in panel.loss_plot.legend.items]
    assert "previous run" not in legend  # there is none yet
    panel.form.set_values({**TINY, "num_epochs": 1})
    panel.data.num_examples.setValue(64)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)
    panel.redraw()
    scores = panel.grid.score_labels[0][0]
    assert "alignment" in scores.toolTip().lower()  # the numbers over cross-attention thumbnails are explained


def test_fits_a_projector_while_replaying_the_demo(qtbot, framed) -> None:
    from explorer.paths import demo_run_dir

    window, panel = framed
    panel.controls.speed_combo.setCurrentIndex(0)
    assert panel.replay_run(str(demo_run_dir()))
    qtbot.waitUntil(lambda: panel.studio_state.latest_step is not None, timeout=10_000)
    assert panel.controls.speed_combo.isVisible()
    assert settled_problems(qtbot, window, panel) == []


def test_a_window_smaller_than_the_studio_scrolls_it_instead_of_overlapping(qtbot, framed) -> None:
    """Presenter mode at 1.5x on a 1280x720 projector leaves less room than the studio's minimum: the body
    scrolls; its splitter never draws the settings column over the tabs."""
    window, panel = framed
    window.resize(700, 500)
    qtbot.waitUntil(lambda: panel.body_scroll.width() < panel.body.minimumSizeHint().width())
    assert panel.body_scroll.horizontalScrollBar().maximum() > 0
    left, tabs = panel.controls.parentWidget(), panel.tabs
    while left.parentWidget() is not tabs.parentWidget():
        left = left.parentWidget()
    assert left.geometry().right() < tabs.geometry().left()
