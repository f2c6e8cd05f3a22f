"""Work-arounds for bugs in the Qt binding (PySide6), each a no-op where the bug is absent.

``guard_pyside_refcounts`` is meant to be called once at app start, before any widget paints.
"""
from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject

#: Extra references given to None/True/False by the guard; a leak of one per call never drains them.
_EXTRA_REFS = 1 << 40


def refs_leaked() -> bool:
    """True where PySide6 returns ``None``/``True`` from C++ without a new reference.

    PySide6 6.12.0 on CPython < 3.12 does, for every void method (``label.setText``) and every
    ``Signal.emit``: each call lowers the refcount of ``None`` or ``True`` by one, until the
    interpreter aborts ("none_dealloc"/"bool_dealloc: deallocating …") after some minutes of
    pyqtgraph painting. From 3.12 on these objects are immortal and the bug is harmless; PySide6 is
    pinned below 6.12 for now, so this normally answers False.
    """
    if sys.version_info >= (3, 12):
        return False
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(8):
        probe.setObjectName("probe")
    return sys.getrefcount(None) <= before - 8


def guard_pyside_refcounts() -> bool:
    """Make ``None``, ``True`` and ``False`` effectively immortal (as CPython 3.12+ does) where PySide6
    leaks their references; returns whether it had to.

    Does nothing (and returns False) when no leak is detected. Cheap; calling it again after it
    guarded adds nothing.
    """
    if not refs_leaked():
        return False
    for obj in (None, True, False):
        if sys.getrefcount(obj) < _EXTRA_REFS // 2:  # not guarded yet
            # ob_refcnt is the first field of every CPython object
            ctypes.c_ssize_t.from_address(id(obj)).value += _EXTRA_REFS
    return True
