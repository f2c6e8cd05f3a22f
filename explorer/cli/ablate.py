"""The CLI's ``ablate`` command: switch off each attention head in turn and measure translation BLEU and the
teacher-forced loss on a sentence set, for our checkpoints, run directories and Hugging Face
encoder–decoder / decoder-only folders; no Qt."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from explorer.cli.opening import open_cli_model
from explorer.cli.options import add_device, add_json, add_model, kinds, positive_int, seed_int
from explorer.cli.output import print_json


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``ablate`` to the CLI's subcommands."""
    p = sub.add_parser("ablate", help="switch off each head in turn: BLEU and loss on a sentence set",
                       description="Head ablation sweep: the baseline, then every head's output zeroed (before the "
                                   "output projection) one at a time; corpus BLEU of greedy translations and the "
                                   "mean per-token cross-entropy of the references.")
    add_model(p)
    p.add_argument("--data", default="builtin", metavar="builtin|PATH|task:NAME",
                   help="the sentence pairs: the bundled corpus, a fra.txt/.tsv/.zip file, or a task "
                        "(default: %(default)s)")
    p.add_argument("--num-examples", type=positive_int, default=100, metavar="N",
                   help="first N pairs (default: %(default)s)")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="seeds a synthetic task's pairs")
    p.add_argument("--kinds", type=kinds, metavar="K[,K]",
                   help="which attention kinds to sweep (default: all the model has)")
    p.add_argument("--off", action="append", default=[], metavar="KIND:LAYER:HEAD",
                   help="also keep this head off throughout, baseline included (repeatable)")
    p.add_argument("--max-n", type=positive_int, default=2, metavar="N",
                   help="corpus BLEU's longest n-gram (default: %(default)s, the book's for short sentences; "
                        "4 is the usual for long ones)")
    add_device(p)
    add_json(p)
    return p


def run(args: argparse.Namespace) -> int:
    """``ablate``: load the model and the pairs, sweep, print a table or the JSON line."""
    from explorer.core.debug.ablation import sweep
    from explorer.core.debug.texts import texts_for
    from explorer.core.debug.head_ablation import parse_head

    model = open_cli_model(args.model, args.device)
    info = model.describe()
    swept = list(info.kinds) if args.kinds is None else args.kinds  # default: every kind the model has
    off = [parse_head(h) for h in args.off]
    pairs = texts_for(model, args.data, args.num_examples, args.seed)  # a Hugging Face model: lines as written

    def progress(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            sys.stderr.write(f"\r{done}/{total} evaluated")
            sys.stderr.flush()

    result = sweep(model, pairs, kinds=swept, max_n=args.max_n, also_off=off, progress=progress)
    if not args.json and sys.stderr.isatty():
        sys.stderr.write("\n")
    summary = {"model": str(args.model), "architecture": info.architecture, "data": str(args.data),
               "max_n": args.max_n, "off": [list(h) for h in off], **result.to_dict()}
    if args.json:
        print_json(summary)
        return 0
    print(f"model:    {info.summary()}")
    print(f"data:     {args.data}, {result.pairs} pairs, {result.baseline.tokens} target tokens")
    print(f"baseline: BLEU {result.baseline.bleu:.4f}  loss {result.baseline.loss:.4f}"
          + (f"  (off throughout: {', '.join(':'.join(map(str, h)) for h in off)})" if off else ""))
    print(f"{'kind':<8} {'layer':>5} {'head':>4} {'BLEU':>8} {'ΔBLEU':>8} {'loss':>8} {'Δloss':>8}")
    for r in result.rows:
        print(f"{r.kind:<8} {r.layer:>5} {r.head:>4} {r.bleu:>8.4f} {r.delta_bleu:>+8.4f} {r.loss:>8.4f} "
              f"{r.delta_loss:>+8.4f}")
    print(f"{len(result.rows)} heads in {result.seconds:.2f} s")
    return 0
