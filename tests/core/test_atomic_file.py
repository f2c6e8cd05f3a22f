"""The one atomic writer (explorer.core.atomic_file): new files get the permissions open() would give them, a failure
keeps the old file and leaves no temporary file, fsync on request, the temporary file sits beside the target."""
from __future__ import annotations

import fnmatch
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.core import atomic_file
from explorer.core.atomic_file import (atomic_open, atomic_path, create_temp, leftover_temps, write_bytes_atomic,
                                       write_text_atomic)

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


@pytest.fixture
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """Run the test under the umask given by ``request.param``; the old one comes back afterwards."""
    before = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@POSIX
@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077, 0o027], indirect=True)
def test_a_new_file_gets_the_mode_open_would_give_it(tmp_path: Path, umask: int) -> None:
    reference = tmp_path / "reference.png"
    with open(reference, "wb"):
        pass
    expected = _mode(reference)
    assert expected == 0o666 & ~umask
    written = [write_bytes_atomic(tmp_path / "bytes.png", b"png"), write_text_atomic(tmp_path / "text.html", "<p>")]
    with atomic_path(tmp_path / "named.gif") as tmp:
        tmp.write_bytes(b"gif")
    written.append(tmp_path / "named.gif")
    with atomic_open(tmp_path / "durable.safetensors", fsync=True) as handle:
        handle.write(b"weights")
    written.append(tmp_path / "durable.safetensors")
    assert {p.name: oct(_mode(p)) for p in written} == {p.name: oct(expected) for p in written}


@POSIX
@pytest.mark.parametrize("umask", [0o022], indirect=True)
def test_replacing_a_private_file_gives_the_new_files_mode(tmp_path: Path, umask: int) -> None:
    """A file written by the old mkstemp helpers (0o600) becomes readable by others when it is exported again."""
    path = tmp_path / "frame.png"
    path.write_bytes(b"old")
    path.chmod(0o600)
    write_bytes_atomic(path, b"new")
    assert path.read_bytes() == b"new" and _mode(path) == 0o644


def test_a_failure_inside_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "lesson.html"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="drawing failed"):
        with atomic_path(path) as tmp:
            tmp.write_text("half a")
            raise RuntimeError("drawing failed")
    with pytest.raises(OSError, match="No space"):
        with atomic_open(path, "w", fsync=True) as handle:
            handle.write("half a")
            raise OSError(28, "No space left on device")
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(path):
            raise KeyboardInterrupt
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_failed_rename_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes(b"old")

    def refused(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(PermissionError):
        write_bytes_atomic(path, b"new", fsync=True)
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_writer_that_removed_its_file_still_raises_its_own_error(tmp_path: Path) -> None:
    path = tmp_path / "x.qm"
    with pytest.raises(ValueError, match="bad catalogue"):
        with atomic_path(path) as tmp:
            tmp.unlink()
            raise ValueError("bad catalogue")
    assert list(tmp_path.iterdir()) == []


def test_fsync_flushes_the_file_and_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fsync

    def recording(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", recording)
    path = tmp_path / "model.safetensors"
    assert write_bytes_atomic(path, b"weights", fsync=True) == path
    with atomic_path(tmp_path / "maps.npz", fsync=True) as tmp:
        tmp.write_bytes(b"maps")
    expected = 2 if sys.platform != "win32" else 1  # the file, then its folder (Windows cannot open a folder)
    assert len(synced) == 2 * expected
    assert path.read_bytes() == b"weights" and (tmp_path / "maps.npz").read_bytes() == b"maps"
    synced.clear()
    write_bytes_atomic(tmp_path / "quick.png", b"png")
    assert synced == []  # no fsync unless asked
    assert sorted(p.name for p in tmp_path.iterdir()) == ["maps.npz", "model.safetensors", "quick.png"]


def test_the_temporary_file_lands_in_the_target_folder_with_its_suffix(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    target = Path("..") / "out" / "lapse.mp4"
    with atomic_path(target) as tmp:
        assert tmp.parent.resolve() == (tmp_path / "out").resolve() and tmp.suffix == ".mp4"
        assert tmp.name.startswith(".lapse.mp4.") and fnmatch.fnmatch(tmp.name, atomic_file.temp_glob(target))
        assert tmp.is_file() and tmp.stat().st_size == 0
        tmp.write_bytes(b"video")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["lapse.mp4"]
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert (tmp_path / "out" / "lapse.mp4").read_bytes() == b"video"


def test_text_is_utf8_with_newlines_as_given(tmp_path: Path) -> None:
    path = write_text_atomic(tmp_path / "index.html", "注意力\nline two\n")
    assert path.read_bytes() == "注意力\nline two\n".encode()
    with pytest.raises(ValueError, match="mode"):
        with atomic_open(tmp_path / "x.txt", "a"):
            pass
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]


def test_an_unwritable_folder_raises_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        with atomic_path(tmp_path / "absent" / "x.png"):
            pytest.fail("the block must not run")
    assert list(tmp_path.iterdir()) == []


def test_leftover_temps_are_only_unfinished_writes(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "last.safetensors"
    target.parent.mkdir()
    fd, tmp = create_temp(target)
    os.close(fd)
    (tmp_path / ".hidden.txt").write_text("mine")
    (tmp_path / ".x.tmp.safetensors").write_text("no random part")
    (tmp_path / "plain.0123abcd.tmp.txt").write_text("not hidden")
    assert leftover_temps(tmp_path) == [tmp]
