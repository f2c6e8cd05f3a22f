"""Build steps that ``pyproject.toml`` cannot declare: list the packages (the top-level ``resources/`` is installed
as ``explorer.resources``) and compile the translations (``resources/i18n/*.ts``) into the ``.qm`` files Qt loads,
with the ``lrelease`` that PySide6-Essentials ships. All other metadata lives in ``pyproject.toml``.

PySide6-Essentials is a declared build requirement, so a standard (isolated) build has ``lrelease`` and every wheel
carries the same ``.qm`` files. Only the PySide6 of the build's own interpreter is used, never a ``pyside6-lrelease``
found on the PATH (that one belongs to another environment, and fails inside an isolated build).
"""
from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

I18N = Path("explorer", "resources", "i18n")


def _lrelease() -> list[str] | None:
    """The ``lrelease`` in the build interpreter's PySide6 package folder (found without importing Qt)."""
    spec = importlib.util.find_spec("PySide6")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for name in ("lrelease", "lrelease.exe"):
            candidate = Path(folder, name)
            if candidate.is_file():
                return [str(candidate)]
    return None


class BuildPyWithTranslations(build_py):
    """``build_py`` that also writes ``<name>.qm`` beside every ``<name>.ts`` it copied."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install compiles on first use, into a cache (the source tree stays clean)
        sources = sorted((Path(self.build_lib) / I18N).glob("*.ts"))
        command = _lrelease()
        if command is None:
            raise SystemExit("cannot compile the translations: PySide6-Essentials (a build requirement in "
                             "pyproject.toml, which ships lrelease) is missing from the build environment")
        for ts in sources:
            subprocess.run([*command, "-silent", str(ts), "-qm", str(ts.with_suffix(".qm"))], check=True)


#: resources/ stays at the project's top level (DESIGN) and is installed as the package explorer.resources.
PACKAGES = [*find_packages(include=["explorer", "explorer.*"]), "explorer.resources"]

setup(packages=PACKAGES, package_dir={"explorer.resources": "resources"},
      cmdclass={"build_py": BuildPyWithTranslations})
