"""The CLI's ``diff`` command: two models on one sentence, per-head difference maps (B − A) saved to an
``.npz``, with both translations and their BLEU; no Qt."""
from __future__ import annotations

import argparse
from typing import Any

from explorer.cli.errors import CliError
from explorer.cli.opening import open_cli_model
from explorer.cli.options import add_device, add_json, add_model
from explorer.cli.output import print_json


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``diff`` to the CLI's subcommands."""
    p = sub.add_parser("diff", help="compare two models' attention maps and translations on one sentence",
                       description="Per-head difference maps (B − A) as diff.KIND.L arrays (heads, queries, keys), "
                                   "with a.KIND.L, b.KIND.L and the tokens; both models teacher-forced on the same "
                                   "target (--target, else --reference, else model A's translation).")
    add_model(p, text="model A: a .safetensors model, a run directory or a Hugging Face model folder")
    add_model(p, "--model-b", text="model B, of the same shape and vocabulary")
    p.add_argument("--source", required=True, metavar="TEXT", help="the text both models read")
    p.add_argument("--target", metavar="TEXT", help="teacher-forced target for both models")
    p.add_argument("--reference", metavar="TEXT", help="reference translation for BLEU (default: --target)")
    p.add_argument("--out", required=True, metavar="FILE.npz", help="where to save the maps")
    add_device(p)
    add_json(p)
    return p


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def run(args: argparse.Namespace) -> int:
    """``diff``: open both models, compare, write the ``.npz`` and a summary."""
    from explorer.core.debug.model_diff import diff_models, save_diff_npz

    out = str(args.out)
    if not out.endswith(".npz"):
        raise CliError(f"--out {out}: the file name must end in .npz")
    a = open_cli_model(args.model, args.device)
    b = open_cli_model(args.model_b, args.device)
    result = diff_models(a, b, args.source, args.target, args.reference)
    saved = save_diff_npz(result, out)
    summary = {**result.to_dict(), "model_a": str(args.model), "model_b": str(args.model_b), "out": str(saved)}
    if args.json:
        print_json(summary)
        return 0
    print(f"A: {args.model}\n   {result.translation_a!r}  BLEU {_score(result.bleu_a)}")
    print(f"B: {args.model_b}\n   {result.translation_b!r}  BLEU {_score(result.bleu_b)}")
    print(f"maps teacher-forced on: {result.target!r}")
    print("heads that changed most (max |B − A|):")
    for c in result.changes[:5]:
        print(f"   {c.kind}.{c.layer} head {c.head}: max {c.max_abs:.4f}, mean {c.mean_abs:.4f}")
    print(f"saved:  {saved}")
    return 0
