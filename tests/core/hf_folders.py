"""Model folders as people have them, made from the tests' tiny ones: a config without ``model_type``, only a
``vocab.txt``, no tokenizer at all, weights saved under the family's prefix (``bert.*``)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

TOKENIZER_EXTRAS = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def copied(source: Path, target: Path) -> Path:
    """A fresh copy of ``source`` at ``target``."""
    shutil.copytree(source, target)
    return target


def without_model_type(folder: Path, architectures: list[str] | None = None) -> Path:
    """Drop ``model_type`` from config.json; set (or, with None, drop) ``architectures``."""
    config = json.loads((folder / "config.json").read_text())
    config.pop("model_type", None)
    config.pop("architectures", None)
    if architectures is not None:
        config["architectures"] = architectures
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def vocab_only(folder: Path) -> Path:
    """Keep ``vocab.txt`` as the only tokenizer file."""
    for name in TOKENIZER_EXTRAS:
        (folder / name).unlink(missing_ok=True)
    return folder


def no_tokenizer(folder: Path) -> Path:
    """No tokenizer file at all."""
    vocab_only(folder)
    (folder / "vocab.txt").unlink(missing_ok=True)
    return folder


def prefixed_weights(folder: Path, prefix: str) -> Path:
    """Save the weights under ``prefix.`` as a checkpoint with a head would (``bert.embeddings…``)."""
    from safetensors.torch import load_file, save_file

    weights = load_file(folder / "model.safetensors")
    save_file({f"{prefix}.{k}": v for k, v in weights.items()}, folder / "model.safetensors", metadata={"format": "pt"})
    return folder
