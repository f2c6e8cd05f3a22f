"""The run directory of a §11.7 training run (format in ``docs/RUNS.md``): paths, ``run.json``, metrics lines,
snapshot files. Shared by the writer (``run_writer.py``), the follower (``run_follow.py``) and the CLI.

Nothing here unpickles: JSON, and safetensors for snapshots and checkpoints.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import struct
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from explorer.core.checks import is_whole
from explorer.core.data.sources import BUILTIN_SPEC
from explorer.core.training.checkpoint_read import CheckpointError

from explorer.core.training.checkpoint import _atomic_write
from explorer.core.training.events import SnapshotEvent

RUN_FORMAT = "attention-explorer-run"
#: 2: runs with learning-rate schedules and settings changed while training (``settings`` lines), which a reader of
#: version 1 would misread as trained at the constant rate of run.json (docs/RUNS.md, Compatibility).
RUN_FORMAT_VERSION = 2
SNAPSHOT_FORMAT = "attention-explorer-snapshot"
RUN_JSON = "run.json"
METRICS = "metrics.jsonl"
SNAPSHOTS = "snapshots"
CHECKPOINTS = "checkpoints"
LAST_CHECKPOINT = "last.safetensors"
MODELS = "models"  # models/epoch-XXXX.safetensors: the model alone at chosen epochs (--keep-models)
#: A snapshot file's tensor name of each attention kind (the file format's spelling, docs/RUNS.md).
FILE_NAMES = {"encoder": "encoder_self", "decoder": "decoder_self", "cross": "cross"}
_SNAPSHOT_NAME = re.compile(r"^step-(\d{9,})\.safetensors$")
_MODEL_NAME = re.compile(r"^epoch-(\d{4,})\.safetensors$")
_MAX_SNAPSHOT_BYTES = 256 * 2**20  # a larger "snapshot" file is not one of ours


class RunDirError(ValueError):
    """A run directory cannot be used as asked; the message is fit for users (and says what to do)."""


def resume_hint(path: str | os.PathLike[str]) -> str:
    """The command that continues the run in ``path``."""
    return f"attention-explorer-cli train --resume {path} --epochs N"


# ----------------------------------------------------------------------------------------- paths
def is_run_dir(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a folder holding a ``run.json``."""
    return (Path(path) / RUN_JSON).is_file()


def checkpoint_path(run_dir: str | os.PathLike[str], epoch: int | None = None) -> Path:
    """``checkpoints/last.safetensors``, or ``checkpoints/epoch-XXXX.safetensors`` for a kept epoch."""
    name = LAST_CHECKPOINT if epoch is None else f"epoch-{epoch:04d}.safetensors"
    return Path(run_dir) / CHECKPOINTS / name


def model_path(run_dir: str | os.PathLike[str], epoch: int) -> Path:
    """``models/epoch-XXXX.safetensors``: the model alone after ``epoch`` (a normal model file)."""
    return Path(run_dir) / MODELS / f"epoch-{epoch:04d}.safetensors"


def kept_models(run_dir: str | os.PathLike[str]) -> list[tuple[int, Path]]:
    """``(epoch, path)`` of the models a run kept (``models/``), by epoch; other names are ignored."""
    return _numbered_files(Path(run_dir) / MODELS, _MODEL_NAME)


def kept_model_at(run_dir: str | os.PathLike[str], step: int, num_batches: int) -> tuple[int, Path] | None:
    """The latest kept model trained no further than ``step`` (``epoch × num_batches ≤ step``), or None."""
    if num_batches < 1:
        return None
    earlier = [(epoch, path) for epoch, path in kept_models(run_dir) if epoch * num_batches <= step]
    return earlier[-1] if earlier else None


def last_checkpoint(run_dir: str | os.PathLike[str]) -> Path | None:
    """A run directory's ``checkpoints/last.safetensors``, or None before its first checkpoint."""
    path = checkpoint_path(run_dir)
    return path if path.is_file() else None


def resolve_model_path(path: str | os.PathLike[str]) -> Path:
    """A model file as given, or a run directory's last checkpoint (every ``--model`` accepts both)."""
    p = Path(path)
    if not p.is_dir():
        return p
    if not is_run_dir(p):
        raise CheckpointError(f"{p} is a folder but not a run directory (no {RUN_JSON}); give a .safetensors "
                              f"model file or a run directory")
    last = last_checkpoint(p)
    if last is None:
        raise CheckpointError(f"the run in {p} has no checkpoint yet (one is written at the end of each "
                              f"checkpointed epoch)")
    return last


