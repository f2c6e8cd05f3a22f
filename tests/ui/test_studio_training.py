"""The studio trains in a child process: losses equal an in-process run, pause hands over the weights of a step
boundary, step/resume/stop, a crashed or failing run keeps the window and the last model, close and reset."""
from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
import torch

from explorer.core.data.sources import load_source
from explorer.core.training.events import ErrorEvent
from explorer.core.data.text import build_dataset
from explorer.core.training.trainer import Trainer
from explorer.ui.panels.studio.studio_panel import StudioPanel

TINY = dict(num_hiddens=16, num_layers=2, num_heads=2, ffn_num_hiddens=32, dropout=0.0, batch_size=32,
            lr=0.005, device="cpu", seed=0)


@pytest.fixture
def panel(studio_panel):
    return studio_panel


def configure(panel: StudioPanel, epochs: int, snapshot_every: int = 2, pairs: int = 96) -> None:
    panel.form.set_values({**TINY, "num_epochs": epochs, "snapshot_every": snapshot_every})
    panel.data.num_examples.setValue(pairs)
    assert panel.controls.start_button.isEnabled(), panel.inline_message()


def run_to_end(qtbot, panel: StudioPanel) -> None:
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=90_000)


def in_process_trainer(panel: StudioPanel) -> Trainer:
    """The same run as the panel's, iterated here (the reference the child process must match)."""
    config = panel.form.config().validate()
    request = panel.studio_state.data.loaded
    pairs = load_source(request.spec, request.num_examples, seed=request.seed).pairs
    return Trainer(config, build_dataset(pairs, config.num_steps, config.min_freq), probe=panel.data.probe())


def test_short_run_equals_an_in_process_run(qtbot, panel) -> None:
    configure(panel, epochs=2, snapshot_every=2)
    run_to_end(qtbot, panel)
    reference = in_process_trainer(panel)
    snaps = [e for e in reference if e.kind == "snapshot"]
    steps = len(reference.history.step_loss)
    assert steps == 2 * 3  # 96 pairs / batch 32 = 3 steps per epoch
    x, y = panel.loss_plot.step_curve.getData()
    np.testing.assert_array_equal(x, np.arange(1, steps + 1))
    np.testing.assert_allclose(y, reference.history.step_loss, rtol=1e-4)
    ex, ey = panel.loss_plot.epoch_curve.getData()
    np.testing.assert_allclose(ey, reference.history.epoch_loss, rtol=1e-4)
    np.testing.assert_array_equal(ex, [3, 6])
    assert panel.history.steps.tolist() == [0, 2, 4, 6]  # a snapshot before training and every 2 steps
    last = panel.history[len(panel.history) - 1]
    np.testing.assert_allclose(last.maps["cross"], snaps[-1].maps["cross"], atol=1e-4)
    assert panel.grid.shape == (2, 2)
    for kind in ("encoder", "decoder", "cross"):
        for layer in range(2):
            for head in range(2):
                np.testing.assert_array_equal(panel.grid.matrix(kind, layer, head), last.maps[kind][layer, head])
    assert panel.controls.progress.value() == 1000
    # one loss, labelled, in the progress line and the status message
    label = panel.controls.info_label.text()
    assert f"loss {reference.history.epoch_loss[-1]:.4f} (epoch 2, per token)" in label, label
    # the final model is the trained one
    assert panel.translate_view.has_model and panel.record is not None
    for name, value in reference.model.state_dict().items():
        torch.testing.assert_close(panel.record.model.state_dict()[name], value, rtol=1e-4, atol=1e-5)
    assert not panel.is_training() and panel.busy_reason() is None
    first = y.copy()
    run_to_end(qtbot, panel)  # a second run overlays the first
    _, py = panel.loss_plot.previous_curve.getData()
    np.testing.assert_allclose(py, first)


