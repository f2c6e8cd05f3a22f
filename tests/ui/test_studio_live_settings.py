"""The studio changes the learning rate, gradient clip and dropout of a run while it trains: the controls send the
change to the training process, the loss curve marks it, bad values are refused with a message, a schedule is
chosen at Start and its rate shown live, and a followed run's changes are marked too."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
from run_helpers import tiny_config, tiny_dataset  # noqa: E402

from explorer.core.runs.writer import RunWriter  # noqa: E402
from explorer.core.training.schedule import lr_factor  # noqa: E402
from explorer.core.training.trainer import Trainer  # noqa: E402
from explorer.ui.panels.studio.studio_panel import StudioPanel  # noqa: E402

TINY = dict(num_hiddens=16, num_layers=1, num_heads=2, ffn_num_hiddens=32, dropout=0.1, batch_size=32,
            lr=0.005, device="cpu", seed=0, snapshot_every=0)


@pytest.fixture
def panel(studio_panel):
    return studio_panel


def _start(qtbot, panel: StudioPanel, **settings: object) -> None:
    panel.form.set_values({**TINY, "num_epochs": 2000, **settings})  # far more than the test waits for
    panel.data.num_examples.setValue(96)
    qtbot.waitUntil(lambda: panel.controls.start_button.isEnabled(), timeout=30_000)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.studio_state.latest_step is not None, timeout=90_000)


def _apply(qtbot, panel: StudioPanel, **values: float) -> None:
    for name, value in values.items():
        panel.live_settings.fields[name].setValue(value)
    qtbot.mouseClick(panel.live_settings.apply_button, Qt.MouseButton.LeftButton)


def test_a_change_made_in_the_studio_reaches_the_run_and_is_marked_on_the_loss_curve(qtbot, panel) -> None:
    assert not panel.live_settings.apply_button.isEnabled()  # nothing trains yet
    assert panel.live_settings.isHidden()  # no run's settings to show zeros for
    panel.form.set_values({"lr_schedule": "cosine", "warmup_steps": 3})
    assert panel.form.config().lr_schedule == "cosine" and panel.form.preset_combo.currentData() == "custom"
    _start(qtbot, panel, lr_schedule="cosine", warmup_steps=3)
    state = panel.studio_state
    assert panel.live_settings.apply_button.isEnabled() and not panel.live_settings.isHidden()
    assert panel.live_settings.fields["lr"].value() == pytest.approx(0.005)  # the settings in force
    panel.studio_state.pause()
    qtbot.waitUntil(lambda: panel.record is not None, timeout=30_000)  # paused at a step boundary
    paused_at = state.latest_step.step
    _apply(qtbot, panel, lr=0.002, dropout=0.0)
    state.request_step()
    qtbot.waitUntil(lambda: state.latest_step.step == paused_at + 1, timeout=30_000)
    qtbot.waitUntil(lambda: bool(state.loss.changes), timeout=10_000)
    change = state.loss.changes[0]
    assert (change.step, change.lr, change.dropout, change.changed) == (paused_at + 1, 0.002, 0.0,
                                                                        ("dropout", "lr"))
    total = state.run_feed.started.total_steps
    assert state.latest_step.lr == pytest.approx(0.002 * lr_factor("cosine", paused_at, 3, total), rel=1e-9)
    panel.redraw()
    markers = panel.loss_plot.change_markers
    assert len(markers) == 1 and markers[0].value() == pytest.approx(paused_at + 0.5)
    assert markers[0].label.format == "lr 0.002, dropout 0"
    qtbot.waitUntil(lambda: "learning rate now: " in panel.live_settings.rate_label.text()
                    and "–" not in panel.live_settings.rate_label.text(), timeout=10_000)
    assert panel.live_settings.in_force == {"lr": 0.002, "grad_clip": 1.0, "dropout": 0.0}
    state.stop()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)
    assert not panel.live_settings.apply_button.isEnabled()


def test_bad_values_get_a_message_and_change_nothing(qtbot, panel, monkeypatch: pytest.MonkeyPatch) -> None:
    _start(qtbot, panel)
    sent: list[bytes] = []
    process = panel.studio_state.training_process
    real_send = process._send
    monkeypatch.setattr(process, "_send", lambda command: (sent.append(command), real_send(command)))
    _apply(qtbot, panel, lr=0.0)
    assert "lr must be greater than 0" in panel.inline_message()
    assert not [c for c in sent if c.startswith(b"settings")]
    _apply(qtbot, panel, lr=0.003)
    assert [c for c in sent if c.startswith(b"settings")] == [b'settings:{"lr": 0.003}']
    panel.studio_state.stop()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)


def test_a_followed_runs_changes_are_marked(qtbot, panel, tmp_path: Path) -> None:
    run = tmp_path / "run"
    trainer = Trainer(tiny_config(3, lr=0.01), tiny_dataset())
    with RunWriter.create(run, trainer, {"spec": "test", "name": "test"}) as writer:
        for event in trainer:
            writer.on_event(event)
            if event.kind == "step" and event.step in (2, 5):
                trainer.change_settings(lr=0.01 / event.step)
    assert panel.studio_state.open_run(str(run))
    state = panel.studio_state
    qtbot.waitUntil(lambda: len(state.loss.changes) == 2 and state.loss.steps.size == 9, timeout=30_000)
    panel.redraw()
    labels = [m.label.format for m in panel.loss_plot.change_markers]
    assert labels == ["lr 0.005", "lr 0.002"]
    assert not panel.live_settings.apply_button.isEnabled()  # a followed run is not ours to change
    assert panel.live_settings.fields["lr"].value() == pytest.approx(0.002)
    state.stop()
