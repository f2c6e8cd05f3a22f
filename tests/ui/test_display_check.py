"""Started without a display, or on a desktop lacking a library of Qt's xcb plugin, the app says so plainly and
exits with code 2 instead of Qt's abort (exit 134) about ``xcb-cursor0``."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.ui.display_check import EXTRA_LIBRARY_ENV, NO_DISPLAY, XCB_LIBRARIES, startup_problem

ROOT = Path(__file__).resolve().parents[2]
MISSING = "libexplorer-test-missing.so.0"  # no system has it: the check's real dlopen fails


def _launch(tmp_path: Path, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path / "settings"), **env_vars)
    return subprocess.run([sys.executable, "-m", "explorer"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland displays are a Linux matter")
def test_no_display_is_explained_with_exit_code_2(tmp_path: Path) -> None:
    result = _launch(tmp_path)
    assert result.returncode == 2, result.stderr
    assert "no display found" in result.stderr
    for advice in ("desktop session", "attention-explorer-cli", "QT_QPA_PLATFORM=offscreen", "--screenshots"):
        assert advice in result.stderr
    assert "xcb-cursor" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb plugin is Linux only")
@pytest.mark.parametrize("platform", [None, "xcb"])
def test_missing_xcb_library_names_the_package(tmp_path: Path, platform: str | None) -> None:
    extra = {"QT_QPA_PLATFORM": platform} if platform else {}
    result = _launch(tmp_path, DISPLAY=":97", **extra, **{EXTRA_LIBRARY_ENV: f"{MISSING}=libexplorer-test-missing0"})
    assert result.returncode == 2, result.stderr
    assert MISSING in result.stderr
    assert "sudo apt install" in result.stderr and "libexplorer-test-missing0" in result.stderr
    assert "Traceback" not in result.stderr and "could not connect" not in result.stderr


def test_offscreen_wayland_and_other_systems_are_left_to_qt() -> None:
    assert startup_problem([], {"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert startup_problem([], {"QT_QPA_PLATFORM": "offscreen:size=1024x700"}, "linux") is None
    assert startup_problem([], {"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert startup_problem(["-platform", "vnc"], {}, "linux") is None
    assert startup_problem([], {}, "darwin") is None
    assert startup_problem([], {}, "win32") is None


def test_no_display_cases() -> None:
    assert startup_problem([], {}, "linux") == NO_DISPLAY
    assert startup_problem([], {"DISPLAY": " ", "QT_QPA_PLATFORM": ""}, "linux") == NO_DISPLAY
    assert startup_problem(["-platform", "xcb"], {"WAYLAND_DISPLAY": "wayland-0"}, "linux") == NO_DISPLAY
    assert startup_problem([], {"QT_QPA_PLATFORM": "xcb"}, "linux") == NO_DISPLAY


def test_the_extra_library_hook_only_adds_to_the_real_list() -> None:
    message = startup_problem([], {"DISPLAY": ":0", EXTRA_LIBRARY_ENV: f"{MISSING}=pkg-missing0"}, "linux")
    assert message is not None and MISSING in message and "pkg-missing0" in message
    assert set(XCB_LIBRARIES) >= {"libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxkbcommon-x11.so.0"}
    assert XCB_LIBRARIES["libxcb-cursor.so.0"] == "libxcb-cursor0"
