"""``attention-explorer-cli timelapse``: a real run directory drawn offscreen by the shared renderer into a GIF,
PNG frames or an MP4; bad input is one ``error:`` line, exit 2 and no file left behind."""
from __future__ import annotations

import errno
import importlib.util
import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from PIL import Image

from explorer.cli import timelapse as cli_timelapse
from explorer.cli.errors import EXIT_USAGE
from explorer.cli.main import main as cli_main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from run_helpers import tiny_dataset, train_into  # noqa: E402

SIZE = ["--size", "320x180"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run trained for 3 epochs: 9 steps, snapshots every 2 steps (and the last)."""
    path = tmp_path_factory.mktemp("timelapse") / "run"
    train_into(path, tiny_dataset(), epochs=3)
    return path


def snapshot_count(run: Path) -> int:
    return len(list((run / "snapshots").glob("step-*.safetensors")))


def timelapse(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli_main(["timelapse", *argv])
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_gif_has_one_frame_per_snapshot(qapp, run_dir: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lapse.gif"
    code, stdout, stderr = timelapse(capsys, str(run_dir), "--out", str(out), *SIZE, "--fps", "5")
    assert code == 0, stderr
    count = snapshot_count(run_dir)
    assert count >= 4
    with Image.open(out) as gif:
        assert (gif.n_frames, gif.size, gif.info["duration"]) == (count, (320, 180), 200)
    assert f"frame {count}/{count}" in stderr and stderr.rstrip().endswith("encoding GIF ...")
    assert stdout.startswith(f"wrote {out}: {count} frames, 320x180, {out.stat().st_size:,} bytes")
    assert [p.name for p in tmp_path.iterdir()] == ["lapse.gif"]  # no temporary file left


def test_png_frames_of_one_head_thinned(qapp, run_dir: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "head.png"
    code, stdout, stderr = timelapse(capsys, str(run_dir), "--out", str(out), *SIZE, "--kind", "encoder",
                                     "--head", "1,2", "--max-frames", "3", "--dark", "--palette", "colour_blind",
                                     "--json")
    assert code == 0, stderr
    files = sorted(tmp_path.iterdir())
    assert [p.name for p in files] == ["head_0001.png", "head_0002.png", "head_0003.png"]
    summary = json.loads(stdout)
    assert summary["frames"] == summary["files"] == 3 and summary["snapshots"] == snapshot_count(run_dir)
    assert (summary["head"], summary["kind"], summary["format"]) == ([1, 2], "encoder", "png")
    assert summary["bytes"] == sum(p.stat().st_size for p in files)
    with Image.open(files[0]) as first:
        assert first.size == (320, 180) and first.convert("RGB").getpixel((2, 2)) == (0, 0, 0)  # dark


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_fewer_png_frames_replace_an_earlier_export_readable_by_others(qapp, run_dir: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Frames 3 and 4 of an earlier export to the same name go; the frames get a new file's mode, not 0600."""
    out = tmp_path / "lapse.png"
    code, _, stderr = timelapse(capsys, str(run_dir), "--out", str(out), *SIZE, "--max-frames", "4")
    assert code == 0, stderr
    assert len(list(tmp_path.iterdir())) == 4
    before = os.umask(0o022)
    try:
        code, stdout, stderr = timelapse(capsys, str(run_dir), "--out", str(out), *SIZE, "--max-frames", "2",
                                         "--json")
    finally:
        os.umask(before)
    assert code == 0, stderr
    assert json.loads(stdout)["files"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lapse_0001.png", "lapse_0002.png"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()} == {0o644}


@pytest.mark.skipif(importlib.util.find_spec("imageio_ffmpeg") is None, reason="imageio-ffmpeg is not installed")
def test_an_mp4_is_an_iso_media_file_of_even_size(qapp, run_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lapse.mp4"
    code, stdout, stderr = timelapse(capsys, str(run_dir), "--out", str(out), "--size", "321x181", "--json")
    assert code == 0, stderr
    head = out.read_bytes()[:8]
    assert head[4:8] == b"ftyp" and int.from_bytes(head[:4], "big") >= 8
    summary = json.loads(stdout)
    assert (summary["width"], summary["height"], summary["frames"]) == (320, 180, snapshot_count(run_dir))


def test_damage_is_left_out_with_a_warning(qapp, run_dir: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    run = Path(shutil.copytree(run_dir, tmp_path / "run"))
    sorted((run / "snapshots").iterdir())[1].write_bytes(b"not a snapshot")
    with open(run / "metrics.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"type": "step", "loss": 1.0}\n')  # no step: the shared reader refuses it
    code, stdout, stderr = timelapse(capsys, str(run), "--out", str(tmp_path / "out.gif"), *SIZE, "--json")
    assert code == 0, stderr
    assert json.loads(stdout)["frames"] == snapshot_count(run) - 1
    assert "warning: 1 snapshot file(s) could not be read" in stderr
    assert "warning: 1 damaged line(s) of metrics.jsonl were left out" in stderr


@pytest.mark.parametrize("case", ["missing", "not a run", "model file", "inside the run", "no snapshots",
                                  "head too big", "head zero", "suffix", "no folder", "folder is a file"])
def test_bad_input_is_one_error_line(qapp, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     case: str) -> None:
    run, out, extra = str(run_dir), str(tmp_path / "out.gif"), []
    if case == "missing":
        run, expected = str(tmp_path / "nowhere"), "does not exist"
    elif case == "not a run":
        (tmp_path / "folder").mkdir()
        run, expected = str(tmp_path / "folder"), "is not a run directory (it has no run.json)"
    elif case == "model file":
        run = str(shutil.copy(run_dir / "checkpoints" / "last.safetensors", tmp_path / "model.safetensors"))
        expected = "a saved model holds no attention history, so a time-lapse needs the run directory"
    elif case == "inside the run":
        run, expected = str(run_dir / "checkpoints" / "last.safetensors"), "give the run directory itself"
    elif case == "no snapshots":
        empty = Path(shutil.copytree(run_dir, tmp_path / "empty"))
        shutil.rmtree(empty / "snapshots")
        run, expected = str(empty), "has no attention snapshots yet"
    elif case == "head too big":
        extra, expected = ["--head", "3,1"], "--head 3,1: the run's model has 2 layer(s) of 2 head(s)"
    elif case == "head zero":
        extra, expected = ["--head", "0,1"], "layers and heads count from 1"
    elif case == "suffix":
        out, expected = str(tmp_path / "out.avi"), "must end in .gif, .mp4 or .png"
    elif case == "no folder":
        out, expected = str(tmp_path / "missing" / "out.gif"), "missing does not exist"
    else:
        (tmp_path / "file").write_text("x")
        out, expected = str(tmp_path / "file" / "out.gif"), "file is not a folder"
    before = {p.name for p in tmp_path.iterdir()}
    code, stdout, stderr = timelapse(capsys, run, "--out", out, *SIZE, *extra)
    assert code == EXIT_USAGE and stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("error: ") and expected in stderr, stderr
    assert {p.name for p in tmp_path.iterdir()} == before


def test_mp4_without_the_video_extra_says_what_to_install(qapp, run_dir: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.render import timelapse_files

    monkeypatch.setattr(timelapse_files, "available_formats", lambda: ["gif", "png"])
    code, _, stderr = timelapse(capsys, str(run_dir), "--out", str(tmp_path / "x.mp4"))
    assert code == EXIT_USAGE and "pip install 'attention-explorer[video]'" in stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("suffix", [".gif", ".png"])
def test_a_failed_write_leaves_no_file(qapp, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    """The disk fills up after two files: no GIF, no temporary file, and no half set of PNG frames stays."""
    from explorer.render import timelapse_files

    real, calls = timelapse_files._atomic, []

    def full_disk(path: Path, write):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) > 2 or suffix == ".gif":
            def write(tmp: Path) -> None:  # noqa: F811 - the temporary file exists, then the write fails
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, write)

    monkeypatch.setattr(timelapse_files, "_atomic", full_disk)
    code, _, stderr = timelapse(capsys, str(run_dir), "--out", str(tmp_path / f"out{suffix}"), *SIZE)
    assert code == EXIT_USAGE
    last = stderr.splitlines()[-1]
    assert last.startswith("error: could not write") and last.endswith("No space left on device")
    assert "Traceback" not in stderr
    assert not list(tmp_path.iterdir())


def test_the_cli_defaults_are_the_dialogs() -> None:
    from explorer.core.choices import ATTENTION_KINDS
    from explorer.core.runs.timelapse import DEFAULT_KIND
    from explorer.ui.settings import DEFAULTS, PALETTES

    assert cli_timelapse.ATTENTION_KINDS == ATTENTION_KINDS and cli_timelapse.PALETTES == PALETTES
    assert cli_timelapse.DEFAULT_KIND == DEFAULT_KIND  # the dialog starts from it when no head is chosen
    assert (cli_timelapse.DEFAULT_FPS, cli_timelapse.DEFAULT_MAX_FRAMES) == (
        DEFAULTS["timelapse/fps"], DEFAULTS["timelapse/max_frames"])
