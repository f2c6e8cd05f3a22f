"""Loading torch's CPU library ahead: the library torch then uses, and waiting for the first panel to settle."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from explorer.ui.shell.torch_warmup import LIBRARY_NAMES, TorchWarmup, torch_cpu_library
from explorer.ui.worker import LatestOnlyRunner

ROOT = Path(__file__).resolve().parents[2]
needs_loader = pytest.mark.skipif(sys.platform not in LIBRARY_NAMES, reason="no library to load ahead here")

# A fresh interpreter, as the app starts: load ahead, then import torch and compute. It prints what the process has
# mapped of the library before and after the import (Linux's /proc/self/maps).
LOAD_THEN_IMPORT = textwrap.dedent("""
    import json, sys
    from explorer.ui.shell.torch_warmup import load_torch_cpu_library, torch_cpu_library

    def mapped():
        with open("/proc/self/maps") as maps:
            return sorted({line.split()[-1] for line in maps if line.rstrip().endswith(torch_cpu_library().name)})

    loaded = load_torch_cpu_library()
    before = mapped()
    imported_early = "torch" in sys.modules
    import torch
    print(json.dumps({"loaded": loaded, "before": before, "after": mapped(), "imported_early": imported_early,
                      "sum": float(torch.arange(4.0).sum()), "again": load_torch_cpu_library()}))
""")


@needs_loader
def test_library_is_found_without_importing_torch() -> None:
    code = ("import sys; from explorer.ui.shell.torch_warmup import torch_cpu_library as f; p = f(); "
            "print(p.name if p else None, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == [LIBRARY_NAMES[sys.platform], "False"]
    assert torch_cpu_library().is_file()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads Linux's /proc/self/maps")
def test_torch_uses_the_library_loaded_ahead() -> None:
    out = subprocess.run([sys.executable, "-c", LOAD_THEN_IMPORT], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["loaded"] is True and result["imported_early"] is False
    assert len(result["before"]) == 1  # mapped before torch's import...
    assert result["after"] == result["before"]  # ...and torch found it: no second copy
    assert result["sum"] == 6.0
    assert result["again"] is False  # torch imported: nothing left to load


def _warmup(panel: QWidget, load, needed=lambda: True) -> TorchWarmup:
    """A warm-up for ``panel`` that still has work (``needed``), loading with ``load``."""
    return TorchWarmup(lambda: panel, panel, load=load, needed=needed)


def _busy_panel(qtbot) -> tuple[QWidget, threading.Event]:
    """A panel whose background job runs until the event returned is set."""
    panel = QWidget()
    qtbot.addWidget(panel)
    release = threading.Event()
    LatestOnlyRunner(panel).submit(release.wait, 10)
    return panel, release


def test_waits_until_the_panel_has_settled(qtbot) -> None:
    panel, release = _busy_panel(qtbot)
    calls: list[bool] = []  # whether the load ran on the GUI thread
    warmup = _warmup(panel, lambda: calls.append(threading.current_thread() is threading.main_thread()) or True)
    warmup.start()
    qtbot.wait(120)  # a dozen polls while the panel's job runs
    assert calls == [] and warmup.is_waiting()
    release.set()
    qtbot.waitUntil(warmup.done.is_set, timeout=3000)
    assert calls == [False] and warmup.loaded is True and warmup.seconds >= 0  # on a worker
    warmup.start()  # once only
    qtbot.wait(50)
    assert calls == [False] and not warmup.is_waiting()


def test_nothing_happens_once_torch_is_imported(qtbot) -> None:
    import torch  # noqa: F401 - as a first panel that needs torch would have

    panel = QWidget()
    qtbot.addWidget(panel)
    calls: list[int] = []
    warmup = TorchWarmup(lambda: panel, panel, load=lambda: calls.append(1) or True)
    warmup.start()
    assert not warmup.is_waiting()
    qtbot.wait(50)
    assert calls == [] and not warmup.done.is_set()


def test_torch_imported_while_it_waited_cancels_the_load(qtbot) -> None:
    panel, release = _busy_panel(qtbot)
    needed = [True]
    calls: list[int] = []
    warmup = _warmup(panel, lambda: calls.append(1) or True, needed=lambda: needed[0])
    warmup.start()
    needed[0] = False  # the panel the user opened imported torch
    release.set()
    qtbot.waitUntil(lambda: not warmup.is_waiting(), timeout=3000)
    qtbot.wait(50)
    assert calls == [] and not warmup.done.is_set()


def test_a_failing_load_costs_nothing(qtbot) -> None:
    panel = QWidget()
    qtbot.addWidget(panel)

    def fail() -> bool:
        raise OSError("no loader here")

    warmup = _warmup(panel, fail)
    warmup.start()
    qtbot.waitUntil(warmup.done.is_set, timeout=3000)
    assert warmup.loaded is False
