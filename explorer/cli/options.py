"""The option types and option groups the CLI's commands share; every fixed choice comes from
:mod:`explorer.core.choices` (or the core module that owns it), never re-typed here."""
from __future__ import annotations

import argparse
from typing import Any, Callable

from explorer.core.choices import ATTENTION_KINDS, DEVICE_CHOICES


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
index = _checked(int, lambda v: v >= 0, "a whole number ≥ 0")
non_negative_int = index  # a count that may be 0 (e.g. --warmup-steps)


def epoch_list(text: str) -> tuple[int, ...]:
    """``"1,5,20"`` -> ``(1, 5, 20)``: epochs counted from 1."""
    try:
        epochs = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected epochs such as 1,5,20, got {text!r}") from None
    if not epochs or epochs[0] < 1:
        raise argparse.ArgumentTypeError(f"expected epochs counted from 1, such as 1,5,20, got {text!r}")
    return epochs


def kinds(text: str) -> list[str]:
    """``"encoder,cross"`` -> ``["encoder", "cross"]``: attention kinds of :data:`ATTENTION_KINDS`."""
    chosen = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in chosen if k not in ATTENTION_KINDS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"{', '.join(unknown) or '(none)'} is not a kind; kinds are "
                                         f"{', '.join(ATTENTION_KINDS)}")
    return chosen


def add_model(parser: argparse.ArgumentParser, flag: str = "--model",
              text: str = "a .safetensors model, a run directory, or a Hugging Face model folder") -> None:
    """``--model PATH``: any model :func:`explorer.cli.opening.open_cli_model` opens."""
    parser.add_argument(flag, required=True, metavar="PATH", help=text)


def token_ids(text: str) -> tuple[int, ...]:
    """``"101,2023,102"`` -> ``(101, 2023, 102)``: token ids, read as given."""
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected token ids such as 101,2023,102, got {text!r}")
    return tuple(int(p) for p in parts)


def split_tokens(text: str) -> tuple[str, ...]:
    """``"[CLS] C C O [SEP]"`` -> its tokens (split on spaces), read as given."""
    tokens = tuple(text.split())
    if not tokens:
        raise argparse.ArgumentTypeError("expected tokens separated by spaces, such as '[CLS] C C O [SEP]'")
    return tokens


def add_model_and_text(parser: argparse.ArgumentParser) -> None:
    """``--model``, the text (``--source``, or ``--token-ids`` / ``--tokens`` read as given) and ``--target``: what
    every command that runs one model on one text takes (read the text with :func:`text_of`)."""
    add_model(parser)
    text = parser.add_mutually_exclusive_group(required=True)
    text.add_argument("--source", metavar="TEXT", help="the text the model reads")
    text.add_argument("--token-ids", type=token_ids, metavar="ID,ID,…",
                      help="token ids the model reads as given, no special token added (a Hugging Face folder, "
                           "also one without a tokenizer)")
    text.add_argument("--tokens", type=split_tokens, metavar="'T T …'",
                      help="tokens of the model's vocabulary split by spaces, read as given (no tokenizer runs, no "
                           "special token is added)")
    parser.add_argument("--target", metavar="TEXT",
                        help="teacher-forced target (default for an encoder–decoder: its greedy output)")


def text_of(args: argparse.Namespace, model: Any) -> Any:
    """The text ``model`` reads: ``--source`` as typed, or ``--token-ids`` / ``--tokens`` as a ``GivenTokens``
    (Hugging Face models only; our own models read words)."""
    if getattr(args, "source", None) is not None:
        return args.source
    from explorer.core.inspect.given_tokens import GivenTokens

    given_tokens_allowed(model, "--token-ids and --tokens", "give this model its text with --source")
    return GivenTokens(ids=args.token_ids or (), tokens=args.tokens or ())


def given_tokens_allowed(model: Any, what: str, instead: str) -> None:
    """Tokens or ids read as given are for Hugging Face models (our own models read words): a ``CliError``
    naming ``what`` was given and what to do ``instead`` for any other."""
    from explorer.cli.errors import CliError

    if model.describe().origin != "huggingface":
        raise CliError(f"{what} work with Hugging Face models; {instead}")


def add_device(parser: Any, default: str = "cpu", help: str | None = None) -> None:
    """``--device`` with the app's device choices (``auto`` = CUDA, then Apple MPS, then CPU)."""
    parser.add_argument("--device", choices=DEVICE_CHOICES, default=default, help=help)


def add_json(parser: argparse.ArgumentParser, help: str | None = "end with one JSON line of results on stdout") -> None:
    """``--json``: the command's last line on stdout is one JSON object."""
    parser.add_argument("--json", action="store_true", help=help)
