"""Faults during training and saving: a NaN/inf loss or gradient stops with a message and keeps the
last good weights; out-of-memory stops suggesting a smaller batch; a full or read-only disk leaves the
previous file intact; a process killed (SIGKILL) in the middle of a save leaves the previous model loadable."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch

from explorer.cli.main import main as cli_main
from explorer.core.training import checkpoint as ck
from explorer.core.model import loss as loss_module
from explorer.core.training import trainer as training
from explorer.core.training.checkpoint_read import CheckpointError
from explorer.core.training.checkpoint import load_model, save_model
from explorer.core.training.trainer import Trainer
from robust_helpers import tiny_config, tiny_dataset


def _copy_state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _run_until_error(trainer: Trainer) -> tuple[Any, dict[str, torch.Tensor], int]:
    """Iterate; return the ErrorEvent, the weights after the last good step and how many steps were good."""
    good = _copy_state(trainer.model)
    steps = 0
    for ev in trainer:
        if ev.kind == "step":
            good, steps = _copy_state(trainer.model), ev.step
        elif ev.kind == "error":
            return ev, good, steps
    raise AssertionError("training ended without an ErrorEvent")


def test_lr_of_a_million_is_refused_up_front() -> None:
    with pytest.raises(training.ConfigError, match="lr must be .* at most 10"):
        tiny_config(lr=1e6).validate()


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_nonfinite_loss_stops_and_keeps_the_last_good_weights(bad: float, monkeypatch: pytest.MonkeyPatch) -> None:
    real = loss_module.F.cross_entropy
    calls = {"n": 0}

    def poisoned(*args: Any, **kwargs: Any) -> torch.Tensor:
        calls["n"] += 1
        loss = real(*args, **kwargs)
        return loss * bad if calls["n"] == 4 else loss

    monkeypatch.setattr(loss_module.F, "cross_entropy", poisoned)  # the trainer's masked loss calls it
    config = tiny_config(num_epochs=3)
    trainer = Trainer(config, tiny_dataset(config))
    error, good, steps = _run_until_error(trainer)
    assert steps == 3 and error.step == 4 and error.reason == "nonfinite"
    assert "smaller learning rate" in error.message and "step 3" in error.message
    after = trainer.model.state_dict()
    assert all(torch.equal(after[k], good[k]) for k in good), "the weights of the last good step are kept"
    assert all(torch.isfinite(t).all() for t in after.values() if t.is_floating_point())


def test_nonfinite_gradient_stops_too(monkeypatch: pytest.MonkeyPatch) -> None:
    config = tiny_config(num_epochs=3)
    trainer = Trainer(config, tiny_dataset(config))
    calls = {"n": 0}
    weight = next(p for p in trainer.model.parameters() if p.requires_grad)

    def poison_grad(grad: torch.Tensor) -> torch.Tensor:
        calls["n"] += 1
        return grad * float("nan") if calls["n"] == 2 else grad

    weight.register_hook(poison_grad)
    error, good, steps = _run_until_error(trainer)
    assert error.step == 2 and steps == 1 and "gradient" in error.message
    assert all(torch.equal(trainer.model.state_dict()[k], good[k]) for k in good)


def test_out_of_memory_stops_with_a_smaller_batch_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    real = training.clip_grad_norm
    calls = {"n": 0}

    def oom(*args: Any, **kwargs: Any) -> torch.Tensor:
        calls["n"] += 1
        if calls["n"] == 2:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (simulated)")
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "clip_grad_norm", oom)
    config = tiny_config(num_epochs=2)
    trainer = Trainer(config, tiny_dataset(config))
    error, good, steps = _run_until_error(trainer)
    assert error.reason == "out_of_memory" and steps == 1
    assert "smaller batch size (now 6)" in error.message
    assert all(torch.equal(trainer.model.state_dict()[k], good[k]) for k in good)


def test_out_of_memory_through_the_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def oom(*args: Any, **kwargs: Any) -> torch.Tensor:
        raise torch.OutOfMemoryError("out of memory (simulated)")

    monkeypatch.setattr(training, "clip_grad_norm", oom)
    code = cli_main(["train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1", "--device", "cpu",
                     "--num-hiddens", "8", "--num-heads", "2", "--ffn-num-hiddens", "8", "--num-layers", "1"])
    _, err = capsys.readouterr()
    assert code == 1 and len(err.strip().splitlines()) == 1 and "smaller batch size" in err


# ----------------------------------------------------------------------------------- saving
@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, Trainer, bytes]:
    config = tiny_config()
    dataset = tiny_dataset(config)
    trainer = Trainer(config, dataset)
    list(trainer)
    path = save_model(tmp_path / "model.safetensors", trainer.model, config, dataset.src_vocab, dataset.tgt_vocab,
                      trainer.history)
    return path, trainer, path.read_bytes()


def _save_again(path: Path, trainer: Trainer) -> Path:
    with torch.no_grad():
        for p in trainer.model.parameters():
            p.add_(1.0)  # a different model, so an overwrite would show
    return save_model(path, trainer.model, trainer.config, trainer.src_vocab, trainer.tgt_vocab, trainer.history)


@pytest.mark.parametrize("failure", [
    OSError(errno.ENOSPC, "No space left on device"),
    OSError(errno.EDQUOT, "Disk quota exceeded"),
    OSError(errno.EIO, "Input/output error"),
])
def test_full_disk_keeps_the_previous_file(saved: tuple[Path, Trainer, bytes], failure: OSError,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path, trainer, before = saved

    def half_then_fail(handle: Any, data: bytes) -> None:
        handle.write(data[: len(data) // 2])
        raise failure

    monkeypatch.setattr(ck, "_write_all", half_then_fail)
    with pytest.raises(CheckpointError, match=failure.strerror):
        _save_again(path, trainer)
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name], "no temporary file is left behind"
    load_model(path)


def test_read_only_folder_keeps_the_previous_file(saved: tuple[Path, Trainer, bytes],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path, trainer, before = saved
    if os.geteuid() != 0:
        path.parent.chmod(0o500)
    else:  # root writes anywhere: simulate the read-only file system instead

        def read_only(*args: Any, **kwargs: Any) -> Any:
            raise OSError(errno.EROFS, "Read-only file system")

        monkeypatch.setattr("explorer.core.atomic_file.create_temp", read_only)
    try:
        with pytest.raises(CheckpointError, match="cannot write to folder"):
            _save_again(path, trainer)
    finally:
        path.parent.chmod(0o700)
    assert path.read_bytes() == before


def test_cli_train_to_an_unwritable_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    def read_only(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("explorer.core.atomic_file.create_temp", read_only)
    out = tmp_path / "m.safetensors"
    code = cli_main(["train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1", "--device", "cpu",
                     "--num-hiddens", "8", "--num-heads", "2", "--ffn-num-hiddens", "8", "--num-layers", "1",
                     "--out", str(out)])
    _, err = capsys.readouterr()
    last = err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("error: ") and "Read-only file system" in last and not out.exists()
    for bad in (tmp_path, tmp_path / "absent" / "m.safetensors"):
        code = cli_main(["train", "--data", "task:copy", "--epochs", "1", "--out", str(bad)])
        assert code == 2 and "error: --out" in capsys.readouterr().err


_KILLED_SAVER = textwrap.dedent("""
    import sys, time
    from explorer.core.training import checkpoint as ck
    def slow(handle, data):
        handle.write(data[: len(data) // 2])
        handle.flush()
        print("HALF", flush=True)
        time.sleep(60)
        handle.write(data[len(data) // 2:])

    ck._write_all = slow
    tensors, meta = ck.load_checkpoint(sys.argv[1])
    tensors = {k: v + 1 for k, v in tensors.items()}
    meta.pop("format"); meta.pop("format_version")
    ck.save_checkpoint(sys.argv[1], tensors, meta)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_killed_during_a_save_leaves_the_previous_model(saved: tuple[Path, Trainer, bytes]) -> None:
    path, _trainer, before = saved
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with subprocess.Popen([sys.executable, "-c", _KILLED_SAVER, str(path)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env) as child:
        try:
            assert child.stdout is not None
            line = child.stdout.readline().strip()
            child.send_signal(signal.SIGKILL)
            _, err = child.communicate(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
    assert line == "HALF", err
    assert child.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    loaded = load_model(path)
    assert loaded.model_config.num_hiddens == 8
    leftovers = [p.name for p in path.parent.iterdir() if p.name != path.name]
    assert all(name.startswith(f".{path.name}.") and name.endswith(f".tmp{path.suffix}") for name in leftovers)


def test_cli_checks_out_is_writable_before_training(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Found here: an unwritable --out was discovered after training and the model was lost (fixed in the CLI)."""
    def read_only(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("explorer.core.atomic_file.create_temp", read_only)
    monkeypatch.setattr("tempfile.mkstemp", read_only)
    code = cli_main(["train", "--data", "task:copy", "--num-examples", "8", "--epochs", "1", "--device", "cpu",
                     "--num-hiddens", "8", "--num-heads", "2", "--ffn-num-hiddens", "8", "--num-layers", "1",
                     "--out", str(tmp_path / "m.safetensors")])
    _, err = capsys.readouterr()
    assert code == 2 and "epoch" not in err, "refused before spending time on training"
