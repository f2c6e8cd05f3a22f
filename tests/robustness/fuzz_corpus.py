"""Hypothesis strategies for hostile corpus files and the one property every reader result must
have; shared by ``test_reader_fuzz.py`` (~200 files) and ``bench/fuzz_readers.py`` (1,000+ files)."""
from __future__ import annotations

import io
import os
import tempfile
import zipfile
from pathlib import Path

from hypothesis import strategies as st

from explorer.core.data.readers import DatasetError, read_pairs

_CLEAN = st.text(alphabet=st.sampled_from(list("abcxyz éàç'.,!?-") + ["\u202f", "\xa0"]), max_size=12)
_ODD = st.text(alphabet=st.sampled_from(list("ab .") + ["\x00", "\t", "\r", "\U0001F600", "\u202e", "\ufeff",
                                                         "\x85", "\u2028", "\x1b"]), max_size=6)


def _lines(words: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    line = st.one_of(st.lists(words, min_size=2, max_size=3), st.lists(words, max_size=5)).map("\t".join)
    return st.lists(line, max_size=12)

_ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def text_bytes(draw: st.DrawFn) -> bytes:
    """Corpus-like text in a random encoding, with BOMs and damage, or plain random bytes."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.binary(max_size=600))
    clean = draw(st.sampled_from([True, True, True, False]))  # a quarter of the files hold odd characters
    lines = draw(_lines(_CLEAN if clean else st.one_of(_CLEAN, _ODD)))
    text = draw(_ENDINGS).join(lines) + draw(st.sampled_from(["", "\n"]))
    encoding = draw(st.sampled_from(["utf-8"] * 6 + ["utf-8-sig", "latin-1", "utf-16", "utf-16-le"]))
    data = text.encode(encoding, errors="replace")
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2, 3]))):  # damage: overwrite, insert or cut bytes
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "insert", "cut"]))
        if action == "flip":
            data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1:]
        elif action == "insert":
            data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
        else:
            data = data[:at]
    return data


_MEMBER_NAMES = st.sampled_from(["fra.txt", "FRA.TXT", "pairs.tsv", "_about.txt", "notes.md", "x.bin",
                                 "__MACOSX/fra.txt", ".hidden.txt", "deep/dir/fra.txt", "dir/", "ünï.txt"])
_METHODS = st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])


@st.composite
def zip_bytes(draw: st.DrawFn) -> bytes:
    """A zip of 0–4 members (any compression), sometimes truncated or with a flipped byte."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in draw(st.lists(_MEMBER_NAMES, max_size=4, unique=True)):
            if name.endswith("/"):
                zf.writestr(zipfile.ZipInfo(name), b"")
            else:
                zf.writestr(name, draw(text_bytes()), compress_type=draw(_METHODS))
    data = buf.getvalue()
    damage = draw(st.sampled_from(["none", "none", "none", "cut", "flip"]))
    if damage == "cut" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif damage == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]
    return data


_LIMITS = st.one_of(st.none(), st.integers(1, 4))
#: ``(file name, bytes, num_examples)`` of one generated corpus file: mostly text in a text file and a zip
#: in a ``.zip``, sometimes the other way round or under a suffix the readers do not take.
corpus_files = st.one_of(
    st.tuples(st.sampled_from(["c.txt", "c.tsv", "c.TXT"]), text_bytes(), _LIMITS),
    st.tuples(st.just("c.zip"), zip_bytes(), _LIMITS),
    st.tuples(st.sampled_from(["c.txt", "c.zip", "c.csv", "c"]), st.one_of(text_bytes(), zip_bytes()), _LIMITS),
)


def check_reader_on(name: str, data: bytes, num_examples: int | None) -> str:
    """Write the file, read it, check the property; returns ``"ok"`` or ``"refused"``.

    The property: ``read_pairs`` returns well-formed pairs (non-empty sides, single spaces, no tab, no NUL)
    or raises :class:`DatasetError`; any other exception propagates (a failure).
    """
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / name
        path.write_bytes(data)
        try:
            result = read_pairs(path, num_examples=num_examples)
        except DatasetError as exc:
            assert str(exc) and "\n" not in str(exc)
            return "refused"
    assert result.pairs and (num_examples is None or len(result.pairs) <= num_examples)
    for pair in result.pairs:
        for side in pair:
            assert side and side == " ".join(side.split()) and "\t" not in side and "\x00" not in side
    assert result.skipped >= len(result.skipped_lines)
    return "ok"


def fuzz_seed() -> int | None:
    """``FUZZ_SEED`` from the environment, to replay a run."""
    value = os.environ.get("FUZZ_SEED")
    return int(value) if value else None
