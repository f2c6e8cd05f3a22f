"""The CLI's ``inspect`` command: what a saved model of book §11.7 holds (configurations, vocabularies,
parameters, training history, and for a run directory how far it got); no Qt."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from explorer.cli.opening import open_transformer
from explorer.cli.options import add_json
from explorer.cli.output import print_json


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``inspect`` to the CLI's subcommands."""
    ins = sub.add_parser("inspect", help="describe a saved model")
    ins.add_argument("--model", required=True, metavar="FILE|RUN_DIR",
                     help="a .safetensors model or a run directory (its last checkpoint)")
    add_json(ins, help=None)
    return ins


def _history_summary(history: Any) -> dict[str, Any]:
    """First / last / best per-token loss from a saved history (a list of numbers or a dict of lists)."""
    losses: list[float] = []
    if callable(getattr(history, "to_dict", None)):
        history = history.to_dict()
    if isinstance(history, dict):
        for key in ("epoch_loss", "epoch_losses", "loss", "losses"):
            if isinstance(history.get(key), list):
                losses = history[key]
                break
    elif isinstance(history, list):
        losses = history
    losses = [float(v) for v in losses if isinstance(v, (int, float))]
    if not losses:
        return {"epochs": 0}
    return {"epochs": len(losses), "first_loss": losses[0], "last_loss": losses[-1], "best_loss": min(losses)}


def _run_summary(path: str, meta: dict[str, Any]) -> dict[str, Any] | None:
    """For a run directory: its id, start, ranks and how far its last checkpoint got (None for a model file)."""
    if not Path(path).is_dir():
        return None
    from explorer.core.runs.run_dir import read_run_json

    info = read_run_json(path)
    state = meta.get("train_state") if isinstance(meta.get("train_state"), dict) else {}
    return {"run_dir": str(path), "run_id": info.get("run_id"), "created": info.get("created"),
            "world_size": info.get("world_size"), "num_epochs": (info.get("config") or {}).get("num_epochs"),
            "epochs_checkpointed": state.get("epoch"), "steps_checkpointed": state.get("step")}


def run(args: argparse.Namespace) -> int:
    """``inspect``: what a checkpoint holds (configs, vocab sizes, parameters, history, data source)."""
    loaded = open_transformer(args.model, "cpu", "inspect").loaded
    meta = loaded.meta
    params = sum(p.numel() for p in loaded.model.parameters())
    info = {
        "model": args.model, "format_version": meta.get("format_version"), "app_version": meta.get("app_version"),
        "created": meta.get("created"), "data_source": meta.get("source_name"), "trained_on": meta.get("device"),
        "model_config": meta.get("model_config"), "train_config": meta.get("train_config"),
        "src_vocab": len(loaded.src_vocab), "tgt_vocab": len(loaded.tgt_vocab), "parameters": int(params),
        "history": _history_summary(loaded.history),
        "run": _run_summary(args.model, meta),
    }
    if args.json:
        print_json(info)
        return 0
    print(f"model:       {args.model} (format {info['format_version']}, app {info['app_version']}, "
          f"created {info['created']})")
    print(f"data source: {info['data_source'] or '(unknown)'}")
    print(f"trained on:  {info['trained_on'] or '(unknown)'}")
    print(f"vocabulary:  {info['src_vocab']} source / {info['tgt_vocab']} target tokens")
    print(f"parameters:  {params:,}")
    for title, cfg in (("model", info["model_config"]), ("training", info["train_config"])):
        if isinstance(cfg, dict):
            flat = ", ".join(f"{k}={v}" for k, v in cfg.items() if not isinstance(v, dict))
            print(f"{title + ':':<12} {flat}")
    run = info["run"]
    if run is not None:
        print(f"run:         {run['epochs_checkpointed']} of {run['num_epochs']} epochs checkpointed, "
              f"{run['world_size']} rank(s), started {run['created']}, run id {run['run_id']}")
    h = info["history"]
    if h.get("epochs"):
        print(f"history:     {h['epochs']} epochs, loss {h['first_loss']:.4f} -> {h['last_loss']:.4f} "
              f"(best {h['best_loss']:.4f})")
    else:
        print("history:     (none)")
    return 0
