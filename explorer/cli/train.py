"""The CLI's ``train`` command (book §11.7): a new run, a resumed run directory, or one rank of a ``torchrun`` job.

Under ``torchrun --nproc_per_node=N -m explorer.cli train ...`` every rank runs this same code; only rank 0
prints and writes the run directory. Checks that can refuse a run happen before training, on every rank at
once: if any rank refuses, all stop. No Qt.
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
import io
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

from explorer.cli.errors import CliError
from explorer.cli.options import (add_device, add_json, epoch_list, non_negative_int, positive_float, positive_int,
                                  probability, seed_int)
from explorer.cli.output import print_json
from explorer.cli.progress import PROBES, Progress, run_probes, stop_on_sigint

T = TypeVar("T")
#: Settings a resumed run keeps: flag dest -> (where in TrainingConfig.to_dict(), key).
KEPT_SETTINGS = {"num_hiddens": "model", "num_layers": "model", "num_heads": "model", "ffn_num_hiddens": "model",
                 "dropout": "model", "batch_size": "", "num_steps": "", "lr": "", "seed": "", "lr_schedule": "",
                 "warmup_steps": ""}


def _field_defaults(cls: type) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def _book_defaults() -> dict[str, Any]:
    """The book's settings, read from the core config dataclasses (never repeated here)."""
    from explorer.core.data.sources import load_source
    from explorer.core.model.transformer import TransformerConfig
    from explorer.core.training.config import TrainingConfig

    model = _field_defaults(TransformerConfig)
    train = _field_defaults(TrainingConfig)
    return {**model, **{k: v for k, v in train.items() if k != "model"},
            "num_examples": inspect.signature(load_source).parameters["num_examples"].default}


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``train`` to the CLI's subcommands (defaults shown in ``--help`` are the book's)."""
    d = _book_defaults()
    train = sub.add_parser("train", help="train a model and optionally save it")
    train.add_argument("--data", default="builtin", metavar="builtin|PATH|task:copy|task:reverse|task:sort",
                       help="the bundled corpus, a fra.txt/.tsv/.zip file, or a synthetic task (default: %(default)s)")
    train.add_argument("--num-examples", type=positive_int, default=d["num_examples"], metavar="N",
                       help="sentence pairs to train on (default: %(default)s)")
    train.add_argument("--epochs", type=positive_int, default=d["num_epochs"], metavar="N",
                       help="passes over the data (default: %(default)s)")
    train.add_argument("--seed", type=seed_int, default=d["seed"], metavar="S",
                       help="seeds weights, batches and synthetic data (default: %(default)s)")
    add_device(train, d["device"], help="auto = CUDA, then Apple MPS, then CPU (default: %(default)s)")
    train.add_argument("--threads", type=positive_int, metavar="N",
                       help="CPU threads for torch (default: torch's choice; 1 is often faster on a busy machine)")
    train.add_argument("--out", metavar="FILE", help="save the trained model here (a .safetensors file)")
    add_json(train)
    hp = train.add_argument_group("hyperparameters (the book's settings by default)")
    for flag, key, kind, meta, text in (
        ("--num-hiddens", "num_hiddens", positive_int, "N", "model width"),
        ("--num-layers", "num_layers", positive_int, "N", "encoder and decoder blocks"),
        ("--num-heads", "num_heads", positive_int, "N", "attention heads (must divide --num-hiddens)"),
        ("--ffn-num-hiddens", "ffn_num_hiddens", positive_int, "N", "hidden units of the position-wise FFN"),
        ("--dropout", "dropout", probability, "P", "dropout probability"),
        ("--batch-size", "batch_size", positive_int, "N", "sentence pairs per step"),
        ("--num-steps", "num_steps", positive_int, "N", "tokens each sentence is padded or cut to"),
        ("--lr", "lr", positive_float, "LR", "Adam learning rate"),
    ):
        hp.add_argument(flag, type=kind, default=d[key], metavar=meta, help=text + " (default: %(default)s)")
    from explorer.core.training.schedule import LR_SCHEDULES

    hp.add_argument("--lr-schedule", choices=LR_SCHEDULES, default=d["lr_schedule"],
                    help="learning-rate schedule: the book's constant rate, warm-up then inverse square root "
                         "(Vaswani et al. 2017, peak = --lr), or cosine decay to a tenth of --lr over the run "
                         "(default: %(default)s)")
    hp.add_argument("--warmup-steps", type=non_negative_int, default=d["warmup_steps"], metavar="N",
                    help="warm-up steps of the schedule: linear for constant and cosine, the inverse square root's "
                         "own for inverse-sqrt (default: %(default)s)")
    _add_run_options(train, d)
    return train


def _add_run_options(train: argparse.ArgumentParser, d: dict[str, Any]) -> None:
    """``train``'s run-directory, resume and distributed options (docs/RUNS.md)."""
    runs = train.add_argument_group("run directory and resume (also under torchrun --nproc_per_node=N -m explorer.cli)")
    runs.add_argument("--run-dir", metavar="DIR", help="record the run here as it trains: run.json, metrics.jsonl, "
                      "attention snapshots, checkpoints (a new or empty folder)")
    runs.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its last checkpoint, to --epochs "
                      "epochs in total (default: the number it was started with); its settings are kept")
    runs.add_argument("--checkpoint-every", type=positive_int, default=1, metavar="N",
                      help="write checkpoints/last.safetensors every N epochs (default: %(default)s)")
    runs.add_argument("--keep-checkpoints", action="store_true",
                      help="also keep checkpoints/epoch-XXXX.safetensors for every checkpointed epoch")
    runs.add_argument("--keep-models", type=epoch_list, default=(), metavar="E,E,…",
                      help="also save the model alone (no optimiser state, a quarter of a checkpoint) after these "
                           "epochs into models/epoch-XXXX.safetensors, e.g. 1,5,20: a replay then translates with "
                           "the model as it was")
    runs.add_argument("--snapshot-every", type=positive_int, default=None, metavar="K",
                      help="save the probe's attention maps every K steps into the run directory (default: adapts "
                           "to the run's length, about 100 snapshots and at least one every 50 steps)")
    runs.add_argument("--dist-timeout", type=positive_float, default=45.0, metavar="S",
                      help="under torchrun: a rank that waits S seconds for the others gives up (default: %(default)s)")


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


