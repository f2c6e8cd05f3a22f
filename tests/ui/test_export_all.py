"""File → Export all: every target of every panel (built on the way if it was not yet) as PNG and SVG, every
table as CSV, an index naming each file's panel and plot; the window keeps running meanwhile."""
from __future__ import annotations

from pathlib import Path

import pytest

from classroom_fakes import make_window
from explorer.ui.widgets.export import default_file_name

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def test_every_target_of_every_panel_is_written_and_indexed(qtbot, monkeypatch, tmp_path: Path) -> None:
    window = make_window(qtbot, monkeypatch, tmp_path / "settings")
    window.show()
    qtbot.waitExposed(window)
    window.show_panel("other")
    assert window.panel("maps") is None  # never visited: Export all builds it
    folder = tmp_path / "out"
    folder.mkdir()
    progress: list[str] = []
    job = window.classroom.export_all(str(folder), png_width=400, min_wait_ms=0)
    job.progressed.connect(lambda _n, text: progress.append(text))
    with qtbot.waitSignal(job.finished, timeout=20_000) as blocker:
        pass
    result = blocker.args[0]
    assert result.failures == [] and not result.cancelled
    expected = {default_file_name(key, name, fmt) for key in ("maps", "other")
                for name, formats in (("weights", "png svg csv"), ("curve", "png svg csv"), ("grid", "png svg"))
                for fmt in formats.split()}
    assert {f.name for f in result.files} == expected
    for name in expected:
        assert (folder / name).stat().st_size > 0, name
    index = (folder / "index.html").read_text(encoding="utf-8")
    for file in result.files:
        assert f'href="{file.name}"' in index and file.panel_title in index and file.plot in index
    assert len(progress) == len(expected)  # one file per event-loop turn, each announced
    assert "Exported 16 files" in window.classroom.last_report
    assert window.current_key() == "other"  # back where the user was
    assert window.panel("maps").tabs.currentIndex() == 0  # the hidden tab drawn for the export is hidden again
    assert not (folder / "maps-curve.png").read_bytes() == (folder / "maps-weights.png").read_bytes()


def test_cancel_stops_and_still_indexes_what_was_written(qtbot, monkeypatch, tmp_path: Path) -> None:
    window = make_window(qtbot, monkeypatch, tmp_path / "settings")
    window.show()
    job = window.classroom.export_all(str(tmp_path), min_wait_ms=0)
    qtbot.waitUntil(lambda: len(job.result.files) >= 2, timeout=20_000)
    with qtbot.waitSignal(job.finished, timeout=2000):
        window.classroom.shutdown()
    assert job.result.cancelled and (tmp_path / "index.html").is_file()
    assert window.classroom.export_job is None
