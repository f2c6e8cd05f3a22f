"""Run directories (docs/RUNS.md): the format a writer leaves, a follower reading it live, and what a follower
meets on disk: a cut last line, damage, missing files, a future version, a run deleted or replaced."""
from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import tiny_config, tiny_dataset, train_into  # noqa: E402

from explorer.core.runs import follower as run_follow  # noqa: E402
from explorer.core.training.checkpoint_read import CheckpointError  # noqa: E402
from explorer.core.training.checkpoint import load_model
from explorer.core.training.events import SnapshotEvent, StepEvent  # noqa: E402
from explorer.core.runs.run_dir import (RUN_FORMAT_VERSION, RunDirError, check_new_run_dir, read_metrics,  # noqa: E402
                                   read_run_json, read_snapshot, resolve_model_path, snapshot_files,
                                   snapshot_path, write_snapshot)
from explorer.core.runs.follower import RunFollower  # noqa: E402
from explorer.core.runs.writer import RunWriter  # noqa: E402
from explorer.core.training.trainer import Trainer  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:  # type: ignore[type-arg]
    run = tmp_path_factory.mktemp("runs") / "run"
    _, events = train_into(run, tiny_dataset(), epochs=3)
    return run, events


def test_format_round_trip(finished_run: tuple[Path, list]) -> None:  # type: ignore[type-arg]
    run, events = finished_run
    info = read_run_json(run)
    assert info["format_version"] == RUN_FORMAT_VERSION and len(info["run_id"]) == 32
    assert info["world_size"] == 1 and info["config"]["num_epochs"] == 3 and info["num_batches"] == 3
    assert info["src_vocab"]["idx_to_token"][:4] == ["<unk>", "<pad>", "<bos>", "<eos>"]
    records = read_metrics(run)
    steps = [r for r in records if r["type"] == "step"]
    epochs = [r for r in records if r["type"] == "epoch"]
    assert [r["step"] for r in steps] == list(range(1, 10)) and [r["epoch"] for r in epochs] == [1, 2, 3]
    for r in steps + epochs:
        assert {"step", "epoch", "loss", "time", "tokens_per_s", "wall"} <= set(r)
    trained = [e for e in events if isinstance(e, StepEvent)]
    assert [r["loss"] for r in steps] == [e.loss for e in trained]  # exact: JSON keeps float64 digits
    assert all(len(r["probes"]) == 2 and 0 <= r["bleu"] <= 1 for r in epochs)
    assert records[-1]["type"] == "finished" and records[-1]["stopped"] is False
    snaps = [e for e in events if isinstance(e, SnapshotEvent)]
    files = snapshot_files(run / "snapshots")
    assert [s for s, _ in files] == [e.step for e in snaps] == [0, 2, 4, 6, 8, 9]
    back = read_snapshot(files[2][1])
    from safetensors.numpy import load_file
    assert set(load_file(str(files[2][1]))) == {"encoder_self", "decoder_self", "cross"}  # docs/RUNS.md's names
    for kind in ("encoder", "decoder", "cross"):
        np.testing.assert_array_equal(back.maps[kind], snaps[2].maps[kind])
    assert back.src_tokens == snaps[2].src_tokens and back.tgt_input_tokens == snaps[2].tgt_input_tokens
    model = load_model(resolve_model_path(run))  # a run directory opens as its last checkpoint
    assert model.meta["train_state"]["epoch"] == 3 and model.meta["run_id"] == info["run_id"]


def test_follower_yields_the_trainers_events(finished_run: tuple[Path, list]) -> None:  # type: ignore[type-arg]
    run, events = finished_run
    got = RunFollower(run).poll()
    assert got[0].kind == "started" and got[0].num_batches == 3 and got[0].config["num_epochs"] == 3
    metrics = [e for e in got[1:] if e.kind not in ("translations", "snapshot")]
    assert metrics == [e for e in events if e.kind in ("step", "epoch")] + [metrics[-1]]
    assert metrics[-1].kind == "finished" and metrics[-1].step == events[-1].step
    snaps = [e for e in got if e.kind == "snapshot"]
    assert [e.step for e in snaps] == [e.step for e in events if e.kind == "snapshot"]
    for i, e in enumerate(got):  # each snapshot follows its step's StepEvent, and all come before the end
        if e.kind == "snapshot" and e.step:
            assert any(x.kind == "step" and x.step == e.step for x in got[:i])
            assert all(x.kind != "finished" for x in got[:i])
    assert sum(e.kind == "translations" for e in got) == 3


