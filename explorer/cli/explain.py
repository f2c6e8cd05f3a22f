"""The CLI's ``explain`` command: one cell of one attention map computed step by step with the model's own
numbers (projected q and k, q·k, scaling, mask, exp, normaliser, weight); no Qt."""
from __future__ import annotations

import argparse
from typing import Any

from explorer.cli.opening import open_cli_model
from explorer.cli.options import add_device, add_json, add_model_and_text, index, text_of
from explorer.cli.output import print_json
from explorer.core.choices import ATTENTION_KINDS


def _vector(values: Any) -> str:
    return "[" + ", ".join(f"{x:+.4f}" for x in values) + "]"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``explain`` to the CLI's subcommands."""
    p = sub.add_parser("explain", help="explain one cell of an attention map with the real numbers",
                       description="The computation behind attention[kind.layer][head, query, key] as the "
                                   "'attention' command saves it, for the same --source and --target.")
    add_model_and_text(p)
    p.add_argument("--kind", required=True, choices=ATTENTION_KINDS)
    for name, what in (("layer", "layer, from 0"), ("head", "head, from 0"), ("query", "row of the map (the query)"),
                       ("key", "column of the map (the key)")):
        p.add_argument(f"--{name}", required=True, type=index, metavar="N", help=what)
    add_device(p)
    add_json(p)
    return p


def run(args: argparse.Namespace) -> int:
    """``explain``: open the model, explain the cell, print the steps or the JSON line."""
    from explorer.core.debug.explain_cell import explain_cell

    model = open_cli_model(args.model, args.device)
    e = explain_cell(model, text_of(args, model), args.target, args.kind, args.layer, args.head, args.query, args.key)
    if args.json:
        print_json({"model": str(args.model), **e.to_dict()})
        return 0
    print(f"{e.kind}.{e.layer} head {e.head}: query {e.query} {e.query_token!r} -> key {e.key} {e.key_token!r}")
    print(f"q (d={e.head_dim}):   {_vector(e.q)}")
    print(f"k:          {_vector(e.k)}")
    print(f"q ⊙ k:      {_vector(e.product)}")
    print(f"q·k:        {e.score:+.6f}")
    print(f"× scale:    {e.scale:.6f}  ->  {e.scaled:+.6f}")
    if e.bias:
        print(f"+ bias:     {e.bias:+.6f}  (position bias)")
    print(f"+ mask:     {'masked' if e.masked else '0 (kept)'}  ->  logit {e.logit:+.6f}")
    print(f"exp:        exp(logit − row max {e.row_max:+.6f}) = {e.exp:.6f}  (max-subtracted form)")
    print(f"normaliser: {e.normaliser:.6f}  (sum over the row's {len(e.row_exp)} keys)")
    print(f"weight:     {e.weight:.6f}  (the map's value: {e.map_weight:.6f})")
    return 0
