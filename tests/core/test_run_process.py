"""The studio's training process writing a run directory (``TrainingJob.run_dir``): the child records what it
sends, a follower reads the same events, and a run directory already in use is refused before training."""
from __future__ import annotations

from pathlib import Path

from explorer.core.runs.run_dir import read_metrics, read_run_json
from explorer.core.runs.follower import RunFollower
from explorer.core.training.config import TrainingConfig
from explorer.core.runs.process import TrainingJob, TrainingProcess
from explorer.core.model.transformer import TransformerConfig

PROBE = ("1 2 3", "1 2 3")


def _job(run_dir: Path) -> TrainingJob:
    model = TransformerConfig(num_hiddens=8, num_layers=1, num_heads=2, ffn_num_hiddens=16, dropout=0.0)
    config = TrainingConfig(model=model, batch_size=16, num_steps=8, num_epochs=2, snapshot_every=2, device="cpu",
                            min_freq=1, seed=3)
    return TrainingJob(config=config.to_dict(), data_spec="task:copy", num_examples=40, data_seed=0, probe=PROBE,
                       num_threads=1, run_dir=str(run_dir))


def _all_events(job: TrainingJob) -> list:  # type: ignore[type-arg]
    process = TrainingProcess(job)
    process.start()
    try:
        return list(process.events(poll_s=0.05))
    finally:
        process.close()


def test_the_training_process_writes_the_run_it_sends(tmp_path: Path) -> None:
    run = tmp_path / "run"
    sent = _all_events(_job(run))
    assert sent[-1].kind == "model_state" and sent[-1].reason == "final"
    info = read_run_json(run)
    assert info["probe"] == list(PROBE) and info["probes"] == [list(PROBE)]
    assert info["data"]["spec"] == "task:copy" and info["data"]["num_pairs"] == 40
    assert (run / "checkpoints" / "last.safetensors").is_file()  # on disk before the final weights were sent
    followed = RunFollower(run).poll()
    steps_sent = [e for e in sent if e.kind == "step"]
    assert [e for e in followed if e.kind == "step"] == steps_sent
    assert [e.step for e in followed if e.kind == "snapshot"] == [e.step for e in sent if e.kind == "snapshot"]
    epochs = [r for r in read_metrics(run) if r["type"] == "epoch"]
    assert [p["src"] for p in epochs[-1]["probes"]] == ["1 2 3"]


def test_a_used_run_dir_is_refused_before_training(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}")
    events = _all_events(_job(run))
    assert [e.kind for e in events] == ["error"]
    assert events[0].reason == "run_dir" and "already holds a run" in events[0].message
