"""What the training process's own work costs its trainer: events handed to the pipe's sender thread, the run
written to disk, both (as the studio's child does), against the trainer alone (book §11.7 settings, live
snapshots every 10 steps).

Each variant is one trainer iterated on the main thread of this process, as the child does; the sender's pipe is
read by another process that drops what it reads. The variants take turns of ``--window`` seconds, so a machine
whose speed drifts meets them all alike; the first turn of each is a warm-up. "sender, unpaced" writes as soon as it
can (``pace_s=0``: what was handed over meanwhile, as one message); "sender" is the sender as the child runs it.

    python bench/child_overhead.py [--threads 1] [--window 0.7] [--turns 30] [--size book|large]

Prints the median tokens/s of each variant and its ratio to the trainer alone, then one JSON line.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing as mp
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
LARGE_MODEL = {"num_layers": 6, "num_heads": 8, "num_hiddens": 64, "ffn_num_hiddens": 128}
LARGE_STEPS = 20


def drain(connection: Any) -> None:
    """The parent's side of the pipe, reduced to reading and dropping."""
    while True:
        try:
            connection.recv()
        except (EOFError, OSError):
            return


def main() -> int:
    from explorer.core.data.readers import read_pairs
    from explorer.core.data.text import build_dataset
    from explorer.core.runs.child_pipes import SEND_PACE_S, EventSender
    from explorer.core.runs.writer import RunWriter
    from explorer.core.training.config import TrainingConfig
    from explorer.core.training.trainer import Trainer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the child's on 2 cores: 1)")
    parser.add_argument("--window", type=float, default=0.7, help="seconds per turn")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--size", choices=("book", "large"), default="book",
                        help="the book's model, or gui_responsiveness.py's large one (6 layers x 8 heads x 64 wide)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    pairs = read_pairs(ROOT / "resources" / "eng_fra.tsv", num_examples=600).pairs
    config = TrainingConfig(num_epochs=1_000_000, snapshot_every=10, device="cpu")
    if args.size == "large":
        config = dataclasses.replace(config, model=dataclasses.replace(config.model, **LARGE_MODEL),
                                     num_steps=LARGE_STEPS)
    dataset = build_dataset(pairs, config.num_steps, config.min_freq)
    context = mp.get_context("spawn")
    readers, senders, writers, ends = [], [], [], []
    variants: dict[str, tuple[Iterator[Any], EventSender | None, RunWriter | None]] = {}
    folder = tempfile.TemporaryDirectory()
    for name, pace, write in (("trainer alone", None, False), ("sender, unpaced", 0.0, False),
                              ("sender", SEND_PACE_S, False), ("run writer", None, True),
                              ("sender + run writer", SEND_PACE_S, True)):
        trainer = Trainer(config, dataset, probe=dataset.pairs[0])
        sender = writer = None
        if pace is not None:
            inbound, outbound = context.Pipe(duplex=False)
            reader = context.Process(target=drain, args=(inbound,), daemon=True)
            reader.start()
            readers.append(reader)
            sender = EventSender(outbound, pace_s=pace)
            senders.append(sender)
            ends.append(outbound)
        if write:
            writer = RunWriter.create(Path(folder.name) / f"run-{len(variants)}", trainer,
                                      {"spec": "builtin", "name": "bench", "num_examples": 600, "seed": 0},
                                      probes=[dataset.pairs[0]], checkpoint_interval_s=5.0, probe_interval_s=1.0)
            writers.append(writer)
        variants[name] = (iter(trainer), sender, writer)
    rates: dict[str, list[float]] = {name: [] for name in variants}
    for turn in range(args.turns + 1):
        for name, (events, sender, writer) in variants.items():
            start, tokens = time.perf_counter(), 0
            while time.perf_counter() - start < args.window:
                event = next(events)
                if writer is not None:
                    writer.on_event(event)
                if sender is not None:
                    sender.send(event)
                if event.kind == "step":
                    tokens += event.tokens
            if turn:  # the first turn warms up
                rates[name].append(tokens / (time.perf_counter() - start))
    for sender in senders:
        sender.close(timeout_s=5.0)
    for end in ends:  # the readers see the end of their pipes and exit
        end.close()
    for writer in writers:
        writer.close()
    for reader in readers:
        reader.join(timeout=5.0)
    folder.cleanup()
    alone = statistics.median(rates["trainer alone"])
    result: dict[str, Any] = {"size": args.size, "threads": args.threads, "window_s": args.window, "turns": args.turns,
                              "send_pace_s": SEND_PACE_S, "tokens_per_s": {}, "ratio": {}}
    for name, values in rates.items():
        median = statistics.median(values)
        result["tokens_per_s"][name] = round(median)
        result["ratio"][name] = round(median / alone, 3)
        print(f"{name:22s} {median:9.0f} tokens/s   {median / alone:.3f} of the trainer alone")
    result["load_average"] = [round(x, 2) for x in os.getloadavg()[:2]]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
