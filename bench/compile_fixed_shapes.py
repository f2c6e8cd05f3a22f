#!/usr/bin/env python3
"""Does ``torch.compile`` with one fixed shape (no recompiles) beat our eager step on the CPU? (book §11.7 model)

One training step of the book's model on one fixed batch (64 pairs padded to ``num_steps``, the loss over every
position with padding ignored, so one graph serves every step), in three fresh processes: our eager code as the
trainer runs it; the stock pieces (``F.dropout``, ``F.scaled_dot_product_attention``: Dynamo cannot trace our
attention core's autograd Function or our dropout's in-place ``random_`` without breaking its graph) eager; and
those stock pieces compiled with ``torch.compile(dynamic=False)``. Each reports the time of its first steps
(compilation included) and its CPU milliseconds per step after that (CPU time: less moved by a shared machine
than wall time). The last line is JSON.

Usage: python bench/compile_fixed_shapes.py [--steps 20] [--repeats 5] [--threads 1]
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
MODES = ("eager (ours)", "eager (stock pieces)", "compiled (stock pieces)")


def worker(mode: str, args: argparse.Namespace) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import torch
    import torch.nn.functional as F

    from explorer.core.data.readers import read_pairs
    from explorer.core.data.text import build_dataset
    from explorer.core.model import attention, transformer
    from explorer.core.model.attention import MultiHeadAttention
    from explorer.core.model.transformer import Seq2SeqTransformer
    from explorer.core.training.config import TrainingConfig

    torch.set_num_threads(args.threads)
    if mode != "eager (ours)":
        import kernel_ablation as ka  # the stock counterparts the ablation measures

        transformer.dropout = attention.dropout = ka.stock_dropout
        MultiHeadAttention.forward = ka.sdpa_forward
    pairs = read_pairs(ROOT / "resources" / "eng_fra.tsv", num_examples=601).pairs
    config = TrainingConfig(snapshot_every=0, device="cpu")
    dataset = build_dataset(pairs, config.num_steps, min_freq=config.min_freq)
    torch.manual_seed(0)
    model = Seq2SeqTransformer(config.model, len(dataset.src_vocab), len(dataset.tgt_vocab))
    B, T = config.batch_size, config.num_steps
    src, src_len = dataset.src[:B].long(), dataset.src_valid_len[:B].long()
    tgt, tgt_len = dataset.tgt[:B].long(), dataset.tgt_valid_len[:B].long()
    dec = torch.cat([torch.full((B, 1), dataset.tgt_vocab.bos), tgt[:, :-1]], 1)  # (B, T) teacher forcing
    labels = tgt.masked_fill(torch.arange(T)[None] >= tgt_len[:, None], -100)  # (B, T), padding ignored

    def step_loss(src, src_len, dec, labels):
        logits, _ = model(src, src_len, dec)  # (B, T, V)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), reduction="sum") / T

    loss_fn = torch.compile(step_loss, dynamic=False) if mode.startswith("compiled") else step_loss
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)

    def steps(n: int) -> None:
        for _ in range(n):
            optimizer.zero_grad()
            loss_fn(src, src_len, dec, labels).backward()
            optimizer.step()

    t0 = time.perf_counter()
    steps(3)
    first_s = time.perf_counter() - t0
    per_step = []
    for _ in range(args.repeats):
        c0 = time.process_time()
        steps(args.steps)
        per_step.append((time.process_time() - c0) / args.steps * 1e3)
    return {"first_3_steps_s": first_s, "cpu_ms_per_step": statistics.median(per_step)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        Path(args.out).write_text(json.dumps(worker(args.worker, args)))
        return 0
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in MODES:
            out = Path(tmp) / "out.json"
            env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(Path(tmp) / "inductor"))  # a cold cache
            subprocess.run([sys.executable, __file__, "--worker", mode, "--out", str(out), "--steps", str(args.steps),
                            "--repeats", str(args.repeats), "--threads", str(args.threads)],
                           check=True, env=env, capture_output=True, text=True)
            results[mode] = json.loads(out.read_text())
            r = results[mode]
            print(f"{mode:24s}: first 3 steps {r['first_3_steps_s']:7.1f} s, then {r['cpu_ms_per_step']:6.2f} "
                  f"CPU ms per step (load average {os.getloadavg()[0]:.2f})", flush=True)
    base = results["eager (ours)"]["cpu_ms_per_step"]
    print(json.dumps({"threads": args.threads, "load_average": round(os.getloadavg()[0], 2),
                      **{mode: {k: round(v, 3) for k, v in r.items()} for mode, r in results.items()},
                      "compiled_over_ours_step_time": round(results["compiled (stock pieces)"]["cpu_ms_per_step"] / base,
                                                            3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
