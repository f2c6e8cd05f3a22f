"""Hostile corpus files through the readers, ``load_source`` and the CLI: each one is a
``DatasetError`` naming the problem (CLI: exit 2 and one ``error:`` line), never another exception."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from explorer.cli.main import main as cli_main
from explorer.core.data import readers
from explorer.core.data.sources import load_source
from explorer.core.data.readers import DatasetError, read_pairs
from explorer.core.data.text import build_dataset

REFUSED = ["empty.txt", "blank_lines.txt", "binary.txt", "latin1.txt", "utf16_bom.txt", "utf16_no_bom.txt",
           "one_column.txt", "long_line.txt", "png_renamed.txt", "no_text.zip", "empty.zip", "not_a_zip.zip",
           "bomb.zip", "folder.txt", "missing.txt"]


@pytest.mark.parametrize("name", REFUSED)
def test_reader_refuses_with_a_message_naming_the_problem(hostile_files, name: str) -> None:
    path, message = hostile_files[name]
    with pytest.raises(DatasetError, match=message) as info:
        read_pairs(path)
    assert path.name in str(info.value), "the message names the file"
    with pytest.raises(DatasetError, match=message):
        load_source(str(path))


@pytest.mark.parametrize("name", REFUSED)
def test_cli_train_exits_2_with_one_error_line(hostile_files, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path, message = hostile_files[name]
    code = cli_main(["train", "--data", str(path), "--epochs", "1", "--device", "cpu"])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith("error: ") and re.search(message, lines[0])
    assert "Traceback" not in out + err


def test_ten_columns_keep_the_first_two(hostile_files) -> None:
    path, _ = hostile_files["ten_columns.txt"]
    assert read_pairs(path).pairs == [("go .", "go .")]


def test_permission_denied_names_the_file(tmp_path: Path, deny_read) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("go .\tva !\n")
    deny_read(path)
    with pytest.raises(DatasetError, match=r"cannot (open|read) .*secret.txt: Permission denied"):
        read_pairs(path)
    zpath = tmp_path / "secret.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("fra.txt", "go .\tva !\n")
    deny_read(zpath)
    with pytest.raises(DatasetError, match="secret.zip"):
        load_source(str(zpath))


def test_zip_bomb_with_a_lying_header_is_refused(tmp_path: Path) -> None:
    """The headers claim 100 bytes for a 3 MB member: the reader never trusts them past what it checks."""
    path = tmp_path / "liar.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("fra.txt", b"go .\tva !\n" * 300_000)
    data = bytearray(path.read_bytes())
    local, central = data.index(b"PK\x03\x04"), data.index(b"PK\x01\x02")
    data[local + 22:local + 26] = (100).to_bytes(4, "little")  # uncompressed size, local header
    data[central + 24:central + 28] = (100).to_bytes(4, "little")  # and in the central directory
    path.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match="liar.zip"):
        read_pairs(path)


def test_empty_line_bomb_is_refused_quickly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Millions of empty lines (a few kB zipped) stop at the line limit instead of being read for minutes."""
    monkeypatch.setattr(readers, "MAX_LINES", 50_000)
    path = tmp_path / "lines.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("fra.txt", b"\n" * 200_000)
    with pytest.raises(DatasetError, match="more than 50,000 lines"):
        read_pairs(path)


def test_classic_mac_line_ends_are_lines(tmp_path: Path) -> None:
    """Lone CRs used to merge pairs silently ('va ! hi .' as one target)."""
    path = tmp_path / "mac.txt"
    path.write_bytes(b"Go.\tVa !\rHi.\tSalut !\rbad\r")
    result = read_pairs(path)
    assert result.pairs == [("go .", "va !"), ("hi .", "salut !")]
    assert result.skipped_lines == [3]


def test_huge_dataset_tensors_are_refused_before_allocation() -> None:
    pairs = [("a b", "c d")] * 3
    from explorer.core.data import text
    old = text.MAX_DATASET_BYTES
    try:
        text.MAX_DATASET_BYTES = 2 * 3 * 10 * 8 - 1
        with pytest.raises(DatasetError, match="GB of token ids"):
            build_dataset(pairs, 10)
    finally:
        text.MAX_DATASET_BYTES = old
    assert len(build_dataset(pairs, 10)) == 3


def test_bad_specs_and_sentences() -> None:
    for spec in ("", "   ", "task:", "task:nonsense"):
        with pytest.raises(DatasetError):
            load_source(spec)
    with pytest.raises(DatasetError):
        load_source(123)  # type: ignore[arg-type]
    for n in (0, -1, 2.5, True):
        with pytest.raises(DatasetError, match="num_examples"):
            read_pairs(Path(__file__), num_examples=n)  # type: ignore[arg-type]


def test_zip_member_name_that_is_not_utf8(tmp_path: Path) -> None:
    """Found by bench/fuzz_readers.py: a member name flagged UTF-8 with invalid bytes raised UnicodeDecodeError."""
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ünï.txt", b"go .\tva !\n")
    path = tmp_path / "names.zip"
    path.write_bytes(buf.getvalue().replace("ü".encode(), b"<\xbc"))
    with pytest.raises(DatasetError, match="names.zip is not a readable zip file"):
        read_pairs(path)


def test_task_with_a_billion_pairs_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Found here: ``--data task:copy --num-examples 1000000000`` generated pairs until memory ran out."""
    with pytest.raises(DatasetError, match="at most 1,000,000 pairs"):
        load_source("task:copy", num_examples=10**9)
    code = cli_main(["train", "--data", "task:sort", "--num-examples", str(10**9), "--epochs", "1", "--device", "cpu"])
    assert code == 2 and "at most 1,000,000 pairs" in capsys.readouterr().err
