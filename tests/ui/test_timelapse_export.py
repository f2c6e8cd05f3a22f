"""Training time-lapse export: one frame per snapshot (or per chosen subsample), frames that change as attention
sharpens, an animated GIF (Pillow), PNG frames, MP4 when imageio-ffmpeg is installed; started from the window."""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QWidget

from classroom_fakes import MODULE, SPECS, make_window
from explorer.core.runs.loss_record import LossRecord
from explorer.core.runs.timelapse import DEFAULT_KIND, build_timelapse
from explorer.render.colormaps import lookup_table
from explorer.render.timelapse_files import qimage_rgb, write_png_frames
from explorer.render.timelapse_frame import loss_layout, peak_indices, render_frame
from explorer.ui.shell.panel_registry import PanelSpec
from explorer.ui.panels.base_panel import BasePanel
from explorer.ui.shell.timelapse_dialog import NO_HISTORY
from explorer.ui.shell.timelapse_job import TimelapseJob

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_timelapse import snapshots  # noqa: E402  (the core test's fake history)

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
SIZE = (320, 180)


def lapse(count: int = 5, **kwargs):
    return build_timelapse(snapshots(count), np.arange(1.0, 61.0), np.linspace(3.0, 0.1, 60), **kwargs)


def test_frames_change_from_early_to_late_snapshots(qtbot) -> None:
    timelapse = lapse(head=(0, 1))
    lut = lookup_table("viridis", "standard")
    first = qimage_rgb(render_frame(timelapse, timelapse.frames[0], lut, SIZE))
    last = qimage_rgb(render_frame(timelapse, timelapse.frames[-1], lut, SIZE))
    assert first.shape == (180, 320, 3)
    left = slice(0, 150)  # the heatmap's half: uniform attention early, a sharp diagonal late
    assert np.abs(first[:, left].astype(int) - last[:, left].astype(int)).sum() > 1000
    grid = lapse(head=None)
    dark = qimage_rgb(render_frame(grid, grid.frames[0], lookup_table("viridis", "colour_blind"), SIZE, dark=True))
    assert dark[2, 2].tolist() == [0, 0, 0]  # dark background


def book_run_lapse():
    """A 200-step run whose loss falls from 5 to 0.00717 (the demo run's range) and whose first snapshot is
    taken at step 0, before the first loss (step 1) is recorded."""
    snaps = snapshots(5)
    snaps[0] = dataclasses.replace(snaps[0], step=0)
    return build_timelapse(snaps, np.arange(1.0, 201.0), np.geomspace(5.0, 0.00717, 200))


@pytest.mark.parametrize("pixels", [8, 12, 24])
def test_the_loss_axis_makes_room_for_its_widest_label(qtbot, pixels: int) -> None:
    """The bottom label of a 200-epoch run was clipped to ".00717": it must fit whole between the area's edge
    and the plot."""
    font = QFont()
    font.setPixelSize(pixels)
    area = QRectF(540, 60, 400, 420)
    layout = loss_layout(book_run_lapse(), area, font)
    assert layout is not None and layout.log
    texts = [text for text, _, _ in layout.labels]
    assert texts[:2] == ["5", "0.00717"]
    metrics = QFontMetricsF(font)
    for text, rect, _ in layout.labels[:2]:  # the y labels, right-aligned in the margin
        assert metrics.horizontalAdvance(text) <= rect.width(), text
        assert rect.left() >= area.left() and rect.right() < layout.plot.left()
    assert area.contains(layout.plot)


def test_the_step_axis_covers_a_frame_before_the_first_loss(qtbot) -> None:
    timelapse = book_run_lapse()
    layout = loss_layout(timelapse, QRectF(0, 0, 400, 300), QFont())
    assert layout is not None
    assert layout.x_range == (0.0, 200.0)  # the curve runs from step 1, the first frame is at step 0
    first = timelapse.frames[0]
    assert first.step == 0 and layout.point(first.step, first.loss).x() == layout.plot.left()
    assert [text for text, _, _ in layout.labels[2:]] == ["0", "200"]
    for frame in timelapse.frames:
        assert layout.plot.left() <= layout.point(frame.step, frame.loss).x() <= layout.plot.right()


def test_the_thinned_loss_curve_keeps_its_spikes() -> None:
    """2000 noisy steps on ~340 pixels: the spike at a frame's step is drawn, so its marker sits on the curve."""
    rng = np.random.default_rng(0)
    values = np.abs(rng.normal(0.1, 0.02, 2000))
    values[1009] = 0.9  # step 1010
    picked = peak_indices(values, 5)
    assert 1009 in picked and picked[-1] == 1999 and np.all(np.diff(picked) > 0)
    assert values[picked].max() == values.max() and values[picked].min() == values.min()
    assert len(picked) <= 2 * 400 + 1
    assert peak_indices(values[:7], 1).tolist() == list(range(7))


