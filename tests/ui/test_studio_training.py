"""The studio trains through the real worker: loss curve, heatmaps, pause/step/resume/stop, errors, close."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from explorer.core.events import ErrorEvent
from explorer.core.training import Trainer
from explorer.ui.panels.studio import studio_panel as studio_module
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


def test_short_run_feeds_loss_curve_heatmaps_and_history(qtbot, panel) -> None:
    configure(panel, epochs=2, snapshot_every=2)
    run_to_end(qtbot, panel)
    trainer = panel.trainer
    steps = len(trainer.history.step_loss)
    assert steps == 2 * 3  # 96 pairs / batch 32 = 3 steps per epoch
    # the curves hold exactly what the trainer recorded
    x, y = panel.loss_plot.step_curve.getData()
    np.testing.assert_array_equal(x, np.arange(1, steps + 1))
    np.testing.assert_allclose(y, trainer.history.step_loss)
    ex, ey = panel.loss_plot.epoch_curve.getData()
    np.testing.assert_allclose(ey, trainer.history.epoch_loss)
    np.testing.assert_array_equal(ex, [3, 6])
    # a snapshot before training and every 2 steps
    assert panel.history.steps.tolist() == [0, 2, 4, 6]
    last = panel.history[len(panel.history) - 1]
    assert panel.grid.shape == (2, 2)
    for kind in ("encoder_self", "decoder_self", "cross"):
        for layer in range(2):
            for head in range(2):
                np.testing.assert_array_equal(panel.grid.matrix(kind, layer, head), last.maps[kind][layer, head])
    assert last.src_tokens[-1] == "<eos>" and last.maps["cross"].shape[-1] == len(last.src_tokens)
    assert panel.controls.progress.value() == 1000
    assert panel.translate_view.has_model and panel.record is not None
    assert not panel.is_training() and panel.busy_reason() is None
    # a second run overlays the first
    first = y.copy()
    run_to_end(qtbot, panel)
    px, py = panel.loss_plot.previous_curve.getData()
    np.testing.assert_allclose(py, first)


def test_pause_step_translate_resume_stop(qtbot, panel) -> None:
    configure(panel, epochs=500, snapshot_every=5)
    assert panel.start_training()
    assert panel.busy_reason() and "training" in panel.busy_reason()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 3, timeout=60_000)
    panel.controls.pause_button.click()
    assert panel.state == "paused" and panel.controls.step_button.isEnabled()
    qtbot.wait(300)  # the step in flight lands
    frozen = panel.loss_plot.step_count()
    qtbot.wait(300)
    assert panel.loss_plot.step_count() == frozen
    # translate with a CPU copy while paused: the trainer's model is not the one used
    assert panel.translate_view.has_model
    assert panel.record.model is not panel.trainer.model
    result = panel.translate_view.translate_now()
    assert result is not None and panel.translate_view.heatmap.matrix is not None
    panel.controls.step_button.click()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() == frozen + 1, timeout=30_000)
    qtbot.wait(200)
    assert panel.loss_plot.step_count() == frozen + 1
    panel.controls.pause_button.click()  # resume
    assert panel.state == "running" and not panel.translate_view.has_model
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= frozen + 4, timeout=60_000)
    panel.controls.stop_button.click()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=10_000)
    assert not panel.is_training()
    assert panel.controls.start_button.isEnabled()
    assert len(panel.trainer.history.step_loss) == panel.loss_plot.step_count()


def test_error_stops_training_and_keeps_model_and_history(qtbot, panel, monkeypatch) -> None:
    class FailingTrainer(Trainer):
        def _run(self):
            for event in super()._run():
                yield event
                if event.kind == "step" and event.step == 3:
                    yield ErrorEvent(step=4, reason="nonfinite", message="the loss became nan at step 4")
                    return

    monkeypatch.setattr(studio_module, "Trainer", FailingTrainer)
    configure(panel, epochs=50)
    run_to_end(qtbot, panel)
    assert "the loss became nan at step 4" in panel.inline_message()
    assert panel.last_error is not None
    assert panel.loss_plot.step_count() == 3
    assert panel.translate_view.has_model  # the last good model is kept
    assert panel.translate_view.translate_now() is not None


def test_close_during_training_is_fast_and_clean(qtbot, panel) -> None:
    configure(panel, epochs=500)
    before = threading.active_count()
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 2, timeout=60_000)
    worker = panel.worker
    t0 = time.perf_counter()
    panel.shutdown(1000)
    assert time.perf_counter() - t0 < 1.0
    assert not worker.is_running()
    assert worker._thread.isFinished()
    assert threading.active_count() <= before


def test_reset_forgets_everything(qtbot, panel) -> None:
    configure(panel, epochs=1, snapshot_every=1)
    run_to_end(qtbot, panel)
    panel.controls.reset_button.click()
    assert panel.state == "idle" and panel.record is None and len(panel.history) == 0
    assert panel.loss_plot.step_count() == 0 and panel.grid.shape is None
    assert not panel.translate_view.has_model


def test_stop_and_reset_while_paused(qtbot, panel) -> None:
    configure(panel, epochs=500)
    for action in ("stop", "reset"):
        assert panel.start_training(), panel.inline_message()
        qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 1, timeout=60_000)
        panel.controls.pause_button.click()
        worker = panel.worker
        if action == "stop":
            panel.controls.stop_button.click()
            qtbot.waitUntil(lambda: panel.state == "finished", timeout=5_000)
            assert panel.record is not None and panel.record.model is panel.trainer.model
        else:
            panel.controls.reset_button.click()
            assert panel.state == "idle" and panel.trainer is None
        assert not worker.is_running() and worker._thread.isFinished()
