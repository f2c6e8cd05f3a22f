"""The files of a training time-lapse: its frames, ``(H, W, 3)`` uint8 arrays, encoded as an animated GIF
(Pillow), an MP4 (``imageio-ffmpeg``, optional) or numbered PNG files; every file is written under a temporary
name and renamed (DESIGN rule 7). No widgets: the GUI and the CLI both write through here."""
from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import re
from pathlib import Path
from typing import Callable

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QImage

from explorer.core.atomic_file import atomic_path

FORMAT_NAMES = {"gif": QT_TRANSLATE_NOOP("Timelapse", "Animated GIF"),
                "mp4": QT_TRANSLATE_NOOP("Timelapse", "MP4 video"),
                "png": QT_TRANSLATE_NOOP("Timelapse", "PNG frames")}  # translate("Timelapse", …) them


def available_formats() -> list[str]:
    """The formats this installation can write: GIF needs Pillow, MP4 needs ``imageio-ffmpeg``."""
    found = {"gif": importlib.util.find_spec("PIL") is not None,
             "mp4": importlib.util.find_spec("imageio_ffmpeg") is not None, "png": True}
    return [fmt for fmt in FORMAT_NAMES if found[fmt]]


def format_of(path: str | os.PathLike[str]) -> str | None:
    """``gif``, ``mp4`` or ``png`` from the file's suffix, or None."""
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in FORMAT_NAMES else None


def qimage_rgb(image: QImage) -> np.ndarray:
    """A copy of ``image``'s pixels as ``(H, W, 3)`` uint8 RGB."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    h, w, stride = rgb.height(), rgb.width(), rgb.bytesPerLine()
    data = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=stride * h).reshape(h, stride)  # (H, stride)
    return data[:, : 3 * w].reshape(h, w, 3).copy()  # (H, W, 3)


def _atomic(path: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` for a temporary file beside ``path`` (same suffix), then rename it to ``path``."""
    with atomic_path(path) as tmp:
        write(tmp)
    return path


def write_gif(frames: list[np.ndarray], path: str | os.PathLike[str], fps: float) -> Path:
    """An animated GIF of ``frames`` (each ``(H, W, 3)`` uint8), looping, ``fps`` frames per second."""
    from PIL import Image

    pictures = [Image.fromarray(f).quantize(colors=255, method=Image.Quantize.MEDIANCUT) for f in frames]
    duration = max(20, round(1000 / fps))  # ms per frame; browsers slow down anything faster than 20 ms

    def write(tmp: Path) -> None:
        pictures[0].save(tmp, format="GIF", save_all=True, append_images=pictures[1:], duration=duration, loop=0)

    return _atomic(Path(path), write)


def write_mp4(frames: list[np.ndarray], path: str | os.PathLike[str], fps: float) -> Path:
    """An H.264 MP4 of ``frames`` (each ``(H, W, 3)`` uint8, even width and height) through ``imageio-ffmpeg``."""
    import imageio_ffmpeg

    h, w = frames[0].shape[:2]

    def write(tmp: Path) -> None:
        writer = imageio_ffmpeg.write_frames(str(tmp), (w, h), fps=fps, codec="libx264", pix_fmt_out="yuv420p",
                                             macro_block_size=2, quality=8)
        writer.send(None)  # start ffmpeg
        try:
            for frame in frames:
                writer.send(np.ascontiguousarray(frame).tobytes())
        finally:
            writer.close()

    return _atomic(Path(path), write)


def write_png_frames(frames: list[np.ndarray], path: str | os.PathLike[str]) -> list[Path]:
    """``frames`` as ``<stem>_0001.png``, ``<stem>_0002.png``, … beside ``path``; returns the files. Frames
    numbered higher, left by an earlier export of more frames to the same name, are deleted afterwards."""
    from PySide6.QtGui import QImage as Image

    path, written = Path(path), []
    for i, frame in enumerate(frames, start=1):
        h, w = frame.shape[:2]
        image = Image(frame.data, w, h, 3 * w, Image.Format.Format_RGB888)
        target = path.with_name(f"{path.stem}_{i:04d}.png")

        def write(tmp: Path, picture: QImage = image) -> None:
            if not picture.save(str(tmp), "PNG"):
                raise OSError(f"could not write {tmp}")

        written.append(_atomic(target, write))
    _remove_stale_frames(path, len(written))
    return written


def _remove_stale_frames(path: Path, count: int) -> None:
    """Delete the frames ``<stem>_NNNN.png`` numbered above ``count`` beside ``path``: the rest of an earlier,
    longer export to the same name, which would otherwise pose as part of this one. Only names this writer
    makes are touched."""
    pattern = re.compile(re.escape(path.stem) + r"_(\d{4,})\.png")
    for candidate in path.parent.glob(f"{glob.escape(path.stem)}_*.png"):
        found = pattern.fullmatch(candidate.name)
        if found and int(found[1]) > count and found[1] == f"{int(found[1]):04d}":
            with contextlib.suppress(OSError):  # this export is complete either way
                candidate.unlink()


def encode(frames: list[np.ndarray], path: str | os.PathLike[str], fmt: str, fps: float) -> Path:
    """Write ``frames`` as ``fmt`` (``gif``/``mp4``/``png``); returns the file (the first frame for PNG)."""
    if fmt == "gif":
        return write_gif(frames, path, fps)
    if fmt == "mp4":
        return write_mp4(frames, path, fps)
    return write_png_frames(frames, path)[0]
