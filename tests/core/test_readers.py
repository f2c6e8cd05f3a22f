"""Corpus readers and data sources: formats users download, malformed input, size limits, specs."""
from __future__ import annotations

import os
import struct
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.core.data import sources as data_sources

from explorer.core.data import readers
from explorer.core.data.readers import DatasetError, read_pairs

TATOEBA = (
    "Go.\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272 (CM) & #1158250 (Wittydev)\n"
    "Hi.\tSalut\u202f!\tCC-BY 2.0 (France) Attribution: tatoeba.org #538123 (CM) & #509819 (Aiji)\n"
    "I lost.\tJ'ai perdu.\tCC-BY 2.0 (France) Attribution: tatoeba.org #1 (a) & #2 (b)\n"
)


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return p


def test_tatoeba_three_columns_with_bom_crlf_and_narrow_spaces(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + TATOEBA.replace("\n", "\r\n").encode("utf-8")
    result = read_pairs(write(tmp_path, "fra.txt", data))
    assert result.pairs == [("go .", "va !"), ("hi .", "salut !"), ("i lost .", "j'ai perdu .")]
    assert result.skipped == 0 and result.skipped_lines == []


def test_two_columns_nbsp_and_book_preprocessing(tmp_path: Path) -> None:
    p = write(tmp_path, "pairs.tsv", "He's calm.\tIl est calme.\nWow, really?!\tOuah,\xa0vraiment ?!\n")
    assert read_pairs(p).pairs == [("he's calm .", "il est calme ."), ("wow , really ? !", "ouah , vraiment ? !")]


def test_malformed_lines_skipped_and_counted_with_line_numbers(tmp_path: Path) -> None:
    text = "go .\tva !\nno tab here\n\n\t only french\nenglish only\t  \nhi .\tsalut !\n"
    result = read_pairs(write(tmp_path, "x.txt", text))
    assert result.pairs == [("go .", "va !"), ("hi .", "salut !")]
    # the blank line 3 is ignored silently; lines 2, 4, 5 are malformed
    assert result.skipped == 3 and result.skipped_lines == [2, 4, 5]


def test_num_examples_keeps_first_pairs_and_stops_reading(tmp_path: Path) -> None:
    # line 4 is undecodable, but reading stops after the 2nd pair on line 3
    data = b"a\tb\nbad line\nc\td\n\xff\xfe\tz\n"
    result = read_pairs(write(tmp_path, "x.txt", data), num_examples=2)
    assert result.pairs == [("a", "b"), ("c", "d")] and result.skipped_lines == [2]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(DatasetError, match="num_examples"):
            read_pairs(write(tmp_path, "y.txt", "a\tb\n"), num_examples=bad)  # type: ignore[arg-type]


def test_undecodable_bytes_name_the_line(tmp_path: Path) -> None:
    data = "go .\tva !\nhi .\tsalut !\n".encode() + b"caf\xe9\tcaf\xe9\n"
    with pytest.raises(DatasetError, match=r"line 3 .*UTF-8"):
        read_pairs(write(tmp_path, "latin1.txt", data))


def test_utf16_file_gets_a_clear_message(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="UTF-16"):
        read_pairs(write(tmp_path, "u16.txt", "go .\tva !\n".encode("utf-16")))


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"\n \r\n\n", "empty"),
                                              (b"one column\nanother\n", "no sentence pairs")])
def test_empty_or_pairless_files(tmp_path: Path, content: bytes, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        read_pairs(write(tmp_path, "e.txt", content))


def test_path_errors_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file.*missing.txt"):
        read_pairs(tmp_path / "missing.txt")
    with pytest.raises(DatasetError, match="folder"):
        read_pairs(tmp_path)
    if os.path.exists("/dev/null"):
        with pytest.raises(DatasetError, match="not a regular file"):
            read_pairs("/dev/null")
    with pytest.raises(DatasetError, match="unsupported file type .pdf"):
        read_pairs(write(tmp_path, "paper.pdf", "go\tva\n"))


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="needs POSIX permissions, not root")
def test_unreadable_file(tmp_path: Path) -> None:
    p = write(tmp_path, "secret.txt", "go .\tva !\n")
    p.chmod(0)
    try:
        with pytest.raises(DatasetError, match="secret.txt"):
            read_pairs(p)
    finally:
        p.chmod(0o600)


def test_permission_error_names_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, "locked.txt", "go .\tva !\n")

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(p))

    monkeypatch.setattr(readers, "open", denied, raising=False)
    with pytest.raises(DatasetError, match=r"cannot open .*locked.txt: Permission denied"):
        read_pairs(p)


def make_zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_zip_prefers_fra_txt_over_notes(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "fra-eng.zip", {"_about.txt": b"About\tthis\n", "fra.txt": TATOEBA.encode()})
    result = read_pairs(z, num_examples=2)
    assert result.pairs == [("go .", "va !"), ("hi .", "salut !")] and result.member == "fra.txt"
    z2 = make_zip(tmp_path / "other.zip", {"readme.md": b"x", "_notes.txt": b"n\tn\n", "deu.tsv": b"Hi.\tHallo!\n"})
    assert read_pairs(z2).pairs == [("hi .", "hallo !")]


