"""Process-wide switches the GUI flips, in one place, each with its measured reason and always restored.

Nothing else in ``explorer/ui`` changes the garbage collector (which runs on the GUI thread only, see
:func:`collect_garbage_on_gui_thread`), the interpreter's switch interval, torch's
thread count or the global thread pool. (Training runs in a child process now, so the GUI process no
longer lowers torch's thread count or the GIL switch interval while it trains.)
"""
from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication, QObject

#: Worker threads of Qt's global pool: a training run's event reader holds one for the whole run, and a
#: dataset load, a model read and the explore panels' recomputation must not wait behind it (the pool
#: defaults to the core count, 2 on the build machine). The extra threads sleep unless given work.
MIN_POOL_THREADS = 6

def training_threads() -> int | None:
    """torch's intra-op threads for the studio's training process: one core is left to the GUI process.

    Measured on the 2-core build machine (book settings, /tmp A/B of the studio, two rounds, shared machine):
    the child trained at 14.6k/14.8k tokens/s with 2 threads while the GUI drew, 35.0k/31.0k with 1 (the engine
    alone: 22.0k/1.3k with 2 threads, 36.8k/34.3k with 1). An OpenMP team whose threads wait for each other at
    every barrier stalls whenever another process takes one of its cores; the book's model is too small for a
    second thread to pay. None (torch's default) on a single core.
    """
    cores = os.cpu_count() or 1
    return max(1, cores - 1) if cores > 1 else None


_GC_LOCK = threading.Lock()
_GC_HOLDERS = [0]
_AUTOMATIC_GC = [True]  # False once the GUI thread runs every collection
_COLLECTOR: list[QObject] = []

#: The GUI-thread collector looks at the allocation counts this often, and walks every generation at most this
#: often (the automatic collector's own rule for a full walk, long-lived objects grown by a quarter, is not
#: visible from Python; a full walk of a big heap holds the GIL for 80-350 ms).
GC_CHECK_MS = 100
FULL_GC_EVERY_S = 10.0


def reserve_worker_threads(minimum: int = MIN_POOL_THREADS) -> None:
    """Let Qt's global thread pool run at least ``minimum`` jobs at once (never lowers it)."""
    from PySide6.QtCore import QThreadPool

    pool = QThreadPool.globalInstance()
    if pool.maxThreadCount() < minimum:
        pool.setMaxThreadCount(minimum)


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a worker builds millions of small objects.

    Its full collections hold the GIL for 80–150 ms each (measured: five of them while reading a 235k-line
    file on a worker thread), so the GUI thread stalled although the work ran elsewhere. Nested and
    concurrent uses nest; the collector is enabled again when the last one ends, however it ends.
    """
    with _GC_LOCK:
        _GC_HOLDERS[0] += 1
        if _GC_HOLDERS[0] == 1 and _AUTOMATIC_GC[0]:
            gc.disable()
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_HOLDERS[0] -= 1
            if _GC_HOLDERS[0] == 0 and _AUTOMATIC_GC[0]:
                gc.enable()


def collect_garbage_on_gui_thread(app: QCoreApplication) -> QObject:
    """Run Python's cyclic garbage collector on the GUI thread only; returns the object that does it (once per
    process: a second call returns the first one).

    A collection frees the cycles it finds, Qt objects among them, on whichever thread happened to allocate
    past the collector's threshold. A widget freed that way on a worker thread crashes the whole process (seen
    here: a segmentation fault while a worker built a model, "pure virtual method called" while the GUI
    processed events). So automatic collection is switched off, and a timer of the GUI thread collects whenever
    the allocation counts pass the collector's own thresholds, as it would have; never while
    :func:`cyclic_gc_paused` holds it.
    """
    if _COLLECTOR:
        return _COLLECTOR[0]
    from PySide6.QtCore import QObject, QTimer

    class GuiThreadCollector(QObject):
        """Collects garbage from a GUI-thread timer, one generation at a time, as the counts say."""

        def __init__(self, parent: QObject) -> None:
            super().__init__(parent)
            self.last_full = time.monotonic()
            self.timer = QTimer(self)
            self.timer.setInterval(GC_CHECK_MS)
            self.timer.timeout.connect(self._on_timer_timeout)
            self.timer.start()

        def _on_timer_timeout(self) -> None:
            self.collect_due()

        def collect_due(self) -> int:
            """Collect the generation the counts ask for (-1: none); returns it."""
            with _GC_LOCK:
                if _GC_HOLDERS[0]:
                    return -1
            counts, limits = gc.get_count(), gc.get_threshold()
            if counts[0] <= limits[0]:
                return -1
            generation = 1 if counts[1] > limits[1] else 0
            if counts[2] > limits[2] and time.monotonic() - self.last_full >= FULL_GC_EVERY_S:
                generation = 2
                self.last_full = time.monotonic()
            gc.collect(generation)
            return generation

    with _GC_LOCK:
        _AUTOMATIC_GC[0] = False
        gc.disable()
    collector = GuiThreadCollector(app)
    _COLLECTOR.append(collector)
    return collector


def freeze_long_lived_objects() -> None:
    """Put every object alive now beyond the cyclic collector's reach (``gc.freeze``).

    Importing transformers doubles the objects the collector walks (~210k → ~440k), and a full collection then
    holds the GIL for ~350 ms (measured), a GUI stall at some random later moment (a thumbnail click). Frozen
    modules and classes are never walked again. Call it right after such an import, inside the
    :func:`cyclic_gc_paused` block that made it (resumed first, the collector would walk them all at once: a
    ~290 ms stall measured); no collection runs first, so garbage cycles alive at that moment stay (a few kB).
    """
    gc.freeze()
