"""Resuming a run directory: the same per-epoch losses as an uninterrupted run, metrics continuing the
same file, atomic checkpoints, refusals that say how to resume, and hostile checkpoints that are never unpickled."""
from __future__ import annotations

import json
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import TINY_CLI, tiny_config, tiny_dataset, train_into  # noqa: E402

from explorer.cli.main import main as cli_main  # noqa: E402
from explorer.core.training import checkpoint as ck  # noqa: E402
from explorer.core.training.checkpoint_read import CheckpointError  # noqa: E402
from explorer.core.training.checkpoint import load_model
from explorer.core.runs.run_dir import read_metrics  # noqa: E402
from explorer.core.runs.follower import RunFollower  # noqa: E402
from explorer.core.training.trainer import Trainer  # noqa: E402
from explorer.core.training.state import load_training_checkpoint, save_training_checkpoint  # noqa: E402
from explorer.core.model.transformer import TransformerConfig  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _epoch_losses(run: Path) -> list[float]:
    return [r["loss"] for r in read_metrics(run) if r["type"] == "epoch"]


def _run_with_change(trainer: Trainer, change_after: int) -> list[float]:
    """Iterate ``trainer``, raising the learning rate and dropout after step ``change_after``; the steps' rates."""
    rates = []
    for event in trainer:
        if event.kind == "step":
            rates.append(event.lr)
            if event.step == change_after:
                trainer.change_settings(lr=2 * trainer.config.lr, dropout=0.1)
    return rates


@pytest.mark.parametrize("schedule", [{}, {"lr_schedule": "inverse-sqrt", "warmup_steps": 4}])
def test_trainer_resumed_from_a_checkpoint_matches_an_uninterrupted_run(tmp_path: Path, schedule: dict) -> None:
    ds = tiny_dataset()
    dropout = TransformerConfig(num_hiddens=16, num_heads=2, ffn_num_hiddens=32, dropout=0.2)
    change_after = 5 if schedule else 0  # a schedule run also has its settings changed in the first part
    whole = Trainer(tiny_config(6, model=dropout, **schedule), ds)
    whole_rates = _run_with_change(whole, change_after)
    config = tiny_config(3, model=whole.config.model, **schedule)
    first = Trainer(config, ds)
    first_rates = _run_with_change(first, change_after)
    path = save_training_checkpoint(tmp_path / "c.safetensors", first.state(), config, ds.src_vocab, ds.tgt_vocab)
    _, state = load_training_checkpoint(path)
    config6 = tiny_config(6, model=whole.config.model, **schedule)
    resumed = Trainer(config6, ds, resume=state)
    resumed_rates = _run_with_change(resumed, change_after)
    # with dropout, too: its stream is reseeded per epoch, so nothing of it needs saving; the schedule goes on from
    # the step resumed at, with the rate and dropout changed before the checkpoint
    np.testing.assert_allclose(resumed.history.epoch_loss, whole.history.epoch_loss, rtol=1e-6)
    assert resumed.step == whole.step and len(resumed.history.step_loss) == whole.step
    assert first_rates + resumed_rates == whole_rates and len(set(whole_rates)) > (2 if schedule else 0)


