"""The CLI's ``summarize`` command: what every attention head does over a sentence set (entropy, dominant relative
offset −8…8, share on the first token and on special tokens, previous / same / next / last, induction), one row per
head, as a table or one JSON line; no Qt."""
from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from explorer.cli.opening import open_cli_model
from explorer.cli.errors import CliError
from explorer.cli.options import add_device, add_json, add_model, given_tokens_allowed, positive_int, seed_int, token_ids
from explorer.cli.output import print_json, warn_unknown

#: The table's columns after kind, layer and head (every score is in the JSON rows).
SHOWN = ("entropy", "offset", "offset_share", "first", "special", "previous", "same", "next", "induction")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``summarize`` to the CLI's subcommands."""
    p = sub.add_parser("summarize", help="what every head does over a sentence set: one row per head",
                       description="Every head's mean entropy, dominant relative offset k in -8..8 (key = query + "
                                   "k: -1 a previous-token head, +1 next-token, -2 two back …) and its weight, "
                                   "share on the first token (an attention sink) and on special tokens, the "
                                   "previous / same / next / last positions and the induction score, averaged over "
                                   "the texts. A Hugging Face model reads the file's lines as written (TEXT or "
                                   "SOURCE<TAB>TARGET per line).")
    add_model(p)
    p.add_argument("--data", required=True, metavar="builtin|PATH|task:NAME",
                   help="the texts: a file with one text (or source<TAB>target) per line, the bundled corpus, or "
                        "a synthetic task")
    p.add_argument("--num-examples", type=positive_int, default=100, metavar="N",
                   help="first N texts (default: %(default)s)")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="seeds a synthetic task's pairs")
    p.add_argument("--lines", choices=("text", "tokens", "ids"), default="text",
                   help="what each line of a file holds: text for the tokenizer (default), tokens split by spaces "
                        "read as given (e.g. SMILES split by the model's own rule, with [CLS] … [SEP]), or token ids "
                        "(a folder without a tokenizer); Hugging Face models")
    add_device(p)
    add_json(p, help="one JSON line: the model, the counts and one row per head")
    return p


def run(args: argparse.Namespace) -> int:
    """``summarize``: open the model, read the texts, summarize every head, print the table or the JSON line."""
    from explorer.core.debug.head_summaries import summarize_heads
    from explorer.core.debug.texts import texts_for

    model = open_cli_model(args.model, args.device)
    info = model.describe()
    pairs = texts_for(model, args.data, args.num_examples, args.seed)
    if args.lines != "text":
        given_tokens_allowed(model, f"--lines {args.lines}", "give this model text lines (--lines text)")
        pairs = [(_given(source, args.lines, index), "") for index, (source, _) in enumerate(pairs)]
    task = args.data.strip().lower().split(":", 1)[1].strip() if args.data.strip().lower().startswith("task:") \
        else None

    def progress(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            sys.stderr.write(f"\r{done}/{total} texts")
            sys.stderr.flush()

    summary = summarize_heads(model, pairs, task=task, progress=progress)
    if not args.json and sys.stderr.isatty():
        sys.stderr.write("\n")
    warn_unknown(summary.unknown)
    for line in summary.skipped[:3]:
        print(f"warning: skipped {line}", file=sys.stderr)
    rows = summary.rows()
    if args.json:
        unknown = summary.unknown
        print_json({"model": str(args.model), "architecture": info.architecture, "family": info.family,
                    "data": str(args.data), "texts": summary.sentences, "skipped": len(summary.skipped),
                    "unknown_tokens": unknown.unknown if unknown else 0, "tokens": unknown.total if unknown else 0,
                    "heads": rows})
        return 0
    print(f"model:   {info.summary()}")
    print(f"texts:   {summary.sentences} from {args.data}" + (f" ({len(summary.skipped)} skipped)"
                                                              if summary.skipped else ""))
    print(f"{'kind':<8} {'layer':>5} {'head':>4} " + " ".join(f"{name:>12}" for name in SHOWN))
    for row in rows:
        print(f"{row['kind']:<8} {row['layer']:>5} {row['head']:>4} " + " ".join(_cell(row[n]) for n in SHOWN))
    return 0


def _given(line: str, lines: str, index: int) -> Any:
    """One line of ``--lines tokens|ids`` as the model reads it, as given."""
    from explorer.core.inspect.given_tokens import GivenTokens

    if lines == "tokens":
        return GivenTokens(tokens=tuple(line.split()))
    try:
        return GivenTokens(ids=token_ids(line))
    except argparse.ArgumentTypeError as exc:
        raise CliError(f"line {index + 1} of --data: {exc}") from None


def _cell(value: Any) -> str:
    if isinstance(value, int):
        return f"{value:>+12d}"
    return f"{'–':>12}" if isinstance(value, float) and math.isnan(value) else f"{value:>12.3f}"