def test_start_builds_nothing_on_the_gui_thread(qtbot, panel, monkeypatch) -> None:
    """Start hands the job to the training process: no dataset and no model are built in the GUI (this used to
    stall the GUI thread ~195 ms on the book's data)."""
    configure(panel, epochs=1, snapshot_every=0)

    def forbidden(*_args, **_kwargs):
        raise AssertionError("built on the GUI thread")

    from explorer.core.data import text

    from explorer.core.training import trainer as training
    monkeypatch.setattr(text, "build_dataset", forbidden)
    monkeypatch.setattr(training.Trainer, "__init__", forbidden)
    assert panel.start_training(), panel.inline_message()
    assert panel.state == "starting"
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)
    assert panel.last_error is None and panel.loss_plot.step_count() == 3


def test_pause_hands_over_the_weights_of_a_step_boundary(qtbot, panel) -> None:
    configure(panel, epochs=500, snapshot_every=5)
    assert panel.start_training()
    assert panel.busy_reason() and "training" in panel.busy_reason()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 3, timeout=60_000)
    panel.controls.pause_button.click()
    assert panel.state == "paused" and panel.controls.step_button.isEnabled()
    qtbot.waitUntil(lambda: panel.record is not None, timeout=10_000)
    paused_step = int(panel.record.origin.split("step ")[1].split()[0])
    qtbot.wait(300)
    panel.redraw()
    assert panel.loss_plot.step_count() == paused_step  # nothing trained while paused
    assert "ETA" not in panel.controls.info_label.text() and "paused" in panel.controls.info_label.text()
    # the weights are those after `paused_step` optimizer steps, never a half-updated mix: each tensor is much nearer
    # the in-process run's at that step than one step's change (the child may train on another thread count, whose
    # rounding the reference does not share, so "equal" is "within a quarter of a step", at least 1e-5)
    reference = in_process_trainer(panel)
    states = {}
    for event in reference:
        if event.kind == "step" and event.step >= paused_step - 1:
            states[event.step] = {k: v.clone() for k, v in reference.model.state_dict().items()}
            if event.step == paused_step:
                break
    paused = panel.record.model.state_dict()
    for name, value in states[paused_step].items():
        step_change = float((value - states[paused_step - 1][name]).abs().max())
        off = float((paused[name] - value).abs().max())
        assert off <= max(1e-5, 0.25 * step_change), (name, off, step_change)
    result = panel.translate_view.translate_now()
    assert result is not None and panel.translate_view.heatmap.matrix is not None
    panel.controls.step_button.click()  # one more batch, and its model
    qtbot.waitUntil(lambda: panel.record is not None and f"step {paused_step + 1} " in panel.record.origin,
                    timeout=30_000)
    panel.redraw()
    assert panel.loss_plot.step_count() == paused_step + 1
    panel.controls.pause_button.click()  # resume
    assert panel.state == "running" and not panel.translate_view.has_model
    assert panel.translate_view.result is None  # the old translation is gone with its model
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= paused_step + 4, timeout=60_000)
    panel.controls.stop_button.click()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=10_000)
    assert not panel.is_training() and panel.controls.start_button.isEnabled()
    assert "nan" not in panel.controls.info_label.text()


def test_stop_in_the_first_epoch_reports_a_number(qtbot, panel) -> None:
    configure(panel, epochs=3, snapshot_every=0, pairs=600)
    panel.form.set_values({"batch_size": 8})
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 2, timeout=60_000)
    with qtbot.waitSignal(panel.studio_state.message_posted, timeout=20_000,
                          check_params_cb=lambda text, _level: text.startswith("Stopped")) as stopped:
        panel.controls.stop_button.click()
    text = stopped.args[0]
    assert "nan" not in text and "(epoch 1 so far, per token)" in text, text
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=10_000)


def test_a_crashed_training_process_keeps_the_window_and_the_last_model(qtbot, panel) -> None:
    configure(panel, epochs=500)
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 2, timeout=60_000)
    panel.controls.pause_button.click()
    qtbot.waitUntil(lambda: panel.record is not None, timeout=10_000)
    kept = panel.record
    os.kill(panel.studio_state.training_process.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=10_000)
    assert "ended unexpectedly" in panel.inline_message()
    assert panel.record is kept and panel.translate_view.translate_now() is not None
    assert panel.controls.start_button.isEnabled()


