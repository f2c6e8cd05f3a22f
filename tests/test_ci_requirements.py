"""What CI must have is never skipped there: ``skip_outside_ci`` skips on a developer's machine
and fails when ``CI=true``; tests that used to skip for "not written yet" are plain tests now."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

NEEDS_A_FILE = '''
def test_needs_a_file(skip_outside_ci):
    skip_outside_ci("the reference file is missing")
'''


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (tmp_path / "test_needs.py").write_text(NEEDS_A_FILE)
    (tmp_path / "pytest.ini").write_text("[pytest]\nqt_api = pyside6\n")
    env = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("PYTEST_")}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rsf", "test_needs.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ci, outcome", [(None, "1 skipped"), ("false", "1 skipped"), ("true", "1 failed"),
                                         ("TRUE", "1 failed"), ("1", "1 failed")])
def test_skip_outside_ci_fails_in_ci(tmp_path: Path, ci: str | None, outcome: str) -> None:
    result = _run(tmp_path, ci)
    assert outcome in result.stdout, result.stdout[-2000:]
    assert "the reference file is missing" in result.stdout


def _calls(path: Path) -> set[str]:
    """Names of the functions called in ``path`` (``pytest.skip`` -> ``skip``)."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


@pytest.mark.parametrize("name", ["ui/test_main_window.py", "core/test_corpus.py", "core/test_readers.py"])
def test_former_not_written_yet_skips_are_gone(name: str) -> None:
    calls = _calls(ROOT / "tests" / name)
    assert not {"importorskip", "skip"} & calls, f"{name} still skips at run time"


def test_the_book_comparison_skips_only_outside_ci() -> None:
    source = (ROOT / "tests" / "core" / "test_transformer.py").read_text()
    assert "skip_outside_ci(" in source and "skipif(not REFERENCE" not in source
