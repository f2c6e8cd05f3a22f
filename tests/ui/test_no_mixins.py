"""No class in explorer/ui inherits from more than one class of this project: views are composed, never mixed in."""
from __future__ import annotations

import ast
from pathlib import Path

import explorer

UI = Path(explorer.__file__).parent / "ui"


def _project_classes() -> set[str]:
    """Names of every class defined anywhere in the explorer package."""
    names: set[str] = set()
    for path in Path(explorer.__file__).parent.rglob("*.py"):
        names |= {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.ClassDef)}
    return names


def test_ui_classes_have_at_most_one_project_base():
    ours = _project_classes()
    offenders = []
    for path in sorted(UI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]
                if len([b for b in bases if b in ours]) > 1:
                    offenders.append(f"{path.relative_to(UI)}: {node.name}({', '.join(bases)})")
    assert offenders == []
