"""Faults while the studio trains: NaN loss and out-of-memory end with a message and a usable model;
a failed save keeps the previous file; rapid start/pause/stop cycles and closing the window mid-epoch leave no
thread running. A small version of ``bench/robustness_cycles.py``; the stall meter watches the GUI thread."""
from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
import torch

from explorer.core.training import checkpoint as ck
from explorer.core.model import loss as loss_module
from explorer.core.training import trainer as training
from explorer.core.training.checkpoint import load_model
from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_registry import panel_spec
from explorer.ui.panels.studio.studio_panel import StudioPanel
from explorer.ui.process_settings import MIN_POOL_THREADS
from explorer.ui.settings import AppSettings
from robust_helpers import configure_tiny_studio, os_thread_count, rss_mb

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def studio(studio_panel: Any) -> Any:
    return studio_panel


def _train_until_finished(qtbot: Any, panel: StudioPanel, epochs: int = 3) -> None:
    configure_tiny_studio(panel, epochs=epochs)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)


def _core_error_event(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The ErrorEvent the core trainer yields for the fault patched in by the caller (tiny run, in-process)."""
    from robust_helpers import tiny_config, tiny_dataset

    config = tiny_config(num_epochs=20)
    events = list(training.Trainer(config, tiny_dataset(config)))
    monkeypatch.undo()
    assert events[-1].kind == "error"
    return events[-1]


def _feed_into_a_live_run(qtbot: Any, panel: StudioPanel, event: Any) -> None:
    """A real run in the studio's training process; the core's error event arrives as the child would send it
    (monkeypatches of this process cannot reach the child), then the run ends."""
    configure_tiny_studio(panel, epochs=10_000)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 2, timeout=60_000)
    panel.studio_state._record_event(event)
    # the run ends as the child would after its error (a click on Stop is the user acting again: the banner goes)
    panel.studio_state.stop()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=30_000)


def test_nan_loss_stops_with_a_message_and_keeps_a_usable_model(qtbot: Any, studio: StudioPanel, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                stall_meter: Any) -> None:
    real = loss_module.F.cross_entropy
    calls = {"n": 0}

    def poisoned(*args: Any, **kwargs: Any) -> torch.Tensor:
        calls["n"] += 1
        loss = real(*args, **kwargs)
        return loss * float("nan") if calls["n"] == 5 else loss

    monkeypatch.setattr(loss_module.F, "cross_entropy", poisoned)  # the trainer's masked loss calls it
    event = _core_error_event(monkeypatch)
    stall_meter.start()
    _feed_into_a_live_run(qtbot, studio, event)
    assert "smaller learning rate" in studio.inline_message()
    model = studio.record.model
    assert all(torch.isfinite(t).all() for t in model.state_dict().values() if t.is_floating_point())
    assert studio.translate_view.translate_now() is not None
    assert studio.save_model_to(str(tmp_path / "kept.safetensors"))  # nothing is lost
    assert load_model(tmp_path / "kept.safetensors").model_config.num_hiddens == 8


def test_out_of_memory_suggests_a_smaller_batch(qtbot: Any, studio: StudioPanel,
                                                monkeypatch: pytest.MonkeyPatch, stall_meter: Any) -> None:
    def oom(*args: Any, **kwargs: Any) -> torch.Tensor:
        raise torch.OutOfMemoryError("CUDA out of memory (simulated)")

    monkeypatch.setattr(training, "clip_grad_norm", oom)
    event = _core_error_event(monkeypatch)
    stall_meter.start()
    _feed_into_a_live_run(qtbot, studio, event)
    assert "smaller batch size" in studio.inline_message()
    assert not studio.is_training()


def test_failed_save_keeps_the_previous_file(qtbot: Any, studio: StudioPanel, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _train_until_finished(qtbot, studio, epochs=1)
    path = tmp_path / "model.safetensors"
    assert studio.save_model_to(str(path))
    before = path.read_bytes()

    def disk_full(handle: Any, data: bytes) -> None:
        handle.write(data[:100])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ck, "_write_all", disk_full)
    assert studio.save_model_to(str(path)) is False
    assert "No space left on device" in studio.inline_message()
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [path.name]
    assert studio.save_model_to(str(tmp_path)) is False and "folder" in studio.inline_message()


def test_rapid_start_pause_stop_cycles(qtbot: Any, studio: StudioPanel, stall_meter: Any) -> None:
    configure_tiny_studio(studio, epochs=10_000)
    threads_before, rss_before = os_thread_count(), rss_mb()
    stall_meter.start()
    for cycle in range(12):
        assert studio.start_training(), studio.inline_message()
        if cycle % 3 == 0:
            qtbot.waitUntil(lambda: studio.loss_plot.step_count() >= 1, timeout=30_000)
        if cycle % 2 == 0:
            studio.controls.pause_button.click()
            studio.controls.step_button.click()
            studio.controls.pause_button.click()  # resume
        if cycle % 4 == 3:
            studio.reset()  # the harshest stop: retire the worker at once
        else:
            studio.controls.stop_button.click()
            qtbot.waitUntil(lambda: studio.state == "finished", timeout=30_000)
        qtbot.wait(5)
    assert not studio.is_training()
    # training runs in child processes; this process keeps at most Qt's pool of worker threads
    qtbot.waitUntil(lambda: os_thread_count() <= threads_before + MIN_POOL_THREADS, timeout=10_000)
    rss_after = rss_mb()
    assert rss_after - rss_before < 300, f"RSS grew from {rss_before:.0f} to {rss_after:.0f} MB"


def test_closing_the_window_mid_epoch(qtbot: Any, tmp_path: Path, stall_meter: Any) -> None:
    import time

    threads_before = os_thread_count()
    stall_meter.start()
    for _ in range(3):
        window = MainWindow(AppSettings(tmp_path), panels=(panel_spec("studio"),), device_probe=None)
        qtbot.addWidget(window)
        window.show_panel("studio")
        panel = window.panel("studio")
        assert isinstance(panel, StudioPanel)
        configure_tiny_studio(panel, epochs=10_000)
        assert panel.start_training()
        qtbot.waitUntil(lambda: panel.loss_plot.step_count() >= 2, timeout=30_000)
        asked: list[list[str]] = []
        window.confirm_close = lambda reasons: asked.append(reasons) or True  # type: ignore[method-assign]
        t0 = time.perf_counter()
        assert window.close()
        assert time.perf_counter() - t0 < 3.0, "closing never hangs"
        assert asked and "training" in asked[0][0]
        assert not panel.is_training()
    qtbot.waitUntil(lambda: os_thread_count() <= threads_before, timeout=10_000)


def test_studio_form_maxima_are_refused_before_allocating(qtbot: Any, studio: StudioPanel,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Found here: the form's own maxima (4096 hidden, 24 layers, 16384 FFN) mean ~11 G parameters, ~168 GB to
    train: Trainer allocated it (a likely OOM kill). Fixed: Trainer compares the estimate with free memory."""
    real = training.Seq2SeqTransformer

    def guarded(config: Any, *args: Any) -> Any:
        """Fails as the allocator would (shapes on the meta device pass), never really allocating 45 GB."""
        if torch.get_default_device().type != "meta" and config.num_hiddens * config.num_layers > 10**4:
            raise RuntimeError("DefaultCPUAllocator: can't allocate memory (simulated)")
        return real(config, *args)

    monkeypatch.setattr(training, "Seq2SeqTransformer", guarded)
    configure_tiny_studio(studio, epochs=1)
    form = studio.form
    form.set_values({name: form.fields[name].maximum() for name in
                     ("num_hiddens", "num_layers", "num_heads", "ffn_num_hiddens")})
    assert studio.start_training() is False
    assert "GB" in studio.inline_message() and not studio.is_training()
