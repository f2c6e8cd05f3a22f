"""The CLI's commands (train / translate / inspect) on the core engine of book §11.7; no Qt.

Each ``run_*`` takes the parsed arguments, prints, and returns an exit code; user errors are raised as the
core's documented error types (or :class:`CliError`) and turned into one ``error:`` line by :mod:`explorer.cli`.
"""
from __future__ import annotations

import argparse
import json
import math
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, TextIO

#: The book's four probe sentences and their reference translations (§11.7, BLEU with k=2).
PROBES: tuple[tuple[str, str], ...] = (
    ("go .", "va !"),
    ("i lost .", "j'ai perdu ."),
    ("he's calm .", "il est calme ."),
    ("i'm home .", "je suis chez moi ."),
)
PROBE_BLEU_K = 2


class CliError(Exception):
    """A user-facing failure of a command, with the exit code to return."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


# ----------------------------------------------------------------------------------------- progress
class Progress:
    """A small progress bar on a terminal; otherwise one plain line every ``every`` epochs."""

    def __init__(self, stream: TextIO, num_epochs: int, width: int = 28) -> None:
        self.stream = stream
        self.num_epochs = num_epochs
        self.width = width
        isatty = getattr(stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.every = max(1, num_epochs // 20)
        self._last_draw = 0.0
        self._drawn = False

    def on_step(self, ev: Any) -> None:
        """Redraw the bar (terminal only, at most ~10 times a second) from a ``StepEvent``."""
        now = time.monotonic()
        frac = min(max(float(ev.progress), 0.0), 1.0)
        if not self.tty or (now - self._last_draw < 0.1 and frac < 1.0):  # ~10 redraws/s, and the last
            return
        self._last_draw = now
        filled = int(round(frac * self.width))
        eta = ev.elapsed_s * (1.0 - frac) / frac if frac > 0 else float("nan")
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {100 * frac:5.1f}%  epoch {ev.epoch_fraction:6.1f}/{self.num_epochs}"
                          f"  loss {ev.loss:.4f}  {ev.tokens_per_s / 1000:6.1f}k tok/s  ETA {_clock(eta)} ")
        self.stream.flush()
        self._drawn = True

    def on_epoch(self, ev: Any) -> None:
        """Print one line for an ``EpochEvent`` every ``every`` epochs (and the last), when not a terminal."""
        if self.tty or not (ev.epoch % self.every == 0 or ev.epoch >= self.num_epochs):
            return
        self.stream.write(f"epoch {ev.epoch:>4}/{self.num_epochs}  loss {ev.loss:.4f} "
                          f"(book {ev.book_loss:.4f})  {ev.tokens_per_s:,.0f} tok/s  {ev.elapsed_s:.1f} s\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "--:--"
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


@contextmanager
def _stop_on_sigint(trainer: Any, stream: TextIO) -> Iterator[dict[str, bool]]:
    """First Ctrl-C asks the trainer to stop between steps; a second one interrupts at once."""
    state = {"stopped": False}
    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        state["stopped"] = True
        trainer.stop()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        stream.write("\nstopping after this step (Ctrl-C again to abort)...\n")
        stream.flush()

    signal.signal(signal.SIGINT, handler)
    try:
        yield state
    finally:
        signal.signal(signal.SIGINT, previous)


# ----------------------------------------------------------------------------------------- train
def run_train(args: argparse.Namespace) -> int:
    """``train``: see :mod:`explorer.cli_train` (new runs, run directories, resume, torchrun)."""
    from explorer.cli_train import run_train as train

    return train(args)


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


def _finite(value: Any) -> Any:
    """JSON has no NaN/inf: such numbers (e.g. the loss of a run stopped before its first step) become null."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _run_probes(model: Any, src_vocab: Any, tgt_vocab: Any, num_steps: int) -> list[dict[str, Any]]:
    from explorer.core.model.decoding import translate
    from explorer.core.model.metrics import bleu

    out = []
    for src, ref in PROBES:
        result = translate(model, src_vocab, tgt_vocab, src, num_steps)
        out.append({"src": src, "translation": result.text, "reference": ref,
                    "bleu": float(bleu(result.text, ref, PROBE_BLEU_K))})
    return out


# ----------------------------------------------------------------------------------------- translate / inspect
def _load(path: str, device: str) -> Any:
    """A model file, or a run directory's last checkpoint."""
    from explorer.core.training.checkpoint import load_model
    from explorer.core.runs.run_dir import resolve_model_path
    from explorer.core.training.devices import resolve_device

    return load_model(resolve_model_path(path), device=resolve_device(device))


def _num_steps(loaded: Any) -> int:
    cfg = loaded.train_config
    if cfg is not None:
        return int(cfg.num_steps)
    from explorer.core.training.config import TrainingConfig

    return int(TrainingConfig().num_steps)


def run_translate(args: argparse.Namespace) -> int:
    """``translate``: greedy (batched) or beam-search translations of the given sentences."""
    from explorer.core.model.decoding import translate, translate_batch
    from explorer.core.data.text import encode_sentence

    loaded = _load(args.model, args.device)
    num_steps = _num_steps(loaded)
    method = "beam" if args.beam > 1 else "greedy"
    src_vocab, tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
    if method == "greedy":  # one batched pass for all sentences
        outputs = translate_batch(loaded.model, src_vocab, tgt_vocab, args.sentences, num_steps)
    else:
        outputs = [translate(loaded.model, src_vocab, tgt_vocab, s, num_steps, method=method,
                             beam_width=args.beam) for s in args.sentences]
    results = []
    for sentence, t in zip(args.sentences, outputs):
        truncated = bool(encode_sentence(sentence, src_vocab, num_steps).truncated)
        results.append({"src": sentence, "translation": t.text, "tokens": list(t.tokens),
                        "unknown": list(t.unknown), "truncated": truncated})
        if not args.json:
            print(f"{sentence} => {t.text}")
            if t.unknown:
                print(f"    unknown word(s), read as <unk>: {', '.join(t.unknown)}")
            if truncated:
                print(f"    note: cut to the model's {num_steps} tokens (including <eos>)")
    if args.json:
        print(json.dumps(_finite({"model": args.model, "method": method, "beam": args.beam,
                                  "translations": results}), allow_nan=False))
    return 0


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


def run_inspect(args: argparse.Namespace) -> int:
    """``inspect``: what a checkpoint holds (configs, vocab sizes, parameters, history, data source)."""
    loaded = _load(args.model, "cpu")
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
        print(json.dumps(_finite(info), allow_nan=False))
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
