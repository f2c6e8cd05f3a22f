"""An exception raised in a Qt slot or virtual fails the test it happens in, whatever the test uses.

Runs pytest in a child process on small generated tests, with this suite's ``conftest.py`` and pytest
settings, and reads each outcome from the JUnit XML report.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RAISING_TESTS = '''
import threading
import pytest
from PySide6.QtCore import QThread, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit
from PySide6.QtTest import QTest


def app():
    return QApplication.instance() or QApplication([])


class Field(QLineEdit):
    def keyPressEvent(self, event):  # a virtual that raises
        raise KeyError("virtual")


def test_slot_with_qtbot(qtbot):
    field = QLineEdit()
    qtbot.addWidget(field)
    field.textEdited.connect(lambda text: {}["probe_edited"])
    QTest.keyClicks(field, "a")


def test_timer_slot_no_fixture():
    app()
    QTimer.singleShot(0, lambda: 1 / 0)
    QApplication.processEvents()


@pytest.mark.qt_no_exception_capture
def test_slot_with_pytestqt_capture_off():
    field = QLineEdit()
    field.textEdited.connect(lambda text: [][1])
    app()
    QTest.keyClicks(field, "a")


def test_virtual_method():
    app()
    QTest.keyClicks(Field(), "a")


def test_queued_slot_after_the_test_body():
    app()
    QTimer.singleShot(0, lambda: 1 / 0)  # runs while the test is torn down


class Thread(QThread):
    def run(self):
        raise RuntimeError("in a QThread")


def test_qthread_run():
    app()
    thread = Thread()
    thread.start()
    thread.wait()


def test_python_thread():
    worker = threading.Thread(target=lambda: 1 / 0)
    worker.start()
    worker.join()


def test_quiet_slot_with_qtbot(qtbot):
    field = QLineEdit()
    qtbot.addWidget(field)
    field.textEdited.connect(lambda text: None)
    QTest.keyClicks(field, "a")
'''


def _ini_lines() -> list[str]:
    """This repository's pytest settings (pyproject.toml) as a pytest.ini."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    lines = ["[pytest]"]
    for key in ("qt_api", "qt_log_level_fail", "filterwarnings"):
        value = options[key]
        lines.append(f"{key} =" + "".join(f"\n    {v}" for v in value) if isinstance(value, list) else f"{key} = {value}")
    return lines


def _outcomes(tmp_path: Path, *pytest_args: str, ini: list[str] | None = None) -> dict[str, str]:
    """Run the generated tests; ``{test name: passed|failed|error|skipped}`` (error: failed in setup/teardown)."""
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (tmp_path / "test_raising.py").write_text(RAISING_TESTS)
    (tmp_path / "pytest.ini").write_text("\n".join(_ini_lines() if ini is None else ini) + "\n")
    report = tmp_path / "report.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={report}",
                             *pytest_args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert report.exists(), result.stdout[-3000:] + result.stderr[-3000:]
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).iter("testcase"):
        kinds = {child.tag for child in case}
        name = case.get("name", "")
        if "failure" in kinds:
            outcomes[name] = "failed"
        elif "error" in kinds:
            outcomes.setdefault(name, "error")  # a second <testcase> entry for a teardown error
        elif "skipped" in kinds:
            outcomes[name] = "skipped"
        else:
            outcomes.setdefault(name, "passed")
    return outcomes


def _raising(outcomes: dict[str, str]) -> dict[str, str]:
    return {name: outcome for name, outcome in outcomes.items() if name != "test_quiet_slot_with_qtbot"}


def test_every_exception_in_a_slot_or_virtual_fails_its_test(tmp_path: Path) -> None:
    outcomes = _outcomes(tmp_path)
    assert outcomes["test_quiet_slot_with_qtbot"] == "passed"
    assert len(_raising(outcomes)) == 7
    assert all(outcome in ("failed", "error") for outcome in _raising(outcomes).values()), outcomes


def test_they_fail_even_without_pytest_qt(tmp_path: Path) -> None:
    ini = [line for line in _ini_lines() if not line.startswith("qt_")]
    ini.append("markers =\n    qt_no_exception_capture: pytest-qt's marker (the plugin is off here)")
    outcomes = _outcomes(tmp_path, "-p", "no:pytest-qt", "-k", "not with_qtbot", ini=ini)
    assert set(outcomes) == {"test_timer_slot_no_fixture", "test_slot_with_pytestqt_capture_off",
                             "test_virtual_method", "test_queued_slot_after_the_test_body", "test_qthread_run",
                             "test_python_thread"}, outcomes
    assert all(outcome in ("failed", "error") for outcome in outcomes.values()), outcomes
