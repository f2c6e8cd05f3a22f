#!/usr/bin/env python3
"""Training throughput of our trainer against the book's own code (d2l §11.7), same data and settings.

Runs ``../shared/bench/d2l_reference.py`` and our trainer, alternating, each in a fresh process on the same
TSV (the reference keeps lines ``i <= num_examples``, i.e. 601 pairs for 600, and so do we), and prints the
tokens/s of each, their medians and the ratio. The last line is JSON with ``ours_tokens_per_s``,
``reference_tokens_per_s`` and ``ratio``. Tokens/s = target tokens (valid lengths) per second of training
loop, measured the same way on both sides (from after the optimiser is built to the end of the last epoch);
tokens per CPU-second of that loop are printed too (steadier than wall time on a shared machine with 1 thread).

Usage: python bench/train_throughput.py [--reference PATH] [--data TSV] [--epochs 30] [--rounds 3]
                                        [--threads N] [--capability avx2|default]
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "d2l_reference.py"
DEFAULT_DATA = ROOT / "explorer" / "resources" / "eng_fra.tsv"


def worker_ours(args: argparse.Namespace) -> dict:
    """Our side, in its own process: read the same pairs and train."""
    sys.path.insert(0, str(ROOT))
    import torch

    from explorer.core.readers import read_pairs
    from explorer.core.text import build_dataset
    from explorer.core.training import Trainer, TrainingConfig

    pairs = read_pairs(args.data, num_examples=args.num_examples + 1).pairs  # the reference's i <= n
    config = TrainingConfig(num_epochs=args.epochs, seed=args.seed, snapshot_every=0, device="cpu")
    dataset = build_dataset(pairs, config.num_steps, min_freq=config.min_freq)
    trainer = Trainer(config, dataset)
    cpu0 = time.process_time()
    finished = None
    for event in trainer:
        if event.kind in ("finished", "error"):
            finished = event
    cpu = time.process_time() - cpu0
    assert finished is not None and finished.kind == "finished", finished
    tokens = int(dataset.tgt_valid_len.sum()) * args.epochs
    return {"tokens_per_s": finished.tokens_per_s, "tokens_per_cpu_s": tokens / cpu, "loss": finished.loss,
            "pairs": len(dataset), "src_vocab": len(dataset.src_vocab), "tgt_vocab": len(dataset.tgt_vocab),
            "threads": torch.get_num_threads()}


def worker_reference(args: argparse.Namespace) -> dict:
    """The book's code, run by its own ``main`` in this process; CPU time is taken around its training loop."""
    spec = importlib.util.spec_from_file_location("d2l_reference", args.reference)
    assert spec is not None and spec.loader is not None
    d2l = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(d2l)
    train = d2l.train_seq2seq

    def timed(*a: object, **k: object) -> dict:
        cpu0 = time.process_time()
        res = train(*a, **k)
        res["cpu_s"] = time.process_time() - cpu0
        return res

    d2l.train_seq2seq = timed
    import torch

    torch.optim.Adam([torch.zeros(1, requires_grad=True)])  # pay torch.optim's one-time import (seconds) first
    argv = [str(args.data), "--epochs", str(args.epochs), "--seed", str(args.seed),
            "--num-examples", str(args.num_examples)]
    if args.threads:
        argv += ["--threads", str(args.threads)]
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        res, _ = d2l.main(argv)
    header = printed.getvalue()
    vocab = re.search(r"(\d+) pairs.*\|src_vocab\| (\d+), \|tgt_vocab\| (\d+)", header)
    assert vocab is not None, header
    return {"tokens_per_s": res["tokens_per_sec_overall"],
            "tokens_per_cpu_s": res["tokens_per_epoch"] * args.epochs / res["cpu_s"],
            "loss": res["loss"] * 10, "pairs": int(vocab.group(1)), "src_vocab": int(vocab.group(2)),
            "tgt_vocab": int(vocab.group(3)), "threads": torch.get_num_threads()}


def _env(capability: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if capability:
        env["ATEN_CPU_CAPABILITY"] = capability
    return env


def run_worker(args: argparse.Namespace, side: str, seed: int, out: Path) -> dict:
    """Run one side in a fresh process (so each gets its own ATEN_CPU_CAPABILITY and a cold start)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", side, "--reference", str(args.reference),
           "--data", str(args.data), "--epochs", str(args.epochs), "--seed", str(seed),
           "--num-examples", str(args.num_examples), "--json", str(out)]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, env=_env(args.capability))
    return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--num-examples", type=int, default=600)
    ap.add_argument("--threads", type=int, default=None, help="torch threads on both sides (default: torch's)")
    ap.add_argument("--capability", default=None,
                    help="ATEN_CPU_CAPABILITY for both sides (e.g. avx2); default: torch's choice")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", choices=("ours", "reference"), default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        if args.threads:
            import torch

            torch.set_num_threads(args.threads)
        result = worker_ours(args) if args.worker == "ours" else worker_reference(args)
        Path(args.json).write_text(json.dumps(result))
        return 0
    if not args.reference.is_file():
        print(f"reference not found: {args.reference} (pass --reference PATH)", file=sys.stderr)
        return 2
    print(f"data {args.data.name}, {args.epochs} epochs × {args.rounds} rounds, threads "
          f"{args.threads or 'default'}, ATEN_CPU_CAPABILITY {args.capability or 'default'}", flush=True)
    ours, ref = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = ["reference", "ours"] if r % 2 == 0 else ["ours", "reference"]  # the machine is shared
            for name in order:
                res = run_worker(args, name, args.seed + r, Path(tmp) / f"{name}{r}.json")
                (ours if name == "ours" else ref).append(res)
                print(f"round {r} {name:9s}: {res['tokens_per_s']:9,.0f} tokens/s "
                      f"({res['tokens_per_cpu_s']:,.0f} per CPU-second), final loss "
                      f"{res['loss']:.3f} per token ({res['pairs']} pairs, vocab {res['src_vocab']}/"
                      f"{res['tgt_vocab']})", flush=True)
    o = statistics.median(x["tokens_per_s"] for x in ours)
    f = statistics.median(x["tokens_per_s"] for x in ref)
    oc = statistics.median(x["tokens_per_cpu_s"] for x in ours)
    fc = statistics.median(x["tokens_per_cpu_s"] for x in ref)
    print(f"median: ours {o:,.0f} tokens/s, reference {f:,.0f} tokens/s, ratio {o / f:.2f}x "
          f"(per CPU-second: {oc:,.0f} vs {fc:,.0f}, ratio {oc / fc:.2f}x)")
    print(json.dumps({"ours_tokens_per_s": round(o, 1), "reference_tokens_per_s": round(f, 1),
                      "ratio": round(o / f, 3), "cpu_ratio": round(oc / fc, 3), "epochs": args.epochs, "rounds": args.rounds,
                      "threads": args.threads, "capability": args.capability or "default",
                      "ours_runs": [round(x["tokens_per_s"]) for x in ours],
                      "reference_runs": [round(x["tokens_per_s"]) for x in ref],
                      "ours_loss": [round(x["loss"], 4) for x in ours],
                      "reference_loss": [round(x["loss"], 4) for x in ref]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
