"""Hostile model files through ``checkpoint.load_model`` and the CLI's translate/inspect: truncated,
empty, foreign, pickled (a payload that would create a marker file must never run), future versions and
metadata that does not fit its tensors. Each is a ``CheckpointError`` / exit 2 with one ``error:`` line."""
from __future__ import annotations

import json
import os
import pickle
from pathlib import Path
from typing import Any, Callable

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.cli.main import main as cli_main
from explorer.core.training import checkpoint as ck
from explorer.core.training.checkpoint_read import CheckpointError
from explorer.core.training.checkpoint import load_model


class _CreatesMarker:
    """Unpickling this creates a file: a stand-in for arbitrary code run by a hostile model file."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (Path(self.marker),))


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli_main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_refused_everywhere(path: Path, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(CheckpointError, match=message):
        load_model(path)
    for argv in (["inspect", "--model", str(path)], ["translate", "--model", str(path), "go ."]):
        code, out, err = _cli(argv, capsys)
        lines = err.strip().splitlines()
        assert code == 2, (argv, out, err)
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert "Traceback" not in out + err


def _rewrite(good: Path, dest: Path, edit_meta: Callable[[dict[str, Any]], None] | None = None,
             edit_tensors: Callable[[dict[str, torch.Tensor]], None] | None = None) -> Path:
    """A copy of ``good`` with its metadata and/or tensors edited (written as our own format)."""
    tensors, meta = ck.load_checkpoint(good)
    meta = json.loads(json.dumps(meta))
    if edit_meta is not None:
        edit_meta(meta)
    if edit_tensors is not None:
        edit_tensors(tensors)
    version = meta.pop("format_version")
    meta.pop("format")
    from safetensors.torch import save

    full = {**meta, "format": ck.FORMAT_NAME, "format_version": version}
    dest.write_bytes(save(tensors, metadata={"format": "pt", ck.META_KEY: json.dumps(full)}))
    return dest


@pytest.mark.parametrize("keep", ["nothing", "5 bytes", "9 bytes", "half", "all but 1"])
def test_truncated_and_empty(tiny_model_file: Path, tmp_path: Path, keep: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    data = tiny_model_file.read_bytes()
    size = {"nothing": 0, "5 bytes": 5, "9 bytes": 9, "half": len(data) // 2, "all but 1": len(data) - 1}[keep]
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(data[:size])
    _assert_refused_everywhere(cut, "empty|truncated|too short|damaged|not a safetensors", capsys)


def test_another_programs_safetensors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from safetensors.torch import save_file

    path = tmp_path / "other.safetensors"
    save_file({"embeddings.weight": torch.zeros(4, 4)}, str(path), metadata={"format": "pt"})
    _assert_refused_everywhere(path, "not an Attention Explorer model", capsys)


def test_torch_pt_file_with_a_payload_never_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "model.safetensors"
    torch.save({"state": _CreatesMarker(str(marker))}, path)  # the zip-based torch format
    _assert_refused_everywhere(path, "PyTorch/zip file.*could run code", capsys)
    assert not marker.exists()


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_raw_pickle_payload_never_runs(tmp_path: Path, protocol: int, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    payload = pickle.dumps({"weights": _CreatesMarker(str(marker))}, protocol=protocol)
    path = tmp_path / "model.safetensors"
    path.write_bytes(payload)
    _assert_refused_everywhere(path, "pickle.*could run code", capsys)
    assert not marker.exists()
    pickle.loads(payload)  # noqa: S301 - our own bytes: proves the payload was live all along
    assert marker.exists()


def test_future_format_version(tiny_model_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def future(meta: dict[str, Any]) -> None:
        meta["format_version"] = ck.FORMAT_VERSION + 1

    path = _rewrite(tiny_model_file, tmp_path / "future.safetensors", future)
    _assert_refused_everywhere(path, "newer version of Attention Explorer.*please update", capsys)


def _bigger_src_vocab(meta: dict[str, Any]) -> None:
    meta["src_vocab"]["idx_to_token"].append("zebra")


def _other_width(meta: dict[str, Any]) -> None:
    meta["model_config"]["num_hiddens"] = 16


def _drop_a_tensor(tensors: dict[str, torch.Tensor]) -> None:
    tensors.pop(sorted(tensors)[0])


def _nan_weight(tensors: dict[str, torch.Tensor]) -> None:
    name = next(k for k, t in tensors.items() if t.is_floating_point())
    tensors[name] = tensors[name].clone()
    tensors[name].view(-1)[0] = float("nan")


@pytest.mark.parametrize("edit_meta, edit_tensors, message", [
    (_bigger_src_vocab, None, "does not match its own configuration"),
    (_other_width, None, "does not match its own configuration"),
    (None, _drop_a_tensor, "missing 1 tensor"),
    (lambda m: m["model_config"].update(num_heads=3), None, "divisible by num_heads"),
    (lambda m: m["model_config"].update(dropout="lots"), None, "dropout"),
    (lambda m: m.pop("tgt_vocab"), None, "'tgt_vocab' is missing"),
    (lambda m: m["src_vocab"].update(idx_to_token=["a", "b"]), None, "index 0 must be <unk>"),
    (lambda m: m["train_config"].update(lr=-1), None, "lr must be"),
    (lambda m: m["model_config"].update(secret=1), None, "unknown model setting"),
    (None, _nan_weight, "non-finite weights"),
], ids=["vocab", "width", "tensor", "heads", "dropout", "no_vocab", "bad_vocab", "lr", "unknown", "nan"])
def test_metadata_that_does_not_fit(tiny_model_file: Path, tmp_path: Path, edit_meta: Any, edit_tensors: Any,
                                    message: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = _rewrite(tiny_model_file, tmp_path / "odd.safetensors", edit_meta, edit_tensors)
    _assert_refused_everywhere(path, message, capsys)


def test_vocab_without_reserved_tokens(tiny_model_file: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Found here: such a vocabulary was accepted and translate raised KeyError (fixed in checkpoint.py)."""
    def no_bos(meta: dict[str, Any]) -> None:
        vocab = meta["tgt_vocab"]
        vocab["idx_to_token"] = ["<unk>" if t == "<unk>" else ("bos" if t == "<bos>" else t)
                                 for t in vocab["idx_to_token"]]
        vocab["reserved_tokens"] = ["<pad>", "<eos>"]

    path = _rewrite(tiny_model_file, tmp_path / "nobos.safetensors", no_bos)
    code, out, err = _cli(["translate", "--model", str(path), "go ."], capsys)
    assert code == 2 and "<bos>" in err
    _assert_refused_everywhere(path, "<bos>", capsys)


