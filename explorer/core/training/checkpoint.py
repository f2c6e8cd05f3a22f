"""Safe model checkpoints (book §11.7 models): one ``.safetensors`` file with weights + JSON metadata.

Loading never unpickles: only the safetensors header (JSON) and raw tensor bytes are read (``checkpoint_read``,
re-exported here). Writes are atomic.
"""
from __future__ import annotations

import contextlib
import dataclasses
import glob
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
import torch

from explorer.core import atomic_file
from explorer.core.training.checkpoint_read import (FORMAT_NAME, FORMAT_VERSION, META_KEY, SUFFIX, CheckpointError,
                                           load_checkpoint, read_meta)

if TYPE_CHECKING:
    from explorer.core.data.text import Vocab
    from explorer.core.training.config import TrainingConfig
    from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "META_KEY", "SUFFIX", "TRAIN_STATE_PREFIX", "CheckpointError",
           "LoadedModel", "build_loaded_model", "check_writable", "load_checkpoint", "load_model", "model_meta",
           "read_meta", "save_checkpoint", "save_model", "encode_checkpoint", "write_checkpoint_bytes"]

TRAIN_STATE_PREFIX = "train_state."  # tensors of a run's checkpoint that are not the model's (optimiser, RNG)
_MAX_DERIVED_VALUES = 32 * 1024 * 1024  # values a model may compute beyond its file (e.g. the (max_len, d) table)


