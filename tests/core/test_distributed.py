"""Training as 2 real gloo ranks on the CPU (the environment torchrun gives its workers): the same per-epoch losses
as 1 rank, only rank 0 writing and printing, a killed rank named by the survivor, refusals agreed by all ranks."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import TINY_CLI, launch_ranks  # noqa: E402

from explorer.cli.main import main as cli_main  # noqa: E402
from explorer.core.training.checkpoint import load_model  # noqa: E402
from explorer.core.training.distributed import share  # noqa: E402
from explorer.core.runs.run_dir import read_metrics, read_run_json  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
ROOT = Path(__file__).resolve().parents[2]


def _finish(procs: list[subprocess.Popen[str]], timeout: float = 90) -> list[tuple[int, str, str]]:
    out = []
    for p in procs:
        try:
            stdout, stderr = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
        out.append((p.returncode, stdout, stderr))
    return out


def test_share_splits_every_batch_over_the_ranks() -> None:
    for rows in (0, 1, 5, 16):
        parts = [share(32, 32 + rows, r, 3) for r in range(3)]
        assert parts[0][0] == 32 and parts[-1][1] == 32 + rows
        assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
        assert max(hi - lo for lo, hi in parts) - min(hi - lo for lo, hi in parts) <= 1


def test_two_ranks_train_like_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 67 pairs, batch 16: the last batch has 3 rows (2 + 1 over the ranks)
    args = ["train", *TINY_CLI, "--num-examples", "67", "--epochs", "3", "--json"]
    procs = launch_ranks([*args, "--run-dir", str(tmp_path / "run"), "--snapshot-every", "5"], 2, tmp_path)
    assert cli_main(args) == 0  # one rank, meanwhile
    one = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    (code0, out0, err0), (code1, out1, err1) = _finish(procs)
    assert code0 == 0 and code1 == 0, err0 + err1
    two = json.loads(out0.strip().splitlines()[-1])
    assert two["world_size"] == 2 and "× 2 ranks (gloo)" in out0
    np.testing.assert_allclose(two["epoch_losses"], one["epoch_losses"], rtol=0.01)
    assert out1 == "" and "epoch" not in err1  # rank 1 prints nothing
    info = read_run_json(tmp_path / "run")
    assert info["world_size"] == 2 and info["num_pairs"] == 67
    steps = [r for r in read_metrics(tmp_path / "run") if r["type"] == "step"]
    epochs = [r for r in read_metrics(tmp_path / "run") if r["type"] == "epoch"]
    # tokens count the global batch (all ranks): one epoch's steps cover every target token once
    assert sum(r["tokens"] for r in steps if r["epoch"] == 1) == epochs[0]["tokens"]
    assert epochs[0]["tokens"] == _target_tokens(67)


def _target_tokens(n: int) -> int:
    from explorer.core.data.sources import load_source
    from explorer.core.data.text import build_dataset

    return int(build_dataset(load_source("task:copy", num_examples=n, seed=0).pairs, 8).tgt_valid_len.sum())


def test_a_killed_rank_stops_the_other_and_the_checkpoint_survives(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    procs = launch_ranks(["train", *TINY_CLI, "--num-examples", "64", "--epochs", "2000", "--run-dir", str(run)],
                         2, tmp_path)
    last = run / "checkpoints" / "last.safetensors"
    deadline = time.monotonic() + 60
    while not last.exists() and time.monotonic() < deadline and procs[0].poll() is None:
        time.sleep(0.05)
    assert last.exists(), _finish(procs, 5)
    procs[1].send_signal(signal.SIGKILL)
    killed = time.monotonic()
    (code0, _, err0), _ = _finish(procs, timeout=60)
    assert code0 == 1 and time.monotonic() - killed < 60
    assert "rank 1" in err0 and "died" in err0 and f"--resume {run}" in err0 and "Traceback" not in err0
    epoch = load_model(last).meta["train_state"]["epoch"]
    assert epoch >= 1
    # and the run resumes from there, on one process
    assert cli_main(["train", "--resume", str(run), "--epochs", str(epoch + 1), "--threads", "1"]) == 0
    assert "resuming" in capsys.readouterr().out


def test_a_refused_run_dir_stops_every_rank_before_training(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}")
    procs = launch_ranks(["train", *TINY_CLI, "--num-examples", "16", "--epochs", "1", "--run-dir", str(run)],
                         2, tmp_path)
    (code0, out0, err0), (code1, out1, err1) = _finish(procs, timeout=60)
    assert (code0, code1) == (2, 2) and "already holds a run" in err0 and "--resume" in err0
    assert "another rank could not start" in err1 and out0 == out1 == ""


@pytest.mark.slow
def test_under_torchrun(tmp_path: Path) -> None:
    torchrun = shutil.which("torchrun")
    if torchrun is None:
        pytest.skip("torchrun is not on PATH")
    cmd = [torchrun, "--standalone", "--nproc_per_node=2", "-m", "explorer.cli", "train", *TINY_CLI,
           "--num-examples", "40", "--epochs", "2", "--run-dir", str(tmp_path / "run"), "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["world_size"] == 2