# ----------------------------------------------------------------------------------------- run.json
def check_new_run_dir(path: str | os.PathLike[str]) -> Path:
    """Create (or accept an empty) folder for a new run, refusing one that is not writable or holds a run."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise RunDirError(f"--run-dir {p} is a file; give a folder (it is created if missing)")
    if is_run_dir(p):
        raise RunDirError(f"{p} already holds a run; to continue it use: {resume_hint(p)} "
                          f"(or give a new folder to start another run)")
    if p.is_dir() and any(p.iterdir()):
        raise RunDirError(f"{p} is not empty; give a new or empty folder for the run")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".write-test.", dir=p)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        raise RunDirError(f"cannot write the run directory {p}: {exc.strerror or exc}") from exc
    return p


def write_run_json(run_dir: str | os.PathLike[str], info: dict[str, Any]) -> None:
    """Atomically (re)write ``run.json``."""
    data = json.dumps(finite(info), indent=1, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"
    try:
        _atomic_write(Path(run_dir) / RUN_JSON, data)
    except CheckpointError as exc:
        raise RunDirError(f"cannot write {RUN_JSON} in {run_dir}: {exc}") from exc


def read_run_json(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """``run.json`` of ``run_dir``, checked: our format, a version this code reads, the keys readers need."""
    p = Path(run_dir)
    if not p.is_dir():
        raise RunDirError(f"{p} does not exist or is not a folder" if not p.exists() else f"{p} is not a folder")
    try:
        text = (p / RUN_JSON).read_bytes()
    except FileNotFoundError as exc:
        raise RunDirError(f"{p} is not a run directory (it has no {RUN_JSON})") from exc
    except OSError as exc:
        raise RunDirError(f"cannot read {p / RUN_JSON}: {exc.strerror or exc}") from exc
    try:
        info = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RunDirError(f"{p / RUN_JSON} is damaged (not JSON: {exc})") from exc
    if not isinstance(info, dict) or info.get("format") != RUN_FORMAT:
        raise RunDirError(f"{p / RUN_JSON} is not an Attention Explorer run description")
    version = info.get("format_version")
    if not is_whole(version) or version < 1:
        raise RunDirError(f"{p / RUN_JSON} has an invalid format_version {version!r}")
    if version > RUN_FORMAT_VERSION:
        raise RunDirError(f"{p} was written by a newer Attention Explorer (run format {version}; this version "
                          f"reads up to {RUN_FORMAT_VERSION}): please update to open it")
    for key, kind in (("run_id", str), ("config", dict), ("src_vocab", dict), ("tgt_vocab", dict)):
        if not isinstance(info.get(key), kind):
            raise RunDirError(f"{p / RUN_JSON} is damaged: {key!r} is missing or malformed")
    return info


def data_fingerprint(pairs: Sequence[tuple[str, str]]) -> str:
    """SHA-256 of the sentence pairs (a resumed run checks it trains on the same data)."""
    digest = hashlib.sha256()
    for src, tgt in pairs:
        digest.update(f"{src}\t{tgt}\n".encode("utf-8"))
    return digest.hexdigest()


def describe_data(source: Any, spec: str, num_examples: int | None, seed: int) -> dict[str, Any]:
    """``run.json``'s ``data``: how to load the pairs again (``load_source(spec, num_examples, seed)``; a file
    as an absolute path) and their fingerprint, which a resumed run checks."""
    path = getattr(source, "path", None)
    bundled = str(spec).strip().lower() == BUILTIN_SPEC  # kept by name: the bundled file moves with the install
    return {"spec": str(Path(path).resolve()) if path is not None and not bundled else str(spec), "name": source.name,
            "kind": source.kind, "num_examples": num_examples, "seed": int(seed), "num_pairs": len(source.pairs),
            "skipped": int(source.skipped), "fingerprint": data_fingerprint(source.pairs)}


# ----------------------------------------------------------------------------------------- metrics lines
def finite(value: Any) -> Any:
    """JSON-able copy of ``value`` with non-finite floats as null (JSON has no NaN)."""
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, np.generic):
        return finite(value.item())
    return value


def encode_line(record: dict[str, Any]) -> bytes:
    """One metrics line: compact JSON and a newline. Written once per training step, so the usual record (plain
    finite values) is encoded directly; only one the encoder refuses (NaN, a numpy scalar) is cleaned first."""
    try:
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError):
        text = json.dumps(finite(record), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode() + b"\n"


def parse_line(line: bytes) -> dict[str, Any] | None:
    """A metrics line as a dict; None if it is not a JSON object with a ``type`` (damaged, cut, foreign)."""
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("type"), str) else None


def supersede(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records that stand: a ``resumed`` record at step S drops the records before it with a step after S,
    and a ``finished`` record at S (an interrupted run's last steps, or its end, redone after the resume)."""
    out: list[dict[str, Any]] = []
    for record in records:
        step = record.get("step")
        if record.get("type") == "resumed" and isinstance(step, (int, float)):
            out = [r for r in out if not _superseded(r, step)]
        out.append(record)
    return out


def _superseded(record: dict[str, Any], step: float) -> bool:
    s = record.get("step")
    if record.get("type") == "resumed" or isinstance(s, bool) or not isinstance(s, (int, float)):
        return False
    return s > step or (record.get("type") == "finished" and s >= step)