@dataclass
class _Plan:
    """What to train: the config, the data to load and, for a resumed run, its directory and saved state."""

    config: Any
    data_spec: str
    num_examples: int | None
    data_seed: int
    run_dir: Path | None = None
    info: dict[str, Any] | None = None  # run.json of a resumed run
    loaded: Any = None  # LoadedModel of a resumed run's checkpoint
    state: Any = None  # its TrainerState
    adaptive_snapshots: bool = False  # the snapshot cadence follows the run's length, known once the data is loaded


def _check_out_path(out: str | None) -> Path | None:
    """Refuse an unusable --out before spending minutes on training."""
    if not out:
        return None
    path = Path(out)
    if path.is_dir():
        raise CliError(f"--out {out} is a folder; give a file name such as model.safetensors")
    if not path.parent.is_dir():
        raise CliError(f"--out: the folder {path.parent} does not exist")
    from explorer.core.training.checkpoint import check_writable

    return check_writable(path)  # a read-only folder is found now, not after the training


def _describe_device(device: Any) -> str:
    if device.type == "cuda":
        import torch

        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


def _agreed(ctx: Any, action: Callable[[], T]) -> T:
    """Run ``action`` on this rank; under torchrun, every rank then learns whether all succeeded, and a rank
    whose own part went well stops too (with one line) when another's failed."""
    error: BaseException | None = None
    result: Any = None
    try:
        result = action()
    except Exception as exc:  # re-raised below, after the other ranks have been told
        error = exc
    if ctx is not None and not ctx.all_ok(error is None) and error is None:
        raise CliError(f"rank {ctx.rank}: another rank could not start the run (see rank 0's message)")
    if error is not None:
        raise error
    return result


