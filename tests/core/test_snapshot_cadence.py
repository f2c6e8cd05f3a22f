"""The CLI's default snapshot cadence follows the run's length: a run of 30 epochs or more gives a time-lapse of 30
frames or more, where a fixed 50 steps gave a 30-epoch run of the book's data 7 frames."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import TINY_CLI  # noqa: E402

from explorer.cli.main import main
from explorer.core.runs.run_dir import snapshot_files
from explorer.core.training.config import adaptive_snapshot_every


@pytest.mark.parametrize("steps_per_epoch", [1, 2, 10, 63, 282, 2000])
@pytest.mark.parametrize("epochs", [30, 31, 200])
def test_any_run_of_30_epochs_gives_30_frames(epochs: int, steps_per_epoch: int) -> None:
    total = epochs * steps_per_epoch
    every = adaptive_snapshot_every(total)
    assert 1 <= every <= 50
    assert total // every >= 30


def test_cli_default_cadence_gives_a_frame_per_epoch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["train", *TINY_CLI, "--num-examples", "32", "--epochs", "30", "--run-dir", str(run)]) == 0
    capsys.readouterr()
    assert len(snapshot_files(run / "snapshots")) >= 30
