#!/usr/bin/env python3
"""Translation quality of our trainer against the book's own code (d2l §11.7) on held-out real pairs.

The bundled Tatoeba corpus is split once (``--split-seed``): ``--held-out`` pairs (500) are never trained on,
and the book's model is trained on ``--train`` (600) others, with the book's settings, by both sides for each
seed: our Trainer and ``../shared/bench/d2l_reference.py`` (its own reader, vocabulary, loss and loop; only
instrumented to record each epoch's loss). Each side then greedily translates the held-out English sentences.
Corpus BLEU-4 over 500 sentences is a far steadier measure than four probes. The per-epoch losses (the book's
definition on both sides) are printed side by side. Runs go in parallel fresh processes (``--jobs``), one thread
each, so a loaded machine changes the time taken, not the numbers.

Usage: python bench/translation_quality.py [--seeds 0 1 2 3] [--epochs 200] [--jobs 2] [--quick]
The last line is JSON.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "d2l_reference.py"
DEFAULT_DATA = ROOT / "resources" / "eng_fra.tsv"
SIDES = ("ours", "book")


def split_corpus(data: Path, held_out: int, train: int, seed: int, folder: Path) -> tuple[Path, Path]:
    """Write ``train.tsv`` and ``held_out.tsv`` (raw lines, English<TAB>French) from a fixed shuffle of ``data``."""
    lines = [line for line in data.read_text(encoding="utf-8-sig").splitlines() if line.count("\t") >= 1]
    lines = ["\t".join(line.split("\t")[:2]) for line in lines]  # the book's reader takes exactly two columns
    if held_out + train > len(lines):
        raise SystemExit(f"error: {data} has {len(lines)} pairs, fewer than {held_out} + {train}")
    order = list(range(len(lines)))
    random.Random(seed).shuffle(order)
    held_path, train_path = folder / "held_out.tsv", folder / "train.tsv"
    held_path.write_text("\n".join(lines[i] for i in order[:held_out]) + "\n", encoding="utf-8")
    train_path.write_text("\n".join(lines[i] for i in order[held_out:held_out + train]) + "\n", encoding="utf-8")
    return train_path, held_path


# ----------------------------------------------------------------------------- the two sides (worker processes)
def worker_ours(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from explorer.core.data.readers import read_pairs
    from explorer.core.data.text import build_dataset
    from explorer.core.model.decoding import translate_batch
    from explorer.core.training.config import TrainingConfig
    from explorer.core.training.trainer import Trainer

    if args.variant == "stock-dropout":  # PyTorch's dropout and its random stream instead of our 16-bit keep mask
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import kernel_ablation as ka
        from explorer.core.model import attention, transformer

        transformer.dropout = attention.dropout = ka.stock_dropout
        attention.keep_mask = ka.stock_keep_mask
    pairs = read_pairs(args.train_file).pairs
    held = read_pairs(args.held_file).pairs
    config = TrainingConfig(seed=args.seed, num_epochs=args.epochs, snapshot_every=0, device="cpu")
    dataset = build_dataset(pairs, config.num_steps, min_freq=config.min_freq)
    trainer = Trainer(config, dataset)
    curve: list[float] = []
    start = time.perf_counter()
    for event in trainer:
        if event.kind == "epoch":
            curve.append(event.book_loss)
        elif event.kind == "error":
            raise SystemExit(f"ours, seed {args.seed}: {event.message}")
    train_s = time.perf_counter() - start
    out = translate_batch(trainer.model, dataset.src_vocab, dataset.tgt_vocab, [src for src, _ in held],
                          config.num_steps)
    return {"curve": curve, "train_s": train_s, "sources": [src for src, _ in held],
            "predictions": [t.text for t in out], "pairs": len(pairs)}


def worker_book(args: argparse.Namespace) -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("d2l_reference", args.reference)
    d2l = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(d2l)  # type: ignore[union-attr]
    metrics: list[Any] = []

    class Accumulator(d2l.Accumulator):  # the book's loop makes one per epoch: keep them to read its loss
        def __init__(self, n: int) -> None:
            super().__init__(n)
            metrics.append(self)

    d2l.Accumulator = Accumulator
    d2l.seed_everything(args.seed)
    train_iter, src_vocab, tgt_vocab = d2l.load_data_nmt(d2l.batch_size, d2l.num_steps, 10**9, args.train_file)
    net = d2l.build_net(src_vocab, tgt_vocab)
    start = time.perf_counter()
    d2l.train_seq2seq(net, train_iter, d2l.lr, args.epochs, tgt_vocab, d2l.torch.device("cpu"))
    train_s = time.perf_counter() - start
    curve = [float(m[0] / m[1]) for m in metrics]
    raw = d2l.read_data_nmt(args.held_file)
    sources, _ = d2l.tokenize_nmt(d2l.preprocess_nmt(raw))
    predictions = []
    with d2l.torch.no_grad():
        for tokens in sources:
            text, _ = d2l.predict_seq2seq(net, " ".join(tokens), src_vocab, tgt_vocab, d2l.num_steps,
                                          d2l.torch.device("cpu"))
            predictions.append(text)
    return {"curve": curve, "train_s": train_s, "sources": [" ".join(t) for t in sources],
            "predictions": predictions, "pairs": len(train_iter.dataset)}


# ----------------------------------------------------------------------------- the parent
def run_worker(side: str, seed: int, args: argparse.Namespace, train_file: Path, held_file: Path,
               out_dir: Path) -> dict[str, Any]:
    out = out_dir / f"{side}_{seed}.json"
    cmd = [sys.executable, __file__, "--worker", side, "--seed", str(seed), "--epochs", str(args.epochs),
           "--train-file", str(train_file), "--held-file", str(held_file), "--reference", str(args.reference),
           "--out", str(out), "--variant", args.variant]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"error: {side} seed {seed} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    return json.loads(out.read_text())


def score(predictions: list[str], references: list[str]) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from explorer.core.model.metrics import corpus_bleu

    return {"bleu4": corpus_bleu(predictions, references, max_n=4),
            "bleu2": corpus_bleu(predictions, references, max_n=2),
            "exact": sum(p.split() == r.split() for p, r in zip(predictions, references)) / len(references)}


def mean_sd(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--train", type=int, default=600, help="training pairs (the book's 600)")
    ap.add_argument("--held-out", type=int, default=500)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    ap.add_argument("--jobs", type=int, default=2, help="trainings at once (each one thread)")
    ap.add_argument("--threads", type=int, default=1, help="threads per training")
    ap.add_argument("--sides", nargs="+", choices=SIDES, default=list(SIDES), help="which trainers to run")
    ap.add_argument("--variant", choices=("as-is", "stock-dropout"), default="as-is",
                    help="our side as it is, or with PyTorch's dropout (to tell whether the dropout stream matters)")
    ap.add_argument("--quick", action="store_true", help="a check that it works: 1 seed, 20 epochs, 100 held out")
    ap.add_argument("--worker", choices=SIDES, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--train-file", help=argparse.SUPPRESS)
    ap.add_argument("--held-file", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.variant = getattr(args, "variant", "as-is")

    if args.worker:
        import torch

        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
        result = (worker_ours if args.worker == "ours" else worker_book)(args)
        Path(args.out).write_text(json.dumps(result))
        return 0

    if args.quick:
        args.seeds, args.epochs, args.held_out = args.seeds[:1], 20, 100
    if not args.reference.is_file():
        raise SystemExit(f"error: no reference script at {args.reference}")
    started = time.perf_counter()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        train_file, held_file = split_corpus(args.data, args.held_out, args.train, args.split_seed, folder)
        sys.path.insert(0, str(ROOT))
        from explorer.core.data.readers import read_pairs

        held = read_pairs(held_file).pairs
        references = [tgt for _, tgt in held]
        train_words = {w for src, _ in read_pairs(train_file).pairs for w in src.split()}
        held_words = [w for src, _ in held for w in src.split()]
        unseen = sum(w not in train_words for w in held_words) / len(held_words)
        jobs = [(side, seed) for seed in args.seeds for side in args.sides]
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {job: pool.submit(run_worker, *job, args, train_file, held_file, folder) for job in jobs}
            runs = {job: future.result() for job, future in futures.items()}

    print(f"{args.train} training pairs, {len(held)} held-out pairs (split seed {args.split_seed}; "
          f"{unseen:.1%} of held-out English words never seen in training), {args.epochs} epochs, "
          f"seeds {args.seeds}; load average {load:.2f} at start")
    sides = tuple(args.sides)
    same_sources = len(sides) < 2 or all(runs[("ours", s)]["sources"] == runs[("book", s)]["sources"]
                                         for s in args.seeds)
    if not same_sources:
        print("note: the two sides' preprocessing of the held-out sources differs")
    table: dict[str, dict[str, Any]] = {side: {"bleu4": [], "bleu2": [], "exact": [], "final_loss": [],
                                               "train_s": []} for side in sides}
    print(f"{'seed':>4} {'side':>5} {'BLEU-4':>7} {'BLEU-2':>7} {'exact':>6} {'loss':>7} {'train s':>8}")
    for seed in args.seeds:
        for side in sides:
            run = runs[(side, seed)]
            s = score(run["predictions"], references)
            row = table[side]
            for key in ("bleu4", "bleu2", "exact"):
                row[key].append(s[key])
            row["final_loss"].append(run["curve"][-1])
            row["train_s"].append(run["train_s"])
            print(f"{seed:>4} {side:>5} {s['bleu4']:7.4f} {s['bleu2']:7.4f} {s['exact']:6.3f} "
                  f"{run['curve'][-1]:7.4f} {run['train_s']:8.1f}")
    summary: dict[str, Any] = {}
    for side in sides:
        b4, sd4 = mean_sd(table[side]["bleu4"])
        ex, sdx = mean_sd(table[side]["exact"])
        lo, sdl = mean_sd(table[side]["final_loss"])
        summary[side] = {"bleu4_mean": round(b4, 4), "bleu4_sd": round(sd4, 4),
                         "bleu4": [round(v, 4) for v in table[side]["bleu4"]],
                         "bleu2": [round(v, 4) for v in table[side]["bleu2"]],
                         "exact_mean": round(ex, 4), "final_loss_mean": round(lo, 5), "final_loss_sd": round(sdl, 5),
                         "final_loss": [round(v, 5) for v in table[side]["final_loss"]]}
        print(f"{side:>5}: BLEU-4 {b4:.4f} ± {sd4:.4f} (sd over seeds), exact {ex:.3f} ± {sdx:.3f}, "
              f"final loss {lo:.4f} ± {sdl:.4f}")
    n = len(args.seeds)
    diff = se = float("nan")
    if len(sides) == 2:
        diff = summary["ours"]["bleu4_mean"] - summary["book"]["bleu4_mean"]
        se = math.sqrt((summary["ours"]["bleu4_sd"] ** 2 + summary["book"]["bleu4_sd"] ** 2) / n) if n > 1 else se
        print(f"ours - book: BLEU-4 {diff:+.4f} (standard error of the difference {se:.4f})")

    curves = {side: [statistics.fmean(runs[(side, s)]["curve"][e] for s in args.seeds) for e in range(args.epochs)]
              for side in sides}
    print("per-epoch loss (the book's definition), mean over seeds:")
    print(f"{'epoch':>6}" + "".join(f" {side:>8}" for side in sides))
    every = max(1, args.epochs // 20)
    for e in [*range(0, args.epochs, every), *([args.epochs - 1] if (args.epochs - 1) % every else [])]:
        print(f"{e + 1:>6}" + "".join(f" {curves[side][e]:8.4f}" for side in sides))
    print(json.dumps({"seeds": args.seeds, "epochs": args.epochs, "train_pairs": args.train,
                      "held_out_pairs": len(held), "split_seed": args.split_seed, "unseen_word_rate": round(unseen, 4),
                      "variant": args.variant, **summary,
                      "bleu4_diff": round(diff, 4) if len(sides) == 2 else None,
                      "bleu4_diff_se": round(se, 4) if len(sides) == 2 and n > 1 else None,
                      "same_sources": same_sources,
                      "loss_curve_every_epoch": {side: [round(v, 5) for v in curves[side]] for side in sides},
                      "wall_s": round(time.perf_counter() - started, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
