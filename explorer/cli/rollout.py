"""The CLI's ``rollout`` command: attention rollout or flow (Abnar & Zuidema 2020) of one kind of self-attention of
one text, for any model the app opens, saved to one ``.npz``; no Qt."""
from __future__ import annotations

import argparse
from typing import Any

from explorer.cli.opening import npz_path, read_maps
from explorer.cli.options import add_device, add_json, add_model_and_text, positive_float
from explorer.cli.output import print_json
from explorer.core.debug.rollout_settings import DEFAULT_RESIDUAL, FLOW_LIMIT_S, METHODS, SELF_KINDS


def _residual(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number between 0 and 1") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number between 0 and 1")
    return value


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``rollout`` to the CLI's subcommands."""
    cmd = sub.add_parser("rollout", help="attention rollout or flow: which input tokens each output draws on",
                         description="Attention rollout (R = Ã_L ⋯ Ã_1, Ã = r·mean over heads of A + (1 − r)·I, rows "
                                     "renormalised) or attention flow (maximum flow through the layers) of one kind "
                                     "of self-attention (Abnar & Zuidema 2020). Writes rollout (or flow and "
                                     "flow_values) (queries, keys) and source_tokens (or target_tokens).")
    add_model_and_text(cmd)
    cmd.add_argument("--kind", choices=SELF_KINDS,
                     help="which self-attention (default: the encoder's when the model has one, else the decoder's)")
    cmd.add_argument("--residual", type=_residual, default=DEFAULT_RESIDUAL, metavar="R",
                     help="share r of the attention against the residual connection (default %(default)s)")
    cmd.add_argument("--method", choices=METHODS, default="rollout", help="default %(default)s")
    cmd.add_argument("--flow-limit", type=positive_float, default=FLOW_LIMIT_S, metavar="SECONDS",
                     help="refuse flow when it would take longer than this (default %(default)s)")
    cmd.add_argument("--out", required=True, metavar="FILE.npz", help="where to save the map")
    add_device(cmd)
    add_json(cmd)
    return cmd


def run(args: argparse.Namespace) -> int:
    """``rollout``: open the model, take its maps of the text, follow them through the layers, write the ``.npz``."""
    from explorer.core.debug.rollout import follow
    from explorer.core.inspect.interface import save_npz

    out = npz_path(args.out)
    model, result = read_maps(args)
    info = model.describe()
    followed = follow(result, args.kind, args.method, args.residual, args.flow_limit)
    saved = save_npz(followed, out)
    summary: dict[str, Any] = {
        "model": str(args.model), "architecture": info.architecture, "family": info.family,
        "kind": followed.kind, "method": followed.method, "residual": followed.residual,
        "layers": info.layers[followed.kind], "tokens": len(followed.tokens), "seconds": followed.seconds,
        "out": str(saved),
    }
    if args.json:
        print_json(summary)
        return 0
    print(f"model:   {info.summary()}")
    print(f"{followed.kind}: {len(followed.tokens)} tokens: {' '.join(followed.tokens)}")
    print(f"{followed.method}: {info.layers[followed.kind]} layers, r = {followed.residual:g}, "
          f"{followed.seconds:.3f} s")
    print(f"saved:   {saved}")
    return 0