# ----------------------------------------------------------------------------------------- planning
def _new_plan(args: argparse.Namespace, main: bool) -> _Plan:
    from explorer.core.training.config import TrainingConfig
    from explorer.core.model.transformer import TransformerConfig

    if args.resume and args.run_dir:
        raise CliError("--resume continues the run in its own folder: leave out --run-dir")
    model_config = TransformerConfig(num_hiddens=args.num_hiddens, num_layers=args.num_layers,
                                     num_heads=args.num_heads, ffn_num_hiddens=args.ffn_num_hiddens,
                                     dropout=args.dropout)
    snapshots = (args.snapshot_every or 1) if (args.run_dir and main) else 0  # without a run dir nobody draws them
    config = TrainingConfig(model=model_config, batch_size=args.batch_size, num_steps=args.num_steps, lr=args.lr,
                            num_epochs=args.epochs, seed=args.seed, device=args.device, snapshot_every=snapshots,
                            lr_schedule=args.lr_schedule, warmup_steps=args.warmup_steps)
    config.validate()
    return _Plan(config=config, data_spec=args.data, num_examples=args.num_examples, data_seed=args.seed,
                 run_dir=Path(args.run_dir) if args.run_dir else None,
                 adaptive_snapshots=bool(snapshots) and args.snapshot_every is None)


def _resume_plan(args: argparse.Namespace, main: bool) -> _Plan:
    from explorer.core.runs.run_dir import RunDirError, last_checkpoint, read_run_json
    from explorer.core.training.state import load_training_checkpoint

    run_dir = Path(args.resume)
    info = read_run_json(run_dir)
    path = last_checkpoint(run_dir)
    if path is None:
        raise RunDirError(f"the run in {run_dir} has no checkpoint yet, so there is nothing to resume; start it "
                          f"again in a new folder with --run-dir")
    loaded, state = load_training_checkpoint(path)
    if loaded.meta.get("run_id") not in (None, info["run_id"]):
        raise RunDirError(f"{path} belongs to another run than {run_dir / 'run.json'}; the folder was mixed up")
    config = loaded.train_config
    given = getattr(args, "given", set())
    saved = config.to_dict()
    for dest, where in KEPT_SETTINGS.items():
        value = saved[where][dest] if where else saved[dest]
        if dest in given and getattr(args, dest) != value:
            flag = "--" + dest.replace("_", "-")
            raise CliError(f"{flag} cannot change when resuming: the run uses {value}; start a new run "
                           f"(--run-dir) to train with other settings")
    data = info.get("data") or {}
    if "num_examples" in given and args.num_examples != data.get("num_examples"):
        raise CliError(f"--num-examples cannot change when resuming: the run uses {data.get('num_examples')}")
    config.num_epochs = args.epochs if "epochs" in given else int(saved["num_epochs"])
    if config.num_epochs <= state.epoch:
        raise CliError(f"the run in {run_dir} has already trained {state.epoch} epoch(s) (of {saved['num_epochs']}"
                       f" planned): ask for more with --epochs N, N > {state.epoch}")
    if "device" in given:
        config.device = args.device
    if not main:
        config.snapshot_every = 0  # rank 0 alone records snapshots
    config.validate()
    spec = args.data if "data" in given else str(data.get("spec", "builtin"))
    return _Plan(config=config, data_spec=spec, num_examples=data.get("num_examples"),
                 data_seed=int(data.get("seed", config.seed)), run_dir=run_dir, info=info, loaded=loaded, state=state)


