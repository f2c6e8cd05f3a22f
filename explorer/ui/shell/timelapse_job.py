"""The GUI's time-lapse job: draws the frames one per event-loop turn on the GUI thread (the window stays live),
then encodes them on a worker (:mod:`explorer.render.timelapse_files`)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal, Slot

from explorer.core.runs.timelapse import Timelapse
from explorer.render.timelapse_files import encode, qimage_rgb
from explorer.render.timelapse_frame import render_frame
from explorer.ui.worker import function_worker


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