def test_follower_is_incremental_and_bounded(tmp_path: Path) -> None:
    ds = tiny_dataset()
    trainer = Trainer(tiny_config(2), ds)
    writer = RunWriter.create(tmp_path / "run", trainer, {"spec": "test"})
    follower = RunFollower(tmp_path / "run", max_bytes=400, max_snapshots=1)
    seen: list[str] = [e.kind for e in follower.poll()]
    with writer:
        for event in trainer:
            writer.on_event(event)
            seen += [e.kind for e in follower.poll()]  # at most ~2 lines and one snapshot a call
    for _ in range(50):
        more = follower.poll()
        if not more:
            break
        seen += [e.kind for e in more]
    assert seen.count("step") == 6 and seen.count("epoch") == 2 and seen.count("finished") == 1
    assert seen.count("snapshot") == 4 and follower.poll() == [] and follower.problems == []


def test_cut_last_line_damage_and_missing_files(tmp_path: Path, finished_run: tuple[Path, list]) -> None:  # type: ignore[type-arg]
    run = tmp_path / "run"
    shutil.copytree(finished_run[0], run)
    metrics = run / "metrics.jsonl"
    lines = metrics.read_bytes().split(b"\n")
    lines[4] = b'{"type": "step", "step": 4, "ep'  # damage in the middle (lines: 3 steps, an epoch, ...)
    metrics.write_bytes(b"\n".join(lines[:-1]) + b"\n" + b'{"type":"step","step":99,"epo')  # cut last line
    snaps = snapshot_files(run / "snapshots")
    snaps[1][1].write_bytes(b"\x80\x04garbage")  # a damaged snapshot file
    (run / "checkpoints" / "last.safetensors").unlink()
    follower = RunFollower(run)
    events = follower.poll()
    assert follower.partial_line and any("line 5" in p for p in follower.problems)
    assert any("step-000000002" in p for p in follower.problems)
    assert sum(e.kind == "step" for e in events) == 8 and sum(e.kind == "snapshot" for e in events) == 5
    assert follower.load_latest_model() is None
    with open(metrics, "ab") as fh:  # the cut line completed (a live writer): read once it is whole
        fh.write(b'ch":9,"loss":1.0,"tokens":3,"time":1.0}\n')
    more = follower.poll()
    assert [e.step for e in more if e.kind == "step"] == [99] and not follower.partial_line


def test_only_run_json_then_files_appear(tmp_path: Path) -> None:
    trainer = Trainer(tiny_config(1), tiny_dataset())
    writer = RunWriter.create(tmp_path / "run", trainer, {"spec": "test"})
    writer.close()
    for sub in ("metrics.jsonl", "snapshots", "checkpoints"):
        path = tmp_path / "run" / sub
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    follower = RunFollower(tmp_path / "run")
    assert [e.kind for e in follower.poll()] == ["started"] and follower.poll() == []
    assert follower.problems == [] and follower.latest_checkpoint() is None


def test_future_version_and_not_a_run(tmp_path: Path, finished_run: tuple[Path, list]) -> None:  # type: ignore[type-arg]
    run = tmp_path / "run"
    shutil.copytree(finished_run[0], run)
    info = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**info, "format_version": RUN_FORMAT_VERSION + 1}))
    with pytest.raises(RunDirError, match="newer Attention Explorer.*update"):
        RunFollower(run)
    with pytest.raises(RunDirError, match="no run.json"):
        RunFollower(tmp_path)
    with pytest.raises(RunDirError, match="does not exist"):
        RunFollower(tmp_path / "nowhere")
    (run / "run.json").write_text("{not json")
    with pytest.raises(RunDirError, match="damaged"):
        RunFollower(run)


def test_run_deleted_or_replaced_while_followed(tmp_path: Path, finished_run: tuple[Path, list]) -> None:  # type: ignore[type-arg]
    run = tmp_path / "run"
    shutil.copytree(finished_run[0], run)
    follower = RunFollower(run)
    follower.poll()
    shutil.rmtree(run)
    train_into(run, tiny_dataset(), epochs=1)  # another run in the same folder
    (gone,) = follower.poll()
    assert gone.kind == "error" and gone.reason == "run_replaced" and "open it again" in gone.message
    assert follower.ended and follower.poll() == []
    again = RunFollower(run)
    again.poll()
    shutil.rmtree(run)
    (gone,) = again.poll()
    assert gone.reason == "run_deleted"


