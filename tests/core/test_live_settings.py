"""Learning-rate schedules (constant, Vaswani et al.'s warm-up then inverse square root, cosine) against their
closed forms and torch's own cosine, and settings changed while a run trains: applied at the next step, refused
when bad, recorded in metrics.jsonl, read back by a follower and a replay, and carried over an exact resume."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import tiny_config, tiny_dataset  # noqa: E402

from explorer.core.model.transformer import ConfigError, TransformerConfig  # noqa: E402
from explorer.core.runs.follower import RunFollower  # noqa: E402
from explorer.core.runs.process import TrainingJob, TrainingProcess  # noqa: E402
from explorer.core.runs.replay import ReplayClock, read_recorded_run, replay_run  # noqa: E402
from explorer.core.runs.run_dir import read_metrics, read_run_json  # noqa: E402
from explorer.core.runs.writer import RunWriter  # noqa: E402
from explorer.core.training import trainer as trainer_module  # noqa: E402
from explorer.core.training.config import TrainingConfig  # noqa: E402
from explorer.core.training.schedule import COSINE_FLOOR, lr_factor  # noqa: E402
from explorer.core.training.state import load_training_checkpoint, save_training_checkpoint  # noqa: E402
from explorer.core.training.trainer import Trainer  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
DROPOUT = TransformerConfig(num_hiddens=16, num_heads=2, ffn_num_hiddens=32, dropout=0.2)


def _step_lrs(events: list[Any]) -> list[float]:
    return [e.lr for e in events if e.kind == "step"]


# ------------------------------------------------------------------------------------------------ schedules
def test_inverse_sqrt_is_vaswanis_rate_normalised_to_peak_at_the_base_rate() -> None:
    w, d_model = 40, 512
    for step in (0, 1, 9, 38, 39, 40, 41, 200, 10_000):
        n = step + 1  # the paper counts steps from 1
        paper = d_model ** -0.5 * min(n ** -0.5, n * w ** -1.5)  # §5.3, equation (3)
        assert lr_factor("inverse-sqrt", step, w, 0) == pytest.approx(paper / (d_model ** -0.5 * w ** -0.5), rel=1e-12)
    assert lr_factor("inverse-sqrt", w - 1, w, 0) == pytest.approx(1.0)  # the peak, at n = w
    assert lr_factor("inverse-sqrt", 0, w, 0) == pytest.approx(1 / w)  # linear warm-up from 1/w
    assert lr_factor("inverse-sqrt", 4 * w - 1, w, 0) == pytest.approx(0.5)  # then 1/sqrt: half at 4w
    assert lr_factor("inverse-sqrt", 99, 0, 0) == pytest.approx(0.1)  # no warm-up: n^-0.5


def test_cosine_without_warm_up_equals_torchs_cosine_annealing_then_holds_the_floor() -> None:
    total, base = 50, 0.01
    param = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([param], lr=base)
    stock = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total, eta_min=COSINE_FLOOR * base)
    for step in range(total):
        assert base * lr_factor("cosine", step, 0, total) == pytest.approx(optimizer.param_groups[0]["lr"],
                                                                           rel=1e-9, abs=1e-15)
        closed = COSINE_FLOOR + (1 - COSINE_FLOOR) * (1 + math.cos(math.pi * step / total)) / 2
        assert lr_factor("cosine", step, 0, total) == pytest.approx(closed, rel=1e-12)
        optimizer.step()
        stock.step()
    assert [lr_factor("cosine", s, 0, total) for s in (total, total + 7)] == [COSINE_FLOOR, COSINE_FLOOR]


def test_warm_up_is_linear_for_constant_and_cosine() -> None:
    assert [lr_factor("constant", s, 4, 100) for s in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert [lr_factor("cosine", s, 4, 100) for s in range(5)] == [0.25, 0.5, 0.75, 1.0, 1.0]
    assert lr_factor("cosine", 52, 4, 100) == pytest.approx(COSINE_FLOOR + (1 - COSINE_FLOOR) / 2)  # half-way


@pytest.mark.parametrize("schedule, warmup", [("constant", 3), ("inverse-sqrt", 3), ("cosine", 2)])
def test_the_trainer_steps_with_the_schedules_rates(schedule: str, warmup: int) -> None:
    trainer = Trainer(tiny_config(3, lr=0.01, lr_schedule=schedule, warmup_steps=warmup), tiny_dataset())
    lrs = _step_lrs(list(trainer))
    want = [0.01 * lr_factor(schedule, s, warmup, trainer.total_steps) for s in range(trainer.total_steps)]
    np.testing.assert_allclose(lrs, want, rtol=1e-12)


def test_the_books_constant_rate_runs_no_scheduler_and_gives_the_same_losses() -> None:
    ds = tiny_dataset()
    plain = Trainer(tiny_config(2, lr=0.01), ds)
    events = list(plain)
    assert set(_step_lrs(events)) == {0.01}
    assert "initial_lr" not in plain._optimizer.param_groups[0]  # no LambdaLR touched it
    again = Trainer(TrainingConfig.from_dict({k: v for k, v in tiny_config(2, lr=0.01).to_dict().items()
                                              if k not in ("lr_schedule", "warmup_steps")}), ds)
    list(again)  # a config written before schedules existed reads as the book's constant rate
    assert again.history.step_loss == plain.history.step_loss


def test_bad_schedules_are_refused_by_the_config() -> None:
    with pytest.raises(ConfigError, match="lr_schedule must be one of constant, inverse-sqrt, cosine"):
        tiny_config(lr_schedule="linear").validate()
    with pytest.raises(ConfigError, match="warmup_steps"):
        tiny_config(warmup_steps=-1).validate()


# ------------------------------------------------------------------------------------------------ live changes
def test_a_live_change_reaches_the_optimizer_clip_and_dropout_at_the_next_step(monkeypatch: pytest.MonkeyPatch) -> None:
    clips: list[float] = []
    real = trainer_module.clip_grad_norm
    monkeypatch.setattr(trainer_module, "clip_grad_norm", lambda p, max_norm, **kw: (clips.append(max_norm),
                                                                                      real(p, max_norm, **kw))[1])
    trainer = Trainer(tiny_config(3, lr=0.01, model=DROPOUT), tiny_dataset())
    events = []
    for event in trainer:
        events.append(event)
        if event.kind == "step" and event.step == 4:
            trainer.change_settings(lr=0.002, grad_clip=0.5, dropout=0.0)
            assert trainer._optimizer.param_groups[0]["lr"] == 0.01  # nothing changes mid-step
        if event.kind == "settings":
            assert trainer._optimizer.param_groups[0]["lr"] == 0.002
            assert {m.p for m in trainer.model.modules() if isinstance(m, torch.nn.Dropout)} == {0.0}
    change = next(e for e in events if e.kind == "settings")
    assert (change.step, change.lr, change.grad_clip, change.dropout) == (5, 0.002, 0.5, 0.0)
    assert change.changed == ("dropout", "grad_clip", "lr")
    at = events.index(change)
    steps = [e.step for e in events if e.kind == "step"]
    assert [e.step for e in events[:at] if e.kind == "step"][-1] == 4 and steps[steps.index(4) + 1] == 5
    assert next(e for e in events[at:] if e.kind == "step").step == 5  # announced before the step it applies to
    assert _step_lrs(events) == [0.01] * 4 + [0.002] * 5
    assert clips == [1.0] * 4 + [0.5] * 5
    assert trainer.settings == {"lr": 0.002, "grad_clip": 0.5, "dropout": 0.0}


def test_a_live_lr_rescales_the_base_of_the_schedule() -> None:
    trainer = Trainer(tiny_config(4, lr=0.01, lr_schedule="inverse-sqrt", warmup_steps=4), tiny_dataset())
    events = []
    for event in trainer:
        events.append(event)
        if event.kind == "step" and event.step == 6:
            trainer.change_settings(lr=0.03)
    want = [(0.01 if s < 6 else 0.03) * lr_factor("inverse-sqrt", s, 4, 0) for s in range(trainer.total_steps)]
    np.testing.assert_allclose(_step_lrs(events), want, rtol=1e-12)


@pytest.mark.parametrize("values, message", [
    ({"lr": 0.0}, "lr must be greater than 0"), ({"lr": -1e-3}, "lr must be greater than 0"),
    ({"lr": math.nan}, "lr must be a finite number"), ({"lr": math.inf}, "lr must be a finite number"),
    ({"dropout": 1.0}, r"dropout must be a number in \[0, 1\)"), ({"dropout": math.nan}, "dropout must be"),
    ({"grad_clip": -1.0}, "grad_clip must be at least 0"), ({"batch_size": 3}, "only lr, grad_clip, dropout"),
    ({}, "no setting to change"),
])
def test_bad_values_are_refused_and_change_nothing(values: dict[str, float], message: str) -> None:
    trainer = Trainer(tiny_config(1, lr=0.01), tiny_dataset())
    with pytest.raises(ConfigError, match=message):
        trainer.change_settings(**values)
    events = list(trainer)
    assert "settings" not in [e.kind for e in events] and set(_step_lrs(events)) == {0.01}
    process = TrainingProcess(TrainingJob(tiny_config(1).to_dict(), "task:copy", 40, 0))
    with pytest.raises(ConfigError, match=message):
        process.change_settings(**values)
    process.close()


# ------------------------------------------------------------------------------------------------ the run directory
def _train(run: Path, config: TrainingConfig, changes: dict[int, dict[str, float]], stop_after_epoch: int = 0,
           resume: bool = False) -> tuple[Trainer, list[Any]]:
    """Train into ``run`` (or resume it), changing settings after the steps named in ``changes``; optionally
    checkpoint and stop after an epoch (an interrupted run)."""
    ds = tiny_dataset()
    if resume:
        _, state = load_training_checkpoint(run / "checkpoints" / "last.safetensors")
        trainer = Trainer(config, ds, resume=state)
        writer = RunWriter.resume(run, trainer)
    else:
        trainer = Trainer(config, ds)
        writer = RunWriter.create(run, trainer, {"spec": "test", "name": "test"})
    events = []
    with writer:
        for event in trainer:
            writer.on_event(event)
            events.append(event)
            if event.kind == "step" and event.step in changes:
                trainer.change_settings(**changes[event.step])
            if event.kind == "epoch" and event.epoch == stop_after_epoch:  # checkpointed at every epoch's end
                trainer.stop()
    return trainer, events


def test_changes_are_recorded_and_read_back_by_a_follower_and_a_replay(tmp_path: Path) -> None:
    run = tmp_path / "run"
    config = tiny_config(3, lr=0.01, lr_schedule="cosine", warmup_steps=2)
    _, events = _train(run, config, {2: {"lr": 0.004}, 6: {"grad_clip": 0.25, "dropout": 0.05}})
    assert read_run_json(run)["format_version"] == 2 and read_run_json(run)["config"]["lr_schedule"] == "cosine"
    lines = [r for r in read_metrics(run) if r["type"] == "settings"]
    assert [(r["step"], r["lr"], r["grad_clip"], r["dropout"], r["changed"]) for r in lines] == [
        (3, 0.004, 1.0, 0.0, ["lr"]), (7, 0.004, 0.25, 0.05, ["dropout", "grad_clip"])]
    steps = [r for r in read_metrics(run) if r["type"] == "step"]
    assert [r["lr"] for r in steps] == _step_lrs(events)
    sent = [e for e in events if e.kind in ("settings", "step")]
    assert [e for e in RunFollower(run).poll() if e.kind in ("settings", "step")] == sent  # the same events
    recorded = read_recorded_run(RunFollower(run))
    assert [e.step for e in recorded.events if e.kind == "settings"] == [3, 7]
    clock = ReplayClock(speed=1000.0)
    replayed = [e for batch in replay_run(RunFollower(run), clock) for e in batch]
    assert [(e.kind, e.step) for e in replayed if e.kind in ("settings", "step")] == [(e.kind, e.step) for e in sent]


def test_a_run_without_settings_lines_or_lr_still_reads(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _train(run, tiny_config(1), {})
    metrics = run / "metrics.jsonl"
    old = [line.replace(b',"lr":0.005', b"") for line in metrics.read_bytes().splitlines(keepends=True)]
    metrics.write_bytes(b"".join(old))  # what a version-1 writer wrote
    info = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**info, "format_version": 1}))
    steps = [e for e in RunFollower(run).poll() if e.kind == "step"]
    assert steps and all(math.isnan(e.lr) for e in steps)


def test_a_resumed_run_continues_the_schedule_and_the_changes_exactly(tmp_path: Path) -> None:
    config = tiny_config(6, lr=0.01, lr_schedule="cosine", warmup_steps=3, model=DROPOUT)
    changes = {4: {"lr": 0.02, "dropout": 0.1}, 11: {"grad_clip": 0.3}}  # before and after the interruption
    whole, whole_events = _train(tmp_path / "whole", config, changes)
    _, first = _train(tmp_path / "run", config, changes, stop_after_epoch=3)
    assert [e.step for e in first if e.kind == "settings"] == [5]
    resumed, second = _train(tmp_path / "run", config, changes, resume=True)
    assert resumed.settings == {"lr": 0.02, "grad_clip": 0.3, "dropout": 0.1}
    np.testing.assert_array_equal(_step_lrs(first)[:9] + _step_lrs(second), _step_lrs(whole_events))
    np.testing.assert_allclose(resumed.history.epoch_loss, whole.history.epoch_loss, rtol=1e-6)
    kept = [(r["step"], r["changed"]) for r in read_metrics(tmp_path / "run") if r["type"] == "settings"]
    assert kept == [(5, ["dropout", "lr"]), (12, ["grad_clip"])]


def test_settings_changed_after_the_checkpoint_are_superseded_by_a_resume(tmp_path: Path) -> None:
    config = tiny_config(4, lr=0.01)
    run = tmp_path / "run"
    _train(run, config, {}, stop_after_epoch=2)  # checkpointed at step 6
    with open(run / "metrics.jsonl", "ab") as fh:  # a change after the checkpoint, then the run was killed
        fh.write(b'{"type":"settings","step":7,"epoch":3,"lr":0.5,"grad_clip":1.0,"dropout":0.0,"changed":["lr"]}\n')
    resumed, events = _train(run, config, {}, resume=True)
    assert [r for r in read_metrics(run) if r["type"] == "settings"] == []
    assert set(_step_lrs(events)) == {0.01} and resumed.settings["lr"] == 0.01


def test_a_checkpoint_keeps_the_settings_and_refuses_damaged_ones(tmp_path: Path) -> None:
    ds = tiny_dataset()
    trainer = Trainer(tiny_config(1, lr=0.01), ds)
    trainer.change_settings(lr=0.003)
    list(trainer)
    state = trainer.state()
    path = save_training_checkpoint(tmp_path / "c.safetensors", state, trainer.config, ds.src_vocab, ds.tgt_vocab)
    assert load_training_checkpoint(path)[1].settings == {**state.settings, "lr": 0.003}
    state.settings["lr"] = -1.0
    save_training_checkpoint(path, state, trainer.config, ds.src_vocab, ds.tgt_vocab)
    with pytest.raises(ValueError, match="damaged training state: lr must be greater than 0"):
        load_training_checkpoint(path)


# ------------------------------------------------------------------------------------------------ a real child
def test_a_change_sent_to_the_training_process_applies_at_its_next_step(tmp_path: Path) -> None:
    config = tiny_config(50, lr=0.01, snapshot_every=0)
    job = TrainingJob(config.to_dict(), "task:copy", 40, 0, run_dir=str(tmp_path / "run"), num_threads=1)
    process = TrainingProcess(job)
    process.pause()  # commands sent before the start apply from the first step
    process.start()
    events = []
    try:
        for event in process.events(poll_s=0.05):
            events.append(event)
            if event.kind == "model_state" and event.reason == "paused":
                if event.step == 0:
                    process.change_settings(lr=0.002, dropout=0.0)
                    process.request_step()
                else:
                    process.stop()
    finally:
        process.close()
    kinds = [e.kind for e in events]
    assert kinds[:4] == ["started", "model_state", "settings", "step"], kinds
    change, step = events[2], events[3]
    assert (change.step, change.lr, change.dropout, step.step, step.lr) == (1, 0.002, 0.0, 1, 0.002)
    assert [r["lr"] for r in read_metrics(tmp_path / "run") if r["type"] == "settings"] == [0.002]


# ------------------------------------------------------------------------------------------------ the CLI
def test_the_cli_trains_with_a_schedule_and_a_resume_keeps_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli.main import main as cli_main
    from run_helpers import TINY_CLI

    run = tmp_path / "run"
    args = ["train", *TINY_CLI, "--num-examples", "40", "--lr", "0.01"]
    assert cli_main([*args, "--epochs", "2", "--run-dir", str(run), "--lr-schedule", "inverse-sqrt",
                     "--warmup-steps", "3"]) == 0
    rates = [r["lr"] for r in read_metrics(run) if r["type"] == "step"]
    assert rates == pytest.approx([0.01 * lr_factor("inverse-sqrt", s, 3, 0) for s in range(6)], rel=1e-12)
    capsys.readouterr()
    assert cli_main(["train", "--resume", str(run), "--lr-schedule", "cosine"]) == 2
    assert "--lr-schedule cannot change when resuming" in capsys.readouterr().err
    assert cli_main(["train", "--resume", str(run), "--epochs", "3"]) == 0
    rates = [r["lr"] for r in read_metrics(run) if r["type"] == "step"]
    assert rates == pytest.approx([0.01 * lr_factor("inverse-sqrt", s, 3, 0) for s in range(9)], rel=1e-12)
    with pytest.raises(SystemExit) as exit_info:  # argparse usage errors exit through SystemExit
        cli_main([*args, "--lr-schedule", "linear"])
    assert exit_info.value.code == 2 and "invalid choice: 'linear'" in capsys.readouterr().err
