"""Corpus readers: Tatoeba-style English–French files (``fra.txt`` or a zip holding it) into
preprocessed sentence pairs, with the book's preprocessing (D2L §10.5.1)."""
from __future__ import annotations

import io
import lzma
import os
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator

from explorer.core.checks import positive_int

#: Largest file (or uncompressed zip member) we agree to read, in bytes: a guard against zip bombs.
MAX_TEXT_BYTES = 512 * 1024 * 1024
#: Longest single line we accept, in bytes (a corpus line is a sentence pair, not a megabyte).
MAX_LINE_BYTES = 1024 * 1024
#: Most lines read from one input (blank and malformed ones included), several times the largest
#: Tatoeba file: a zip bomb of empty lines is refused in seconds instead of being read for minutes.
MAX_LINES = 2_000_000
#: At most this many skipped line numbers are remembered (``ReadResult.skipped`` counts all of them).
MAX_REPORTED_LINES = 10_000
#: File suffixes read as plain tab-separated text.
TEXT_SUFFIXES = (".txt", ".tsv")

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# The gap between a character other than a space and a following , . ! ? gets a space (the book's rule);
# matching the empty gap keeps the replacement a plain literal, which is fast.
_GAP_BEFORE_PUNCT = re.compile(r"(?<=[^ ])(?=[,.!?])")


class DatasetError(ValueError):
    """A corpus, sentence or task that cannot be used; the message is written for users."""


@dataclass
class ReadResult:
    """Pairs read from a corpus file.

    ``pairs`` are ``(english, french)`` strings, preprocessed, tokens separated by single spaces;
    ``skipped`` counts malformed lines; ``skipped_lines`` holds their 1-based numbers (the first
    :data:`MAX_REPORTED_LINES` of them); ``member`` names the zip member read, if any.
    """

    pairs: list[tuple[str, str]]
    skipped: int = 0
    skipped_lines: list[int] = field(default_factory=list)
    member: str | None = None


def preprocess_nmt(text: str) -> str:
    """The book's preprocessing: ``\\u202f``/``\\xa0`` become spaces, lower-case, and a space is
    inserted before ``, . ! ?`` when the character before is not already a space.

    >>> preprocess_nmt("Go.\\u202fHi!")
    'go . hi !'
    """
    text = text.replace("\u202f", " ").replace("\xa0", " ").lower()
    return _GAP_BEFORE_PUNCT.sub(" ", text)


def normalize_side(text: str) -> str:
    """One side of a pair as stored in :class:`ReadResult`: preprocessed, whitespace runs collapsed
    to one space, no leading/trailing space (so ``tokenize`` never yields empty tokens)."""
    return " ".join(preprocess_nmt(text).split())


def read_pairs(path: str | os.PathLike[str], num_examples: int | None = None, as_written: bool = False) -> ReadResult:
    """Read ``English<TAB>French[<TAB>attribution…]`` lines from a ``.txt``/``.tsv`` file or a ``.zip``.

    Parameters
    ----------
    path : a text file, or a zip holding ``fra.txt`` (else its first ``*.txt``/``*.tsv`` member).
    num_examples : keep only the first ``num_examples`` pairs (``None``: all). Reading stops there,
        so lines after it are neither checked nor counted.
    as_written : keep each side as written (no preprocessing, spaces kept; for models with their own
        tokenizer), and read a line without a tab as one text: the pair ``(text, "")``.

    Lines with fewer than two tab-separated columns or an empty side are skipped and counted;
    blank lines are ignored silently. Raises :class:`DatasetError` for a missing/unreadable path,
    undecodable bytes (naming the line), an empty or pair-less file, or an oversized input.
    """
    if num_examples is not None:
        positive_int(num_examples, "num_examples", DatasetError)
    p = Path(os.fspath(path)).expanduser()
    try:
        exists, is_dir, is_file = p.exists(), p.is_dir(), p.is_file()
    except OSError as exc:
        raise DatasetError(f"cannot access {p}: {exc.strerror or exc}") from exc
    if not exists:
        raise DatasetError(f"no such file: {p}")
    if is_dir:
        raise DatasetError(f"{p} is a folder; choose a .txt, .tsv or .zip file")
    if not is_file:
        raise DatasetError(f"{p} is not a regular file; choose a .txt, .tsv or .zip file")
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise DatasetError(f"cannot open {p}: {exc.strerror or exc}") from exc
    suffix = p.suffix.lower()
    if suffix == ".zip" or head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return _read_zip(p, num_examples, as_written)
    if suffix not in TEXT_SUFFIXES:
        raise DatasetError(f"{p.name}: unsupported file type {suffix or '(none)'}; choose a .txt, .tsv or .zip file")
    size = p.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise DatasetError(f"{p.name} is {size / 2**20:.0f} MB; the limit is {MAX_TEXT_BYTES / 2**20:.0f} MB")
    try:
        with open(p, "rb") as fh:
            return _parse_stream(fh, p.name, num_examples, as_written)
    except OSError as exc:
        raise DatasetError(f"cannot read {p}: {exc.strerror or exc}") from exc


