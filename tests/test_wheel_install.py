"""The wheel is complete: built from this tree, installed into a fresh virtual environment, it
imports every module of the package and holds every bundled resource, so moving files cannot ship a
broken wheel, and the translations compiled by the build. Slow-marked (~20 s) but run by CI, where it
is the guard."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "explorer"
RESOURCES = ROOT / "resources"  # installed as the package explorer.resources

CHECK = r"""
import hashlib, importlib, json, pkgutil, sys
import explorer
from explorer.paths import resource_path

failures, files = {}, {}
def failed(name):
    failures[name] = repr(sys.exc_info()[1])
names = [m.name for m in pkgutil.walk_packages(explorer.__path__, "explorer.", onerror=failed)]
for name in ["explorer", *names]:
    try:
        files[name] = importlib.import_module(name).__file__
    except Exception as exc:
        failures[name] = f"{type(exc).__name__}: {exc}"
resources = {}
for name in sys.argv[1:]:
    path = resource_path(name)
    resources[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
qm = {}
from PySide6.QtCore import QTranslator
for language in ("zh_CN", "en"):
    path = resource_path(f"i18n/attention_explorer_{language}.qm")
    translator = QTranslator()
    qm[language] = path.is_file() and translator.load(str(path))
    if language == "zh_CN" and qm[language]:
        qm["sample"] = translator.translate("Panels", "Kernel regression")
print(json.dumps({"files": files, "failures": failures, "resources": resources, "prefix": sys.prefix, "qm": qm}))
"""


def _source_files() -> list[Path]:
    """The files a checkout of this tree holds (tracked or new, not ignored); every file if git is absent."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                                capture_output=True, check=True, timeout=30).stdout.decode().split("\0")
        return [ROOT / name for name in listed if name and (ROOT / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "build", "dist", ".venv", "__pycache__", ".pytest_cache", ".hypothesis"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def _module_names() -> set[str]:
    """Dotted names of every module in the package's source tree, and the package its resources become."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names | {"explorer.resources"}  # the top-level resources/ folder, mapped into the package


def _resource_names() -> list[str]:
    """Bundled files by their path below ``resources`` (``i18n/…ts`` too; ``.qm`` files are build products)."""
    return sorted(str(p.relative_to(RESOURCES).as_posix()) for p in RESOURCES.rglob("*")
                  if p.is_file() and p.name != "__init__.py" and p.suffix not in (".pyc", ".pyo", ".qm")
                  and "__pycache__" not in p.parts)


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _site_folders() -> list[str]:
    """The folders the running interpreter imports installed packages from (its venv's, or the system's)."""
    folders = [*site.getsitepackages(), site.getusersitepackages()] if site.ENABLE_USER_SITE else site.getsitepackages()
    return [folder for folder in dict.fromkeys(folders) if Path(folder).is_dir()]


def _see_running_environment(python: Path, env: dict[str, str]) -> None:
    """Let the new venv import what the running environment has installed (torch, PySide6 …), whether that is
    a virtual environment or the system (``--system-site-packages`` would reach the base interpreter, which a
    venv user's PySide6 is not in). The folders go on ``sys.path`` as plain entries after the venv's own, so
    their ``.pth`` hooks, an editable install of this project among them, do not run."""
    result = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], python.parent, env)
    purelib = Path(result.stdout.strip())
    purelib.mkdir(parents=True, exist_ok=True)
    (purelib / "running_environment.pth").write_text("".join(f"{folder}\n" for folder in _site_folders()))


def test_build_declares_what_compiles_translations() -> None:
    """A standard (isolated) build installs only the declared build requirements: lrelease must come with them."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert any(r.replace("_", "-").lower().startswith("pyside6-essentials") for r in requires), requires


@pytest.mark.slow
def test_wheel_installs_every_module_and_resource(tmp_path: Path) -> None:
    source = tmp_path / "source"
    for path in _source_files():  # a copy, so the build writes nothing into the working tree
        target = source / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PIP_REQUIRE_VIRTUALENV")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", QT_QPA_PLATFORM="offscreen")
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(dist), str(source)], tmp_path, env)
    wheels = list(dist.glob("attention_explorer-*.whl"))
    assert len(wheels) == 1, list(dist.iterdir())

    venv = tmp_path / "venv"  # torch and PySide6 come from the running environment; the package only from the wheel
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, env)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    _see_running_environment(python, env)
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
          "--ignore-installed", "-q", str(wheels[0])], tmp_path, env)

    cwd = tmp_path / "elsewhere"  # not the repository: its folder must not be on the path
    cwd.mkdir()
    resources = _resource_names()
    result = _run([str(python), "-c", CHECK, *resources], cwd, env)
    report = json.loads(result.stdout.strip().splitlines()[-1])

    assert report["failures"] == {}
    prefix = Path(report["prefix"]).resolve()
    assert prefix == venv.resolve()
    outside = {name: file for name, file in report["files"].items() if not Path(file).resolve().is_relative_to(prefix)}
    assert outside == {}, "modules were imported from outside the fresh environment (the editable install?)"
    assert set(report["files"]) == _module_names(), "modules missing from the wheel, or extra ones"
    assert resources, "no bundled resources found"
    for name in resources:
        assert report["resources"][name] == hashlib.sha256((RESOURCES / name).read_bytes()).hexdigest(), name
    assert any(name.endswith("_zh_CN.ts") for name in resources)
    assert report["qm"] == {"zh_CN": True, "en": True, "sample": "核回归"}, "the build compiles the translations"
