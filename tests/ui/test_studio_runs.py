"""Runs on disk in the studio (docs/RUNS.md): a run trained here is recorded and reopens with its whole history; a
run still being written by the CLI is followed live; damaged, future or vanishing runs give a message, never a
crash; other runs' losses can be overlaid."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.core.runs.run_dir import read_metrics
from explorer.ui.panels.studio.studio_panel import StudioPanel

TINY = dict(num_hiddens=16, num_layers=1, num_heads=2, ffn_num_hiddens=32, dropout=0.0, batch_size=32,
            lr=0.005, device="cpu", seed=0, snapshot_every=2)


@pytest.fixture
def panel(studio_panel, tmp_path, monkeypatch):
    studio_panel.studio_state.runs_root = tmp_path / "runs"
    return studio_panel


@pytest.fixture
def other(qtbot):
    p = StudioPanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown(3000)


def train_here(qtbot, panel: StudioPanel, epochs: int) -> Path:
    panel.form.set_values({**TINY, "num_epochs": epochs})
    panel.data.num_examples.setValue(96)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=90_000)
    run_dir = panel.studio_state.run_dir
    assert run_dir is not None and run_dir.parent == panel.studio_state.runs_root
    return run_dir


def test_a_run_trained_here_is_recorded_and_reopens_with_its_history(qtbot, panel, other) -> None:
    run_dir = train_here(qtbot, panel, epochs=3)
    assert (run_dir / "run.json").is_file() and (run_dir / "checkpoints" / "last.safetensors").is_file()
    assert panel.recent_runs[0] == str(run_dir)
    steps = [r for r in read_metrics(run_dir) if r["type"] == "step"]
    _, trained_losses = panel.loss_plot.step_curve.getData()
    np.testing.assert_allclose([r["loss"] for r in steps], trained_losses, rtol=1e-6)

    assert other.open_run(str(run_dir)), other.inline_message()
    assert other.state == "following" and other.controls.stop_button.text() == "Stop following"
    qtbot.waitUntil(lambda: other.loss_plot.step_count() == len(steps) and other.record is not None,
                    timeout=10_000)
    other.redraw()
    _, reopened = other.loss_plot.step_curve.getData()
    np.testing.assert_allclose(reopened, trained_losses, rtol=1e-6)
    assert [s.step for s in other.history] == [s.step for s in panel.history]
    assert "checkpoint after epoch 3" in other.record.origin
    other.translate_view.sentence_edit.setText("i'm home .")
    assert other.translate_view.translate_now() is not None
    other.controls.stop_button.click()  # stop following: the run on disk stays as it is
    qtbot.waitUntil(lambda: other.state == "finished", timeout=5_000)
    assert (run_dir / "run.json").is_file() and other.record is not None


def test_a_run_written_by_the_cli_is_followed_live(qtbot, panel, tmp_path) -> None:
    run_dir = tmp_path / "cli-run"
    cmd = [sys.executable, "-m", "explorer.cli", "train", "--data", "task:copy", "--num-examples", "64",
           "--epochs", "60", "--num-hiddens", "16", "--num-layers", "1", "--num-heads", "2", "--ffn-num-hiddens", "32",
           "--batch-size", "16", "--dropout", "0", "--device", "cpu", "--threads", "1", "--snapshot-every", "4",
           "--run-dir", str(run_dir)]
    cli = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        qtbot.waitUntil(lambda: (run_dir / "run.json").is_file(), timeout=60_000)
        assert panel.open_run(str(run_dir)), panel.inline_message()
        qtbot.waitUntil(lambda: panel.loss_plot.step_count() > 0, timeout=20_000)
        first = panel.loss_plot.step_count()
        qtbot.waitUntil(lambda: panel.loss_plot.step_count() > first + 8, timeout=30_000)
        assert cli.poll() is None, "the steps arrived while the CLI was still training"
        panel.redraw()
        assert len(panel.history) > 0 and panel.grid.shape == (1, 2)
    finally:
        cli.terminate()
        cli.wait(10)
    panel.controls.stop_button.click()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=5_000)


def test_bad_runs_give_messages_and_keep_what_they_can(qtbot, panel, other, tmp_path) -> None:
    run_dir = train_here(qtbot, panel, epochs=2)
    cut = tmp_path / "cut"
    shutil.copytree(run_dir, cut)
    with open(cut / "metrics.jsonl", "ab") as fh:
        fh.write(b'{"type": "step", "step": 99, "loss": 1.')  # a line cut by a kill
    assert other.open_run(str(cut))
    qtbot.waitUntil(lambda: other.loss_plot.step_count() == panel.loss_plot.step_count(), timeout=10_000)

    future = tmp_path / "future"
    shutil.copytree(run_dir, future)
    info = json.loads((future / "run.json").read_text())
    info["format_version"] = 999
    (future / "run.json").write_text(json.dumps(info))
    assert not other.open_run(str(future))
    assert "version" in other.inline_message()
    assert not other.open_run(str(tmp_path / "no-such-run")) and other.inline_message()

    assert other.open_run(str(cut))
    shutil.rmtree(cut)  # deleted while followed
    qtbot.waitUntil(lambda: other.state == "finished", timeout=10_000)
    assert "deleted" in other.inline_message()


def test_other_runs_overlay_the_loss_curve(qtbot, panel, tmp_path) -> None:
    run_dir = train_here(qtbot, panel, epochs=1)
    assert panel.overlay_run(str(run_dir))
    panel.redraw()
    names = [label.text for _sample, label in panel.loss_plot.legend.items]
    assert run_dir.name in names
    _, y = panel.loss_plot.overlay_curves[run_dir.name].getData()
    assert len(y) == panel.loss_plot.step_count()
    assert not panel.overlay_run(str(tmp_path / "nothing-here")) and panel.inline_message()
    panel.studio_state.run_feed.clear_overlays()
    assert panel.loss_plot.overlay_curves == {}
