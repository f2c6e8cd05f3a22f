"""Reading a safe model checkpoint (book §11.7 models) without ever unpickling: the safetensors header (JSON) is
parsed and checked, torch/zip and pickle files are named and refused, then the raw tensor bytes are read.
"""
from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any, Mapping

import torch

from explorer.core.checks import is_whole

FORMAT_NAME = "attention-explorer-model"
FORMAT_VERSION = 1
META_KEY = "attention_explorer"  # the safetensors metadata entry (str -> str) holding our JSON
SUFFIX = ".safetensors"
_MAX_HEADER = 100 * 1024 * 1024  # safetensors' own limit on the JSON header


class CheckpointError(ValueError):
    """A checkpoint could not be saved or loaded; the message is fit to show to a user."""


def _refuse_foreign_bytes(name: str, head: bytes) -> None:
    """Name the common unsafe formats (torch zip, raw pickle) without ever unpickling them."""
    if head.startswith(b"PK\x03\x04"):
        raise CheckpointError(f"{name} is a PyTorch/zip file (.pt), not an Attention Explorer model; "
                              "it is refused because loading it could run code")
    if len(head) >= 2 and head[0] == 0x80 and 1 <= head[1] <= 5:
        raise CheckpointError(f"{name} is a Python pickle, not an Attention Explorer model; "
                              "it is refused because loading it could run code")


def _read_header(name: str, data: bytes) -> dict[str, Any]:
    """Parse and sanity-check the safetensors header of ``data``; raise CheckpointError otherwise."""
    if len(data) == 0:
        raise CheckpointError(f"{name} is empty (0 bytes)")
    _refuse_foreign_bytes(name, data[:8])
    if len(data) < 8:
        raise CheckpointError(f"{name} is too short to be a model file (truncated?)")
    (header_len,) = struct.unpack("<Q", data[:8])
    if header_len > _MAX_HEADER or header_len < 2:
        raise CheckpointError(f"{name} is not a safetensors file")
    if 8 + header_len > len(data):
        raise CheckpointError(f"{name} is truncated (its header runs past the end of the file)")
    try:
        header = json.loads(data[8:8 + header_len].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"{name} is not a safetensors file") from exc
    if not isinstance(header, dict):
        raise CheckpointError(f"{name} is not a safetensors file")
    body = len(data) - 8 - header_len
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
        shape = entry.get("shape") if isinstance(entry, dict) else None
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(o, int) for o in offsets)
                and isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)):
            raise CheckpointError(f"{name} has a damaged header (tensor {key!r})")
        if offsets[1] > body:
            raise CheckpointError(f"{name} is truncated: tensor {key!r} runs past the end of the file")
    return header


def _parse_meta(name: str, header: Mapping[str, Any]) -> dict[str, Any]:
    raw = header.get("__metadata__") or {}
    text = raw.get(META_KEY) if isinstance(raw, dict) else None
    if not isinstance(text, str):
        raise CheckpointError(f"{name} is a safetensors file but not an Attention Explorer model")
    try:
        meta = json.loads(text)
    except ValueError as exc:
        raise CheckpointError(f"{name} has damaged metadata: {exc}") from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise CheckpointError(f"{name} is a safetensors file but not an Attention Explorer model")
    version = meta.get("format_version")
    if not is_whole(version) or version < 1:
        raise CheckpointError(f"{name} has an invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise CheckpointError(f"{name} was made by a newer version of Attention Explorer (format "
                              f"{version}; this version reads up to {FORMAT_VERSION}); please update")
    return meta


def _read_file(path: str | os.PathLike[str]) -> tuple[str, bytes]:
    p = Path(path)
    name = p.name or str(p)
    if p.is_dir():
        raise CheckpointError(f"{p} is a folder, not a model file")
    try:
        irregular = p.exists() and not p.is_file()
    except OSError as exc:
        raise CheckpointError(f"cannot read {p}: {exc.strerror or exc}") from exc
    if irregular:  # a FIFO would block forever, a device such as /dev/zero would never end
        raise CheckpointError(f"{p} is not a regular file; choose a {SUFFIX} model file")
    try:
        return name, p.read_bytes()
    except FileNotFoundError as exc:
        raise CheckpointError(f"no such file: {p}") from exc
    except OSError as exc:
        raise CheckpointError(f"cannot read {p}: {exc.strerror or exc}") from exc


def read_meta(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, list[int]]]:
    """``(meta, shapes)`` of a checkpoint without building its tensors; ``shapes[name] = [d0, d1, ...]``."""
    name, data = _read_file(path)
    header = _read_header(name, data)
    meta = _parse_meta(name, header)
    shapes = {k: list(v.get("shape", [])) for k, v in header.items() if k != "__metadata__"}
    return meta, shapes


def load_checkpoint(path: str | os.PathLike[str]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Read ``(tensors on CPU, meta)`` from a file written by :func:`save_checkpoint`."""
    name, data = _read_file(path)
    header = _read_header(name, data)
    meta = _parse_meta(name, header)
    from safetensors.torch import load

    try:
        tensors = load(data)
    except Exception as exc:  # safetensors raises its own SafetensorsError for any malformed byte layout
        raise CheckpointError(f"{name} is damaged: {exc}") from exc
    return tensors, meta
