"""The CLI's ``timelapse`` command: a run directory's attention snapshots and loss curve (book §11.7) as an
animated GIF, an MP4 or PNG frames, drawn offscreen by the renderer the GUI uses (:mod:`explorer.render`). Only
this command imports Qt, and only once it runs."""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from explorer.cli.errors import CliError
from explorer.cli.options import add_json
from explorer.cli.output import print_json
from explorer.core.choices import ATTENTION_KINDS
from explorer.core.runs.timelapse import DEFAULT_KIND
from explorer.render.colormaps import PALETTES

DEFAULT_FPS = 4  # the dialog's defaults (explorer.ui.settings DEFAULTS "timelapse/fps", "timelapse/max_frames")
DEFAULT_MAX_FRAMES = 120
MAX_FRAMES = 2000  # the dialog's limit
MAX_FRAME_BYTES = 4 * 2**30  # every frame is held in memory until it is encoded
SIZE_RANGE = ((160, 90), (3840, 2160))


def _head(text: str) -> tuple[int, int]:
    """``LAYER,HEAD`` (1-based) -> ``(layer, head)`` 0-based."""
    parts = text.replace(" ", "").split(",")
    try:
        layer, head = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not LAYER,HEAD (two numbers from 1, e.g. 2,3)") from None
    if layer < 1 or head < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not LAYER,HEAD (layers and heads count from 1)")
    return layer - 1, head - 1


