"""The CLI's ``ablate`` command: switch off each attention head in turn and measure translation BLEU and the
teacher-forced loss on a sentence set (issue 13), for our checkpoints, run directories and Hugging Face
encoder–decoder / decoder-only folders; no Qt."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

DEVICES = ("auto", "cpu", "cuda", "mps")
KINDS = ("encoder", "decoder", "cross")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``ablate`` to the CLI's subcommands."""
    from explorer.cli import positive_int, seed_int

    p = sub.add_parser("ablate", help="switch off each head in turn: BLEU and loss on a sentence set",
                       description="Head ablation sweep: the baseline, then every head's output zeroed (before the "
                                   "output projection) one at a time; corpus BLEU of greedy translations and the "
                                   "mean per-token cross-entropy of the references.")
    p.add_argument("--model", required=True, metavar="PATH",
                   help="a .safetensors model, a run directory, or a Hugging Face model folder")
    p.add_argument("--data", default="builtin", metavar="builtin|PATH|task:NAME",
                   help="the sentence pairs: the bundled corpus, a fra.txt/.tsv/.zip file, or a task "
                        "(default: %(default)s)")
    p.add_argument("--num-examples", type=positive_int, default=100, metavar="N",
                   help="first N pairs (default: %(default)s)")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="seeds a synthetic task's pairs")
    p.add_argument("--kinds", default=",".join(KINDS), metavar="K[,K]",
                   help="which attention kinds to sweep (default: all the model has)")
    p.add_argument("--off", action="append", default=[], metavar="KIND:LAYER:HEAD",
                   help="also keep this head off throughout, baseline included (repeatable)")
    p.add_argument("--max-n", type=positive_int, default=2, metavar="N",
                   help="corpus BLEU's longest n-gram (default: %(default)s, the book's for short sentences; "
                        "4 is the usual for long ones)")
    p.add_argument("--device", choices=DEVICES, default="cpu")
    p.add_argument("--json", action="store_true", help="end with one JSON line of results on stdout")
    return p


def run_ablate(args: argparse.Namespace) -> int:
    """``ablate``: load the model and the pairs, sweep, print a table or the JSON line."""
    from explorer.cli_commands import CliError
    from explorer.core.debug.ablation import load_pairs, sweep
    from explorer.core.debug.head_ablation import parse_head
    from explorer.core.inspect.interface import ModelError
    from explorer.core.inspect.opening import open_model

    kinds = [k.strip() for k in str(args.kinds).split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise CliError(f"--kinds: {', '.join(unknown) or '(none)'} is not a kind; kinds are {', '.join(KINDS)}")
    try:
        model = open_model(args.model, device=args.device)
        info = model.describe()
        kinds = [k for k in kinds if k in info.kinds] if args.kinds == ",".join(KINDS) else kinds
        off = [parse_head(h) for h in args.off]
        pairs = load_pairs(args.data, args.num_examples, args.seed)

        def progress(done: int, total: int) -> None:
            if not args.json and sys.stderr.isatty():
                sys.stderr.write(f"\r{done}/{total} evaluated")
                sys.stderr.flush()

        result = sweep(model, pairs, kinds=kinds, max_n=args.max_n, also_off=off, progress=progress)
    except ModelError as exc:
        raise CliError(str(exc)) from exc
    if not args.json and sys.stderr.isatty():
        sys.stderr.write("\n")
    summary = {"model": str(args.model), "architecture": info.architecture, "data": str(args.data),
               "max_n": args.max_n, "off": [list(h) for h in off], **result.to_dict()}
    if args.json:
        print(json.dumps(summary, allow_nan=False))
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
