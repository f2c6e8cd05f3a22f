"""Process-wide switches the GUI flips, in one place, each with its measured reason and always restored.

Nothing else in ``explorer/ui`` changes the garbage collector, the interpreter's switch interval, torch's
thread count or the global thread pool. (Training runs in a child process now, so the GUI process no
longer lowers torch's thread count or the GIL switch interval while it trains.)
"""
from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from explorer.core.runs.thread_tuner import available_cores, starting_threads

if TYPE_CHECKING:
    from explorer.core.training.config import TrainingConfig

#: Worker threads of Qt's global pool: a training run's event reader holds one for the whole run, and a
#: dataset load, a model read and the explore panels' recomputation must not wait behind it (the pool
#: defaults to the core count, 2 on the build machine). The extra threads sleep unless given work.
MIN_POOL_THREADS = 6

def training_threads(config: TrainingConfig | None = None) -> int | None:
    """torch's intra-op threads for the studio's training process to start with; its thread tuner then measures
    every core it may run on against every core but one, and moves to the other count only when it trains at least
    5 % faster (``thread_tuner.SWITCH_ABOVE``).

    For ``config``, :func:`~explorer.core.runs.thread_tuner.starting_threads`: every core for a model whose
    batches are large enough that torch splits its elementwise kernels too, else one core left to the GUI process (an
    OpenMP team whose threads wait for each other at every barrier stalls whenever the GUI takes one of its cores, and
    the book's model is too small for a second thread to pay). Without a config, every core but one. None (torch's
    default) on a single core.
    """
    cores = available_cores()
    if cores <= 1:
        return None
    if config is None:
        return cores - 1
    return starting_threads(config.batch_size, config.num_steps, config.model.num_hiddens, cores)


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
    """Pause Python's cyclic garbage collector while the app makes many objects that are not garbage.

    Its full collections hold the GIL for 80–150 ms each (measured: five of them while reading a 235k-line
    file on a worker thread), so the GUI thread stalled although the work ran elsewhere. Start-up and each panel's
    build run paused too, through :func:`making_lasting_objects` (~85 ms of collections in a ~1.8 s start, measured
    with ``gc.callbacks``). Nested and concurrent uses nest; the collector is enabled again when the last one ends,
    however it ends.
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


@contextmanager
def making_lasting_objects() -> Iterator[None]:
    """Around a block that makes objects the app keeps for good: start-up, a panel's build, a model's import.

    On the GUI thread the young generations are collected first (a few ms), so recent garbage made before the
    block is freed rather than frozen; older garbage, and all of it on a worker thread, is frozen with the rest (a
    collection on a worker may free Qt objects caught in a cycle, which deadlocked or crashed in the tests). The
    collector is paused while the block runs (:func:`cyclic_gc_paused`), and everything alive when it ends is put
    beyond the collector's reach (``gc.freeze``) before the collector resumes. Resumed first, the collector would
    walk it all at once (a ~290 ms stall measured after importing transformers, 63 ms after torch's import), and
    every full collection later would walk it again: importing transformers doubles the objects walked
    (~210k → ~440k, a ~350 ms stall at some later click, measured). No collection runs at the end, so garbage
    cycles the block itself left stay, frozen: ~0.9 MB in all at start-up, most of it from torch's import (6.6k
    objects, measured), against the ~60 ms a collection walking all that the block made would take.
    """
    if threading.current_thread() is threading.main_thread():
        gc.collect(1)
    with cyclic_gc_paused():
        yield
        gc.freeze()
