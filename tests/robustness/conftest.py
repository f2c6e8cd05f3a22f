"""Shared fixtures of the robustness suite: hostile corpus files, a tiny saved model, a
permission-denied simulation that also works as root, and a GUI stall meter (a 16 ms QTimer)."""
from __future__ import annotations

import builtins
import io
import os
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the suite's helpers, importable from its test modules
from robust_helpers import StallMeter, record_stat, tiny_config, tiny_dataset  # noqa: E402

# ----------------------------------------------------------------------------------- hostile corpora
#: name -> (file bytes, a regex the DatasetError message must match). Zips are built in ``hostile_files``.
HOSTILE_BYTES: dict[str, tuple[bytes, str]] = {
    "empty.txt": (b"", "empty"),
    "blank_lines.txt": (b"\n\r\n \t \n", "empty"),
    "binary.txt": (bytes(range(256)) * 16, "not valid UTF-8|NUL"),
    "latin1.txt": ("go .\tva !\ncafé\tcafé\n".encode("latin-1"), r"line 2 .*UTF-8"),
    "utf16_bom.txt": ("go .\tva !\n".encode("utf-16"), "UTF-16"),
    "utf16_no_bom.txt": ("go .\tva !\n".encode("utf-16-le"), "NUL"),
    "one_column.txt": (b"go .\ni lost .\nhe's calm .\n", "no sentence pairs.*3 lines skipped"),
    "long_line.txt": (b"go " * 400_000 + b"\tva !\n", "line 1 is longer than 1024 KB"),
    "png_renamed.txt": (b"\x89PNG\r\n\x1a\n" + bytes(64), "not valid UTF-8|NUL"),
}


def _zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


@pytest.fixture(scope="session")
def hostile_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Every hostile corpus the issue lists, written once per session: name -> (path, message regex).

    The zip bomb is real but small: its member unpacks to 600 MB of zeros (the header says so, and the
    reader must refuse it from the header without unpacking).
    """
    d = tmp_path_factory.mktemp("hostile")
    out: dict[str, tuple[Path, str]] = {}
    for name, (data, message) in HOSTILE_BYTES.items():
        p = d / name
        p.write_bytes(data)
        out[name] = (p, message)
    out["no_text.zip"] = (_zip(d / "no_text.zip", {"photo.jpg": b"\xff\xd8\xff" + bytes(100),
                                                   "readme.md": b"# hi"}), "holds no .txt or .tsv")
    out["empty.zip"] = (_zip(d / "empty.zip", {}), "holds no .txt or .tsv")
    out["not_a_zip.zip"] = (_write(d / "not_a_zip.zip", b"PK\x03\x04" + bytes(40)), "not a readable zip")
    bomb = d / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf, zf.open("fra.txt", "w") as fh:
        block = bytes(1 << 24)
        for _ in range(600 // 16 + 1):
            fh.write(block)
    out["bomb.zip"] = (bomb, "would unpack to .* MB; the limit is 512 MB")
    folder = d / "folder.txt"
    folder.mkdir()
    out["folder.txt"] = (folder, "is a folder")
    out["missing.txt"] = (d / "missing.txt", "no such file")
    out["ten_columns.txt"] = (_write(d / "ten_columns.txt", b"\t".join([b"go ."] * 10) + b"\n"), "")
    return out


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.fixture
def deny_read(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``deny_read(path)`` makes ``path`` unreadable: chmod 0, and as root (who ignores permissions) an
    ``open``/``io.open`` (``Path.read_bytes`` uses the latter) that raises ``PermissionError`` for it."""
    changed: list[Path] = []
    denied: set[str] = set()
    real_open = builtins.open

    def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)) and os.path.abspath(os.fspath(file)) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real_open(file, *args, **kwargs)

    def deny(path: Path) -> Path:
        path.chmod(0)
        changed.append(path)
        if os.geteuid() == 0:
            denied.add(os.path.abspath(path))
            monkeypatch.setattr(builtins, "open", fake_open)
            monkeypatch.setattr(io, "open", fake_open)
        return path

    yield deny
    for p in changed:
        p.chmod(0o600)


@pytest.fixture(scope="session")
def tiny_model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real checkpoint of a 1-layer model trained for 2 epochs on 18 pairs (well under a second)."""
    from explorer.core.training.checkpoint import save_model
    from explorer.core.training.trainer import Trainer

    config = tiny_config()
    dataset = tiny_dataset(config)
    trainer = Trainer(config, dataset)
    kinds = [ev.kind for ev in trainer]
    assert kinds[-1] == "finished"
    path = tmp_path_factory.mktemp("model") / "tiny.safetensors"
    return save_model(path, trainer.model, config, dataset.src_vocab, dataset.tgt_vocab, trainer.history, "tiny")


@pytest.fixture
def stall_meter(qapp: Any, request: pytest.FixtureRequest) -> Iterator[StallMeter]:
    """Measures the longest GUI stall of a test; the figures go to ``$ROBUSTNESS_STATS``."""
    meter = StallMeter()
    meter.start()
    yield meter
    meter.stop()
    record_stat("max_gui_stall_ms", round(meter.worst_ms, 1))
    record_stat(f"stall_ms:{request.node.name}", round(meter.worst_ms, 1))
