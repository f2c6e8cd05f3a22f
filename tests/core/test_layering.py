"""explorer.core must load without any Qt module (DESIGN rule 1)."""
from __future__ import annotations

import subprocess
import sys

CHECK = r"""
import importlib, pkgutil, sys
import explorer.core as core
for mod in pkgutil.iter_modules(core.__path__):
    importlib.import_module(f"explorer.core.{mod.name}")
import explorer.paths
bad = sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6', 'shiboken6', 'pyqtgraph', 'superqt', 'qtpy', 'PyQt5', 'PyQt6'} or m.startswith('explorer.ui'))
print(len(list(pkgutil.iter_modules(core.__path__))))
assert not bad, bad
"""


def test_core_imports_no_qt() -> None:
    """Import every module of explorer.core in a fresh interpreter; no Qt module may load."""
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) >= 1
