"""Qt binding work-arounds: the PySide6 refcount guard detects the leak as an independent count does, is a
no-op without one, and once applied keeps a process alive through far more leaking calls than None had; the
quicker feature scan answers as PySide's own does and makes later imports cheaper; plain imports set PySide's
import hook aside only inside their block, never for star imports, and every panel loads under them."""
from __future__ import annotations

import os
import subprocess
import sys

import explorer.ui.qt_compat as qt_compat
from PySide6.QtCore import QObject


def _run(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


def test_detection_matches_a_direct_count() -> None:
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(1000):
        probe.setObjectName("x")
    leaking = before - sys.getrefcount(None) >= 1000 and sys.version_info < (3, 12)
    assert qt_compat.refs_leaked() is leaking


def test_no_op_when_no_leak_is_detected(monkeypatch) -> None:
    monkeypatch.setattr(qt_compat, "refs_leaked", lambda: False)
    before = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
    assert qt_compat.guard_pyside_refcounts() is False
    after = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
    assert all(abs(a - b) < 1000 for a, b in zip(after, before))


def test_guard_adds_references_once_when_a_leak_is_reported() -> None:
    """In a child process (the guard's references are permanent), with the leak reported as present."""
    out = _run(
        "import sys\n"
        "import explorer.ui.qt_compat as q\n"
        "q.refs_leaked = lambda: True\n"
        "before = sys.getrefcount(None)\n"
        "assert q.guard_pyside_refcounts() is True\n"
        "once = sys.getrefcount(None)\n"
        "assert q.guard_pyside_refcounts() is True\n"
        "print(once - before > (1 << 40) - 1000, abs(sys.getrefcount(None) - once) < 1000)\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]


def test_process_survives_many_void_calls_and_emits_after_the_guard() -> None:
    """PySide6 6.12.0 on Python 3.11 forgets a reference to None/True on each void call or emit; after the
    guard a process survives far more calls than None and True had references (harmless where no leak)."""
    out = _run(
        "import sys\n"
        "from PySide6.QtCore import QObject, Signal\n"
        "from explorer.ui.qt_compat import guard_pyside_refcounts\n"
        "n_none, n_true = sys.getrefcount(None) + 20000, sys.getrefcount(True) + 20000\n"
        "guarded = guard_pyside_refcounts()\n"
        "class O(QObject):\n"
        "    fired = Signal(object)\n"
        "o = O()\n"
        "for _ in range(n_none):\n"
        "    o.setObjectName('x')\n"
        "for _ in range(n_true):\n"
        "    o.fired.emit(1)\n"
        "print('ok', guarded)\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok")


def test_quicker_feature_scan_answers_as_pysides_own() -> None:
    """In a child process (the scan is replaced for good): the same answer for every module imported, and PySide's
    bookkeeping still sees a module that mentions PySide6 as one (0) and torch's modules as not (-1)."""
    out = _run(
        "import sys, types\n"
        "import PySide6.QtCore\n"
        "from shibokensupport import feature\n"
        "original = feature._mod_uses_pyside\n"
        "from explorer.ui.qt_compat import quicken_feature_scan\n"
        "assert quicken_feature_scan() is True and quicken_feature_scan() is False\n"
        "import numpy, torch\n"
        "def ask(scan, module):\n"
        "    try:\n"
        "        return scan(module)\n"
        "    except Exception:\n"
        "        return 'raised'\n"
        "mods = [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]\n"
        "differ = [m.__name__ for m in mods if ask(original, m) != ask(feature._mod_uses_pyside, m)]\n"
        "d = feature.pyside_feature_dict\n"
        "print(len(mods) > 500, differ, d.get('explorer.ui.qt_compat'), d.get('torch'))\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "[]", "0", "-1"]


def test_quicker_feature_scan_reads_less() -> None:
    """The replaced scan reads a ``.py`` module's bytes instead of asking ``inspect`` for its source (extension
    modules, which have none, still go to PySide's scan, which gives up at once)."""
    out = _run(
        "import inspect, time\n"
        "import PySide6.QtCore\n"
        "from shibokensupport import feature\n"
        "from explorer.ui.qt_compat import quicken_feature_scan\n"
        "calls = []\n"
        "real = inspect.getsource\n"
        "def counted(obj):\n"
        "    if str(getattr(getattr(obj, '__spec__', None), 'origin', '')).endswith('.py'):\n"
        "        calls.append(obj)\n"
        "    return real(obj)\n"
        "inspect.getsource = counted\n"
        "import json.decoder, email.message\n"
        "before = len(calls)\n"
        "quicken_feature_scan()\n"
        "import email.parser, http.client\n"
        "print(before > 0, len(calls) == before)\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]


def test_plain_imports_set_pysides_hook_aside_only_inside_the_block() -> None:
    """In a child process started as the entry point starts (the plain import remembered before PySide6): inside
    the block a plain import skips PySide's hook, a star import still takes it (qtpy, first imported there, sees
    every name of PySide's lazily loaded modules), and after the block the hook is back, also after an error."""
    out = _run(
        "import builtins\n"
        "from explorer.ui.qt_compat import plain_imports, remember_plain_import\n"
        "plain = builtins.__import__\n"
        "with plain_imports():\n"
        "    untouched = builtins.__import__ is plain\n"
        "remember_plain_import()\n"
        "import PySide6.QtCore\n"
        "hook = builtins.__import__\n"
        "seen = []\n"
        "def spy(*args, **kwargs):\n"
        "    seen.append(args[0])\n"
        "    return hook(*args, **kwargs)\n"
        "builtins.__import__ = spy\n"
        "from explorer.ui import qt_compat\n"
        "with plain_imports():\n"
        "    pass\n"
        "print('spied-on', builtins.__import__ is spy)\n"  # not PySide's hook: left alone
        "builtins.__import__ = hook\n"
        "with plain_imports():\n"
        "    inside = builtins.__import__ is not hook\n"
        "    builtins.__import__('email.parser')\n"
        "    import qtpy.QtCore, qtpy.QtWidgets\n"
        "names = {}\n"
        "exec('from PySide6.QtCore import *', names)\n"
        "try:\n"
        "    with plain_imports():\n"
        "        raise KeyError\n"
        "except KeyError:\n"
        "    pass\n"
        "print(untouched, hook is not plain, inside, builtins.__import__ is hook, 'QEventLoop' in names,\n"
        "      qtpy.QtCore.QEventLoop is PySide6.QtCore.QEventLoop)\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["spied-on", "True", "True", "True", "True", "True", "True", "True"]


def test_every_panel_loads_with_plain_imports_as_the_app_loads_it() -> None:
    """Started as the entry point starts, every panel's module (torch, pyqtgraph's and superqt's parts among
    their imports) loads inside the block and its class is a panel."""
    out = _run(
        "from explorer.ui.qt_compat import plain_imports, remember_plain_import\n"
        "remember_plain_import()\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from explorer.ui.panels.base_panel import BasePanel\n"
        "from explorer.ui.shell.panel_registry import PANELS, load_panel_class\n"
        "with plain_imports():\n"
        "    classes = [load_panel_class(spec.target) for spec in PANELS]\n"
        "print(len(classes) == len(PANELS) > 5, all(issubclass(c, BasePanel) for c in classes))\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]


def test_the_entry_point_loads_the_app_past_pysides_hook() -> None:
    """``launch.load_app`` imports the GUI's modules (and superqt's, qtpy's star imports served by the hook) without
    PySide's scan of each new module, and pyqtgraph's import for the first panel passes it by too."""
    out = _run(
        "from explorer.ui.qt_compat import remember_plain_import\n"
        "remember_plain_import()  # as load_app does first\n"
        "import PySide6.QtCore\n"
        "from shibokensupport import feature\n"
        "scanned = []\n"
        "original = feature._mod_uses_pyside\n"
        "feature._mod_uses_pyside = lambda module: (scanned.append(module.__name__), original(module))[1]\n"
        "from explorer.launch import load_app\n"
        "del scanned[:]  # the test's own imports\n"
        "run_app = load_app()\n"
        "from explorer.ui import theme\n"
        "theme.configure_pyqtgraph(False)\n"
        "ours = [name for name in scanned if name.startswith(('explorer', 'pyqtgraph', 'numpy'))\n"
        "        and name not in ('explorer.ui', 'explorer.ui.qt_compat')]  # imported by this script\n"
        "import qtpy.QtCore\n"
        "print(callable(run_app), ours == [], qtpy.QtCore.QEventLoop is PySide6.QtCore.QEventLoop)\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True", "True"]


def test_plain_imports_do_nothing_when_the_plain_import_was_not_kept_first() -> None:
    """Started another way (PySide6 imported before the entry point could keep Python's own import), the hook stays."""
    out = _run(
        "import builtins\n"
        "import PySide6.QtCore\n"
        "from explorer.ui.qt_compat import plain_imports, remember_plain_import\n"
        "remember_plain_import()\n"
        "hook = builtins.__import__\n"
        "with plain_imports():\n"
        "    print(builtins.__import__ is hook)\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True"]
