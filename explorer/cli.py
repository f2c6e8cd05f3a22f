"""Headless command line (``attention-explorer-cli``): train / translate / inspect the book's §11.7 Transformer.

Argument parsing, exit codes and error lines only; the work is in :mod:`explorer.cli_commands` and the ``cli_*``
modules. No Qt, except inside the ``timelapse`` command (it draws offscreen with the GUI's renderer).
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
import sys
from typing import Any, Callable, NoReturn, Sequence

EXIT_OK = 0
EXIT_FAILED = 1  # training itself failed (e.g. the loss became NaN)
EXIT_USAGE = 2  # bad input: arguments, files, datasets, checkpoints, configurations
EXIT_INTERRUPTED = 130  # stopped with Ctrl-C (a checkpoint is still written when --out was given)

DEVICES = ("auto", "cpu", "cuda", "mps")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is ONE line on stderr starting ``error:`` (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {message} (see '{self.prog} --help')\n")


def _checked(kind: Callable[[str], Any], test: Callable[[Any], bool], what: str) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not test(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    convert.__name__ = what  # argparse names the type in its messages
    return convert


positive_int = _checked(int, lambda v: v > 0, "a positive whole number")
seed_int = _checked(int, lambda v: 0 <= v < 2**32, "a whole number from 0 to 4294967295")
positive_float = _checked(float, lambda v: v > 0 and v < float("inf"), "a positive number")
probability = _checked(float, lambda v: 0.0 <= v < 1.0, "a number in [0, 1)")


def epoch_list(text: str) -> tuple[int, ...]:
    """``"1,5,20"`` -> ``(1, 5, 20)``: epochs counted from 1."""
    try:
        epochs = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected epochs such as 1,5,20, got {text!r}") from None
    if not epochs or epochs[0] < 1:
        raise argparse.ArgumentTypeError(f"expected epochs counted from 1, such as 1,5,20, got {text!r}")
    return epochs


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
    from explorer.core.training.config import TrainingConfig
    from explorer.core.model.transformer import TransformerConfig

    model = _field_defaults(TransformerConfig)
    train = _field_defaults(TrainingConfig)
    return {**model, **{k: v for k, v in train.items() if k != "model"},
            "num_examples": inspect.signature(load_source).parameters["num_examples"].default}


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (defaults shown in ``--help`` are the book's)."""
    d = _book_defaults()
    parser = _Parser(prog="attention-explorer-cli",
                     description="Train, inspect and use the Transformer of Dive into Deep Learning §11.7.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    train = sub.add_parser("train", help="train a model and optionally save it")
    parser._train_parser = train  # type: ignore[attr-defined]  # main() reads which options were given
    train.add_argument("--data", default="builtin", metavar="builtin|PATH|task:copy|task:reverse|task:sort",
                       help="the bundled corpus, a fra.txt/.tsv/.zip file, or a synthetic task (default: %(default)s)")
    train.add_argument("--num-examples", type=positive_int, default=d["num_examples"], metavar="N",
                       help="sentence pairs to train on (default: %(default)s)")
    train.add_argument("--epochs", type=positive_int, default=d["num_epochs"], metavar="N",
                       help="passes over the data (default: %(default)s)")
    train.add_argument("--seed", type=seed_int, default=d["seed"], metavar="S",
                       help="seeds weights, batches and synthetic data (default: %(default)s)")
    train.add_argument("--device", choices=DEVICES, default=d["device"],
                       help="auto = CUDA, then Apple MPS, then CPU (default: %(default)s)")
    train.add_argument("--threads", type=positive_int, metavar="N",
                       help="CPU threads for torch (default: torch's choice; 1 is often faster on a busy machine)")
    train.add_argument("--out", metavar="FILE", help="save the trained model here (a .safetensors file)")
    train.add_argument("--json", action="store_true", help="end with one JSON line of results on stdout")
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
    _add_run_options(train, d)

    tr = sub.add_parser("translate", help="translate sentences with a saved model")
    tr.add_argument("--model", required=True, metavar="FILE|RUN_DIR",
                    help="a .safetensors model or a run directory (its last checkpoint)")
    tr.add_argument("--beam", type=positive_int, default=1, metavar="K", help="beam width (1 = greedy)")
    tr.add_argument("--device", choices=DEVICES, default="cpu")
    tr.add_argument("--json", action="store_true")
    tr.add_argument("sentences", nargs="+", metavar="SENTENCE")

    ins = sub.add_parser("inspect", help="describe a saved model")
    ins.add_argument("--model", required=True, metavar="FILE|RUN_DIR",
                     help="a .safetensors model or a run directory (its last checkpoint)")
    ins.add_argument("--json", action="store_true")

    from explorer.cli_attention import add_parser as add_attention_parser

    add_attention_parser(sub)
    from explorer import cli_ablate, cli_diff, cli_explain, cli_timelapse

    cli_ablate.add_parser(sub)
    cli_explain.add_parser(sub)
    cli_diff.add_parser(sub)
    cli_timelapse.add_parser(sub)
    return parser


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
    runs.add_argument("--snapshot-every", type=positive_int, default=d["snapshot_every"], metavar="K",
                      help="save the probe's attention maps every K steps into the run directory "
                           "(default: %(default)s)")
    runs.add_argument("--dist-timeout", type=positive_float, default=45.0, metavar="S",
                      help="under torchrun: a rank that waits S seconds for the others gives up (default: %(default)s)")


def given_options(parser: argparse.ArgumentParser, tokens: Sequence[str]) -> set[str]:
    """The ``dest`` of every option of ``parser`` that ``tokens`` set explicitly (abbreviations included)."""
    options = {opt: action.dest for action in parser._actions for opt in action.option_strings}
    given = set()
    for token in tokens:
        if token == "--":
            break
        if not token.startswith("--"):
            continue
        name = token.split("=", 1)[0]
        matches = [name] if name in options else [o for o in options if o.startswith(name)]
        if len(matches) == 1:
            given.add(options[matches[0]])
    return given


def _user_errors() -> tuple[type[BaseException], ...]:
    """The documented error types whose messages are written for users."""
    from explorer.core.training.checkpoint_read import CheckpointError
    from explorer.core.model.decoding import DecodingError
    from explorer.core.runs.run_dir import RunDirError
    from explorer.core.data.readers import DatasetError
    from explorer.core.model.transformer import ConfigError

    return (CheckpointError, DatasetError, ConfigError, DecodingError, RunDirError)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 training failed, 2 bad input, 130 interrupted)."""
    from explorer import cli_commands

    _tolerant_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "train":  # a resumed run must know which settings were asked for, not defaulted
        tokens = list(sys.argv[1:] if argv is None else argv)
        args.given = given_options(parser._train_parser, tokens)  # type: ignore[attr-defined]
    commands = {"train": cli_commands.run_train, "translate": cli_commands.run_translate,
                "inspect": cli_commands.run_inspect, "attention": _run_attention, "ablate": _run_ablate,
                "explain": _run_explain, "diff": _run_diff, "timelapse": _run_timelapse}
    try:
        return commands[args.command](args)
    except _user_errors() as exc:
        return fail(str(exc))
    except cli_commands.CliError as exc:
        return fail(str(exc), exc.code)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)


def _run_attention(args: argparse.Namespace) -> int:
    from explorer.cli_attention import run_attention

    return run_attention(args)


def _run_ablate(args: argparse.Namespace) -> int:
    from explorer.cli_ablate import run_ablate

    return run_ablate(args)


def _run_explain(args: argparse.Namespace) -> int:
    from explorer.cli_explain import run_explain

    return run_explain(args)


def _run_diff(args: argparse.Namespace) -> int:
    from explorer.cli_diff import run_diff

    return run_diff(args)


def _run_timelapse(args: argparse.Namespace) -> int:
    from explorer.cli_timelapse import run_timelapse

    return run_timelapse(args)


def _tolerant_streams() -> None:
    """French text on a console that is not UTF-8 (e.g. a cp437 pipe) prints with '?' instead of crashing."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        reconfigure = getattr(stream, "reconfigure", None)
        if encoding != "utf8" and callable(reconfigure):
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass


def fail(message: str, code: int = EXIT_USAGE) -> int:
    """Print one ``error:`` line on stderr and return ``code``."""
    line = " ".join(message.split())  # exactly one line, whatever the message held
    print(f"error: {line}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
