"""Tiny models for the debugging tools' tests (ablation, beam trees, sampling, diffs): one trained briefly on the
bundled corpus (so BLEU and loss move when heads are switched off), saved as a checkpoint; built once per session."""
from __future__ import annotations

from pathlib import Path

import torch

from explorer.core.training.checkpoint import save_model
from explorer.core.data.sources import load_source
from explorer.core.data.text import build_dataset
from explorer.core.training.trainer import Trainer
from explorer.core.training.config import TrainingConfig
from explorer.core.model.transformer import TransformerConfig

NUM_PAIRS = 24
_saved: dict[tuple[str, int], Path] = {}


def pairs(n: int = NUM_PAIRS) -> list[tuple[str, str]]:
    """The first ``n`` pairs of the bundled corpus."""
    return list(load_source("builtin", num_examples=n).pairs)


def trained_checkpoint(root: Path, epochs: int = 60, seed: int = 0) -> Path:
    """A 2-layer, 2-head model (d=16) trained ``epochs`` epochs on :func:`pairs`, saved under ``root``."""
    key = (str(root), epochs * 1000 + seed)
    if key not in _saved:
        config = TrainingConfig(model=TransformerConfig(num_hiddens=16, num_layers=2, num_heads=2,
                                                        ffn_num_hiddens=32, dropout=0.0),
                                batch_size=12, num_steps=8, lr=0.01, num_epochs=epochs, seed=seed,
                                device="cpu", snapshot_every=0, min_freq=1)
        ds = build_dataset(pairs(), config.num_steps, min_freq=1)
        trainer = Trainer(config, ds)
        for _ in trainer:
            pass
        root.mkdir(parents=True, exist_ok=True)
        _saved[key] = save_model(root / f"tiny-{epochs}-{seed}.safetensors", trainer.model.eval(), config,
                                 ds.src_vocab, ds.tgt_vocab)
    return _saved[key]
