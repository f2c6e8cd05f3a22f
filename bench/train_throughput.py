#!/usr/bin/env python3
"""Training throughput of our trainer against the book's own code (d2l §11.7), same data and settings.

Each round starts ``../shared/bench/d2l_reference.py`` and our trainer in two fresh processes and lets them
train in lock-step: one epoch of one side, then one epoch of the other (the order alternates), the side that
waits doing nothing. On a shared machine both sides then meet the same load, second by second, and the
ratio of each epoch pair is a fair comparison; a round's ratio is its total tokens per second of each side.
Tokens/s = target tokens (valid lengths) per second of epoch loop, timed the same way on both sides (from
the epoch's first batch to the end of its last), after the optimiser is built. The reference keeps lines
``i <= num_examples`` (601 pairs for 600) and so do we. ``--big`` trains on the 18,000-pair recombined
corpus of ``bench/big_corpus.py`` (~3,500 target words) instead.

Prints each round's tokens/s, ratio and final losses, then the median and spread; the last line is JSON
(``ratio`` = median over rounds of the round ratios; ``epoch_ratio_*`` = quartiles over every epoch pair).

``--before DIR`` adds a third side in the same lock-step: the trainer of another checkout (``git archive`` of
an older commit), for before/after ratios measured in the same run.

Usage: python bench/train_throughput.py [--reference PATH] [--data TSV | --big] [--epochs 30] [--rounds 3]
                                        [--threads 2] [--capability avx2|default] [--before DIR]
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "d2l_reference.py"
DEFAULT_DATA = ROOT / "resources" / "eng_fra.tsv"
# Between turns: the side that just finished has OpenMP workers spin-waiting for more work (GOMP spins a few
# milliseconds before sleeping); without a pause they would take a core from the other side's next epoch.
SETTLE_S = 0.03


class Turns:
    """The worker's side of the lock-step: wait for the parent's go before an epoch, report after it."""

    def __init__(self, go_fd: int, done_fd: int) -> None:
        self.go, self.done = go_fd, done_fd
        self.epochs: list[dict[str, float]] = []  # per epoch: wall seconds, CPU seconds, tokens
        self._t0 = self._c0 = 0.0

    def start(self) -> None:
        os.read(self.go, 1)
        self._t0, self._c0 = time.perf_counter(), time.process_time()

    def end(self, tokens: int) -> None:
        self.epochs.append({"s": time.perf_counter() - self._t0, "cpu_s": time.process_time() - self._c0,
                            "tokens": tokens})
        os.write(self.done, json.dumps(self.epochs[-1]).encode() + b"\n")


def worker_ours(args: argparse.Namespace, turns: Turns) -> dict[str, Any]:
    """Our side: read the same pairs and train, one epoch per turn."""
    sys.path.insert(0, str(args.root))
    import torch

    try:
        from explorer.core.data.readers import read_pairs
        from explorer.core.data.text import build_dataset
        from explorer.core.training.config import TrainingConfig
        from explorer.core.training.trainer import Trainer
    except ImportError:  # --before names a checkout from before core was split into subpackages
        from explorer.core.readers import read_pairs  # type: ignore[no-redef]
        from explorer.core.text import build_dataset  # type: ignore[no-redef]
        from explorer.core.training import Trainer, TrainingConfig  # type: ignore[no-redef]

    pairs = read_pairs(args.data, num_examples=args.num_examples + 1).pairs  # the reference's i <= n
    config = TrainingConfig(num_epochs=args.epochs, seed=args.seed, snapshot_every=0, device="cpu")
    dataset = build_dataset(pairs, config.num_steps, min_freq=config.min_freq)
    events = iter(Trainer(config, dataset))
    # torch.optim's first optimiser imports torch._dynamo (~1 s); the reference pays it before its first batch
    # (in train_seq2seq, untimed): pay it here too, so both sides time their epochs alone
    torch.optim.Adam([torch.zeros(1, requires_grad=True)])
    loss = float("nan")
    for _ in range(args.epochs):
        turns.start()
        for event in events:
            if event.kind == "epoch":
                loss = event.loss
                turns.end(event.tokens)
                break
            if event.kind == "error":
                raise SystemExit(event.message)
    return {"loss": loss, "pairs": len(dataset), "src_vocab": len(dataset.src_vocab),
            "tgt_vocab": len(dataset.tgt_vocab), "threads": torch.get_num_threads()}


def worker_reference(args: argparse.Namespace, turns: Turns) -> dict[str, Any]:
    """The book's code, run by its own ``main``; its data iterator waits for the turns."""
    spec = importlib.util.spec_from_file_location("d2l_reference", args.reference)
    assert spec is not None and spec.loader is not None
    d2l = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(d2l)
    import torch

    class TurnLoader(torch.utils.data.DataLoader):
        """The book's DataLoader; each epoch (one pass over it) is one turn."""

        def __iter__(self) -> Iterator[Any]:
            turns.start()
            tokens = 0
            for batch in super().__iter__():
                tokens += int(batch[3].sum())
                yield batch
            turns.end(tokens)

    d2l.load_array = lambda arrays, batch_size, is_train=True: TurnLoader(
        torch.utils.data.TensorDataset(*arrays), batch_size, shuffle=is_train)
    argv = [str(args.data), "--epochs", str(args.epochs), "--seed", str(args.seed),
            "--num-examples", str(args.num_examples)]
    if args.threads:
        argv += ["--threads", str(args.threads)]
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        res, _ = d2l.main(argv)
    vocab = re.search(r"(\d+) pairs.*\|src_vocab\| (\d+), \|tgt_vocab\| (\d+)", printed.getvalue())
    assert vocab is not None, printed.getvalue()
    return {"loss": res["loss"] * 10,  # the book's loss averages over num_steps = 10: × 10 is per token
            "pairs": int(vocab.group(1)), "src_vocab": int(vocab.group(2)), "tgt_vocab": int(vocab.group(3)),
            "threads": torch.get_num_threads()}


