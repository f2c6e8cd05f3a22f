#!/usr/bin/env python3
"""Is ``torch.compile`` worth it for the book's §11.7 run? A whole run, compile time included.

Three fresh processes per round, same data, seed and epochs: our eager trainer as it is; the model compiled
with ``torch.compile(dynamic=True)`` and a cold on-disk cache (a new ``TORCHINDUCTOR_CACHE_DIR``); the same
again with that cache now warm. The compiled model uses the stock pieces (``F.dropout``, SDPA): our dropout's
in-place ``random_`` and the attention core's autograd Function break Dynamo's graph at every call. Each
prints its wall time from the trainer's start to its end (first-call compilation included), its median step
and final loss; the last line is JSON. Compile is the default only if its whole run is faster (it is not).

Usage: python bench/compile_check.py [--epochs 200] [--rounds 1] [--threads 2]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worker(args: argparse.Namespace) -> dict:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import torch

    from explorer.core.data.readers import read_pairs
    from explorer.core.data.text import build_dataset
    from explorer.core.training.trainer import Trainer
    from explorer.core.training.config import TrainingConfig
    from explorer.core.model.transformer import Seq2SeqTransformer

    torch.set_num_threads(args.threads)
    torch.optim.Adam([torch.zeros(1, requires_grad=True)])  # torch._dynamo's import: paid by every side alike
    pairs = read_pairs(ROOT / "resources" / "eng_fra.tsv", num_examples=601).pairs
    config = TrainingConfig(num_epochs=args.epochs, seed=args.seed, snapshot_every=0, device="cpu")
    dataset = build_dataset(pairs, config.num_steps, min_freq=config.min_freq)
    torch.manual_seed(config.seed)
    model = Seq2SeqTransformer(config.model, len(dataset.src_vocab), len(dataset.tgt_vocab))
    if args.worker != "eager":
        import kernel_ablation as ka

        for v in ka.variants():  # the stock dropout and attention, left in place for the whole run
            if v.piece in ("dropout", "attention core"):
                for owner, name, value in v.patches:
                    setattr(owner, name, value)
        model.compile(dynamic=True)
    t0 = time.perf_counter()
    steps, last, loss = [], t0, float("nan")
    for event in Trainer(config, dataset, model=model):
        if event.kind == "step":
            now = time.perf_counter()
            steps.append(now - last)
            last = now
        elif event.kind == "finished":
            loss = event.loss
        elif event.kind == "error":
            raise SystemExit(event.message)
    return {"wall_s": time.perf_counter() - t0, "first_step_s": steps[0],
            "median_step_ms": statistics.median(steps[len(steps) // 10:]) * 1e3, "loss": loss}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", choices=("eager", "compiled"), default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        Path(args.json).write_text(json.dumps(worker(args)))
        return 0
    results: dict[str, list[dict]] = {"eager": [], "compiled, cold cache": [], "compiled, warm cache": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            cache = Path(tmp) / f"inductor{r}"
            for name in results:
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache))
                out = Path(tmp) / "out.json"
                cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name.split(",")[0],
                       "--epochs", str(args.epochs), "--threads", str(args.threads), "--seed", str(args.seed),
                       "--json", str(out)]
                subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
                res = json.loads(out.read_text())
                results[name].append(res)
                print(f"round {r} {name:21s}: whole run {res['wall_s']:6.1f} s "
                      f"(first step {res['first_step_s']:5.1f} s), "
                      f"median step {res['median_step_ms']:5.2f} ms, final loss {res['loss']:.3f}", flush=True)
    summary = {name: {"wall_s": round(statistics.median(x["wall_s"] for x in rs), 2),
                      "first_step_s": round(statistics.median(x["first_step_s"] for x in rs), 2),
                      "median_step_ms": round(statistics.median(x["median_step_ms"] for x in rs), 3),
                      "loss": [round(x["loss"], 4) for x in rs]} for name, rs in results.items()}
    faster = min(summary, key=lambda n: summary[n]["wall_s"])
    print(f"fastest whole run: {faster}")
    print(json.dumps({"epochs": args.epochs, "threads": args.threads, "rounds": args.rounds, "runs": summary,
                      "fastest": faster}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
