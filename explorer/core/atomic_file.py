"""Write a file whole or not at all (DESIGN rule 7): write a temporary file beside the target, then rename it over
the target, so that a crash or a full disk never leaves half a file where a good one was. This is the app's one
atomic writer (checkpoints, exports, lessons, time-lapses, the compiled translations)."""
from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

TEMP_TAG = ".tmp"
_NAME_TRIES = 100


def temp_glob(path: str | os.PathLike[str]) -> str:
    """A glob pattern, for use in ``path``'s folder, that matches the temporary files of writes to ``path``."""
    target = Path(path)
    return f"{glob.escape(f'.{target.name}.')}*{TEMP_TAG}{glob.escape(target.suffix)}"


def leftover_temps(folder: str | os.PathLike[str]) -> list[Path]:
    """The temporary files of writes below ``folder`` (any depth) that never finished: what a killed writer leaves.
    Only a caller that knows no write is in progress there (e.g. a run being resumed) may delete them."""
    pattern = re.compile(rf"\..+\.[0-9a-f]{{8}}{re.escape(TEMP_TAG)}(\.[^.]+)?")
    return sorted(p for p in Path(folder).rglob(".*") if p.is_file() and pattern.fullmatch(p.name))


def create_temp(path: str | os.PathLike[str]) -> tuple[int, Path]:
    """Create an empty temporary file beside ``path`` and return it open for reading and writing, as ``(fd, name)``.

    The name is ``.<name>.<random>.tmp<suffix>``. The suffix is kept because some writers pick the file format
    from it. The file is created with mode ``0o666``, so the kernel applies the umask (and any default ACL of the
    folder) just as it does for ``open(path, "w")``. ``tempfile.mkstemp`` would give ``0o600`` instead. Raises
    ``OSError`` if the folder cannot be written.
    """
    target = Path(path)
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(_NAME_TRIES):
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}{TEMP_TAG}{target.suffix}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no unused temporary file name beside {target}")


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a rename in ``folder`` durable, where the platform allows it (Windows cannot open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _discard(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        tmp.unlink()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], fsync: bool = False) -> Iterator[Path]:
    """Yield the name of a new, empty temporary file beside ``path``. Write to it in the ``with`` block, or let
    another program write to it. When the block ends normally, the file is renamed over ``path``. If the block
    or the rename raises, the temporary file is deleted, ``path`` is left as it was, and the exception is
    raised again.

    ``fsync=True`` flushes the file to disk before the rename and the folder after it (saved models need this).
    """
    target = Path(path)
    fd, tmp = create_temp(target)
    os.close(fd)
    try:
        yield tmp
        if fsync:
            fd = os.open(tmp, os.O_RDWR if os.name == "nt" else os.O_RDONLY)  # Windows' _commit needs write access
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        _discard(tmp)
        raise
    if fsync:
        fsync_folder(target.parent)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "wb", fsync: bool = False, encoding: str | None = None,
                newline: str | None = None) -> Iterator[IO[Any]]:
    """Yield a file object (``mode`` ``"wb"`` or ``"w"``) that writes to a temporary file beside ``path``. This
    works like :func:`atomic_path`: the file replaces ``path`` only when the block ends normally."""
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_open writes a new file: mode 'wb' or 'w', not {mode!r}")
    text = mode == "w"
    with atomic_path(path, fsync=fsync) as tmp:  # closed before atomic_path syncs and renames it
        with open(tmp, mode, encoding=encoding if text else None, newline=newline if text else None) as handle:
            yield handle


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, fsync: bool = False) -> Path:
    """Write ``data`` to ``path`` through a temporary file and a rename. Returns ``path``. If it fails, raises
    ``OSError`` and leaves any existing file as it was."""
    with atomic_open(path, "wb", fsync=fsync) as handle:
        handle.write(data)
    return Path(path)


def write_text_atomic(path: str | os.PathLike[str], text: str, encoding: str = "utf-8", newline: str = "\n",
                      fsync: bool = False) -> Path:
    """Write ``text`` to ``path`` the same way (UTF-8 and ``\\n`` line ends unless told otherwise). Returns
    ``path``."""
    with atomic_open(path, "w", fsync=fsync, encoding=encoding, newline=newline) as handle:
        handle.write(text)
    return Path(path)
