"""Build steps that ``pyproject.toml`` cannot declare: list the packages (the top-level ``resources/`` is installed
as ``explorer.resources``) and compile the translations (``resources/i18n/*.ts``) into the ``.qm`` files Qt loads,
with the ``lrelease`` PySide6 ships. All other metadata lives in ``pyproject.toml``.

Without ``lrelease`` (an isolated build environment has no PySide6) the wheel is built without ``.qm`` files and
the app compiles them on first use instead (``explorer.ui.i18n.translators.compiled_qm``); a build that must carry
them sets ``ATTENTION_EXPLORER_REQUIRE_QM=1``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import find_packages, setup
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


#: resources/ stays at the project's top level (DESIGN) and is installed as the package explorer.resources.
PACKAGES = [*find_packages(include=["explorer", "explorer.*"]), "explorer.resources"]

setup(packages=PACKAGES, package_dir={"explorer.resources": "resources"},
      cmdclass={"build_py": BuildPyWithTranslations})
