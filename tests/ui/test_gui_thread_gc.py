"""Python's cyclic garbage collector runs on the GUI thread only: a Qt object in a reference cycle is freed by
a GUI-thread timer, never by a worker thread that happens to allocate past the threshold."""
from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from explorer.ui.process_settings import collect_garbage_on_gui_thread, cyclic_gc_paused


def test_automatic_collection_is_off_and_a_gui_timer_collects(qapp, qtbot) -> None:  # type: ignore[no-untyped-def]
    collector = collect_garbage_on_gui_thread(qapp)
    assert collect_garbage_on_gui_thread(qapp) is collector  # once per process
    assert not gc.isenabled()

    freed_on: list[str] = []

    class Cyclic(QObject):
        def __del__(self) -> None:
            freed_on.append(threading.current_thread().name)

    obj = Cyclic()
    obj.me = obj  # a cycle: only the cyclic collector frees it
    ref = weakref.ref(obj)
    del obj
    kept: list[list[object]] = []
    worker = threading.Thread(target=lambda: kept.extend([] for _ in range(5_000)), name="allocating-worker")
    worker.start()  # its allocations pass generation 0's threshold: an automatic collection would run there
    worker.join()
    assert ref() is not None  # the worker collected nothing
    qtbot.waitUntil(lambda: ref() is None, timeout=5000)
    assert freed_on == [threading.main_thread().name]
    assert len(kept) == 5_000


def test_a_paused_collector_stays_off_after_the_pause(qapp) -> None:  # type: ignore[no-untyped-def]
    collector = collect_garbage_on_gui_thread(qapp)
    garbage = [[] for _ in range(5_000)]  # past generation 0's threshold
    with cyclic_gc_paused():
        assert collector.collect_due() == -1  # a worker asked for no collection meanwhile
    assert not gc.isenabled()  # the pause does not switch automatic collection back on
    assert collector.collect_due() >= 0
    del garbage
