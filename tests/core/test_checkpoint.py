"""Checkpoints: round trips, atomic writes, and refusal of unsafe or damaged files (no code runs)."""
from __future__ import annotations

import json
import os
import pickle
import struct
from pathlib import Path

import pytest
import torch

from explorer.core import checkpoint as ck
from explorer.core.checkpoint import CheckpointError, load_checkpoint, save_checkpoint


class _MakesDir:
    """Unpickling this creates a directory: a stand-in for arbitrary code execution."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.mkdir, (self.marker,))


def _tensors() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return {"a.weight": torch.randn(3, 4, generator=g), "b.bias": torch.arange(5, dtype=torch.float32),
            "ids": torch.tensor([1, 2, 3], dtype=torch.int64)}


def _saved(tmp_path: Path, name: str = "m.safetensors") -> Path:
    return save_checkpoint(tmp_path / name, _tensors(), {"hello": [1, 2.5, "x"], "nested": {"k": None}})


def test_round_trip_generic(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    tensors, meta = load_checkpoint(path)
    ref = _tensors()
    assert set(tensors) == set(ref)
    for k in ref:
        assert tensors[k].dtype == ref[k].dtype
        assert torch.equal(tensors[k], ref[k])
    assert meta["hello"] == [1, 2.5, "x"] and meta["nested"] == {"k": None}
    assert meta["format"] == ck.FORMAT_NAME and meta["format_version"] == ck.FORMAT_VERSION
    # independent check: the file is plain safetensors readable by the library itself
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        assert json.loads(f.metadata()[ck.META_KEY])["hello"][1] == 2.5
        assert torch.equal(f.get_tensor("b.bias"), ref["b.bias"])


def test_shared_storage_is_saved(tmp_path: Path) -> None:
    w = torch.randn(4, 4)
    save_checkpoint(tmp_path / "tied.safetensors", {"x": w, "y": w}, {})
    tensors, _ = load_checkpoint(tmp_path / "tied.safetensors")
    assert torch.equal(tensors["x"], tensors["y"])


def _refused(path: Path, *words: str) -> str:
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    msg = str(info.value)
    for w in words:
        assert w in msg.lower(), msg
    return msg


def test_missing_file_directory_and_empty(tmp_path: Path) -> None:
    _refused(tmp_path / "nope.safetensors", "no such file")
    _refused(tmp_path, "folder")
    (tmp_path / "empty.safetensors").write_bytes(b"")
    _refused(tmp_path / "empty.safetensors", "empty")


@pytest.mark.parametrize("cut", [3, 8, 20, -1, -7])
def test_truncated_file_is_refused(tmp_path: Path, cut: int) -> None:
    data = _saved(tmp_path).read_bytes()
    bad = tmp_path / "cut.safetensors"
    bad.write_bytes(data[:cut])
    _refused(bad)


def test_garbage_and_foreign_safetensors(tmp_path: Path) -> None:
    (tmp_path / "junk.bin").write_bytes(b"this is just some text, not a model at all")
    _refused(tmp_path / "junk.bin", "not a safetensors")
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(2)}, str(tmp_path / "foreign.safetensors"), metadata={"format": "pt"})
    _refused(tmp_path / "foreign.safetensors", "not an attention explorer model")


def _rewrite_meta(src: Path, dst: Path, change) -> None:  # type: ignore[no-untyped-def]
    data = src.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = json.loads(header["__metadata__"][ck.META_KEY])
    change(meta)
    header["__metadata__"][ck.META_KEY] = json.dumps(meta)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    dst.write_bytes(struct.pack("<Q", len(raw)) + raw + data[8 + n:])


def test_future_format_version_is_refused(tmp_path: Path) -> None:
    src = _saved(tmp_path)
    _rewrite_meta(src, tmp_path / "same.safetensors", lambda m: None)
    load_checkpoint(tmp_path / "same.safetensors")  # the rewrite itself is sound
    _rewrite_meta(src, tmp_path / "future.safetensors", lambda m: m.update(format_version=ck.FORMAT_VERSION + 1))
    _refused(tmp_path / "future.safetensors", "newer version")
    _rewrite_meta(src, tmp_path / "other.safetensors", lambda m: m.update(format="something-else"))
    _refused(tmp_path / "other.safetensors", "not an attention explorer model")


def _payload(marker: Path) -> bytes:
    return pickle.dumps({"state": _MakesDir(str(marker))}, protocol=4)


def test_payload_really_executes_when_unpickled(tmp_path: Path) -> None:
    """Guards the two tests below: the payload is live, so 'no marker' means the loader never unpickled."""
    marker = tmp_path / "proof"
    pickle.loads(_payload(marker))  # noqa: S301 - deliberate, on our own bytes
    assert marker.is_dir()


def test_raw_pickle_is_refused_without_unpickling(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = tmp_path / "model.safetensors"
    evil.write_bytes(_payload(marker))
    _refused(evil, "pickle", "could run code")
    assert not marker.exists()


def test_torch_pt_zip_is_refused_without_unpickling(tmp_path: Path) -> None:
    marker = tmp_path / "pwned_zip"
    evil = tmp_path / "model.pt"
    torch.save({"state": _MakesDir(str(marker))}, evil)
    assert not marker.exists()
    _refused(evil, "pytorch", "could run code")
    assert not marker.exists()
    with pytest.raises(CheckpointError):
        ck.read_meta(evil)
    assert not marker.exists()


def test_failed_write_keeps_old_file_and_leaves_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path)
    before = path.read_bytes()

    def disk_full(handle, data):  # type: ignore[no-untyped-def]
        handle.write(data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ck, "_write_all", disk_full)
    with pytest.raises(CheckpointError, match="No space left"):
        save_checkpoint(path, {"other": torch.ones(100)}, {"new": True})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    tensors, meta = load_checkpoint(path)
    assert "hello" in meta and set(tensors) == set(_tensors())


def test_unwritable_folder_is_a_checkpoint_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(ck.tempfile, "mkstemp", denied)
    with pytest.raises(CheckpointError, match="Permission denied"):
        save_checkpoint(tmp_path / "x.safetensors", _tensors(), {})
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(CheckpointError, match="folder"):
        save_checkpoint(tmp_path, _tensors(), {})
    with pytest.raises(CheckpointError, match="cannot write"):
        save_checkpoint(tmp_path / "no" / "such" / "dir.safetensors", _tensors(), {})


def test_kill_mid_write_leaves_old_file_loadable(tmp_path: Path) -> None:
    """A crash after the temp file is partly written but before the rename: the old file is untouched."""
    path = _saved(tmp_path)
    new = ck._st_save({"z": torch.ones(1000)}, {ck.META_KEY: "{}"})
    (tmp_path / f".{path.name}.abc123.tmp").write_bytes(new[: len(new) // 3])
    tensors, meta = load_checkpoint(path)
    assert set(tensors) == set(_tensors()) and meta["hello"][0] == 1


def test_unstorable_meta_is_a_checkpoint_error(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="cannot store"):
        save_checkpoint(tmp_path / "x.safetensors", _tensors(), {"bad": object()})
    assert list(tmp_path.iterdir()) == []