def test_cli_resume_continues_the_run_and_its_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    args = ["train", *TINY_CLI, "--num-examples", "40"]
    assert cli_main([*args, "--epochs", "8", "--json"]) == 0
    whole = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["epoch_losses"]
    assert cli_main([*args, "--epochs", "4", "--run-dir", str(run), "--snapshot-every", "3"]) == 0
    capsys.readouterr()
    assert cli_main(["train", "--resume", str(run), "--epochs", "8", "--json"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and json.loads(out.strip().splitlines()[-1])["resumed_after_epoch"] == 4
    losses = _epoch_losses(run)
    assert len(losses) == 8
    np.testing.assert_allclose(losses, whole, rtol=1e-4)
    kinds = [r["type"] for r in read_metrics(run)]
    assert kinds.count("resumed") == 1 and kinds.count("finished") == 1 and kinds[-1] == "finished"
    info = json.loads((run / "run.json").read_text())
    assert info["config"]["num_epochs"] == 8 and info["resumes"][0]["epoch"] == 4
    events = RunFollower(run).poll()  # a follower sees the resume; its steps continue from 12
    resumed = next(e for e in events if e.kind == "resumed")
    assert resumed.step == 12 and resumed.num_epochs == 8 and resumed.total_steps == 24
    # translate and inspect take the run directory
    assert cli_main(["inspect", "--model", str(run), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["run"]["epochs_checkpointed"] == 8 and info["history"]["epochs"] == 8
    assert cli_main(["translate", "--model", str(run), "1 2 3"]) == 0


def test_a_killed_runs_tail_is_redone_and_superseded(tmp_path: Path) -> None:
    ds = tiny_dataset()
    run = tmp_path / "run"
    train_into(run, ds, epochs=2)
    with open(run / "metrics.jsonl", "ab") as fh:  # what a kill after the checkpoint left behind
        fh.write(b'{"type":"step","step":7,"epoch":3,"loss":9.0,"tokens":1,"time":1}\n{"type":"st')
    train_into(run, ds, epochs=4, resume=True)
    records = read_metrics(run)
    assert [r["step"] for r in records if r["type"] == "step"] == list(range(1, 13))
    assert 9.0 not in [r.get("loss") for r in records]
    assert (run / "metrics.jsonl").read_bytes().endswith(b"\n")
    whole = Trainer(tiny_config(4), ds)
    list(whole)
    np.testing.assert_allclose(_epoch_losses(run), whole.history.epoch_loss, rtol=1e-6)


def test_checkpoints_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    train_into(run, tiny_dataset(), epochs=1)
    last = run / "checkpoints" / "last.safetensors"
    before = last.read_bytes()

    real_write = ck._write_all

    def disk_full(handle, data):  # type: ignore[no-untyped-def]
        if b"attention-explorer-model" not in data[:100_000]:  # run.json, snapshots: written
            return real_write(handle, data)
        handle.write(data[: len(data) // 2])  # a checkpoint: the disk fills up half-way
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ck, "_write_all", disk_full)
    with pytest.raises(ValueError, match="checkpoint of epoch 2.*No space left"):
        train_into(run, tiny_dataset(), epochs=2, resume=True)
    assert last.read_bytes() == before and load_model(last).meta["train_state"]["epoch"] == 1
    assert [p.name for p in last.parent.iterdir()] == ["last.safetensors"]  # no temp file left


def test_refusals_say_how_to_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    train_into(run, tiny_dataset(), epochs=1)
    code = cli_main(["train", *TINY_CLI, "--epochs", "1", "--run-dir", str(run)])
    err = capsys.readouterr().err
    assert code == 2 and "already holds a run" in err and f"--resume {run}" in err
    assert cli_main(["train", "--resume", str(run), "--lr", "0.1"]) == 2
    assert "--lr cannot change when resuming" in capsys.readouterr().err
    assert cli_main(["train", "--resume", str(run), "--epochs", "1"]) == 2
    assert "already trained 1 epoch" in capsys.readouterr().err
    assert cli_main(["train", "--resume", str(tmp_path)]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_hostile_checkpoints_are_never_unpickled(tmp_path: Path) -> None:
    run = tmp_path / "run"
    train_into(run, tiny_dataset(), epochs=1)
    last = run / "checkpoints" / "last.safetensors"
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (os.system, (f"touch {marker}",))

    good = last.read_bytes()
    for payload in (pickle.dumps(Evil()), b"PK\x03\x04" + pickle.dumps(Evil())):
        last.write_bytes(payload)
        with pytest.raises(CheckpointError, match="could run code"):
            load_training_checkpoint(last)
        with pytest.raises(CheckpointError, match="could run code"):
            RunFollower(run).load_latest_model()
    torch.save({"x": Evil()}, last)  # a real torch checkpoint: a zip holding a pickle
    with pytest.raises(CheckpointError, match="could run code"):
        load_training_checkpoint(last)
    assert not marker.exists()
    last.write_bytes(good)
    tensors, meta = ck.load_checkpoint(last)
    for key, bad in (("train_state.exp_avg_sq", -tensors["train_state.exp_avg_sq"] - 1),
                     ("train_state.shuffle_rng", tensors["train_state.shuffle_rng"][:10]),
                     ("train_state.exp_avg", tensors["train_state.exp_avg"][:-1])):
        ck.save_checkpoint(last, {**tensors, key: bad}, meta)
        with pytest.raises(CheckpointError, match="damaged training state"):
            load_training_checkpoint(last)
    ck.save_checkpoint(last, tensors, {**meta, "train_state": {**meta["train_state"], "step": -5}})
    with pytest.raises(CheckpointError, match="damaged training state: step"):
        load_training_checkpoint(last)
    plain = tmp_path / "plain.safetensors"
    ck.save_model(plain, load_model(run / "checkpoints" / "last.safetensors").model, None,
                  tiny_dataset().src_vocab, tiny_dataset().tgt_vocab)
    with pytest.raises(CheckpointError, match="no training state"):
        load_training_checkpoint(plain)


def test_resume_removes_what_a_killed_save_left(tmp_path: Path) -> None:
    """``kill -9`` during a save leaves a complete temporary file beside the checkpoint; resuming (the run's only
    writer now) removes it, however recent, and keeps every real file."""
    run = tmp_path / "run"
    data = tiny_dataset()
    train_into(run, data, epochs=1)
    last = run / "checkpoints" / "last.safetensors"
    leftover = last.with_name(f".{last.name}.0123abcd.tmp{last.suffix}")
    leftover.write_bytes(last.read_bytes())
    unrelated = run / ".notes.txt"  # a hidden file of the user's, not a temporary of ours
    unrelated.write_text("keep")
    before = {p for p in run.rglob("*") if p.is_file()} - {leftover}
    train_into(run, data, epochs=2, resume=True)
    assert not leftover.exists()
    assert unrelated.read_text() == "keep"
    assert before - {p for p in run.rglob("*") if p.is_file()} <= {f for f in before if "snapshots" in f.parts}