def _size(text: str) -> tuple[int, int]:
    """``WxH`` in pixels, within :data:`SIZE_RANGE`."""
    (w0, h0), (w1, h1) = SIZE_RANGE
    try:
        width, height = (int(p) for p in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT (e.g. 1280x720)") from None
    if not (w0 <= width <= w1 and h0 <= height <= h1):
        raise argparse.ArgumentTypeError(f"{text!r} is outside {w0}x{h0} to {w1}x{h1}")
    return width, height


def _fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 50:  # a GIF frame lasts at least 20 ms
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of frames per second in (0, 50]")
    return value


def _frames(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_FRAMES:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to {MAX_FRAMES}")
    return value


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``timelapse`` to the CLI's subcommands."""
    p = sub.add_parser("timelapse", help="a training run's attention as an animated GIF, MP4 or PNG frames",
                       description="A run directory's attention snapshots beside its loss curve, one frame per "
                                   "snapshot (evenly thinned to --max-frames), drawn as File → Export training "
                                   "time-lapse draws them.")
    p.add_argument("run", metavar="RUN_DIR", help="a run directory (train --run-dir DIR, or a run the app recorded)")
    p.add_argument("--out", required=True, metavar="FILE", help="FILE.gif, FILE.mp4 (pip install "
                   "'attention-explorer[video]') or FILE.png (numbered frames FILE_0001.png, …)")
    p.add_argument("--kind", choices=ATTENTION_KINDS, default=DEFAULT_KIND,
                   help="which attention maps (default: %(default)s)")
    p.add_argument("--head", type=_head, metavar="LAYER,HEAD",
                   help="one head, counted from 1 (default: every head of --kind, tiled: rows layers, columns heads)")
    p.add_argument("--fps", type=_fps, default=DEFAULT_FPS, metavar="N", help="frames per second (default: "
                   "%(default)s)")
    p.add_argument("--max-frames", type=_frames, default=DEFAULT_MAX_FRAMES, metavar="N",
                   help="at most N snapshots, evenly spread, first and last kept (default: %(default)s)")
    p.add_argument("--size", type=_size, default=(960, 540), metavar="WxH", help="frame size in pixels "
                   "(default: 960x540; an MP4's is rounded down to even numbers)")
    p.add_argument("--dark", action="store_true", help="dark background")
    p.add_argument("--palette", choices=PALETTES, default="standard",
                   help="colour map: standard (viridis) or colour_blind (cividis) (default: %(default)s)")
    add_json(p)
    return p


def read_history(path: str | os.PathLike[str], max_frames: int | None) -> tuple[list[Any], np.ndarray, int, list[str]]:
    """The snapshots of run ``path`` to draw (at most ``max_frames``, evenly spread), its per-step loss rows
    ``(n, 4)`` (step, epoch, seconds, loss), the number of snapshot files, and warnings about what was left out."""
    from explorer.core.runs.loss_record import rows_from_metrics
    from explorer.core.runs.run_dir import SNAPSHOTS, RunDirError, is_run_dir, read_metrics, read_run_json, \
        read_snapshot, snapshot_files
    from explorer.core.runs.timelapse import subsample

    p = Path(path)
    if p.exists() and not is_run_dir(p):
        owner = next((d for d in p.parents[:2] if is_run_dir(d)), None)
        if owner is not None:
            raise CliError(f"{p} is inside the run directory {owner}: give the run directory itself")
    if p.is_file():
        raise CliError(f"{p} is a file, not a run directory: a saved model holds no attention history, so a "
                       f"time-lapse needs the run directory it was trained in (train --run-dir DIR records one)")
    if p.is_dir() and not is_run_dir(p):
        raise CliError(f"{p} is not a run directory (it has no run.json); a time-lapse needs the snapshots of a "
                       f"run directory (train --run-dir DIR records one)")
    read_run_json(p)  # RunDirError: missing, damaged, a newer format
    files = snapshot_files(p / SNAPSHOTS)
    if not files:
        raise CliError(f"the run in {p} has no attention snapshots yet, so there is nothing to make a time-lapse of")
    snapshots, damaged = [], 0
    for index in subsample(len(files), max_frames):
        try:
            snapshots.append(read_snapshot(files[index][1]))
        except RunDirError:
            damaged += 1  # damaged, or thinned away by a run still training
    if not snapshots:
        raise CliError(f"none of the {len(files)} attention snapshots of the run in {p} could be read")
    warnings = [f"{damaged} snapshot file(s) could not be read and were left out"] if damaged else []
    records = read_metrics(p)
    try:
        rows = rows_from_metrics(records)
    except (KeyError, TypeError, ValueError):  # a damaged step line: read line by line, leaving it out
        kept = []
        for record in records:
            try:
                kept.append(rows_from_metrics([record]))
            except (KeyError, TypeError, ValueError):
                continue
        rows = np.concatenate(kept) if kept else np.zeros((0, 4))
        warnings.append(f"{len(records) - len(kept)} damaged line(s) of metrics.jsonl were left out of the loss curve")
    return snapshots, rows, len(files), warnings


def _check_out(out: str) -> tuple[Path, str]:
    """The output path and its format; refuses an unknown suffix, a missing extra, a folder that is not there."""
    from explorer.render.timelapse_files import available_formats, format_of

    path = Path(out).expanduser()
    fmt = format_of(path)
    if fmt is None:
        raise CliError(f"--out {out}: the file name must end in .gif, .mp4 or .png")
    if fmt not in available_formats():
        extra = "pip install 'attention-explorer[video]'" if fmt == "mp4" else "pip install pillow"
        raise CliError(f"--out {out}: writing {fmt.upper()} needs an optional package: {extra}")
    if path.is_dir():
        raise CliError(f"--out {out} is a folder; give a file name")
    if not path.parent.is_dir():
        why = "is not a folder" if path.parent.exists() else "does not exist"
        raise CliError(f"--out {out}: {path.parent} {why}")
    if not os.access(path.parent, os.W_OK):
        raise CliError(f"--out {out}: cannot write in {path.parent} (permission denied)")
    return path, fmt


def _png_names(path: Path, count: int) -> list[Path]:
    """The files ``timelapse_files.write_png_frames`` writes for ``count`` frames."""
    return [path.with_name(f"{path.stem}_{i:04d}.png") for i in range(1, count + 1)]


def run(args: argparse.Namespace) -> int:
    """``timelapse``: read the run, draw every frame offscreen, encode, print a summary."""
    from explorer.core.runs.timelapse import build_timelapse

    t0 = time.perf_counter()
    path, fmt = _check_out(args.out)
    snapshots, rows, available, warnings = read_history(args.run, args.max_frames)
    layers, heads = snapshots[-1].maps[args.kind].shape[:2]  # (L, h, Tq, Tk)
    if args.head is not None and not (args.head[0] < layers and args.head[1] < heads):
        raise CliError(f"--head {args.head[0] + 1},{args.head[1] + 1}: the run's model has {layers} layer(s) of "
                       f"{heads} head(s)")
    try:
        lapse = build_timelapse(snapshots, rows[:, 0], rows[:, 3], args.kind, args.head)
    except ValueError as exc:  # snapshots that do not agree with each other
        raise CliError(f"the run in {args.run} cannot be drawn: {exc}") from exc
    width, height = args.size
    if fmt == "mp4":  # yuv420p needs even sides (the GUI's export rounds the same way)
        width, height = width - width % 2, height - height % 2
    if len(lapse.frames) * width * height * 3 > MAX_FRAME_BYTES:
        raise CliError(f"{len(lapse.frames)} frames of {width}x{height} would need more than "
                       f"{MAX_FRAME_BYTES // 2**30} GB of memory; use a smaller --size or --max-frames")
    log = sys.stderr
    for warning in warnings:
        print(f"warning: {warning}", file=log)
    what = f"layer {args.head[0] + 1}, head {args.head[1] + 1}" if args.head else "every head"
    print(f"drawing {len(lapse.frames)} frames of {available} snapshots at {width}x{height} "
          f"({args.kind}, {what})", file=log, flush=True)
    frames = _draw(lapse, (width, height), args.dark, args.palette, log)
    print(f"encoding {fmt.upper()} ...", file=log, flush=True)
    written = _encode(frames, path, fmt, args.fps)
    size = sum(f.stat().st_size for f in written)
    seconds = time.perf_counter() - t0
    summary = {"run": str(args.run), "out": str(written[0]), "format": fmt, "files": len(written),
               "frames": len(frames), "snapshots": available, "kind": args.kind,
               "head": None if args.head is None else [args.head[0] + 1, args.head[1] + 1], "fps": args.fps,
               "width": width, "height": height, "bytes": size, "seconds": round(seconds, 3)}
    if args.json:
        print_json(summary)
    else:
        shown = f"{written[0]} ... {written[-1].name}" if len(written) > 1 else str(written[0])
        print(f"wrote {shown}: {len(frames)} frames, {width}x{height}, {size:,} bytes, {seconds:.1f} s")
    return 0


def _draw(lapse: Any, size: tuple[int, int], dark: bool, palette: str, log: Any) -> list[np.ndarray]:
    """Every frame of ``lapse`` as ``(H, W, 3)`` uint8, drawn by ``render_frame`` (as the GUI draws) on an offscreen
    QGuiApplication (created here when none exists)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no display needed (a user's own choice is kept)
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0] if sys.argv else "attention-explorer-cli"])
    from explorer.render.colormaps import lookup_table
    from explorer.render.timelapse_files import qimage_rgb
    from explorer.render.timelapse_frame import render_frame

    lut = lookup_table("viridis", palette)
    total = len(lapse.frames)
    every = max(1, total // 10)
    frames = []
    for done, frame in enumerate(lapse.frames, start=1):
        frames.append(qimage_rgb(render_frame(lapse, frame, lut, size, dark)))
        if done % every == 0 or done == total:
            print(f"  frame {done}/{total}", file=log, flush=True)
    del app  # held while drawing; the frames are plain arrays now
    return frames


def _encode(frames: list[np.ndarray], path: Path, fmt: str, fps: float) -> list[Path]:
    """Write ``frames`` with the encoder the GUI uses; returns the files. Nothing half-written stays on failure."""
    from explorer.render.timelapse_files import encode

    names = _png_names(path, len(frames)) if fmt == "png" else [path]
    existed = {p for p in names if p.exists()}
    try:
        encode(frames, path, fmt, fps)  # a GIF or MP4 is written under a temporary name and renamed
    except BaseException as exc:
        if fmt == "png":  # frames written before the failure would pose as a complete export
            for p in names:
                if p not in existed:
                    p.unlink(missing_ok=True)
        if isinstance(exc, (OSError, RuntimeError, ValueError)):
            raise CliError(f"could not write {path}: {getattr(exc, 'strerror', None) or exc}") from exc
        raise
    return names
