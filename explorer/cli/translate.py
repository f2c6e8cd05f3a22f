"""The CLI's ``translate`` command: greedy (batched) or beam-search translations with a saved model of
book §11.7 (a ``.safetensors`` file or a run directory's last checkpoint); no Qt."""
from __future__ import annotations

import argparse
from typing import Any

from explorer.cli.opening import open_transformer
from explorer.cli.options import add_device, add_json, positive_int
from explorer.cli.output import print_json


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``translate`` to the CLI's subcommands."""
    tr = sub.add_parser("translate", help="translate sentences with a saved model")
    tr.add_argument("--model", required=True, metavar="FILE|RUN_DIR",
                    help="a .safetensors model or a run directory (its last checkpoint)")
    tr.add_argument("--beam", type=positive_int, default=1, metavar="K", help="beam width (1 = greedy)")
    add_device(tr)
    add_json(tr, help=None)
    tr.add_argument("sentences", nargs="+", metavar="SENTENCE")
    return tr


def run(args: argparse.Namespace) -> int:
    """``translate``: greedy (batched) or beam-search translations of the given sentences."""
    from explorer.core.data.text import encode_sentence
    from explorer.core.model.decoding import translate, translate_batch

    opened = open_transformer(args.model, args.device, "translate")
    loaded, num_steps = opened.loaded, opened.num_steps
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
        print_json({"model": args.model, "method": method, "beam": args.beam, "translations": results})
    return 0
