"""Helpers of the run-directory, resume and distributed tests: a tiny dataset and config, training into a run
directory in-process, and launching the CLI as real ranks (the environment torchrun gives its workers)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from explorer.core.runs.writer import RunWriter
from explorer.core.data.text import NMTDataset, build_dataset
from explorer.core.training.trainer import Trainer
from explorer.core.training.config import TrainingConfig
from explorer.core.training.state import load_training_checkpoint
from explorer.core.model.transformer import TransformerConfig

WORDS = "a b c d e f g h".split()
#: A CLI training run small enough for a test: a copy task on a one-layer width-16 model, no dropout.
TINY_CLI = ["--data", "task:copy", "--device", "cpu", "--num-hiddens", "16", "--num-heads", "2", "--num-layers", "1",
            "--ffn-num-hiddens", "16", "--batch-size", "16", "--num-steps", "8", "--dropout", "0", "--threads", "1"]


def tiny_dataset(n: int = 40, num_steps: int = 8) -> NMTDataset:
    rng = np.random.default_rng(0)
    pairs = []
    for _ in range(n):
        words = list(rng.choice(WORDS, size=int(rng.integers(1, 6))))
        pairs.append((" ".join(words), " ".join(reversed(words))))
    return build_dataset(pairs, num_steps, min_freq=1)


def tiny_config(epochs: int = 2, **kw: Any) -> TrainingConfig:
    base: dict[str, Any] = dict(model=TransformerConfig(num_hiddens=16, num_heads=2, ffn_num_hiddens=32, dropout=0.0),
                                batch_size=16, num_steps=8, num_epochs=epochs, snapshot_every=2, device="cpu")
    base.update(kw)
    return TrainingConfig(**base)


def train_into(run_dir: Path, dataset: NMTDataset, epochs: int, resume: bool = False,
               **writer_kw: Any) -> tuple[Trainer, list[Any]]:
    """Train ``epochs`` epochs (in total) into ``run_dir``: a new run, or resumed from its last checkpoint."""
    if resume:
        _, state = load_training_checkpoint(run_dir / "checkpoints" / "last.safetensors")
        trainer = Trainer(tiny_config(epochs), dataset, resume=state)
        writer = RunWriter.resume(run_dir, trainer, **writer_kw)
    else:
        trainer = Trainer(tiny_config(epochs), dataset)
        writer = RunWriter.create(run_dir, trainer, {"spec": "test", "name": "test"},
                                  probes=dataset.pairs[:2], **writer_kw)
    events = []
    with writer:
        for event in trainer:
            writer.on_event(event)
            events.append(event)
    return trainer, events


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch_ranks(args: list[str], world: int, cwd: Path) -> list[subprocess.Popen[str]]:
    """Start ``python -m explorer.cli *args`` as ranks 0..world-1 of one gloo process group."""
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                   WORLD_SIZE=str(world), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world), OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable, "-m", "explorer.cli", *args], env=env, cwd=cwd, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    return procs