def test_png_frames_replace_a_longer_earlier_export_whole(qtbot, tmp_path: Path) -> None:
    frames = [np.full((4, 6, 3), 40 * i, dtype=np.uint8) for i in range(5)]
    assert len(write_png_frames(frames, tmp_path / "lapse.png")) == 5
    kept = ["lapse_0000.png", "lapse_00009.png", "lapse_12.png", "lapse_0009.png.bak", "lapse_x_0009.png",
            "lapseA_0009.png", "other_0009.png", "lapse_0009.jpg", "lapse.png"]  # not names of this writer's frames
    for name in kept:
        (tmp_path / name).write_bytes(b"mine")
    written = write_png_frames(frames[:2], tmp_path / "lapse.png")
    assert [p.name for p in written] == ["lapse_0001.png", "lapse_0002.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "lapse_0001.png", "lapse_0002.png"])
    with Image.open(written[1]) as second:
        assert second.convert("RGB").getpixel((0, 0)) == (40, 40, 40)


def test_the_dialog_defaults_to_the_clis_map(qtbot, tmp_path: Path) -> None:
    from explorer.cli import timelapse as cli_timelapse
    from explorer.ui.shell.timelapse_dialog import TimelapseDialog

    dialog = TimelapseDialog(snapshots(2)[-1], None, str(tmp_path), 4, 120)
    qtbot.addWidget(dialog)
    request = dialog.request()
    assert (request["kind"], request["head"]) == (DEFAULT_KIND, None) == (cli_timelapse.DEFAULT_KIND, None)


def run_job(qtbot, timelapse, path: Path, fmt: str) -> Path:
    job = TimelapseJob(timelapse, lookup_table("viridis", "standard"), path, fmt, 5.0, SIZE)
    counts: list[int] = []
    job.progressed.connect(lambda done, _total: counts.append(done))
    with qtbot.waitSignal(job.finished, timeout=20_000) as blocker:
        job.start()
    assert counts == list(range(1, len(timelapse.frames) + 1))  # one frame per event-loop turn
    return blocker.args[0]


def test_gif_and_png_frames_have_one_frame_per_snapshot(qtbot, tmp_path: Path) -> None:
    timelapse = lapse(6)
    gif = run_job(qtbot, timelapse, tmp_path / "run.gif", "gif")
    with Image.open(gif) as image:
        assert image.n_frames == 6 and image.size == SIZE
        image.seek(0)
        early = np.asarray(image.convert("RGB"), dtype=int)
        image.seek(5)
        late = np.asarray(image.convert("RGB"), dtype=int)
    assert np.abs(early - late).sum() > 1000
    first = run_job(qtbot, timelapse, tmp_path / "frames.png", "png")
    assert first.name == "frames_0001.png" and len(list(tmp_path.glob("frames_*.png"))) == 6
    assert not list(tmp_path.glob(".*.tmp")) and not list(tmp_path.glob(".*.gif"))


@pytest.mark.skipif(importlib.util.find_spec("imageio_ffmpeg") is None, reason="imageio-ffmpeg is an optional extra")
def test_mp4_when_imageio_ffmpeg_is_installed(qtbot, tmp_path: Path) -> None:
    mp4 = run_job(qtbot, lapse(4), tmp_path / "run.mp4", "mp4")
    assert mp4.stat().st_size > 1000


class FakeStudio(BasePanel):
    key, title = "studio", "Studio"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        loss = LossRecord()
        for step in range(1, 61):
            loss.append_step(step, step / 20, 0.0, 3.0 / step)
        history = snapshots(9)
        self.studio_state = SimpleNamespace(loss=loss, attention=SimpleNamespace(
            history=history, selected_head=("cross", 1, 1)))


def test_the_window_exports_the_studios_history_subsampled(qtbot, monkeypatch, tmp_path: Path) -> None:
    specs = (*SPECS, PanelSpec("studio", "Studio", f"{MODULE}:FakeStudio"))
    window = make_window(qtbot, monkeypatch, tmp_path / "settings", specs, {"FakeStudio": FakeStudio})
    assert window.classroom.start_timelapse(str(tmp_path / "x.gif")) is None  # studio not built yet
    assert window.statusBar().currentMessage() == NO_HISTORY
    window.show_panel("studio")
    assert window.classroom.start_timelapse(str(tmp_path / "x.avi")) is None
    job = window.classroom.start_timelapse(str(tmp_path / "run.gif"), kind="cross", head=(1, 1), max_frames=4,
                                           fps=8, size=SIZE)
    assert job is not None and len(job.timelapse.frames) == 4
    with qtbot.waitSignal(job.finished, timeout=20_000):
        pass
    with Image.open(tmp_path / "run.gif") as image:
        assert image.n_frames == 4
    assert "Wrote the time-lapse" in window.statusBar().currentMessage()


def test_the_dialog_starts_from_the_head_chosen_in_the_studio(qtbot, tmp_path: Path) -> None:
    from explorer.ui.shell.timelapse_dialog import TimelapseDialog

    dialog = TimelapseDialog(snapshots(2)[-1], ("decoder", 1, 0), str(tmp_path), 6, 50)
    qtbot.addWidget(dialog)
    request = dialog.request()
    assert (request["kind"], request["head"], request["fps"], request["max_frames"]) == ("decoder", (1, 0), 6, 50)
    assert dialog.head_combo.count() == 1 + 2 * 2 and request["path"].endswith(".gif")
    dialog.head_combo.setCurrentIndex(0)
    assert dialog.request()["head"] is None  # every head, as a grid