@dataclass
class LoadedModel:
    """Everything a checkpoint holds, rebuilt: the model is on the requested device, in eval mode."""

    model: Seq2SeqTransformer
    model_config: TransformerConfig
    train_config: TrainingConfig | None
    src_vocab: Vocab
    tgt_vocab: Vocab
    history: Any
    meta: dict[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------------------------------------- writing
def _jsonable(value: Any) -> Any:
    """Turn numpy / torch / dataclass values into plain JSON types (floats stay floats, NaN allowed)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        to_dict = getattr(value, "to_dict", None)
        return _jsonable(to_dict() if callable(to_dict) else dataclasses.asdict(value))
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, torch.Tensor):
        return _jsonable(value.detach().cpu().numpy())
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, torch.device):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise CheckpointError(f"cannot store a value of type {type(value).__name__} in a checkpoint")


def _write_all(handle: Any, data: bytes) -> None:
    """Write every byte (a separate function so tests can make the write fail)."""
    handle.write(data)


def _refuse_folder(path: Path) -> None:
    if path.is_dir():
        raise CheckpointError(f"{path} is a folder; choose a file name to save to")


def _cannot_write(path: Path, exc: OSError) -> CheckpointError:
    return CheckpointError(f"cannot write to folder {path.parent}: {exc.strerror or exc}")


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Raise :class:`CheckpointError` now if ``path`` could not be saved to (e.g. before a long training run)."""
    path = Path(path)
    _refuse_folder(path)
    try:
        fd, tmp = atomic_file.create_temp(path)
    except OSError as exc:
        raise _cannot_write(path, exc) from exc
    os.close(fd)
    tmp.unlink()
    return path


def _atomic_write(path: Path, data: bytes, durable: bool = True, sweep: bool = True) -> None:
    """Write ``data`` to a temp file beside ``path``, fsync it, then rename it over ``path`` (and fsync the folder),
    then delete stale temp files of earlier saves to ``path``.

    ``durable=False`` skips the fsyncs: the rename still means a crash of the process never leaves a half
    file, only a crash of the machine could (for files that are cheap to lose, e.g. attention snapshots).
    ``sweep=False`` skips the stale temp files: looking for them lists the whole folder, which costs in proportion to
    its files (for a file written once, in a folder whose owner clears leftovers itself: attention snapshots).
    """
    _refuse_folder(path)
    opened = False
    try:
        with atomic_file.atomic_open(path, "wb", fsync=durable) as handle:
            opened = True
            _write_all(handle, data)
    except OSError as exc:
        if not opened:
            raise _cannot_write(path, exc) from exc
        raise CheckpointError(f"could not save {path.name}: {exc.strerror or exc}") from exc
    if sweep:
        _remove_stale_temps(path)


STALE_TEMP_S = 3600.0  # a temp file this old was left by a save that died (killed, power cut)


def _remove_stale_temps(path: Path) -> None:
    """Delete temp files of earlier saves to ``path`` that never finished (recent ones may be in progress)."""
    now = time.time()
    legacy = f".{glob.escape(path.name)}.*.tmp"  # tempfile.mkstemp's names, before explorer.core.atomic_file
    for leftover in (*path.parent.glob(atomic_file.temp_glob(path)), *path.parent.glob(legacy)):
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > STALE_TEMP_S:
                leftover.unlink()


def save_checkpoint(path: str | os.PathLike[str], tensors: Mapping[str, torch.Tensor],
                    meta: Mapping[str, Any]) -> Path:
    """Atomically write ``tensors`` and ``meta`` (JSON-able) as one safetensors file.

    ``format`` and ``format_version`` are added to ``meta``. Returns the path written.
    """
    return write_checkpoint_bytes(path, encode_checkpoint(tensors, meta))


def encode_checkpoint(tensors: Mapping[str, torch.Tensor], meta: Mapping[str, Any]) -> bytes:
    """The bytes of the safetensors file :func:`save_checkpoint` writes (``CheckpointError`` if they cannot be made).

    This is the part that runs torch operations; a training process calls it on its training thread and hands the
    bytes to :func:`write_checkpoint_bytes` on another (see ``RunWriter.checkpoint``).
    """
    full_meta = {**_jsonable(dict(meta)), "format": FORMAT_NAME, "format_version": FORMAT_VERSION}
    plain = _owning_cpu_tensors(tensors)
    try:
        return _st_save(plain, {"format": "pt", META_KEY: json.dumps(full_meta)})
    except (ValueError, TypeError, RuntimeError) as exc:
        raise CheckpointError(f"could not encode the model: {exc}") from exc


def write_checkpoint_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Atomically write the bytes of :func:`encode_checkpoint` to ``path`` (with fsync); no torch. Returns the path."""
    path = Path(path)
    _atomic_write(path, data)
    return path


def _owning_cpu_tensors(tensors: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Each tensor on the CPU, contiguous and alone on its storage (safetensors refuses aliased tensors), copied only
    where it is not already: a live model's parameters are views of one flat buffer, while a ``TrainerState``'s are
    copies made for the checkpoint (copying those again took a 48M-parameter run's training thread ~0.3 s)."""
    plain: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    for name, tensor in tensors.items():
        t = tensor.detach().to("cpu").contiguous()
        storage = t.untyped_storage()
        if storage.data_ptr() in seen or storage.nbytes() != t.numel() * t.element_size():
            t = t.clone()
        seen.add(t.untyped_storage().data_ptr())
        plain[name] = t
    return plain


def _st_save(tensors: dict[str, torch.Tensor], metadata: dict[str, str]) -> bytes:
    from safetensors.torch import save

    return save(tensors, metadata=metadata)

# ----------------------------------------------------------------------------------------- models
def model_meta(model_config: TransformerConfig, train_config: TrainingConfig | None, src_vocab: Vocab,
               tgt_vocab: Vocab, history: Any = None, source_name: str = "", device: str = "cpu") -> dict[str, Any]:
    """The JSON metadata of a model checkpoint (configs, vocabularies, history, provenance)."""
    from explorer import __version__

    return {
        "model_config": _jsonable(model_config),
        "train_config": _jsonable(train_config) if train_config is not None else None,
        "src_vocab": _jsonable(src_vocab.to_dict()),
        "tgt_vocab": _jsonable(tgt_vocab.to_dict()),
        "history": _jsonable(history),
        "source_name": str(source_name),
        "device": str(device),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "app_version": __version__,
    }


def save_model(path: str | os.PathLike[str], model: torch.nn.Module, train_config: TrainingConfig | None,
               src_vocab: Vocab, tgt_vocab: Vocab, history: Any = None, source_name: str = "") -> Path:
    """Save a trained Seq2SeqTransformer with everything needed to rebuild and use it."""
    model_config = getattr(model, "config", None) or getattr(train_config, "model", None)
    if model_config is None:
        raise CheckpointError("the model has no configuration to save")
    device = str(next(iter(model.parameters()), torch.empty(0)).device)
    meta = model_meta(model_config, train_config, src_vocab, tgt_vocab, history, source_name, device)
    return save_checkpoint(path, model.state_dict(), meta)


def _build_train_config(data: Any, model_config: TransformerConfig) -> TrainingConfig | None:
    from explorer.core.training.config import TrainingConfig

    if not isinstance(data, dict):
        return None
    config = TrainingConfig.from_dict(data)
    config.model = model_config  # one config object shared by the model and its training settings
    return config


def load_model(path: str | os.PathLike[str], device: str | torch.device = "cpu") -> LoadedModel:
    """Rebuild the model, configs and vocabularies saved by :func:`save_model` (eval mode, on ``device``)."""
    tensors, meta = load_checkpoint(path)
    name = Path(path).name
    # a run's checkpoint also holds the optimiser's state (training_state.py): not part of the model
    tensors = {k: v for k, v in tensors.items() if not k.startswith(TRAIN_STATE_PREFIX)}
    return build_loaded_model(name, tensors, meta, device)


def build_loaded_model(name: str, tensors: dict[str, torch.Tensor], meta: dict[str, Any],
                       device: str | torch.device = "cpu") -> LoadedModel:
    """Rebuild and check the model of checkpoint ``name`` from its model ``tensors`` and ``meta``."""
    from explorer.core.data.text import Vocab
    from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

    try:
        model_config = TransformerConfig.from_dict(meta["model_config"])
        model_config.validate()
        src_vocab = Vocab.from_dict(meta["src_vocab"])
        tgt_vocab = Vocab.from_dict(meta["tgt_vocab"])
        train_config = _build_train_config(meta.get("train_config"), model_config)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, CheckpointError):
            raise
        detail = f"{exc.args[0]!r} is missing" if isinstance(exc, KeyError) else str(exc)
        raise CheckpointError(f"{name} has damaged or incompatible metadata: {detail}") from exc
    for side, vocab in (("source", src_vocab), ("target", tgt_vocab)):
        lacking = [t for t in ("<pad>", "<bos>", "<eos>") if t not in vocab]
        if lacking:
            raise CheckpointError(f"{name}: the {side} vocabulary lacks {', '.join(lacking)}")
    _check_fits(name, model_config, len(src_vocab), len(tgt_vocab), tensors)
    bad = [k for k, t in tensors.items() if t.is_floating_point() and not bool(torch.isfinite(t).all())]
    if bad:
        raise CheckpointError(f"{name} holds non-finite weights (e.g. {bad[0]!r})")
    model = Seq2SeqTransformer.from_weights(model_config, len(src_vocab), len(tgt_vocab), tensors)  # checked above
    target = device if isinstance(device, torch.device) else _device(device)
    model.to(target).eval()
    history = _history(meta.get("history"))
    return LoadedModel(model, model_config, train_config, src_vocab, tgt_vocab, history, meta)