def _load_data(plan: _Plan) -> tuple[Any, Any, dict[str, Any]]:
    """The data source, the dataset (a resumed run's own vocabularies) and its description for run.json."""
    from explorer.core.data.sources import load_source
    from explorer.core.runs.run_dir import RunDirError, describe_data
    from explorer.core.data.text import build_dataset

    source = load_source(plan.data_spec, num_examples=plan.num_examples, seed=plan.data_seed)
    data = describe_data(source, plan.data_spec, plan.num_examples, plan.data_seed)
    vocabs: dict[str, Any] = {}
    if plan.info is not None:
        expected = (plan.info.get("data") or {}).get("fingerprint")
        if expected and expected != data["fingerprint"]:
            raise RunDirError(f"the data {source.name} is not what the run in {plan.run_dir} was trained on "
                              f"(its sentence pairs differ); give the original with --data PATH")
        vocabs = {"src_vocab": plan.loaded.src_vocab, "tgt_vocab": plan.loaded.tgt_vocab}
    dataset = build_dataset(source.pairs, plan.config.num_steps, min_freq=plan.config.min_freq,
                            skipped=source.skipped, **vocabs)
    return source, dataset, data


# ----------------------------------------------------------------------------------------- the command
def run(args: argparse.Namespace) -> int:
    """``train``: plan, load the data, run the trainer (writing the run directory), probe, save, report."""
    from explorer.core.training.distributed import RankFailure, init_from_environment

    ctx = init_from_environment(args.device, args.dist_timeout)
    finished = False
    try:
        code = _train(args, ctx)
        finished = True
        return code
    except RankFailure as exc:  # before training (while the ranks agree to start); later it is an ErrorEvent
        raise CliError(str(exc), code=1) from exc
    finally:
        if ctx is not None:
            ctx.close(synchronize=finished)


