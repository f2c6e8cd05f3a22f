"""The studio replays a recorded run ("demo without waiting"): Model → Replay the demo run shows the
book run's losses, attention history and model at the chosen speed; Pause, Step (and Space, →), speed changes
and Stop act on the replay as on training; an unreadable folder gives a message."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from explorer.paths import demo_run_dir

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def panel(studio_panel):
    studio_panel.resize(1024, 700)
    studio_panel.show()
    return studio_panel


def steps_shown(panel) -> int:
    step = panel.studio_state.latest_step
    return step.step if step is not None else 0


def test_the_demo_replays_fast_to_its_end_and_offers_its_model(qtbot, panel) -> None:
    panel.controls.speed_combo.setCurrentIndex(panel.controls.speed_combo.count() - 1)  # 50×
    menu = panel.panel_menu()
    menu.demo_action.trigger()
    state = panel.studio_state
    assert state.run_state == "running" and state.replay is not None and state.replay.speed == 50
    assert panel.controls.speed_combo.isVisible() and not panel.controls.start_button.isEnabled()
    assert "Replaying" in panel.translate_view.model_label.text()
    qtbot.waitUntil(lambda: state.run_state == "finished", timeout=30_000)
    qtbot.waitUntil(lambda: state.record is not None, timeout=30_000)
    assert steps_shown(panel) == 2000 and len(state.attention.history) > 100
    assert state.loss.epochs.size and not panel.controls.speed_combo.isVisible()
    assert "demo_run" in state.record.origin and "epoch 200" in state.record.origin
    assert "finished" in panel.controls.info_label.text()
    panel.translate_view.sentence_edit.setText("go .")
    result = panel.translate_view.translate_now()
    assert result is not None and result.text == "va !"


def test_pause_step_speed_and_stop_act_on_the_replay(qtbot, panel) -> None:
    state = panel.studio_state
    panel.controls.speed_combo.setCurrentIndex(0)  # 0.1×: a 15 s run lasts minutes
    assert panel.replay_run(str(demo_run_dir()))
    qtbot.waitUntil(lambda: steps_shown(panel) >= 1, timeout=10_000)
    panel.setFocus()
    qtbot.keyClick(panel, Qt.Key.Key_Space)  # pause
    assert state.run_state == "paused" and panel.controls.step_button.isEnabled()
    qtbot.wait(300)
    held = steps_shown(panel)
    qtbot.wait(300)
    assert steps_shown(panel) == held  # paused: nothing more arrives
    qtbot.keyClick(panel, Qt.Key.Key_Right)  # one recorded step
    qtbot.waitUntil(lambda: steps_shown(panel) == held + 1, timeout=5_000)
    panel.controls.step_button.click()
    qtbot.waitUntil(lambda: steps_shown(panel) == held + 2, timeout=5_000)
    assert state.record is None  # a replay's model comes at its end
    panel.controls.speed_combo.setCurrentIndex(panel.controls.speed_combo.count() - 1)
    panel.controls.speed_combo.activated.emit(panel.controls.speed_combo.count() - 1)
    assert state.replay.speed == 50
    assert "50×" in panel.controls.info_label.text() or state.run_state == "paused"
    panel.controls.pause_button.click()  # resume
    assert state.run_state == "running"
    qtbot.waitUntil(lambda: steps_shown(panel) > held + 50, timeout=10_000)
    messages = []
    state.message_posted.connect(lambda text, _level: messages.append(text))
    panel.controls.stop_button.click()
    qtbot.waitUntil(lambda: state.run_state == "finished", timeout=5_000)
    stopped_at = steps_shown(panel)
    assert stopped_at < 2000 and any(f"Replay stopped at step {stopped_at}" in m for m in messages)
    qtbot.wait(200)
    assert state.record is None and steps_shown(panel) == stopped_at


def test_a_folder_that_is_not_a_run_is_refused_with_a_message(panel, tmp_path) -> None:
    assert not panel.replay_run(str(tmp_path))
    assert panel.studio_state.run_state == "idle" and panel.studio_state.replay is None
    assert not panel.controls.speed_combo.isVisible()


def test_a_lesson_keeps_the_replay_by_name_and_speed_and_opens_it_again(panel) -> None:
    from explorer.ui.shell.lessons.studio import StudioSource, captured_source, locate, open_source

    panel.controls.speed_combo.setCurrentIndex(panel.controls.speed_combo.findData(5.0))
    assert panel.replay_run(str(demo_run_dir()))
    source = captured_source(panel)
    assert source == StudioSource("demo", run=True, replay_speed=5.0)
    panel.studio_state.reset()
    assert captured_source(panel) is None  # Reset forgets the run
    problems: list[str] = []
    open_source(panel, locate(source, demo_run_dir().parent, problems), problems)
    assert not problems and panel.studio_state.replay is not None and panel.studio_state.replay.speed == 5.0
    assert panel.controls.speed_combo.currentData() == 5.0


def test_a_paused_replay_translates_with_the_model_it_kept_then(qtbot, panel) -> None:
    state = panel.studio_state
    panel.controls.speed_combo.setCurrentIndex(panel.controls.speed_combo.findData(10.0))
    messages: list[str] = []
    state.message_posted.connect(lambda text, _level: messages.append(text))
    assert panel.replay_run(str(demo_run_dir()))
    qtbot.waitUntil(lambda: steps_shown(panel) >= 60, timeout=15_000)  # past epoch 5 of 10 steps each
    state.pause()  # the steps already on their way arrive, then the replay says where it paused
    qtbot.waitUntil(lambda: any("Replay paused at step" in m for m in messages), timeout=10_000)
    step = steps_shown(panel)
    qtbot.waitUntil(lambda: state.record is not None, timeout=10_000)
    epoch = max(e for e in (1, 2, 5, 10, 20, 50, 100) if e * 10 <= step)
    assert f"after epoch {epoch} (step {epoch * 10})" in state.record.origin
    assert any(f"Replay paused at step {step}: translate with the model as it was after epoch {epoch}" in m
               for m in messages)
    assert panel.translate_view.translate_now() is not None
    state.resume()
    assert state.record is None and state.run_state == "running"  # that model is stale once the replay moves on


def test_a_followed_run_is_settling_until_what_it_had_written_is_read_and_drawn(qtbot, panel) -> None:
    assert not panel.is_settling()
    assert panel.studio_state.open_run(str(demo_run_dir()))
    assert panel.is_settling()  # 201 snapshots arrive 8 to a poll
    qtbot.waitUntil(lambda: not panel.is_settling(), timeout=20000)
    assert len(panel.history) == 201  # all of them, and drawn: the walker's screenshot shows the last
    assert "201/201" in panel.live.scrubber.label.text()
