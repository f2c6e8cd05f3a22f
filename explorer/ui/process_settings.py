"""Process-wide switches the GUI flips, in one place, each with its measured reason and always restored.

Nothing else in ``explorer/ui`` changes the garbage collector, the interpreter's switch interval, torch's
thread count or the global thread pool. (Training runs in a child process now, so the GUI process no
longer lowers torch's thread count or the GIL switch interval while it trains.)
"""
from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

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
    second thread to pay. (Those figures predate 4eb6a35: until then a recorded run's checkpoint thread throttled
    every two-thread run after its first epoch, ``bench/omp_side_thread.py``.) This is where the training
    process's thread tuner starts; it measures every count against all cores and keeps the faster. None (torch's
    default) on a single core.
    """
    cores = os.cpu_count() or 1
    return max(1, cores - 1) if cores > 1 else None


_GC_LOCK = threading.Lock()
_GC_HOLDERS = [0]


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
        if _GC_HOLDERS[0] == 1:
            gc.disable()
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_HOLDERS[0] -= 1
            if _GC_HOLDERS[0] == 0:
                gc.enable()


def freeze_long_lived_objects(collect_young: bool = False) -> None:
    """Put every object alive now beyond the cyclic collector's reach (``gc.freeze``); with ``collect_young``, the
    young generations are collected first (a few ms), so recent garbage (a model just replaced) is not frozen too.

    Importing transformers doubles the objects the collector walks (~210k → ~440k), and a full collection then
    holds the GIL for ~350 ms (measured), a GUI stall at some random later moment (a thumbnail click). Frozen
    modules and classes are never walked again. Call it right after such an import, inside the
    :func:`cyclic_gc_paused` block that made it (resumed first, the collector would walk them all at once: a
    ~290 ms stall measured); no collection runs first, so garbage cycles alive at that moment stay (a few kB).
    """
    if collect_young:
        gc.collect(1)
    gc.freeze()