def test_an_error_event_ends_the_run_with_a_message_and_a_usable_model(qtbot, panel) -> None:
    """What the studio does with the trainer's ErrorEvent (the core's NaN/OOM detection is tested in core)."""
    configure(panel, epochs=500)
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 2, timeout=60_000)
    panel.studio_state._record_event(ErrorEvent(step=3, reason="nonfinite", message="the loss became nan at step 3"))
    assert "the loss became nan at step 3" in panel.inline_message() and panel.last_error is not None
    panel.controls.stop_button.click()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=10_000)
    assert panel.translate_view.has_model and panel.translate_view.translate_now() is not None
    assert "stopped by an error" in panel.record.origin


def test_close_during_training_is_fast_and_clean(qtbot, panel) -> None:
    configure(panel, epochs=500)
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 2, timeout=60_000)
    process = panel.studio_state.training_process
    t0 = time.perf_counter()
    panel.shutdown(1000)
    assert time.perf_counter() - t0 < 2.0
    assert not process.is_alive() and not panel.is_training()


def test_reset_forgets_everything(qtbot, panel) -> None:
    configure(panel, epochs=1, snapshot_every=1)
    run_to_end(qtbot, panel)
    panel.translate_view.translate_now()
    panel.controls.reset_button.click()
    assert panel.state == "idle" and panel.record is None and len(panel.history) == 0
    assert panel.loss_plot.step_count() == 0 and panel.live.stack.showing_hint
    assert not panel.translate_view.has_model and panel.translate_view.result is None
    assert panel.translate_view.output_label.text() == "" and panel.translate_view.stack.showing_hint
    assert panel.loss_stack.showing_hint and panel.detail.stack.showing_hint


def test_stop_and_reset_while_paused(qtbot, panel) -> None:
    configure(panel, epochs=500)
    for action in ("stop", "reset"):
        assert panel.start_training(), panel.inline_message()
        qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 1, timeout=60_000)
        panel.controls.pause_button.click()
        process = panel.studio_state.training_process
        if action == "stop":
            panel.controls.stop_button.click()
            qtbot.waitUntil(lambda: panel.state == "finished", timeout=10_000)
            assert panel.record is not None and panel.record.origin.startswith("trained here")
        else:
            panel.controls.reset_button.click()
            assert panel.state == "idle" and panel.record is None
        qtbot.waitUntil(lambda: not process.is_alive(), timeout=5_000)


def test_reset_of_a_trained_model_asks_first(qtbot, panel, monkeypatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    configure(panel, epochs=1, snapshot_every=0)
    run_to_end(qtbot, panel)
    asked: list[str] = []
    answer = [QMessageBox.StandardButton.No]
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda _p, _t, text, *a: asked.append(text) or answer[0]))
    monkeypatch.setattr(panel, "show_dialogs", True)
    panel.controls.reset_button.click()
    assert asked and panel.record is not None and panel.state == "finished"  # declined: nothing lost
    answer[0] = QMessageBox.StandardButton.Yes
    panel.controls.reset_button.click()
    assert panel.record is None and panel.state == "idle"


def test_a_training_process_that_cannot_start_leaves_no_starting_line(qtbot, panel, monkeypatch) -> None:
    """The launch fails (e.g. the fork server cannot start): a banner says why, the line under the bar no longer says
    the process is starting, Start is offered again."""
    from explorer.core.runs import process

    def refuse(self: process.TrainingProcess) -> None:
        self._start_error = OSError("no more processes")
        for end in self._child_ends:
            end.close()
        self._launched.set()

    monkeypatch.setattr(process.TrainingProcess, "_launch", refuse)
    configure(panel, epochs=5)
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=10_000)
    assert "could not be started: no more processes" in panel.inline_message()
    assert panel.controls.info_label.text() == "Not started" and panel.controls.start_button.isEnabled()