@pytest.mark.parametrize("huge", [{"num_hiddens": 2_000_000, "num_heads": 1}, {"max_len": 10**9},
                                  {"ffn_num_hiddens": 10**9}])
def test_huge_config_with_small_tensors(tiny_model_file: Path, tmp_path: Path, huge: dict[str, int],
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Found here: the model was built from the metadata before the tensors were checked, so a huge config
    allocated gigabytes (fixed in checkpoint.py: shapes are checked on the meta device first)."""
    from explorer.core.model import transformer
    real = transformer.Seq2SeqTransformer

    class Guarded(real):  # type: ignore[misc, valid-type]
        """Fails like the allocator would, instead of really asking for gigabytes."""

        def __init__(self, config: Any, *args: Any) -> None:
            meta = torch.get_default_device().type == "meta"
            if not meta and max(config.num_hiddens, config.ffn_num_hiddens, config.max_len) > 10**5:
                raise RuntimeError("DefaultCPUAllocator: can't allocate memory (simulated)")
            super().__init__(config, *args)

    monkeypatch.setattr(transformer, "Seq2SeqTransformer", Guarded)
    path = _rewrite(tiny_model_file, tmp_path / "huge.safetensors", lambda m: m["model_config"].update(huge))
    _assert_refused_everywhere(path, "does not match|too large|memory", capsys)


def test_unreadable_folder_and_missing(tmp_path: Path, tiny_model_file: Path, deny_read,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    _assert_refused_everywhere(tmp_path, "folder", capsys)
    _assert_refused_everywhere(tmp_path / "absent.safetensors", "no such file", capsys)
    locked = tmp_path / "locked.safetensors"
    locked.write_bytes(tiny_model_file.read_bytes())
    deny_read(locked)
    _assert_refused_everywhere(locked, "cannot read .*Permission denied", capsys)



@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_non_regular_file_is_refused_at_once(tmp_path: Path) -> None:
    """Found here: a FIFO blocked load_model forever and /dev/zero was read until memory ran out."""
    import threading

    fifo = tmp_path / "model.safetensors"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def load() -> None:
        try:
            load_model(fifo)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion below
            outcome.append(exc)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(2.0)
    blocked = thread.is_alive()
    if blocked:  # unblock the reader: open the write end and close it (the loader then sees 0 bytes)
        with open(fifo, "wb"):
            pass
        thread.join(5.0)
    assert not blocked, "load_model blocked on a FIFO"
    assert isinstance(outcome[0], CheckpointError) and "regular file" in str(outcome[0])


@settings(max_examples=int(os.environ.get("CHECKPOINT_FUZZ_CASES", "120")), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.sampled_from(["flip", "cut", "insert", "header"]), st.floats(0, 1),
                                st.integers(0, 255)), min_size=1, max_size=3))
def test_damaged_model_bytes_raise_only_checkpoint_error(tiny_model_file: Path, edits: list[Any]) -> None:
    """Byte-level fuzzing of a real model file: a damaged file is refused or (if only weights changed) loads."""
    import tempfile

    data = bytearray(tiny_model_file.read_bytes())
    header_end = 8 + int.from_bytes(data[:8], "little")
    for action, where, byte in edits:
        if not data:
            break
        span = header_end if action == "header" else len(data)
        at = min(int(where * span), len(data) - 1)
        if action in ("flip", "header"):
            data[at] = byte
        elif action == "cut":
            del data[at:]
        else:
            data[at:at] = bytes([byte])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "damaged.safetensors"
        path.write_bytes(bytes(data))
        try:
            loaded = load_model(path)
        except CheckpointError as exc:
            assert str(exc) and path.name in str(exc) or "damaged" in str(exc)
            return
    assert all(torch.isfinite(t).all() for t in loaded.model.state_dict().values() if t.is_floating_point())
