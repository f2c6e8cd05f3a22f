#!/usr/bin/env python3
"""Decoding speed of a trained book model (d2l §11.7): batched greedy, one-at-a-time greedy, and beam search.

Trains the book's model on the bundled corpus (or loads ``--model FILE``), then translates the source
sentences of the corpus repeatedly and prints sentences per second (median of the repeats). Target: batched
greedy ≥ 1,000 sentences/s on the CPU. The last line is JSON.

Usage: python bench/decode_speed.py [--model FILE] [--epochs 200] [--sentences 2000] [--repeats 5] [--threads N]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from explorer.core.data.sources import load_source  # noqa: E402
from explorer.core.model.decoding import translate, translate_batch  # noqa: E402
from explorer.core.data.text import build_dataset  # noqa: E402
from explorer.core.training.trainer import Trainer  # noqa: E402
from explorer.core.training.config import TrainingConfig


def _rate(fn, count: int, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="a saved model (default: train the book's model now)")
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--sentences", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    source = load_source("builtin", num_examples=None)
    num_steps = 10
    if args.model:
        from explorer.core.training.checkpoint import load_model

        loaded = load_model(args.model, "cpu")
        model, src_vocab, tgt_vocab = loaded.model, loaded.src_vocab, loaded.tgt_vocab
        if loaded.train_config is not None:
            num_steps = loaded.train_config.num_steps
    else:
        config = TrainingConfig(num_epochs=args.epochs, snapshot_every=0, device="cpu")
        dataset = build_dataset(source.pairs[:600], config.num_steps, min_freq=config.min_freq)
        trainer = Trainer(config, dataset)
        for event in trainer:
            if event.kind == "error":
                raise SystemExit(event.message)
        model, src_vocab, tgt_vocab, num_steps = trainer.model, dataset.src_vocab, dataset.tgt_vocab, config.num_steps
    model.eval()
    corpus = [src for src, _ in source.pairs]
    sentences = (corpus * (args.sentences // len(corpus) + 1))[: args.sentences]
    print(f"{len(sentences)} sentences (from {len(corpus)} distinct), {torch.get_num_threads()} thread(s)", flush=True)

    batched = _rate(lambda: translate_batch(model, src_vocab, tgt_vocab, sentences, num_steps), len(sentences),
                    args.repeats)
    print(f"batched greedy:            {batched:9,.0f} sentences/s", flush=True)
    with_maps = _rate(lambda: translate_batch(model, src_vocab, tgt_vocab, sentences, num_steps, need_weights=True),
                      len(sentences), args.repeats)
    print(f"batched greedy + attention:{with_maps:9,.0f} sentences/s", flush=True)
    few = sentences[:100]
    single = _rate(lambda: [translate(model, src_vocab, tgt_vocab, s, num_steps) for s in few], len(few), 3)
    print(f"one at a time, greedy:     {single:9,.0f} sentences/s", flush=True)
    beam = _rate(lambda: [translate(model, src_vocab, tgt_vocab, s, num_steps, method="beam", beam_width=4)
                          for s in few[:50]], 50, 3)
    print(f"one at a time, beam 4:     {beam:9,.0f} sentences/s", flush=True)
    print(json.dumps({"batched_greedy_sentences_per_s": round(batched, 1),
                      "batched_greedy_with_attention_per_s": round(with_maps, 1),
                      "single_greedy_per_s": round(single, 1), "beam4_per_s": round(beam, 1),
                      "sentences": len(sentences), "threads": torch.get_num_threads(),
                      "target_met": batched >= 1000}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