def test_checkpoint_replaced_while_read_is_read_again(tmp_path: Path, finished_run: tuple[Path, list],  # type: ignore[type-arg]
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    shutil.copytree(finished_run[0], run)
    real, calls = run_follow.load_model, []

    def swapped_under_us(path: Path, device: str = "cpu"):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) == 1:  # the writer renames a new checkpoint over the one being read
            os.replace(path, path.with_suffix(".old"))
            shutil.copy(path.with_suffix(".old"), path)
            raise CheckpointError("last.safetensors is truncated")
        return real(path, device=device)

    monkeypatch.setattr(run_follow, "load_model", swapped_under_us)
    assert RunFollower(run).load_latest_model() is not None and len(calls) == 2
    (run / "checkpoints" / "last.safetensors").write_bytes(b"PK\x03\x04 a zip")  # damaged for good: said once
    calls.clear()
    monkeypatch.setattr(run_follow, "load_model", real)
    with pytest.raises(CheckpointError, match="could run code"):
        RunFollower(run).load_latest_model()


def test_snapshots_on_disk_stay_bounded(tmp_path: Path) -> None:
    ds = tiny_dataset(n=64)
    trainer = Trainer(tiny_config(6, snapshot_every=1), ds)  # 24 steps, 26 snapshots
    writer = RunWriter.create(tmp_path / "run", trainer, {"spec": "test"}, max_snapshots=8)
    with writer:
        for event in trainer:
            writer.on_event(event)
    steps = [s for s, _ in snapshot_files(tmp_path / "run" / "snapshots")]
    assert len(steps) <= 8 and steps[0] == 0 and steps[-1] == 24  # thinned like SnapshotHistory


def test_a_snapshot_write_does_not_search_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshot files are written once each: no per-write search for stale temps, which lists the whole folder (its
    cost grew with the run's snapshots, on the training thread); a resumed run clears leftovers instead."""
    import torch

    import explorer.core.training.checkpoint as ck

    listed: list[Path] = []
    real_glob = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: listed.append(self) or real_glob(self, pattern))
    folder = tmp_path / "snapshots"
    folder.mkdir()
    stale = folder / f".{snapshot_path(folder, 10).name}.0123abcd.tmp.safetensors"  # a killed write of step 10
    stale.write_bytes(b"partial")
    old = time.time() - ck.STALE_TEMP_S - 60
    os.utime(stale, (old, old))
    maps = {"encoder": np.ones((1, 1, 2, 2), np.float32), "decoder": np.ones((1, 1, 2, 2), np.float32),
            "cross": np.ones((1, 1, 2, 2), np.float32)}
    event = SnapshotEvent(step=10, epoch=1, maps=maps, src_tokens=["a", "<eos>"], tgt_tokens=["b", "<eos>"],
                          tgt_input_tokens=["<bos>", "b"])
    path, size = write_snapshot(folder, event)
    assert listed == [] and stale.exists()
    assert read_snapshot(path).step == 10 and path.stat().st_size == size
    ck.save_checkpoint(tmp_path / "model.safetensors", {"w": torch.zeros(2)}, {})
    assert listed  # a checkpoint, rewritten under one name, still clears its own stale temps


def test_refused_run_dirs(tmp_path: Path, finished_run: tuple[Path, list], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    with pytest.raises(RunDirError, match=r"already holds a run.*--resume .* --epochs N"):
        check_new_run_dir(finished_run[0])
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(RunDirError, match="not empty"):
        check_new_run_dir(tmp_path / "busy")
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunDirError, match="is a file"):
        check_new_run_dir(tmp_path / "file")
    import explorer.core.runs.run_dir as rd

    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(rd.tempfile, "mkstemp", read_only)  # works as root too
    with pytest.raises(RunDirError, match="cannot write.*Read-only"):
        check_new_run_dir(tmp_path / "new")