def _pick_member(zf: zipfile.ZipFile) -> zipfile.ZipInfo | None:
    """``fra.txt`` if present, else the first ``.txt``/``.tsv`` member (``_about.txt``-style notes last)."""
    candidates = []
    for info in zf.infolist():
        name = info.filename.replace("\\", "/")
        base = name.rsplit("/", 1)[-1]
        if info.is_dir() or name.startswith("__MACOSX/") or base.startswith("."):
            continue
        if base.lower().endswith(TEXT_SUFFIXES):
            candidates.append((base.lower() != "fra.txt", base.startswith("_"), len(candidates), info))
    return min(candidates, key=lambda c: c[:3])[3] if candidates else None


def _read_zip(p: Path, num_examples: int | None, as_written: bool = False) -> ReadResult:
    try:
        with zipfile.ZipFile(p) as zf:
            info = _pick_member(zf)
            if info is None:
                raise DatasetError(f"{p.name}: the zip holds no .txt or .tsv file")
            label = f"{p.name}:{info.filename}"
            if info.file_size > MAX_TEXT_BYTES:
                raise DatasetError(
                    f"{label} would unpack to {info.file_size / 2**20:.0f} MB; "
                    f"the limit is {MAX_TEXT_BYTES / 2**20:.0f} MB"
                )
            # a buffered reader makes readline() run in C; ZipExtFile's own is Python code, 20x slower
            with zf.open(info) as raw, io.BufferedReader(raw, 1 << 16) as fh:  # type: ignore[arg-type]
                result = _parse_stream(fh, label, num_examples, as_written)
            result.member = info.filename
            return result
    except DatasetError:
        raise
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, ValueError) as exc:
        # ValueError: e.g. a member name flagged UTF-8 that is not (UnicodeDecodeError), found by fuzzing
        raise DatasetError(f"{p.name} is not a readable zip file ({type(exc).__name__}: {exc})") from exc
    except (RuntimeError, NotImplementedError) as exc:  # encrypted or unsupported compression
        raise DatasetError(f"{p.name}: cannot unpack ({exc})") from exc
    except OSError as exc:
        raise DatasetError(f"cannot read {p}: {exc.strerror or exc}") from exc


def _iter_lines(fh: IO[bytes], label: str) -> Iterator[tuple[int, bytes]]:
    """Yield ``(1-based line number, raw line without its end)``; enforces the size limits while
    reading (a zip member is decompressed chunk by chunk, never trusted by its header).

    Lines end in LF, CRLF or a lone CR (classic Mac files, which would otherwise merge every pair).
    """
    total = 0
    lineno = 0
    while True:
        raw = fh.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        total += len(raw)
        if total > MAX_TEXT_BYTES:
            raise DatasetError(f"{label} is larger than the {MAX_TEXT_BYTES / 2**20:.0f} MB limit")
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise DatasetError(f"{label}: line {lineno + 1} is longer than {MAX_LINE_BYTES // 1024} KB; "
                               "is this a text corpus?")
        if lineno == 0:
            if raw.startswith(_UTF16_BOMS):
                raise DatasetError(f"{label} is UTF-16 encoded; save it as UTF-8")
            if raw.startswith(_UTF8_BOM):
                raw = raw[len(_UTF8_BOM):]
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        for part in raw.split(b"\r") if b"\r" in raw else (raw,):
            lineno += 1
            if lineno > MAX_LINES:
                raise DatasetError(f"{label} has more than {MAX_LINES:,} lines; read fewer pairs "
                                   "(the number of examples) or split the file")
            yield lineno, part


def _parse_stream(fh: IO[bytes], label: str, num_examples: int | None, as_written: bool = False) -> ReadResult:
    pairs: list[tuple[str, str]] = []
    skipped = 0
    skipped_lines: list[int] = []
    any_text = False
    for lineno, raw in _iter_lines(fh, label):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DatasetError(
                f"{label}: line {lineno} is not valid UTF-8 (byte {exc.start + 1} of the line); save the file as UTF-8"
            ) from exc
        if "\x00" in line:  # valid UTF-8, but text never holds NUL: UTF-16 without a BOM, or binary data
            raise DatasetError(f"{label}: line {lineno} contains NUL bytes; is this a UTF-16 or binary file? "
                               "Save it as UTF-8 text")
        if not line.strip():
            continue
        any_text = True
        cols = line.split("\t", 2)
        if as_written:
            src, tgt = cols[0].strip(), cols[1].strip() if len(cols) >= 2 else ""
            if src:
                pairs.append((src, tgt))
                if num_examples is not None and len(pairs) >= num_examples:
                    break
                continue
        if len(cols) >= 2:
            # one preprocessing pass over both sides (attribution dropped) equals one per side,
            # since the sides are stripped afterwards
            cols = preprocess_nmt(f"{cols[0]}\t{cols[1]}").split("\t")
        src = " ".join(cols[0].split()) if len(cols) >= 2 else ""
        tgt = " ".join(cols[1].split()) if len(cols) >= 2 else ""
        if not src or not tgt:
            skipped += 1
            if len(skipped_lines) < MAX_REPORTED_LINES:
                skipped_lines.append(lineno)
            continue
        pairs.append((src, tgt))
        if num_examples is not None and len(pairs) >= num_examples:
            break
    if not any_text:
        raise DatasetError(f"{label} is empty")
    if not pairs:
        raise DatasetError(
            f"{label} holds no sentence pairs: each line needs 'English<TAB>French' "
            f"({skipped} line{'s' if skipped != 1 else ''} skipped)"
        )
    return ReadResult(pairs=pairs, skipped=skipped, skipped_lines=skipped_lines)