def _check_fits(name: str, config: TransformerConfig, src_size: int, tgt_size: int,
                tensors: Mapping[str, torch.Tensor]) -> None:
    """Refuse tensors that do not fit the configuration, and configurations far larger than the file,
    before anything is allocated (the model is first built on the ``meta`` device: shapes only)."""
    from explorer.core.model.transformer import Seq2SeqTransformer

    if config.num_layers > len(tensors):  # every layer holds tensors: refuse before building a million
        raise CheckpointError(f"{name} does not match its own configuration: {config.num_layers} layers "
                              f"but only {len(tensors)} tensors")
    with torch.device("meta"):
        skeleton = Seq2SeqTransformer(config, src_size, tgt_size)
    expected = {k: tuple(v.shape) for k, v in skeleton.state_dict().items()}
    missing = sorted(set(expected) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    wrong = [k for k in expected if k in tensors and tuple(tensors[k].shape) != expected[k]]
    parts = [f"tensor {k!r} has shape {tuple(tensors[k].shape)}, the configuration needs {expected[k]}"
             for k in wrong[:1]]
    parts += [f"missing {len(missing)} tensor(s), e.g. {missing[0]!r}"] if missing else []
    parts += [f"{len(extra)} unexpected tensor(s), e.g. {extra[0]!r}"] if extra else []
    if parts:
        raise CheckpointError(f"{name} does not match its own configuration: " + "; ".join(parts))
    derived = sum(t.numel() for t in skeleton.buffers()) + sum(t.numel() for t in skeleton.parameters()) \
        - sum(t.numel() for t in tensors.values())
    if derived > _MAX_DERIVED_VALUES:
        raise CheckpointError(f"{name} asks for a model too large to build: {derived:,} values beyond its "
                              f"stored weights (max_len {config.max_len})")


def _history(data: Any) -> Any:
    """A saved history as the trainer's ``TrainingHistory`` when it has that shape, else as stored."""
    if not isinstance(data, dict):
        return data
    from explorer.core.training.config import TrainingHistory

    try:
        return TrainingHistory.from_dict(data)
    except (TypeError, ValueError):
        return data


def _device(name: str) -> torch.device:
    from explorer.core.training.devices import resolve_device

    try:
        return resolve_device(name)
    except ValueError as exc:  # ConfigError: unknown or unavailable device
        raise CheckpointError(str(exc)) from exc
