"""The CLI's commands (train / translate / inspect) on the core engine of book §11.7; no Qt.

Each ``run_*`` takes the parsed arguments, prints, and returns an exit code; user errors are raised as the
core's documented error types (or :class:`CliError`) and turned into one ``error:`` line by :mod:`explorer.cli`.
"""
from __future__ import annotations

import argparse
import json
import math
import signal
import sys
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
def _check_out_path(out: str | None) -> Path | None:
    """Refuse an unusable --out before spending minutes on training."""
    if not out:
        return None
    path = Path(out)
    if path.is_dir():
        raise CliError(f"--out {out} is a folder; give a file name such as model.safetensors")
    if not path.parent.is_dir():
        raise CliError(f"--out: the folder {path.parent} does not exist")
    from explorer.core.checkpoint import check_writable

    return check_writable(path)  # a read-only folder is found now, not after the training


def _describe_device(device: Any) -> str:
    if device.type == "cuda":
        import torch

        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


def run_train(args: argparse.Namespace) -> int:
    """``train``: build the configs, load the data, run the trainer, probe, save, and report."""
    from explorer.core.checkpoint import save_model
    from explorer.core.data_sources import load_source
    from explorer.core.text import build_dataset
    from explorer.core.training import Trainer, TrainingConfig, resolve_device
    from explorer.core.transformer import TransformerConfig

    model_config = TransformerConfig(num_hiddens=args.num_hiddens, num_layers=args.num_layers,
                                     num_heads=args.num_heads, ffn_num_hiddens=args.ffn_num_hiddens,
                                     dropout=args.dropout)
    config = TrainingConfig(model=model_config, batch_size=args.batch_size, num_steps=args.num_steps,
                            lr=args.lr, num_epochs=args.epochs, seed=args.seed, device=args.device,
                            snapshot_every=0)  # the CLI draws no attention maps: don't pay for them
    config.validate()
    out = _check_out_path(args.out)
    device = resolve_device(args.device)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    print(f"device: {_describe_device(device)}", flush=True)

    source = load_source(args.data, num_examples=args.num_examples, seed=args.seed)
    dataset = build_dataset(source.pairs, config.num_steps, min_freq=config.min_freq)
    src_vocab, tgt_vocab = dataset.src_vocab, dataset.tgt_vocab
    skipped = f", {source.skipped} malformed line(s) skipped" if source.skipped else ""
    print(f"data: {source.name}{skipped}; "
          f"vocab {len(src_vocab)} source / {len(tgt_vocab)} target tokens", flush=True)

    trainer = Trainer(config, dataset)
    progress = Progress(sys.stderr, config.num_epochs)
    finished = error = None
    epochs_done = 0
    with _stop_on_sigint(trainer, sys.stderr) as sigint:
        for ev in trainer:
            if ev.kind == "step":
                progress.on_step(ev)
            elif ev.kind == "epoch":
                epochs_done = ev.epoch
                progress.on_epoch(ev)
            elif ev.kind == "finished":
                finished = ev
            elif ev.kind == "error":
                error = ev
    progress.close()
    if error is not None:
        kept = ""
        if out is not None and trainer.history.step_loss:  # the model holds the last good step's weights
            saved = save_model(out, trainer.model, config, src_vocab, tgt_vocab, trainer.history, source.name)
            kept = f"; the last good weights were saved to {saved}"
        raise CliError(f"training failed at step {error.step}: {error.message}{kept}", code=1)
    if finished is None:  # the trainer contract says it always ends with one; be explicit if not
        raise CliError("training ended without a result", code=1)
    stopped = bool(finished.stopped) or sigint["stopped"]

    model = trainer.model
    model.eval()
    probes = _run_probes(model, src_vocab, tgt_vocab, config.num_steps) if source.kind == "translation" else []
    print(f"{'stopped' if stopped else 'finished'} after {epochs_done} epoch(s) in {finished.elapsed_s:.1f} s: "
          f"loss {finished.loss:.4f} per token (book-style {finished.book_loss:.5f}), "
          f"{finished.tokens_per_s:,.0f} tokens/s on {finished.device}")
    for p in probes:
        print(f"  {p['src']} => {p['translation']}, bleu {p['bleu']:.3f}")
    if out is not None:
        saved = save_model(out, model, config, src_vocab, tgt_vocab, trainer.history, source.name)
        print(f"saved: {saved}")
    if args.json:
        result = {"loss": finished.loss, "book_loss": finished.book_loss, "tokens_per_s": finished.tokens_per_s,
                  "seconds": finished.elapsed_s, "device": str(finished.device), "epochs": epochs_done,
                  "pairs": len(source.pairs), "src_vocab": len(src_vocab), "tgt_vocab": len(tgt_vocab),
                  "probes": probes, "stopped": stopped, "data": source.name, "seed": config.seed,
                  "threads": _torch_threads(),
                  "saved": str(out) if out is not None else None}
        print(json.dumps(_finite(result), allow_nan=False))
    return 130 if stopped and sigint["stopped"] else 0


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
    from explorer.core.decoding import translate
    from explorer.core.metrics import bleu

    out = []
    for src, ref in PROBES:
        result = translate(model, src_vocab, tgt_vocab, src, num_steps)
        out.append({"src": src, "translation": result.text, "reference": ref,
                    "bleu": float(bleu(result.text, ref, PROBE_BLEU_K))})
    return out


# ----------------------------------------------------------------------------------------- translate / inspect
def _load(path: str, device: str) -> Any:
    from explorer.core.checkpoint import load_model
    from explorer.core.training import resolve_device

    return load_model(path, device=resolve_device(device))


def _num_steps(loaded: Any) -> int:
    cfg = loaded.train_config
    if cfg is not None:
        return int(cfg.num_steps)
    from explorer.core.training import TrainingConfig

    return int(TrainingConfig().num_steps)


def run_translate(args: argparse.Namespace) -> int:
    """``translate``: greedy (batched) or beam-search translations of the given sentences."""
    from explorer.core.decoding import translate, translate_batch
    from explorer.core.text import encode_sentence

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
    h = info["history"]
    if h.get("epochs"):
        print(f"history:     {h['epochs']} epochs, loss {h['first_loss']:.4f} -> {h['last_loss']:.4f} "
              f"(best {h['best_loss']:.4f})")
    else:
        print("history:     (none)")
    return 0
