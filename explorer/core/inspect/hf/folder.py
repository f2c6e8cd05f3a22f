"""Opening a local Hugging Face model folder safely: checks with user-fit messages, local files only, no pickle
code ever run. ``transformers`` (the optional ``[hf]`` extra) is imported only when a folder is opened."""
from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.core.inspect.interface import ModelError

INSTALL_HINT = "pip install 'attention-explorer[hf]'"
OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
SAFETENSORS_FILES = ("model.safetensors", "model.safetensors.index.json")
BIN_FILES = ("pytorch_model.bin", "pytorch_model.bin.index.json")
OTHER_WEIGHTS = ("tf_model.h5", "flax_model.msgpack", "model.ckpt.index", "model.onnx")
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "source.spm",
                   "sentencepiece.bpe.model", "tokenizer.model")


class HFModelError(ModelError):
    """A Hugging Face folder could not be opened; the message is fit to show to a user."""


class MissingExtraError(HFModelError):
    """The optional ``[hf]`` extra (transformers, tokenizers, sentencepiece) is not installed."""


@dataclass(frozen=True)
class Family:
    """How to load and tap one architecture: its family, its Auto class and where its attention modules are.

    ``taps`` pairs a regular expression on a module's dotted name (group 1 = the layer) with the kind of
    attention that module computes; each such module returns its weights ``(B, h, q, k)`` last.
    """

    family: str
    auto_class: str
    taps: tuple[tuple[str, str], ...]


_ENCODER = Family("encoder-only", "AutoModel", ((r"encoder\.layer\.(\d+)\.attention\.self$", "encoder"),))
_BART = Family("encoder-decoder", "AutoModelForSeq2SeqLM", (
    (r"encoder\.layers\.(\d+)\.self_attn$", "encoder"),
    (r"decoder\.layers\.(\d+)\.self_attn$", "decoder"),
    (r"decoder\.layers\.(\d+)\.encoder_attn$", "cross")))
SUPPORTED: dict[str, Family] = {
    "bert": _ENCODER,
    "roberta": _ENCODER,
    "gpt2": Family("decoder-only", "AutoModelForCausalLM", ((r"(?:^|\.)h\.(\d+)\.attn$", "decoder"),)),
    "bart": _BART,
    "mbart": _BART,
    "marian": _BART,
    "t5": Family("encoder-decoder", "AutoModelForSeq2SeqLM", (
        (r"encoder\.block\.(\d+)\.layer\.0\.SelfAttention$", "encoder"),
        (r"decoder\.block\.(\d+)\.layer\.0\.SelfAttention$", "decoder"),
        (r"decoder\.block\.(\d+)\.layer\.1\.EncDecAttention$", "cross"))),
}


@dataclass(frozen=True)
class FolderCheck:
    """What a folder holds, found without importing transformers."""

    folder: Path
    model_type: str
    family: Family
    safetensors: bool  # False: PyTorch .bin weights (loaded with weights_only=True)


def check_folder(path: str | os.PathLike[str]) -> FolderCheck:
    """Check a folder for config, weights and tokenizer; raise :class:`HFModelError` naming what is wrong."""
    folder = Path(path).expanduser().resolve()
    if not folder.is_dir():
        raise HFModelError(f"{folder} is not a folder")
    try:
        names = {p.name for p in folder.iterdir()}
    except OSError as exc:
        raise HFModelError(f"cannot read the folder {folder}: {exc.strerror or exc}") from exc
    if not names:
        raise HFModelError(f"{folder.name} is an empty folder: a model folder holds config.json, "
                           "weights (model.safetensors) and a tokenizer")
    if "config.json" not in names:
        raise HFModelError(f"{folder.name} has no config.json: it is not a Hugging Face model folder")
    model_type = _model_type(folder / "config.json")
    family = SUPPORTED.get(model_type)
    if family is None:
        raise HFModelError(f"{folder.name}: unknown or unsupported architecture {model_type!r}; "
                           f"this version opens {', '.join(sorted(SUPPORTED))}")
    has_st = any(n in names for n in SAFETENSORS_FILES)
    if not has_st and not any(n in names for n in BIN_FILES):
        other = [n for n in OTHER_WEIGHTS if n in names]
        hint = f" ({other[0]} is a format this app does not read)" if other else ""
        raise HFModelError(f"{folder.name} has no weights: expected model.safetensors (or pytorch_model.bin){hint}")
    if not any(n in names for n in TOKENIZER_FILES):
        raise HFModelError(f"{folder.name} has no tokenizer (none of {', '.join(TOKENIZER_FILES)}); "
                           "copy the tokenizer files of the model into the folder")
    return FolderCheck(folder, model_type, family, has_st)


def _model_type(config: Path) -> str:
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise HFModelError(f"{config.parent.name}/config.json cannot be read as JSON: {exc}") from exc
    model_type = data.get("model_type") if isinstance(data, dict) else None
    if not isinstance(model_type, str) or not model_type:
        raise HFModelError(f"{config.parent.name}/config.json names no model_type: unknown architecture")
    return model_type


