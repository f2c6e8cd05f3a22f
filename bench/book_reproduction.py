#!/usr/bin/env python3
"""Reproduce the book's Transformer result (d2l §11.7): the book's settings on the bundled corpus, seeds 0-2.

Prints, per seed, the last epoch's per-token loss and the book's printed number, the four probe
translations with BLEU (k=2), and ends with one JSON line. Target: per-token ≤ 0.35, BLEU 1.0 everywhere.

Usage: python bench/book_reproduction.py [--seeds 0 1 2] [--epochs 200] [--threads N] [--data builtin]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from explorer.core.data.sources import load_source  # noqa: E402
from explorer.core.model.decoding import translate  # noqa: E402
from explorer.core.model.metrics import bleu  # noqa: E402
from explorer.core.data.text import build_dataset  # noqa: E402
from explorer.core.training.trainer import Trainer  # noqa: E402
from explorer.core.training.config import TrainingConfig

PROBES = (("go .", "va !"), ("i lost .", "j'ai perdu ."), ("he's calm .", "il est calme ."),
          ("i'm home .", "je suis chez moi ."))
TARGET_LOSS = 0.35


def run_seed(pairs: list[tuple[str, str]], seed: int, epochs: int) -> dict:
    """Train the book's model with one seed; return its figures."""
    config = TrainingConfig(seed=seed, num_epochs=epochs, snapshot_every=0, device="cpu")
    dataset = build_dataset(pairs, config.num_steps, min_freq=config.min_freq)
    trainer = Trainer(config, dataset)
    start = time.perf_counter()
    finished = None
    for event in trainer:
        if event.kind == "finished":
            finished = event
        elif event.kind == "error":
            raise SystemExit(f"seed {seed}: {event.message}")
    assert finished is not None
    probes = []
    for src, ref in PROBES:
        out = translate(trainer.model, dataset.src_vocab, dataset.tgt_vocab, src, config.num_steps)
        probes.append({"src": src, "translation": out.text, "reference": ref, "bleu": bleu(out.text, ref, 2)})
    return {"seed": seed, "loss": finished.loss, "book_loss": finished.book_loss,
            "tokens_per_s": finished.tokens_per_s, "seconds": time.perf_counter() - start, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--num-examples", type=int, default=600)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--data", default="builtin")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    source = load_source(args.data, num_examples=args.num_examples)
    print(f"data: {source.name}; torch {torch.__version__}, {torch.get_num_threads()} thread(s), "
          f"{args.epochs} epochs", flush=True)
    results = []
    for seed in args.seeds:
        r = run_seed(source.pairs, seed, args.epochs)
        results.append(r)
        print(f"seed {seed}: loss {r['loss']:.4f} per token (book-style {r['book_loss']:.4f}), "
              f"{r['tokens_per_s']:,.0f} tokens/s, {r['seconds']:.1f} s", flush=True)
        for p in r["probes"]:
            print(f"  {p['src']} => {p['translation']}, bleu {p['bleu']:.3f}", flush=True)
    passed = all(r["loss"] <= TARGET_LOSS and all(p["bleu"] == 1.0 for p in r["probes"]) for r in results)
    print(f"target (per-token ≤ {TARGET_LOSS}, BLEU 1.0 on all probes, every seed): "
          f"{'met' if passed else 'NOT met'}")
    print(json.dumps({"seeds": args.seeds, "epochs": args.epochs,
                      "per_token_loss": [round(r["loss"], 4) for r in results],
                      "book_loss": [round(r["book_loss"], 5) for r in results],
                      "bleu": [[round(p["bleu"], 3) for p in r["probes"]] for r in results],
                      "translations": [[p["translation"] for p in r["probes"]] for r in results],
                      "tokens_per_s": [round(r["tokens_per_s"]) for r in results],
                      "target_met": passed}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
