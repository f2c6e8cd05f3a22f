"""Test-wide setup: Qt renders offscreen (set before any Qt import) and settings live in a temp dir; an exception
raised in a Qt slot or virtual fails the test it happens in; what CI must have is never skipped there."""
from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import NoReturn

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTENTION_EXPLORER_TEST", "1")

# Every temporary file of the run (pytest's tmp_path, the per-process settings and translation caches, what the
# child processes and apps the tests start write) goes below one folder, removed when the run passes and kept,
# with its path printed, when it fails. Child processes inherit it through TMPDIR.
SESSION_TMP = tempfile.mkdtemp(prefix="attention-explorer-tests-")
os.environ["TMPDIR"] = SESSION_TMP
tempfile.tempdir = SESSION_TMP
if "ATTENTION_EXPLORER_DATA_DIR" not in os.environ:  # runs trained by tests are recorded there too
    os.environ["ATTENTION_EXPLORER_DATA_DIR"] = tempfile.mkdtemp(prefix="data-")


import pytest  # noqa: E402  (after the environment is set, before any Qt import)

_CALL_REPORT = pytest.StashKey["pytest.TestReport"]()
ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


_run_failed: list[bool] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _run_failed.append(session.testsfailed > 0 or exitstatus not in (0, 5))


def _remove_session_tmp() -> None:
    """At exit, after every other exit handler (multiprocessing removes its own folder in there): remove the
    run's temporary folder if every test passed; a failure keeps it for inspection."""
    if not _run_failed or any(_run_failed):
        print(f"temporary files of this run kept in {SESSION_TMP}", file=sys.stderr)
    else:
        shutil.rmtree(SESSION_TMP, ignore_errors=True)


atexit.register(_remove_session_tmp)  # registered first, so it runs last


def in_ci() -> bool:
    """True on a CI machine (``CI=true``, as GitHub, GitLab and others set it)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@pytest.fixture
def skip_outside_ci() -> Callable[[str], NoReturn]:
    """``skip_outside_ci(reason)`` skips the test on a developer's machine but fails it in CI, where
    everything the test needs (a reference file, Xvfb …) must be present."""

    def missing(reason: str) -> NoReturn:
        if in_ci():
            pytest.fail(f"{reason} (CI=true: this test must run here)", pytrace=False)
        pytest.skip(reason)

    return missing


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.when == "call":
        item.stash[_CALL_REPORT] = report
    return report


def _pytestqt_captures(item: pytest.Item) -> bool:
    """Whether pytest-qt's own capture of slot exceptions is on for ``item`` (plugin loaded, not disabled)."""
    plugins = item.config.pluginmanager.get_plugins()
    if not any(getattr(plugin, "__name__", "") == "pytestqt.plugin" for plugin in plugins):
        return False
    return not (item.get_closest_marker("qt_no_exception_capture") or item.config.getini("qt_no_exception_capture"))


@pytest.fixture(autouse=True)
def _slot_exceptions_fail_the_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Qt reports an exception raised in a slot or a virtual (``keyPressEvent`` …) through ``sys.excepthook``
    and carries on, so the test would pass. pytest-qt turns such reports into failures where its capture
    is on; where it is off (``qt_no_exception_capture``, plugin disabled) this fixture does the same."""
    if _pytestqt_captures(request.node):
        yield
        return
    caught: list[ExcInfo] = []
    previous = sys.excepthook

    def record(exc_type: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        caught.append((exc_type, value, tb))
        previous(exc_type, value, tb)

    sys.excepthook = record
    try:
        yield
        qt_core = sys.modules.get("PySide6.QtCore")  # never import Qt for a core test
        if qt_core is not None and qt_core.QCoreApplication.instance() is not None:
            qt_core.QCoreApplication.processEvents()  # slots still queued belong to this test
    finally:
        if sys.excepthook is record:
            sys.excepthook = previous
    call = request.node.stash.get(_CALL_REPORT, None)
    if caught and not (call is not None and call.failed):
        text = "".join("".join(traceback.format_exception(*info)) for info in caught)
        pytest.fail(f"Exception(s) raised in a Qt slot or virtual during this test:\n{text}", pytrace=False)


@pytest.fixture
def studio_panel(qtbot):  # type: ignore[no-untyped-def]
    """A fresh Transformer studio panel, shut down (worker and loads stopped) after the test."""
    from explorer.ui.panels.studio.studio_panel import StudioPanel

    p = StudioPanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown(3000)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After a Qt test has closed its widgets, collect the Python garbage cycles it left, here on the GUI thread.

    Left for later, the cyclic collector may free them on whichever thread next allocates past its threshold:
    a worker thread of the next test (seen: a replay reading a run's metrics). Freeing Qt objects there
    deadlocked with the GUI thread (the worker held a Qt lock and waited for the GIL) or crashed.

    What survives is then frozen (``gc.freeze``): later collections look only at what later tests make, instead of
    walking torch's and transformers' heap each time (tests/ui: 157 s instead of 198 s, peak memory 1.5 GB instead
    of 1.06 GB). A frozen object is never collected, on any thread."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    if widgets is not None and widgets.QApplication.instance() is not None:
        core = sys.modules["PySide6.QtCore"]
        # the widgets pytest-qt closed are deleted now, not in the next test's event loop: there, a view being
        # destroyed met that test's language change (a legend anchored to a ViewBox already deleted)
        core.QCoreApplication.sendPostedEvents(None, core.QEvent.Type.DeferredDelete)
        gc.collect()
        gc.freeze()