def import_transformers() -> Any:
    """``transformers``, or :class:`MissingExtraError` saying how to install it."""
    try:
        import transformers
    except ImportError as exc:
        python = "" if sys.version_info >= (3, 11) else "; transformers 5 needs Python 3.11 or newer"
        raise MissingExtraError(f"opening a Hugging Face model needs the optional [hf] extra: {INSTALL_HINT}"
                                f" ({exc.name or 'transformers'} is not installed{python})") from exc
    return transformers


@contextmanager
def hf_session() -> Iterator[Any]:
    """Offline, quiet transformers for the duration: no hub access, no progress bars, errors-only logging
    (its load reports would otherwise go to the CLI's stderr). Yields the ``transformers`` module."""
    saved = {k: os.environ.get(k) for k in OFFLINE_VARS}
    os.environ.update({k: "1" for k in OFFLINE_VARS})
    # one sentence at a time gains nothing from the tokenizers' thread pool, which warns in forked children
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        transformers = import_transformers()
        log = transformers.utils.logging
        verbosity, bars = log.get_verbosity(), log.is_progress_bar_enabled()
        log.set_verbosity_error()
        log.disable_progress_bar()
        try:
            yield transformers
        finally:
            log.set_verbosity(verbosity)
            if bars:
                log.enable_progress_bar()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def check_bin_weights(check: FolderCheck) -> None:
    """Load every ``.bin`` weight file with ``weights_only=True`` (tensors only, no code) before transformers
    does; refuse the folder when that fails."""
    import torch

    names = [BIN_FILES[0]]
    index = check.folder / BIN_FILES[1]
    if index.is_file():
        try:
            names = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise HFModelError(f"{check.folder.name}/{BIN_FILES[1]} is damaged: {exc}") from exc
    for name in names:
        path = check.folder / name
        if path.name != name or not path.is_file():
            raise HFModelError(f"{check.folder.name}: the weight file {name!r} is missing")
        try:
            torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # UnpicklingError for code, RuntimeError/EOFError for damage
            called = re.search(r"GLOBAL ([\w.]+)", str(exc))
            why = (f"it asks to call {called.group(1)}, so loading it could run code" if called else
                   "it is not a plain file of tensors (damaged, or a pickle that could run code)")
            raise HFModelError(f"{check.folder.name}/{name} was refused: {why}. "
                               "Use a model.safetensors version of the model") from exc


def load_folder(check: FolderCheck, device: Any) -> tuple[Any, Any]:
    """``(model in eval mode on device, tokenizer)`` for a checked folder; eager attention, float32."""
    import torch

    with hf_session() as transformers:
        if not check.safetensors:
            check_bin_weights(check)
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(check.folder, local_files_only=True,
                                                                   trust_remote_code=False)
        except ImportError as exc:
            raise MissingExtraError(f"reading this tokenizer needs the [hf] extra: {INSTALL_HINT} "
                                    f"({_first_line(exc)})") from exc
        except Exception as exc:  # tokenizer loaders raise OSError, ValueError, TypeError, KeyError …
            raise HFModelError(f"{check.folder.name}: the tokenizer cannot be read ({_first_line(exc)})") from exc
        auto = getattr(transformers, check.family.auto_class)
        try:
            model, info = auto.from_pretrained(
                check.folder, local_files_only=True, trust_remote_code=False, attn_implementation="eager",
                use_safetensors=check.safetensors, weights_only=True, dtype=torch.float32,
                ignore_mismatched_sizes=True, output_loading_info=True)  # mismatches are refused below, by name
        except Exception as exc:  # damaged files (OSError, SafetensorsError, RuntimeError)
            raise HFModelError(f"{check.folder.name}: the weights cannot be read ({_first_line(exc)})") from exc
    _check_loaded(check.folder.name, info)
    vocab = int(getattr(model.config, "vocab_size", 0) or 0)
    if vocab and len(tokenizer) > vocab:
        raise HFModelError(f"{check.folder.name}: the tokenizer has {len(tokenizer)} tokens but the model's "
                           f"vocabulary only {vocab}; tokenizer and weights belong to different models")
    model.to(device).eval()
    return model, tokenizer


def _check_loaded(name: str, info: dict[str, Any]) -> None:
    """Refuse weights that leave tensors of the configured model missing or of another shape."""
    missing = [k for k in info.get("missing_keys", ()) if not k.startswith("pooler.")]  # the pooler: no attention
    mismatched = list(info.get("mismatched_keys", ()))
    if mismatched:
        key, stored, wanted = mismatched[0]
        raise HFModelError(f"{name}: the weights do not match config.json: {len(mismatched)} tensor(s) of another "
                           f"shape, e.g. {key} is {tuple(stored)} in the weights but {tuple(wanted)} by config.json")
    if missing:
        raise HFModelError(f"{name}: the weights do not match config.json: {len(missing)} tensor(s) missing, "
                           f"e.g. {missing[0]}")


def find_taps(model: Any, family: Family) -> list[tuple[Any, str, int]]:
    """``(module, kind, layer)`` for every attention module of ``model`` (dotted names matched to ``taps``)."""
    found = []
    for name, module in model.named_modules():
        for pattern, kind in family.taps:
            match = re.search(pattern, name)
            if match:
                found.append((module, kind, int(match.group(1))))
    return found
