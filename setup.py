"""Build step that ``pyproject.toml`` cannot declare: compile the translations (``explorer/resources/i18n/*.ts``)
into the ``.qm`` files Qt loads, with the ``lrelease`` PySide6 ships. All metadata lives in ``pyproject.toml``.

Without ``lrelease`` (an isolated build environment has no PySide6) the wheel is built without ``.qm`` files and
the app compiles them on first use instead (``explorer.ui.i18n.compiled_qm``); a build that must carry them sets
``ATTENTION_EXPLORER_REQUIRE_QM=1``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

I18N = Path("explorer", "resources", "i18n")


def _lrelease() -> list[str] | None:
    try:
        import PySide6

        for name in ("lrelease", "lrelease.exe"):
            candidate = Path(PySide6.__file__).parent / name
            if candidate.is_file():
                return [str(candidate)]
    except ImportError:
        pass
    found = shutil.which("pyside6-lrelease") or shutil.which("lrelease")
    return [found] if found else None


class BuildPyWithTranslations(build_py):
    """``build_py`` that also writes ``<name>.qm`` beside every ``<name>.ts`` it copied."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install compiles on first use, into a cache (the source tree stays clean)
        sources = sorted((Path(self.build_lib) / I18N).glob("*.ts"))
        command = _lrelease()
        if command is None:
            message = "lrelease (shipped with PySide6) not found: the wheel carries no .qm translations"
            if os.environ.get("ATTENTION_EXPLORER_REQUIRE_QM"):
                raise SystemExit(message)
            print(f"warning: {message}; the app compiles them on first use", file=sys.stderr)
            return
        for ts in sources:
            subprocess.run([*command, "-silent", str(ts), "-qm", str(ts.with_suffix(".qm"))], check=True)


setup(cmdclass={"build_py": BuildPyWithTranslations})