def test_checkpoints_wait_for_their_interval_but_the_last_epoch_always_has_one(tmp_path: Path) -> None:
    dataset = tiny_dataset()
    train_into(tmp_path / "every", dataset, 4, keep_checkpoints=True)
    train_into(tmp_path / "spaced", dataset, 4, keep_checkpoints=True, checkpoint_interval_s=3600.0)
    kept = lambda run: sorted(p.name for p in (run / "checkpoints").glob("epoch-*.safetensors"))  # noqa: E731
    assert kept(tmp_path / "every") == [f"epoch-{e:04d}.safetensors" for e in (1, 2, 3, 4)]
    assert kept(tmp_path / "spaced") == ["epoch-0001.safetensors", "epoch-0004.safetensors"]  # first, then last
    assert json.loads((tmp_path / "spaced" / "run.json").read_text())["checkpoint_interval_s"] == 3600.0
    trainer, _ = train_into(tmp_path / "spaced", dataset, 6, resume=True, keep_checkpoints=True)
    assert kept(tmp_path / "spaced")[-1] == "epoch-0006.safetensors" and trainer.epoch == 6
    assert "epoch-0005.safetensors" not in kept(tmp_path / "spaced")  # the interval is kept on resume
    with pytest.raises(ValueError):
        RunWriter.create(tmp_path / "bad", Trainer(tiny_config(1), dataset), {}, checkpoint_interval_s=float("nan"))


def test_probes_wait_for_their_interval_but_the_last_epoch_is_always_translated(tmp_path: Path) -> None:
    dataset = tiny_dataset()
    translated = lambda run: [r["epoch"] for r in read_metrics(run) if r["type"] == "epoch" and "probes" in r]  # noqa: E731
    train_into(tmp_path / "every", dataset, 4)
    train_into(tmp_path / "spaced", dataset, 4, probe_interval_s=3600.0)
    assert translated(tmp_path / "every") == [1, 2, 3, 4]
    assert translated(tmp_path / "spaced") == [1, 4]  # first, then last
    assert json.loads((tmp_path / "spaced" / "run.json").read_text())["probe_interval_s"] == 3600.0
    epochs = [r for r in read_metrics(tmp_path / "spaced") if r["type"] == "epoch"]
    assert all(r["loss"] is not None for r in epochs)  # an epoch without probes keeps its own figures
    follower = RunFollower(tmp_path / "spaced")
    kinds = [e.kind for e in follower.poll()]
    assert kinds.count("epoch") == 4 and kinds.count("translations") == 2
    train_into(tmp_path / "spaced", dataset, 6, resume=True)
    assert translated(tmp_path / "spaced") == [1, 4, 5, 6]  # the interval is kept: the resumed part's first, the last
    with pytest.raises(ValueError):
        RunWriter.create(tmp_path / "bad", Trainer(tiny_config(1), dataset), {}, probe_interval_s=-1.0)


def test_slow_probe_translations_take_a_bounded_share_of_a_spaced_run(tmp_path: Path, monkeypatch) -> None:
    from explorer.core.runs import writer as writer_module

    translate = RunWriter._translate_probes

    def slow_translate(self: RunWriter) -> list:
        time.sleep(0.2)  # a slow decoding: the next may begin no sooner than min(0.2 / share, 10 s) = 10 s later
        return translate(self)

    monkeypatch.setattr(RunWriter, "_translate_probes", slow_translate)
    assert writer_module.PROBE_MAX_SHARE == 0.01
    dataset = tiny_dataset()
    translated = lambda run: [r["epoch"] for r in read_metrics(run) if r["type"] == "epoch" and "probes" in r]  # noqa: E731
    train_into(tmp_path / "every", dataset, 4)  # no interval: every epoch, however long it takes
    train_into(tmp_path / "spaced", dataset, 4, probe_interval_s=1e-6)
    assert translated(tmp_path / "every") == [1, 2, 3, 4]
    assert translated(tmp_path / "spaced") == [1, 4]  # first, then last


def test_kept_models_are_written_at_their_epochs_and_the_list_survives_a_resume(tmp_path: Path) -> None:
    from explorer.core.runs.run_dir import kept_models

    dataset, run = tiny_dataset(), tmp_path / "run"
    trainer, _ = train_into(run, dataset, 3, keep_models=(1, 3, 9))
    assert [e for e, _ in kept_models(run)] == [1, 3]
    first = load_model(kept_models(run)[0][1])
    assert len(first.history.epoch_loss) == 1 and first.train_config is not None
    final = load_model(kept_models(run)[1][1])
    for name, value in trainer.model.state_dict().items():  # the model after epoch 3 is the trained one
        np.testing.assert_array_equal(final.model.state_dict()[name].numpy(), value.numpy())
    assert json.loads((run / "run.json").read_text())["keep_models"] == [1, 3, 9]
    train_into(run, dataset, 9, resume=True)
    assert [e for e, _ in kept_models(run)] == [1, 3, 9]
