"""``main()`` in a child process: ``--screenshots`` writes one non-blank PNG per panel; bad options fail cleanly."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

from explorer.ui.shell.panel_registry import PANELS

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], tmp_path: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path / "settings"))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _distinct_colours(path: Path) -> int:
    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable image"
    small = image.scaled(64, 40)
    return len({small.pixel(x, y) for x in range(small.width()) for y in range(small.height())})


def test_screenshots_writes_one_non_blank_png_per_panel(tmp_path: Path) -> None:
    out = tmp_path / "shots"
    result = _run(["-m", "explorer", "--screenshots", str(out)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{spec.key}.png" for spec in PANELS)
    for spec in PANELS:
        path = out / f"{spec.key}.png"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert QImage(str(path)).width() >= 1000
        assert _distinct_colours(path) > 8, f"{path.name} looks blank"
    assert not (tmp_path / "settings" / "attention-explorer.ini").exists() or "last_panel" not in (
        tmp_path / "settings" / "attention-explorer.ini").read_text()  # screenshots leave settings alone


def test_unknown_panel_is_a_clear_error(tmp_path: Path) -> None:
    result = _run(["-m", "explorer", "--panel", "nope", "--screenshots", str(tmp_path / "x")], tmp_path)
    assert result.returncode == 2
    assert "unknown panel 'nope'" in result.stderr and "kernel_regression" in result.stderr


NOTHING_HEAVY = r"""
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from explorer.ui.shell.about_dialog import device_description
from explorer.ui.shell.main_window import MainWindow
from explorer.ui.settings import AppSettings
window = MainWindow(AppSettings(sys.argv[1]), device_probe=device_description)
window.show()  # shown, not yet painted: the panel is built on a later event-loop turn
print(" ".join(m for m in ("torch", "numpy", "pyqtgraph", "scipy") if m in sys.modules) or "-")
"""


def test_window_shows_before_anything_heavy_is_imported(tmp_path: Path) -> None:
    result = _run(["-c", NOTHING_HEAVY, str(tmp_path / "s")], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "-"
