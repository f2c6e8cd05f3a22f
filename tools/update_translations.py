"""Update the translation sources from the code: ``python3 tools/update_translations.py``.

Runs PySide6's ``lupdate`` over every ``.py`` file of ``explorer/ui`` and ``explorer/render`` (where all
user-visible text lives) into ``resources/i18n/attention_explorer_zh_CN.ts`` (every message) and ``…_en.ts``
(English plural forms only). New messages arrive as ``type="unfinished"``: translate them in Qt Linguist
(``pyside6-linguist``) or a text editor. Messages gone from the code are dropped (``-no-obsolete``); no line
numbers are kept, so the files change only when the texts do. ``tests/ui/test_translations.py`` fails while
the files lag behind the code.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES: tuple[Path, ...] = (ROOT / "explorer" / "ui", ROOT / "explorer" / "render")
I18N = ROOT / "resources" / "i18n"
BASENAME = "attention_explorer"
#: Each catalogue with the lupdate options that make it.
CATALOGUES: dict[str, tuple[str, ...]] = {"zh_CN": (), "en": ("-pluralonly",)}


def lupdate_command() -> list[str]:
    """PySide6's ``lupdate`` (from its package folder, else ``pyside6-lupdate`` on the PATH)."""
    import PySide6

    for name in ("lupdate", "lupdate.exe"):
        candidate = Path(PySide6.__file__).parent / name
        if candidate.is_file():
            return [str(candidate)]
    found = shutil.which("pyside6-lupdate")
    if not found:
        raise SystemExit("lupdate not found: install PySide6 (it ships pyside6-lupdate)")
    return [found]


def source_files(roots: tuple[Path, ...] = SOURCES) -> list[Path]:
    """The Python files lupdate reads, in a stable order."""
    return sorted(p for root in roots for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def update(ts_folder: Path = I18N, sources: tuple[Path, ...] = SOURCES) -> list[Path]:
    """Bring every catalogue in ``ts_folder`` up to date with the code under the ``sources`` folders; returns the
    files."""
    files = [str(p) for p in source_files(sources)]
    written = []
    for language, options in CATALOGUES.items():
        ts = ts_folder / f"{BASENAME}_{language}.ts"
        subprocess.run([*lupdate_command(), "-silent", "-no-obsolete", "-locations", "none", "-source-language",
                        "en", "-target-language", language, *options, *files, "-ts", str(ts)], check=True)
        _drop_extracomments(ts)
        written.append(ts)
    return written


def _drop_extracomments(ts: Path) -> None:
    """lupdate reads every ``#:`` comment (this code's attribute docs) as a note to translators, attached to the
    next message wherever it is: misleading, so none are kept."""
    text = ts.read_text(encoding="utf-8")
    ts.write_text(re.sub(r"\n *<extracomment>.*?</extracomment>", "", text, flags=re.DOTALL), encoding="utf-8")


if __name__ == "__main__":
    for path in update():
        print(f"updated {path.relative_to(ROOT)}")
    sys.exit(0)
