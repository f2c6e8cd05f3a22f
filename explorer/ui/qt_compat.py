"""Work-arounds for bugs and costs of the Qt binding (PySide6), each a no-op where the cause is absent.

``guard_pyside_refcounts`` and ``quicken_feature_scan`` are meant to be called once at app start,
``remember_plain_import`` before PySide6 is first imported (this module imports no Qt until asked).
"""
from __future__ import annotations

import builtins
import ctypes
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

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
    from PySide6.QtCore import QObject

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


#: Python's own ``builtins.__import__``, kept by :func:`remember_plain_import` before PySide6 replaced it.
_PLAIN_IMPORT: list[Callable[..., Any]] = []
_HOOK_NAME = "__feature_import__"  # PySide's replacement of ``builtins.__import__``
_HOOKED_PACKAGES = ("PySide6", "shiboken6")  # star imports from these still take PySide's hook


def remember_plain_import() -> None:
    """Keep Python's own ``__import__`` for :func:`plain_imports`; the app's entry point calls this before it
    imports PySide6 (called once PySide's hook is in place, or a second time, it keeps nothing)."""
    current = builtins.__import__
    if not _PLAIN_IMPORT and getattr(current, "__name__", "") == "__import__":
        _PLAIN_IMPORT.append(current)


@contextmanager
def plain_imports() -> Iterator[None]:
    """Import with Python's own ``__import__`` inside the block, PySide's ``__feature__`` hook kept only for the
    imports that need it.

    Once PySide6 is imported, every import statement runs through PySide's hook (a look at the calling frame, then
    a scan of each new module): ~50 ms of the scoring panel's load, torch's import inside it, measured (0.714 →
    0.662 s, medians of six interleaved starts). The hook serves ``from __feature__ import …`` and star imports
    (``from PySide6.QtCore import *`` misses the names of PySide's lazily loaded modules without it: qtpy's, first
    imported in the block, failed), so inside the block star imports from PySide6 still go to it and the rest
    (numpy's own star imports among them) to Python's own.
    A module that selects PySide features (``from __feature__ import snake_case``) must not be imported in the
    block: PySide would not see it ask (neither the app nor the libraries it uses write one). The switch is
    process-wide: other threads' imports meanwhile take the same way, served alike. Does nothing unless
    :func:`remember_plain_import` ran before PySide6's import and PySide's hook is the one in place.
    """
    hook = builtins.__import__
    if not _PLAIN_IMPORT or getattr(hook, "__name__", "") != _HOOK_NAME:
        yield
        return
    plain = _PLAIN_IMPORT[0]

    def import_module(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        fromlist = tuple(fromlist) if fromlist else ()
        if "*" in fromlist and level == 0 and name.partition(".")[0] in _HOOKED_PACKAGES:
            return hook(name, globals, locals, fromlist, level)
        return plain(name, globals, locals, fromlist, level)

    builtins.__import__ = import_module
    try:
        yield
    finally:
        builtins.__import__ = hook


def quicken_feature_scan() -> bool:
    """Let PySide6 tell whether a newly imported module mentions PySide6 by reading its file's bytes, instead of
    ``inspect.getsource``; returns whether the scan was replaced.

    Once ``PySide6.QtCore`` is imported, every later import (all of torch's ~1,100 modules) passes through
    PySide's ``__feature__`` hook, which asks ``inspect.getsource(module)`` and looks for "PySide6" in it: about
    0.4 ms a module, ~0.5 s of start-up here. The answer is the same from the raw bytes of the ``.py`` file;
    modules without one go to PySide's own scan as before.
    """
    try:
        from shibokensupport import feature  # PySide6's embedded support package
    except ImportError:
        return False
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None or getattr(original, "quickened", False):
        return False

    def mod_uses_pyside(module: ModuleType) -> bool:
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if isinstance(origin, str) and origin.endswith(".py"):
            try:
                with open(origin, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass
        return original(module)

    mod_uses_pyside.quickened = True  # type: ignore[attr-defined]
    feature._mod_uses_pyside = mod_uses_pyside
    return True
