"""Checkpoints: round trips, atomic writes, and refusal of unsafe or damaged files (no code runs)."""
from __future__ import annotations

import json
import os
import pickle
import struct
import time
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.core.training import checkpoint as ck
from explorer.core.training.checkpoint_read import CheckpointError, load_checkpoint
from explorer.core.training.checkpoint import save_checkpoint


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

    monkeypatch.setattr("explorer.core.atomic_file.create_temp", denied)
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


def test_next_save_removes_stale_temps_but_not_recent_ones(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    stale, recent = tmp_path / f".{path.name}.old111.tmp", tmp_path / f".{path.name}.new222.tmp"
    stale_now = tmp_path / f".{path.name}.old444.tmp{path.suffix}"  # explorer.core.atomic_file's names
    other = tmp_path / ".other.safetensors.old333.tmp"
    for leftover in (stale, stale_now, recent, other):
        leftover.write_bytes(b"partial")
    old = time.time() - ck.STALE_TEMP_S - 60
    for leftover in (stale, stale_now, other):
        os.utime(leftover, (old, old))
    save_checkpoint(path, _tensors(), {"hello": [2]})
    assert not stale.exists() and not stale_now.exists() and recent.exists() and other.exists()
    assert load_checkpoint(path)[1]["hello"] == [2]


def test_unstorable_meta_is_a_checkpoint_error(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="cannot store"):
        save_checkpoint(tmp_path / "x.safetensors", _tensors(), {"bad": object()})
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------------------- whole models
def _model_bits():  # type: ignore[no-untyped-def]
    from explorer.core.data.text import Vocab
    from explorer.core.training.config import TrainingConfig, TrainingHistory
    from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

    src_vocab = Vocab("go . i lost . he's calm . i'm home .".split())
    tgt_vocab = Vocab("va ! j'ai perdu . il est calme . je suis chez moi .".split())
    mcfg = TransformerConfig(num_hiddens=16, num_layers=1, num_heads=2, ffn_num_hiddens=24, dropout=0.0)
    tcfg = TrainingConfig(model=mcfg, batch_size=8, num_steps=6, lr=0.01, num_epochs=3, seed=5)
    torch.manual_seed(0)
    model = Seq2SeqTransformer(mcfg, len(src_vocab), len(tgt_vocab))
    history = TrainingHistory(step_loss=[3.0, 2.5, 2.0], epoch_loss=[2.75, 2.0], epoch_tokens_per_s=[1e3, 2e3])
    return model, tcfg, src_vocab, tgt_vocab, history


def _logits(model: torch.nn.Module) -> torch.Tensor:
    src = torch.tensor([[3, 4, 2, 0, 0, 0], [5, 6, 7, 2, 0, 0]])
    dec = torch.tensor([[1, 3, 4, 0, 0, 0], [1, 5, 6, 7, 0, 0]])
    with torch.no_grad():
        logits, _ = model(src, torch.tensor([3, 4]), dec)
    return logits


def test_model_round_trip(tmp_path: Path) -> None:
    from explorer.core.training.checkpoint import load_model, save_model

    model, tcfg, sv, tv, hist = _model_bits()
    model.eval()
    path = save_model(tmp_path / "book.safetensors", model, tcfg, sv, tv, hist, "built-in English–French")
    loaded = load_model(path)
    assert not loaded.model.training
    assert torch.equal(_logits(loaded.model), _logits(model))
    assert loaded.model_config == model.config and loaded.train_config == tcfg
    assert loaded.train_config is not None and loaded.train_config.model is loaded.model_config
    assert loaded.src_vocab.idx_to_token == sv.idx_to_token and loaded.tgt_vocab.idx_to_token == tv.idx_to_token
    assert loaded.history == hist
    assert loaded.meta["source_name"] == "built-in English–French"
    assert loaded.meta["app_version"] and loaded.meta["created"]
    meta, shapes = ck.read_meta(path)
    assert meta["model_config"]["num_hiddens"] == 16
    assert {k: tuple(v) for k, v in shapes.items()} == {k: tuple(v.shape) for k, v in model.state_dict().items()}


def _tamper(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    from explorer.core.training.checkpoint import save_model

    model, tcfg, sv, tv, hist = _model_bits()
    src = save_model(tmp_path / "ok.safetensors", model, tcfg, sv, tv, hist, "x")
    dst = tmp_path / "tampered.safetensors"
    _rewrite_meta(src, dst, change)
    return dst


def _load_refused(path: Path, *words: str) -> None:
    from explorer.core.training.checkpoint import load_model

    with pytest.raises(CheckpointError) as info:
        load_model(path)
    for w in words:
        assert w in str(info.value).lower(), str(info.value)


def test_vocab_size_mismatch_is_refused(tmp_path: Path) -> None:
    def drop_token(meta):  # type: ignore[no-untyped-def]
        meta["tgt_vocab"]["idx_to_token"].pop()

    _load_refused(_tamper(tmp_path, drop_token), "does not match", "shape")


def test_config_shape_mismatch_is_refused(tmp_path: Path) -> None:
    _load_refused(_tamper(tmp_path, lambda m: m["model_config"].update(num_hiddens=32, num_heads=4)),
                  "does not match")
    _load_refused(_tamper(tmp_path, lambda m: m["model_config"].update(num_layers=2)), "missing")


def test_invalid_metadata_is_refused(tmp_path: Path) -> None:
    _load_refused(_tamper(tmp_path, lambda m: m["model_config"].update(num_heads=3)), "num_heads")
    _load_refused(_tamper(tmp_path, lambda m: m.pop("src_vocab")), "src_vocab")
    _load_refused(_tamper(tmp_path, lambda m: m.update(tgt_vocab={"idx_to_token": "nope"})), "vocabulary")


def test_model_without_train_config(tmp_path: Path) -> None:
    from explorer.core.training.checkpoint import load_model, save_model

    model, _, sv, tv, _ = _model_bits()
    loaded = load_model(save_model(tmp_path / "m.safetensors", model, None, sv, tv))
    assert loaded.train_config is None and loaded.history is None


def test_unavailable_device_is_a_checkpoint_error(tmp_path: Path) -> None:
    from explorer.core.training.checkpoint import load_model, save_model

    model, tcfg, sv, tv, hist = _model_bits()
    path = save_model(tmp_path / "m.safetensors", model, tcfg, sv, tv, hist)
    with pytest.raises(CheckpointError, match="device"):
        load_model(path, device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(CheckpointError, match="CUDA"):
            load_model(path, device="cuda")


_GOOD: dict[str, bytes] = {}


def _good_model_bytes() -> bytes:
    if "m" not in _GOOD:
        import tempfile

        from explorer.core.training.checkpoint import save_model

        model, tcfg, sv, tv, hist = _model_bits()
        with tempfile.TemporaryDirectory() as d:
            _GOOD["m"] = save_model(Path(d) / "m.safetensors", model, tcfg, sv, tv, hist, "x").read_bytes()
    return _GOOD["m"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_files_load_or_raise_checkpoint_error(tmp_path: Path, data: st.DataObject) -> None:
    """Any byte damage (flips, cuts, insertions) either still loads or is a CheckpointError, never a crash."""
    from explorer.core.training.checkpoint import load_model

    raw = bytearray(_good_model_bytes())
    (n,) = struct.unpack("<Q", raw[:8])
    for _ in range(data.draw(st.integers(1, 4))):
        where = data.draw(st.sampled_from(["header", "anywhere", "length"]))
        hi = {"header": 8 + n, "anywhere": len(raw), "length": 8}[where]
        pos = data.draw(st.integers(0, hi - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip":
            raw[pos] ^= data.draw(st.integers(1, 255))
        elif action == "cut":
            del raw[pos:pos + data.draw(st.integers(1, 64))]
        else:
            raw[pos:pos] = data.draw(st.binary(min_size=1, max_size=16))
    path = tmp_path / "damaged.safetensors"
    path.write_bytes(bytes(raw))
    try:
        loaded = load_model(path)
    except CheckpointError as exc:
        assert str(exc)
    else:
        assert len(loaded.src_vocab) > 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder_keeps_old_file(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    before = path.read_bytes()
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(CheckpointError, match="cannot write"):
            save_checkpoint(path, {"other": torch.ones(3)}, {})
        assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [path.name]
    finally:
        tmp_path.chmod(0o755)


def test_vocab_without_reserved_token_is_refused(tmp_path: Path) -> None:
    def rename_bos(meta):  # type: ignore[no-untyped-def]
        vocab = meta["tgt_vocab"]
        vocab["idx_to_token"] = ["bos" if t == "<bos>" else t for t in vocab["idx_to_token"]]
        vocab["reserved_tokens"] = ["<pad>", "<eos>"]

    _load_refused(_tamper(tmp_path, rename_bos), "target vocabulary lacks <bos>")


def test_huge_config_is_refused_without_allocating(tmp_path: Path) -> None:
    """Built for real, max_len 3e6 would need a 3e6 x 16 table (192 MB); the check runs on the meta device."""
    _load_refused(_tamper(tmp_path, lambda m: m["model_config"].update(max_len=3_000_000)), "too large")
    _load_refused(_tamper(tmp_path, lambda m: m["model_config"].update(num_layers=10**6)), "layers")


def test_check_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert ck.check_writable(tmp_path / "new.safetensors") == tmp_path / "new.safetensors"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(CheckpointError, match="folder"):
        ck.check_writable(tmp_path)
    monkeypatch.setattr("explorer.core.atomic_file.create_temp",
                        lambda *a, **k: (_ for _ in ()).throw(OSError(30, "Read-only")))
    with pytest.raises(CheckpointError, match="Read-only"):
        ck.check_writable(tmp_path / "new.safetensors")