def test_zip_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no .txt or .tsv"):
        read_pairs(make_zip(tmp_path / "a.zip", {"data.csv": b"go,va\n"}))
    with pytest.raises(DatasetError, match="not a readable zip"):
        read_pairs(write(tmp_path, "b.zip", b"PK\x03\x04 this is not really a zip"))
    bad = make_zip(tmp_path / "c.zip", {"fra.txt": b"ok\tok\n\xff\tbad\n"})
    with pytest.raises(DatasetError, match="line 2"):
        read_pairs(bad)


def test_size_limit_refuses_large_member_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers, "MAX_TEXT_BYTES", 1000)
    big = b"a\tb\n" * 1000  # 4000 bytes, compresses to almost nothing
    with pytest.raises(DatasetError, match="limit"):
        read_pairs(make_zip(tmp_path / "bomb.zip", {"fra.txt": big}))
    with pytest.raises(DatasetError, match="limit"):
        read_pairs(write(tmp_path, "big.txt", big))


def test_zip_header_that_lies_about_size_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers, "MAX_TEXT_BYTES", 1000)
    z = make_zip(tmp_path / "liar.zip", {"fra.txt": b"a\tb\n" * 1000})
    raw = bytearray(z.read_bytes())
    # claim 100 uncompressed bytes in the local header (offset 22) and the central directory (offset 24)
    struct.pack_into("<I", raw, 22, 100)
    central = raw.rfind(b"PK\x01\x02")
    struct.pack_into("<I", raw, central + 24, 100)
    z.write_bytes(bytes(raw))
    with pytest.raises(DatasetError):
        read_pairs(z)


def test_stored_zip_member_is_read(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "s.zip", {"dir/fra.txt": TATOEBA.encode()}, method=zipfile.ZIP_STORED)
    assert len(read_pairs(z).pairs) == 3


def test_overlong_line_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers, "MAX_LINE_BYTES", 64)
    with pytest.raises(DatasetError, match="line 2 is longer"):
        read_pairs(write(tmp_path, "long.txt", "a\tb\n" + "x" * 100 + "\tlong\n"))


_LINE = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12), min_size=0, max_size=4)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".txt", ".tsv", ".zip"]))
def test_random_bytes_raise_only_dataset_error(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"f{suffix}"
        p.write_bytes(data)
        try:
            result = read_pairs(p)
        except DatasetError:
            return
        assert result.pairs and all(a and b for a, b in result.pairs)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_LINE, max_size=8), crlf=st.booleans(), n=st.one_of(st.none(), st.integers(1, 5)))
def test_random_text_lines_raise_only_dataset_error(lines: list[list[str]], crlf: bool, n: int | None) -> None:
    text = ("\r\n" if crlf else "\n").join("\t".join(cols) for cols in lines)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "f.txt"
        p.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            result = read_pairs(p, num_examples=n)
        except DatasetError:
            return
    assert n is None or len(result.pairs) <= n
    for src, tgt in result.pairs:
        assert src and tgt and src == src.strip() and "  " not in src and "\t" not in tgt


# --- data sources -------------------------------------------------------------------------------


def test_load_source_builtin_uses_the_resource(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = write(tmp_path, "eng_fra.tsv", "go .\tva !\ni lost .\tj'ai perdu .\nbad\nhi .\tsalut !\n")
    monkeypatch.setattr(data_sources, "resource_path", lambda name: tmp_path / name)
    src = data_sources.load_source("builtin", num_examples=2)
    assert src.kind == "translation" and src.task is None and "built-in" in src.name
    assert src.pairs == [("go .", "va !"), ("i lost .", "j'ai perdu .")] and src.skipped == 0
    full = data_sources.load_source(" BuiltIn ", num_examples=None)
    assert len(full.pairs) == 3 and full.skipped == 1 and full.skipped_lines == [3]
    monkeypatch.setattr(data_sources, "resource_path", lambda name: tmp_path / "nope" / name)
    with pytest.raises(DatasetError, match="bundled corpus is missing"):
        data_sources.load_source("builtin")


def test_load_source_path_and_tasks(tmp_path: Path) -> None:
    p = write(tmp_path, "mine.txt", TATOEBA)
    for spec in (str(p), p):
        src = data_sources.load_source(spec)
        assert src.kind == "translation" and len(src.pairs) == 3 and "mine.txt" in src.name
    task = data_sources.load_source("task:Reverse", num_examples=50, seed=3)
    assert task.kind == "task" and task.task == "reverse" and len(task.pairs) == 50
    assert task.pairs == data_sources.load_source("task:reverse", num_examples=50, seed=3).pairs
    assert task.pairs != data_sources.load_source("task:reverse", num_examples=50, seed=4).pairs
    with pytest.raises(DatasetError, match="copy, reverse, sort"):
        data_sources.load_source("task:shuffle")
    with pytest.raises(DatasetError, match="no such file"):
        data_sources.load_source(str(tmp_path / "absent.tsv"))
    with pytest.raises(DatasetError, match="choose a data source"):
        data_sources.load_source("  ")


def test_bundled_corpus_is_read_whole() -> None:
    from explorer.paths import resource_path

    assert resource_path("eng_fra.tsv").is_file()
    src = data_sources.load_source("builtin")
    assert len(src.pairs) == 600 and src.skipped == 0
