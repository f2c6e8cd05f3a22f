"""Head summaries over 1,000 sentences: the book's model (§11.7 settings, weights from a short
training run) summarized head by head on the bundled corpus; seconds, and per sentence. Ends with one JSON line.

    python bench/head_summaries.py [--sentences 1000] [--epochs 5] [--threads 1]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from explorer.core.training.checkpoint import save_model
    from explorer.core.data.sources import load_source
    from explorer.core.debug.head_summaries import summarize_heads
    from explorer.core.inspect.opening import open_model
    from explorer.core.data.text import build_dataset
    from explorer.core.training.trainer import Trainer
    from explorer.core.training.config import TrainingConfig

    config = TrainingConfig(num_epochs=args.epochs, device="cpu", snapshot_every=0)
    dataset = build_dataset(load_source("builtin", 600).pairs, config.num_steps, config.min_freq)
    trainer = Trainer(config, dataset)
    for _ in trainer:
        pass
    path = save_model(Path(tempfile.mkdtemp()) / "book.safetensors", trainer.model.eval(), config,
                      dataset.src_vocab, dataset.tgt_vocab)
    model = open_model(path)
    pairs = load_source("builtin", args.sentences).pairs
    t0 = time.perf_counter()
    summary = summarize_heads(model, pairs)
    seconds = time.perf_counter() - t0
    heads = len(summary.rows())
    print(f"{heads} heads over {summary.sentences} sentences in {seconds:.2f} s "
          f"({seconds / max(summary.sentences, 1) * 1000:.2f} ms per sentence, {args.threads} thread(s))")
    print(json.dumps({"sentences": summary.sentences, "heads": heads, "seconds": round(seconds, 3),
                      "ms_per_sentence": round(seconds / max(summary.sentences, 1) * 1000, 3),
                      "threads": args.threads}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