def _env(capability: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if capability:
        env["ATEN_CPU_CAPABILITY"] = capability
    return env


def run_round(args: argparse.Namespace, seed: int, tmp: Path, r: int) -> dict[str, Any]:
    """Both sides in lock-step for ``args.epochs`` epochs; per side its epochs and final figures."""
    procs, go, done, outs = {}, {}, {}, {}
    sides = ["reference", "ours"] + (["before"] if args.before else [])
    for side in sides:
        go_r, go[side] = os.pipe()
        done[side], done_w = os.pipe()
        outs[side] = tmp / f"{side}{r}.json"
        root = args.before if side == "before" else ROOT
        kind = "reference" if side == "reference" else "ours"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind,
               "--root", str(root), "--reference", str(args.reference),
               "--data", str(args.data), "--epochs", str(args.epochs), "--seed", str(seed),
               "--num-examples", str(args.num_examples), "--json", str(outs[side]), "--fds", f"{go_r},{done_w}"]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        procs[side] = subprocess.Popen(cmd, pass_fds=(go_r, done_w), env=_env(args.capability),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        os.close(go_r)
        os.close(done_w)
    readers = {side: os.fdopen(done[side], "rb") for side in done}
    epochs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    try:
        for e in range(args.epochs):
            turn = (e + r) % len(sides)
            for side in sides[turn:] + sides[:turn]:  # who goes first rotates
                time.sleep(SETTLE_S)
                os.write(go[side], b"g")
                line = readers[side].readline()
                if not line:
                    raise SystemExit(f"{side} ended early:\n{procs[side].communicate()[1][-3000:]}")
                epochs[side].append(json.loads(line))
    finally:
        for side in procs:
            os.close(go[side])
    result = {}
    for side, proc in procs.items():
        _, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"{side} failed ({proc.returncode}):\n{err[-3000:]}")
        res = json.loads(outs[side].read_text())
        tokens = sum(x["tokens"] for x in epochs[side])
        res.update(tokens_per_s=tokens / sum(x["s"] for x in epochs[side]),
                   tokens_per_cpu_s=tokens / sum(x["cpu_s"] for x in epochs[side]),
                   epoch_tokens_per_s=[x["tokens"] / x["s"] for x in epochs[side]])
        result[side] = res
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--big", action="store_true", help="the 18,000-pair recombined corpus (bench/big_corpus.py)")
    ap.add_argument("--epochs", type=int, default=None, help="default 30 (3 with --big)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--num-examples", type=int, default=None, help="default 600 (18000 with --big)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads on both sides (0: torch's default)")
    ap.add_argument("--capability", default=None,
                    help="ATEN_CPU_CAPABILITY for both sides (e.g. avx2); default: torch's choice")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--before", type=Path, default=None,
                    help="also train, in the same lock-step, the trainer of this other checkout (e.g. an older commit)")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    ap.add_argument("--worker", choices=("ours", "reference"), default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--fds", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.epochs is None:
        args.epochs = 3 if args.big else 30
    if args.num_examples is None:
        args.num_examples = 18000 if args.big else 600
    if args.worker:
        if args.threads:
            import torch

            torch.set_num_threads(args.threads)
        turns = Turns(*(int(fd) for fd in args.fds.split(",")))
        result = worker_ours(args, turns) if args.worker == "ours" else worker_reference(args, turns)
        Path(args.json).write_text(json.dumps(result))
        return 0
    if not args.reference.is_file():
        print(f"reference not found: {args.reference} (pass --reference PATH)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.big:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            import big_corpus

            args.data = big_corpus.write(tmp / "big.tsv", big_corpus.build_for_vocab(args.num_examples + 1, 3500))
        print(f"data {'recombined 18k corpus' if args.big else args.data.name}, {args.epochs} epochs in lock-step × "
              f"{args.rounds} rounds, threads {args.threads or 'default'}, ATEN_CPU_CAPABILITY "
              f"{args.capability or 'default'}", flush=True)
        rounds = []
        for r in range(args.rounds):
            res = run_round(args, args.seed + r, tmp, r)
            rounds.append(res)
            o, f = res["ours"], res["reference"]
            print(f"round {r}: ours {o['tokens_per_s']:9,.0f} tokens/s, reference {f['tokens_per_s']:8,.0f} tokens/s, "
                  f"ratio {o['tokens_per_s'] / f['tokens_per_s']:.2f}x (per CPU-second "
                  f"{o['tokens_per_cpu_s'] / f['tokens_per_cpu_s']:.2f}x); final loss per token ours "
                  f"{o['loss']:.3f}, reference {f['loss']:.3f} ({o['pairs']} pairs, vocab {o['src_vocab']}/"
                  f"{o['tgt_vocab']})", flush=True)
            if args.before:
                b = res["before"]
                print(f"         before {b['tokens_per_s']:9,.0f} tokens/s, "
                      f"ratio {b['tokens_per_s'] / f['tokens_per_s']:.2f}x, "
                      f"final loss per token {b['loss']:.3f}", flush=True)
    ratios = [x["ours"]["tokens_per_s"] / x["reference"]["tokens_per_s"] for x in rounds]
    cpu_ratios = [x["ours"]["tokens_per_cpu_s"] / x["reference"]["tokens_per_cpu_s"] for x in rounds]
    pairs = [a / b for x in rounds  # every epoch pair: the two sides' epochs trained back to back
             for a, b in zip(x["ours"]["epoch_tokens_per_s"], x["reference"]["epoch_tokens_per_s"])]
    q1, q2, q3 = statistics.quantiles(pairs, n=4) if len(pairs) > 1 else (pairs[0],) * 3
    o = statistics.median(x["ours"]["tokens_per_s"] for x in rounds)
    f = statistics.median(x["reference"]["tokens_per_s"] for x in rounds)
    ratio = statistics.median(ratios)
    print(f"median: ours {o:,.0f} tokens/s, reference {f:,.0f} tokens/s, ratio {ratio:.2f}x (rounds "
          f"{min(ratios):.2f}–{max(ratios):.2f}; epoch pairs: median {q2:.2f}, quartiles {q1:.2f}–{q3:.2f}; "
          f"per CPU-second "
          f"{statistics.median(cpu_ratios):.2f}x)")
    print(json.dumps({"ours_tokens_per_s": round(o, 1), "reference_tokens_per_s": round(f, 1),
                      "ratio": round(ratio, 3), "round_ratios": [round(x, 3) for x in ratios],
                      "epoch_ratio_median": round(q2, 3), "epoch_ratio_q1": round(q1, 3),
                      "epoch_ratio_q3": round(q3, 3),
                      "cpu_ratio": round(statistics.median(cpu_ratios), 3), "epochs": args.epochs,
                      "rounds": args.rounds, "threads": args.threads, "capability": args.capability or "default",
                      "data": "big" if args.big else str(args.data.name), "pairs": rounds[0]["ours"]["pairs"],
                      "tgt_vocab": rounds[0]["ours"]["tgt_vocab"],
                      "ours_runs": [round(x["ours"]["tokens_per_s"]) for x in rounds],
                      "reference_runs": [round(x["reference"]["tokens_per_s"]) for x in rounds],
                      "ours_loss": [round(x["ours"]["loss"], 4) for x in rounds],
                      "reference_loss": [round(x["reference"]["loss"], 4) for x in rounds],
                      **({"before_ratio": round(statistics.median(
                          x["before"]["tokens_per_s"] / x["reference"]["tokens_per_s"] for x in rounds), 3),
                          "before_round_ratios": [round(x["before"]["tokens_per_s"] / x["reference"]["tokens_per_s"], 3)
                                                  for x in rounds],
                          "before_loss": [round(x["before"]["loss"], 4) for x in rounds]} if args.before else {})}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
