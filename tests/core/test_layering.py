"""The layering of DESIGN.md: explorer.core loads without Qt (rule 1), and no explorer module takes part in an
import cycle, counting imports inside functions and under ``TYPE_CHECKING``."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "explorer"

CHECK = r"""
import importlib, pkgutil, sys
import explorer.core as core
names = [m.name for m in pkgutil.walk_packages(core.__path__, "explorer.core.")]
for name in names:
    importlib.import_module(name)
import explorer.paths
bad = sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6', 'shiboken6', 'pyqtgraph', 'superqt', 'qtpy', 'PyQt5', 'PyQt6'} or m.startswith('explorer.ui'))
print(len(names))
assert not bad, bad
"""


def test_core_imports_no_qt() -> None:
    """Import every module of explorer.core, subpackages included, in a fresh interpreter; no Qt module may load."""
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) >= 40


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every explorer module and the explorer modules it imports anywhere in its text (the AST, not a run)."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}

    def known(name: str) -> str | None:
        while name and name not in files:  # ``from a.b import c``: c may be a name in a.b, not a module
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                found = known(target) if target.startswith("explorer") else None
                if found and found != name:
                    graph[name].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), less a package and its own module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            nested = len(component) == 2 and (component[0].startswith(component[1] + ".")
                                               or component[1].startswith(component[0] + "."))
            if len(component) > 1 and not nested:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"explorer.a": {"explorer.b"}, "explorer.b": {"explorer.c"}, "explorer.c": {"explorer.a"},
             "explorer.d": {"explorer.a"}}
    assert cycles(graph) == [["explorer.a", "explorer.b", "explorer.c"]]


def test_no_import_cycles() -> None:
    """No module of explorer imports, directly or through others, a module that imports it back."""
    assert cycles(import_graph()) == []