def read_metrics(run_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every complete, valid metrics record of a run, superseded records dropped (see :func:`supersede`)."""
    try:
        data = (Path(run_dir) / METRICS).read_bytes()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")[:-1]  # the part after the last newline is a line still being written (or cut)
    return supersede(r for r in map(parse_line, lines) if r is not None)


# ----------------------------------------------------------------------------------------- snapshots
def snapshot_path(folder: Path, step: int) -> Path:
    return folder / f"step-{step:09d}.safetensors"


def snapshot_files(folder: Path) -> list[tuple[int, Path]]:
    """``(step, path)`` of the snapshot files in ``folder``, by step; other names are ignored."""
    return _numbered_files(folder, _SNAPSHOT_NAME)


def _numbered_files(folder: Path, pattern: re.Pattern[str]) -> list[tuple[int, Path]]:
    """``(number, path)`` of the files in ``folder`` whose name ``pattern`` matches (its group 1 is the number)."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                match = pattern.match(entry.name)
                if match:
                    found.append((int(match.group(1)), Path(entry.path)))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(found)


def encode_snapshot(event: SnapshotEvent) -> bytes:
    """One snapshot as safetensors bytes: three float32 maps, the step, epoch and token labels in the metadata."""
    from safetensors.numpy import save

    meta = {"format": SNAPSHOT_FORMAT, "format_version": 1, "step": event.step, "epoch": event.epoch,
            "src_tokens": list(event.src_tokens), "tgt_tokens": list(event.tgt_tokens),
            "tgt_input_tokens": list(event.tgt_input_tokens)}
    arrays = {name: np.ascontiguousarray(event.maps[k], dtype=np.float32)
              for k, name in FILE_NAMES.items() if k in event.maps}
    return save(arrays, metadata={"attention_explorer": json.dumps(meta)})


def write_snapshot(folder: Path, event: SnapshotEvent) -> tuple[Path, int]:
    """Atomically write one snapshot (:func:`encode_snapshot`) into ``folder``; returns its path and size."""
    data = encode_snapshot(event)
    path = snapshot_path(folder, event.step)
    try:
        # History, cheap to lose on a power cut: no fsync per snapshot. A step's file is written once per run and a
        # resumed run deletes every leftover temp file first (RunWriter.resume), so no sweep for stale temps per
        # write: it lists the folder, which holds up to 512 snapshots (a write took 0.72 ms there, 0.19 ms
        # without: bench/snapshot_write.py).
        _atomic_write(path, data, durable=False, sweep=False)
    except CheckpointError as exc:
        raise RunDirError(f"cannot write a snapshot in {folder}: {exc}") from exc
    return path, len(data)


def read_snapshot(path: Path) -> SnapshotEvent:
    """A snapshot file as a :class:`SnapshotEvent`; raises RunDirError (missing, damaged, foreign)."""
    from safetensors.numpy import load

    try:
        if path.stat().st_size > _MAX_SNAPSHOT_BYTES:
            raise RunDirError(f"{path.name} is too large to be a snapshot")
        data = path.read_bytes()
    except OSError as exc:
        raise RunDirError(f"cannot read {path.name}: {exc.strerror or exc}") from exc
    try:
        (header_len,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8:8 + header_len].decode("utf-8"))
        meta = json.loads(header["__metadata__"]["attention_explorer"])
        arrays = load(data)
    except Exception as exc:  # noqa: BLE001 - any malformed byte layout (safetensors raises its own error type)
        raise RunDirError(f"{path.name} is damaged or not a snapshot ({type(exc).__name__})") from exc
    if not isinstance(meta, dict) or meta.get("format") != SNAPSHOT_FORMAT:
        raise RunDirError(f"{path.name} is not an Attention Explorer snapshot")
    try:
        maps = {k: np.asarray(arrays[name], dtype=np.float32) for k, name in FILE_NAMES.items()}
        src, tgt, tgt_in = (list(map(str, meta[k])) for k in ("src_tokens", "tgt_tokens", "tgt_input_tokens"))
        layers_heads = {a.shape[:2] for a in maps.values()}
        ok = all(a.ndim == 4 for a in maps.values()) and len(layers_heads) == 1 and \
            maps["encoder"].shape[2:] == (len(src), len(src)) and \
            maps["decoder"].shape[2:] == (len(tgt), len(tgt)) and maps["cross"].shape[2:] == (len(tgt), len(src))
        event = SnapshotEvent(step=int(meta["step"]), epoch=int(meta["epoch"]), maps=maps, src_tokens=src,
                              tgt_tokens=tgt, tgt_input_tokens=tgt_in)
    except (KeyError, TypeError, ValueError) as exc:
        raise RunDirError(f"{path.name} is a damaged snapshot ({exc})") from exc
    if not ok or len(tgt_in) != len(tgt):
        raise RunDirError(f"{path.name} is a damaged snapshot (its maps do not match its tokens)")
    return event
