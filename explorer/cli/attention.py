"""The CLI's ``attention`` command: every head's attention maps of one source (and target) text, for our
checkpoints, run directories and Hugging Face model folders alike, saved to one ``.npz``; no Qt."""
from __future__ import annotations

import argparse
from typing import Any

from explorer.cli.opening import npz_path, read_maps
from explorer.cli.options import add_device, add_json, add_model_and_text
from explorer.cli.output import print_json


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``attention`` to the CLI's subcommands."""
    att = sub.add_parser("attention", help="save every layer's and head's attention maps to an .npz file",
                         description="Attention maps of one text: encoder.L, decoder.L and cross.L arrays "
                                     "(heads, queries, keys), plus source_tokens and target_tokens.")
    add_model_and_text(att)
    att.add_argument("--out", required=True, metavar="FILE.npz", help="where to save the maps")
    add_device(att)
    add_json(att)
    return att


def run(args: argparse.Namespace) -> int:
    """``attention``: open the model, compute every map, write the ``.npz`` and a summary."""
    from explorer.core.inspect.interface import save_npz

    out = npz_path(args.out)
    model, result = read_maps(args)
    info = model.describe()
    saved = save_npz(result, out)
    summary: dict[str, Any] = {
        "model": str(args.model), "origin": info.origin, "architecture": info.architecture,
        "model_type": info.model_type, "family": info.family, "kinds": list(result.kinds),
        "layers": info.layers, "heads": info.heads, "parameters": info.parameters,
        "source_tokens": len(result.source_tokens), "target_tokens": len(result.target_tokens),
        "target_given": args.target is not None, "out": str(saved), "bytes": int(result.nbytes()),
    }
    if args.json:
        print_json(summary)
        return 0
    print(f"model:   {info.summary()}")
    print(f"source:  {len(result.source_tokens)} tokens: {' '.join(result.source_tokens)}")
    if result.target_tokens or info.family == "encoder-decoder":
        how = "given" if args.target is not None else "greedy output"
        print(f"target:  {len(result.target_tokens)} tokens ({how}): {' '.join(result.target_tokens)}")
    arrays = sum(info.layers[k] for k in result.kinds)
    print(f"saved:   {saved} ({arrays} arrays: {', '.join(f'{k}.0-{info.layers[k] - 1}' for k in result.kinds)})")
    return 0
