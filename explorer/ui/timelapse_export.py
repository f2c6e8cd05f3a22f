"""Write a training time-lapse: frames are drawn one per event-loop turn on the GUI thread, then encoded on a
worker as an animated GIF (Pillow), an MP4 (``imageio-ffmpeg``, optional) or numbered PNG files.

Every file is written under a temporary name and renamed (DESIGN rule 7).
"""
from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import re
from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, QTimer, Signal, Slot
from PySide6.QtGui import QImage

from explorer.core.atomic_file import atomic_path
from explorer.core.runs.timelapse import Timelapse
from explorer.ui.timelapse_render import render_frame
from explorer.ui.worker import function_worker

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


class TimelapseJob(QObject):
    """Draws and writes a time-lapse; connect the signals, then :meth:`start`.

    Signals
    -------
    progressed(int, int): frames drawn so far and the number of frames.
    finished(object): the ``Path`` written.
    failed(str): why nothing was written (fit for users).
    """

    progressed = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, timelapse: Timelapse, lut: np.ndarray, path: str | os.PathLike[str], fmt: str, fps: float,
                 size: tuple[int, int] = (960, 540), dark: bool = False, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timelapse, self.path, self.fmt, self.fps = timelapse, Path(path), fmt, fps
        self._lut, self._size, self._dark = lut, (size[0] - size[0] % 2, size[1] - size[1] % 2), dark
        self.frames: list[np.ndarray] = []
        self._worker: Any = None
        self.running = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        """Draw the first frame on the next event-loop turn."""
        self.running = True
        self._timer.start()

    def cancel(self) -> None:
        """Stop drawing (an encoding already started finishes, its result is ignored)."""
        self.running = False
        self._timer.stop()
        if self._worker is not None:
            for signal in (self._worker.returned, self._worker.errored):
                signal.disconnect()
            self._worker = None

    @Slot()
    def _on_timer_timeout(self) -> None:
        if not self.running:
            return
        frame = self.timelapse.frames[len(self.frames)]
        self.frames.append(qimage_rgb(render_frame(self.timelapse, frame, self._lut, self._size, self._dark)))
        self.progressed.emit(len(self.frames), len(self.timelapse.frames))
        if len(self.frames) < len(self.timelapse.frames):
            self._timer.start()
            return
        worker = function_worker(encode, self.frames, self.path, self.fmt, self.fps)
        worker.returned.connect(self._on_worker_returned)
        worker.errored.connect(self._on_worker_errored)
        self._worker = worker
        worker.start()

    @Slot(object)
    def _on_worker_returned(self, path: object) -> None:
        self.running, self._worker = False, None
        self.finished.emit(path)

    @Slot(object)
    def _on_worker_errored(self, exc: object) -> None:
        self.running, self._worker = False, None
        self.failed.emit(self.tr("Could not write the time-lapse: {error}").format(error=exc))
