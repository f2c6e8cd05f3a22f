"""The app on a real X server: under Xvfb with the xcb platform, as on a Linux desktop, start it,
visit every panel, press Ctrl+E in a text field, train the studio for one tiny epoch, and check the
screenshots are not blank. Skipped only where Xvfb is missing and this is not CI (``.ci/run`` installs it)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from explorer.ui.shell.panel_registry import PANELS

DRIVER = Path(__file__).with_name("xvfb_smoke_driver.py")
SCREEN = "1280x800x24"


@pytest.fixture
def x_display(skip_outside_ci, tmp_path: Path) -> Iterator[str]:
    """A fresh Xvfb server's display name (``:N``, picked by Xvfb itself)."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None or not sys.platform.startswith("linux"):
        skip_outside_ci("Xvfb is not installed (apt install xvfb)")
    log = tmp_path / "xvfb.log"
    read_end, write_end = os.pipe()
    with log.open("wb") as log_file:
        server = subprocess.Popen([xvfb, "-displayfd", str(write_end), "-screen", "0", SCREEN, "-nolisten", "tcp"],
                                  pass_fds=(write_end,), stdout=log_file, stderr=subprocess.STDOUT)
    os.close(write_end)
    try:
        with os.fdopen(read_end) as pipe:
            number = pipe.readline().strip()  # written once the server accepts clients
        assert number.isdigit(), f"Xvfb did not start: {log.read_text(errors='replace')[-2000:]}"
        yield f":{number}"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _not_blank(path: Path) -> tuple[int, float]:
    """(distinct colours in a 64×40 thumbnail, share of pixels unlike the most common colour)."""
    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable image"
    small = image.scaled(64, 40)
    pixels = [small.pixel(x, y) for x in range(small.width()) for y in range(small.height())]
    _, most = Counter(pixels).most_common(1)[0]
    return len(set(pixels)), 1 - most / len(pixels)


def test_app_on_xvfb_visits_every_panel_and_trains(x_display: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(DISPLAY=x_display, QT_QPA_PLATFORM="xcb", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path / "settings"))
    shots = tmp_path / "shots"
    result = subprocess.run([sys.executable, str(DRIVER), str(shots)], env=env, capture_output=True, text=True,
                            timeout=180)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    assert "Traceback" not in result.stderr, result.stderr[-5000:]  # a slot's exception is only printed
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["platform"] == "xcb"
    assert summary["panels"] == {spec.key: "ok" for spec in PANELS}
    assert summary["studio"] == "finished"
    assert summary["ctrl_e_field"] and summary["exports"] == ["studio"], summary  # Ctrl+E in a text field
    for name in [*(f"{spec.key}.png" for spec in PANELS), "studio-trained.png"]:
        colours, busy = _not_blank(shots / name)
        assert colours > 8 and busy > 0.05, f"{name} looks blank ({colours} colours, {busy:.0%} drawn)"