def _train(args: argparse.Namespace, ctx: Any) -> int:
    from explorer.core.training.checkpoint import save_model
    from explorer.core.runs.run_dir import check_new_run_dir, resume_hint
    from explorer.core.runs.writer import RunWriter
    from explorer.core.training.schedule import needs_scheduler
    from explorer.core.training.trainer import Trainer

    main = ctx is None or ctx.is_main
    world = 1 if ctx is None else ctx.world_size

    def plan_and_check() -> tuple[_Plan, Path | None]:
        plan = _resume_plan(args, main) if args.resume else _new_plan(args, main)
        out = _check_out_path(args.out) if main else None
        if main and plan.run_dir is not None and plan.info is None:
            check_new_run_dir(plan.run_dir)  # refused now, not after the data has loaded
        return plan, out

    plan, out = _agreed(ctx, plan_and_check)
    config = plan.config
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    source, dataset, data = _agreed(ctx, lambda: _load_data(plan))
    if plan.adaptive_snapshots:
        from explorer.core.training.config import adaptive_snapshot_every

        config.snapshot_every = adaptive_snapshot_every(math.ceil(len(dataset) / config.batch_size) * config.num_epochs)
    probe = tuple(plan.info["probe"]) if plan.info and plan.info.get("probe") else None
    trainer = _agreed(ctx, lambda: Trainer(config, dataset, probe=probe, resume=plan.state, dist=ctx))
    src_vocab, tgt_vocab = dataset.src_vocab, dataset.tgt_vocab
    if main:
        where = f" × {world} ranks ({ctx.backend})" if ctx is not None else ""
        print(f"device: {_describe_device(trainer.device)}{where}", flush=True)
        skipped = f", {source.skipped} malformed line(s) skipped" if source.skipped else ""
        print(f"data: {source.name}{skipped}; vocab {len(src_vocab)} source / {len(tgt_vocab)} target tokens",
              flush=True)
        if plan.state is not None:
            print(f"resuming {plan.run_dir} after epoch {plan.state.epoch}, to {config.num_epochs} epochs", flush=True)

    def open_writer() -> Any:
        if not main or plan.run_dir is None:
            return None
        if plan.info is not None:
            given = getattr(args, "given", set())
            return RunWriter.resume(plan.run_dir, trainer, world_size=world,
                                    checkpoint_every=args.checkpoint_every if "checkpoint_every" in given else None,
                                    keep_checkpoints=args.keep_checkpoints or None)
        probes = list(PROBES) if source.kind == "translation" else [tuple(p) for p in dataset.pairs[:4]]
        return RunWriter.create(plan.run_dir, trainer, data, probes=probes, checkpoint_every=args.checkpoint_every,
                                keep_checkpoints=args.keep_checkpoints, world_size=world,
                                keep_models=getattr(args, "keep_models", ()))

    writer = _agreed(ctx, open_writer)
    progress = Progress(sys.stderr if main else io.StringIO(), config.num_epochs,
                        show_lr=needs_scheduler(config.lr_schedule, config.warmup_steps))
    finished = error = writer_error = None
    epochs_done = plan.state.epoch if plan.state is not None else 0
    try:
        with stop_on_sigint(trainer, sys.stderr if main else io.StringIO()) as sigint:
            for ev in trainer:
                if writer is not None and writer_error is None:
                    try:
                        writer.on_event(ev)
                    except ValueError as exc:  # RunDirError: the disk is full, the folder vanished, ...
                        writer_error = exc
                        trainer.stop()  # every rank stops at the next step (a vote)
                if ev.kind == "step":
                    progress.on_step(ev)
                elif ev.kind == "epoch":
                    epochs_done = ev.epoch
                    progress.on_epoch(ev)
                elif ev.kind == "finished":
                    finished = ev
                elif ev.kind == "error":
                    error = ev
    finally:
        if writer is not None:
            writer.close()
    progress.close()
    resume_note = ""
    if plan.run_dir is not None and (plan.run_dir / "checkpoints" / "last.safetensors").is_file():
        resume_note = f"; the run can be continued from its last checkpoint: {resume_hint(plan.run_dir)}"
    if writer_error is not None:
        raise CliError(f"training stopped: {writer_error}", code=1)
    if error is not None:
        kept = ""
        if main and out is not None and trainer.history.step_loss:  # the model holds the last good step's weights
            saved = save_model(out, trainer.model, config, src_vocab, tgt_vocab, trainer.history, source.name)
            kept = f"; the last good weights were saved to {saved}"
        raise CliError(f"training failed at step {error.step}: {error.message}{kept}{resume_note}", code=1)
    if finished is None:  # the trainer contract says it always ends with one; be explicit if not
        raise CliError("training ended without a result", code=1)
    stopped = bool(finished.stopped) or sigint["stopped"]
    if not main:
        return 130 if stopped and sigint["stopped"] else 0
    model = trainer.model
    model.eval()
    probes = run_probes(model, src_vocab, tgt_vocab, config.num_steps) if source.kind == "translation" else []
    print(f"{'stopped' if stopped else 'finished'} after {epochs_done} epoch(s) in {finished.elapsed_s:.1f} s: "
          f"loss {finished.loss:.4f} per token (book-style {finished.book_loss:.5f}), "
          f"{finished.tokens_per_s:,.0f} tokens/s on {finished.device}" + (f" × {world} ranks" if world > 1 else ""))
    for p in probes:
        print(f"  {p['src']} => {p['translation']}, bleu {p['bleu']:.3f}")
    if out is not None:
        saved = save_model(out, model, config, src_vocab, tgt_vocab, trainer.history, source.name)
        print(f"saved: {saved}")
    if plan.run_dir is not None:
        print(f"run directory: {plan.run_dir}")
    if args.json:
        result = {"loss": finished.loss, "book_loss": finished.book_loss, "tokens_per_s": finished.tokens_per_s,
                  "seconds": finished.elapsed_s, "device": str(finished.device), "epochs": epochs_done,
                  "pairs": len(source.pairs), "src_vocab": len(src_vocab), "tgt_vocab": len(tgt_vocab),
                  "probes": probes, "stopped": stopped, "data": source.name, "seed": config.seed,
                  "threads": _torch_threads(), "saved": str(out) if out is not None else None,
                  "run_dir": str(plan.run_dir) if plan.run_dir is not None else None, "world_size": world,
                  "epoch_losses": list(trainer.history.epoch_loss),
                  "resumed_after_epoch": plan.state.epoch if plan.state is not None else None}
        print_json(result)
    return 130 if stopped and sigint["stopped"] else 0
