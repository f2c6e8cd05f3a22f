"""Keyboard control of the studio: Space pauses and resumes, → steps while paused, Ctrl+←/→ walk the history."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from explorer.ui.panels.studio.studio_keys import install_studio_keys

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


class FakeAttention:
    def __init__(self, count: int) -> None:
        self.history = list(range(count))
        self.shown_index: int | None = count - 1 if count else None
        self.chosen: list[int] = []

    def choose_index(self, index: int) -> None:
        self.chosen.append(index)
        self.shown_index = index


class FakeState(QObject):
    run_state_changed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.run_state = "idle"
        self.attention = FakeAttention(3)
        self.calls: list[str] = []

    def set(self, state: str) -> None:
        self.run_state = state
        self.run_state_changed.emit(state)

    def pause(self) -> None:
        self.calls.append("pause")
        self.set("paused")

    def resume(self) -> None:
        self.calls.append("resume")
        self.set("running")

    def request_step(self) -> None:
        self.calls.append("step")


def test_keys_drive_the_state_only_when_they_can_act(qtbot) -> None:
    panel = QWidget()
    button = QPushButton("Start", panel)
    QVBoxLayout(panel).addWidget(button)
    qtbot.addWidget(panel)
    state = FakeState()
    keys = install_studio_keys(panel, state, lambda: state.resume() if state.run_state == "paused" else state.pause(),
                               state.request_step)
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()
    button.setFocus()
    qtbot.waitUntil(lambda: button.hasFocus(), timeout=2000)

    assert not keys.toggle.isEnabled() and not keys.step.isEnabled()  # idle: Space belongs to the button
    state.set("running")
    qtbot.keyClick(button, Qt.Key.Key_Space)
    assert state.calls == ["pause"] and keys.step.isEnabled()
    qtbot.keyClick(button, Qt.Key.Key_Right)
    assert state.calls == ["pause", "step"]
    qtbot.keyClick(button, Qt.Key.Key_Space)
    assert state.calls == ["pause", "step", "resume"] and not keys.step.isEnabled()

    qtbot.keyClick(button, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(button, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(button, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)  # already the first: no call
    assert state.attention.chosen == [1, 0]
    qtbot.keyClick(button, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    assert state.attention.chosen == [1, 0, 1] and state.attention.shown_index == 1


def test_a_shortcut_clears_the_banner_as_the_button_does(qtbot, studio_panel, tmp_path) -> None:
    from explorer.paths import demo_run_dir

    panel = studio_panel
    qtbot.waitUntil(lambda: panel.source is not None and not panel.is_loading(), timeout=30_000)
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()
    target = panel.tabs.tabBar()  # focus inside the panel, on a widget that does nothing with Space
    target.setFocus()
    qtbot.waitUntil(lambda: target.hasFocus(), timeout=2000)
    assert panel.replay_run(str(demo_run_dir()), 0.1)
    qtbot.waitUntil(lambda: panel.state == "running", timeout=30_000)
    assert not panel.overlay_run(str(tmp_path)) and panel.inline_message()  # not a run: a banner
    qtbot.keyClick(target, Qt.Key.Key_Space)  # the user acts again, by keyboard: the banner goes
    assert panel.state == "paused" and panel.inline_message() == ""
    assert not panel.overlay_run(str(tmp_path)) and panel.inline_message()
    qtbot.keyClick(target, Qt.Key.Key_Right)  # one step while paused
    assert panel.inline_message() == ""
    assert not panel.overlay_run(str(tmp_path)) and panel.inline_message()
    qtbot.keyClick(target, Qt.Key.Key_Space)
    assert panel.state == "running" and panel.inline_message() == ""
    panel.studio_state.stop()
