"""Load torch's CPU library on a side thread while the window shows its first panel, before anything imports torch.

``import torch`` spends ~150 ms (of ~600 ms) in the dynamic loader mapping, relocating and initialising
``libtorch_cpu`` (430 MB), with the GIL held. The loader needs no GIL: loaded ahead on another core, the import
later finds the library in memory and its own share drops to ~20 ms (measured, ``bench/startup.py``).

The load waits until the first panel has settled, because while the loader runs, glibc makes other threads
wait for it when they load a library, start or touch thread-local storage for the first time: the first panel's
own background job stalled for the whole load when both overlapped. The GUI thread's Python and Qt work goes on.
"""
from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Slot

from explorer.ui.shell.panel_walker import panel_busy
from explorer.ui.worker import function_worker

log = logging.getLogger(__name__)

#: The library's file name in ``torch/lib`` per platform where loading it ahead was measured: Linux (glibc). Not on
#: Windows (torch sets up its DLL folders first) nor macOS (unmeasured: its library also starts the MPS backend).
LIBRARY_NAMES = {"linux": "libtorch_cpu.so"}
POLL_MS = 10
#: Load anyway once the first panel has been busy this long (a studio following a run stays busy).
PATIENCE_MS = 3000


def torch_cpu_library() -> Path | None:
    """The installed torch's CPU library, found without importing torch; None where there is none to load."""
    name = LIBRARY_NAMES.get(sys.platform)
    spec = importlib.util.find_spec("torch") if name else None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "lib" / name
    return path if path.is_file() else None


def load_library(path: Path) -> bool:
    """``dlopen`` ``path`` with the flags Python's import would load it with, the GIL released; True if loaded.

    ctypes releases the GIL around a call into a foreign function, which ``ctypes.CDLL`` itself does not do.
    """
    try:
        dlopen = ctypes.CDLL(None).dlopen
    except (AttributeError, OSError):  # no dlopen in the process's own symbols
        return False
    dlopen.restype = ctypes.c_void_p
    dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
    return dlopen(os.fsencode(path), sys.getdlopenflags()) is not None


def torch_not_imported() -> bool:
    """True until someone imports torch (then there is nothing left to load ahead)."""
    return "torch" not in sys.modules


def load_torch_cpu_library() -> bool:
    """Load torch's CPU library unless torch is imported already or there is none; True if it was loaded now."""
    if not torch_not_imported():
        return False
    path = torch_cpu_library()
    return path is not None and load_library(path)


class TorchWarmup(QObject):
    """Loads torch's CPU library (``load``) on a worker (``ui.worker.function_worker``) once ``current_panel()`` has
    settled.

    :meth:`start` is called after the first paint, when the first panel has been built. Nothing happens once
    ``needed()`` is False: torch is imported already (the first panel needed it). ``done`` (a ``threading.Event``)
    is set when the load has ended, ``loaded`` says whether it loaded, ``seconds`` how long it took.
    """

    def __init__(self, current_panel: Callable[[], QObject | None], parent: QObject | None = None,
                 load: Callable[[], bool] = load_torch_cpu_library,
                 needed: Callable[[], bool] = torch_not_imported) -> None:
        super().__init__(parent)
        self._current_panel = current_panel
        self._load = load
        self._needed = needed
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._job: Any = None
        self.done = threading.Event()
        self.loaded: bool | None = None
        self.seconds: float | None = None

    def start(self) -> None:
        """Wait for the current panel to settle, then load (once; never when torch is imported already)."""
        if self._job is not None or self._timer.isActive() or not self._needed():
            return
        self._clock.start()
        self._timer.start()

    def is_waiting(self) -> bool:
        """True while it waits for the panel to settle."""
        return self._timer.isActive()

    @Slot()
    def _on_timer_timeout(self) -> None:
        if panel_busy(self._current_panel()) and self._clock.elapsed() < PATIENCE_MS:
            return
        self._timer.stop()
        if not self._needed():  # torch was imported while it waited
            return
        self._job = function_worker(self._run)
        self._job.start()

    def _run(self) -> None:
        """On the worker: touches no Qt object."""
        started = time.perf_counter()
        try:
            self.loaded = bool(self._load())
        except Exception:  # noqa: BLE001 - a failed warm-up costs nothing: the import loads the library itself
            log.debug("loading torch's library ahead failed", exc_info=True)
            self.loaded = False
        self.seconds = time.perf_counter() - started
        self.done.set()
