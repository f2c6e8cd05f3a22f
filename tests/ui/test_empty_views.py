"""A view with nothing to show says what would fill it, with no numbered axes of nothing; Export all leaves it out
(no blank picture, no CSV of a header alone) and says so in its index."""
from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage, QPainter

from explorer.ui.panels.base_panel import BasePanel, ExportTarget
from explorer.ui.settings import AppSettings
from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_registry import PanelSpec
from explorer.ui.widgets.heatmap_widget import HeatmapWidget

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def _tick_texts(axis) -> list[str]:
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        return [spec[-1] for spec in axis.generateDrawSpecs(painter)[2] if spec[-1]]  # (rect, [flags,] text)
    finally:
        painter.end()


def test_an_empty_heatmap_shows_its_hint_and_no_numbered_axes(qtbot) -> None:
    heatmap = HeatmapWidget(title="weights")
    qtbot.addWidget(heatmap)
    heatmap.resize(500, 400)
    heatmap.show()
    heatmap.plot.set_empty_hint("Click a node to see its attention here.")
    qtbot.wait(50)
    axes = [heatmap.plot.getAxis(name) for name in ("left", "bottom")]
    assert all(_tick_texts(axis) == [] for axis in axes)  # no "-400 … 400"
    assert all("(x" not in axis.labelString() for axis in axes)  # no "(x0.001)"
    assert heatmap.plot.empty_hint.isVisible() and "node" in heatmap.plot.empty_hint.toPlainText()
    heatmap.set_matrix(np.eye(3, dtype=np.float32), list("abc"), list("xyz"))
    qtbot.wait(50)
    assert not heatmap.plot.empty_hint.isVisible()
    assert set(_tick_texts(axes[1])) == set("xyz")
    heatmap.plot.clear_matrix()
    assert heatmap.plot.is_empty() and heatmap.plot.empty_hint.isVisible() and _tick_texts(axes[1]) == []


class _TwoMaps(BasePanel):
    key, title = "two_maps", "Two maps"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.filled, self.empty = HeatmapWidget(), HeatmapWidget()
        self.filled.set_matrix(np.full((2, 2), 0.5, dtype=np.float32), ["a", "b"], ["c", "d"])
        self.body_layout.addWidget(self.filled)
        self.body_layout.addWidget(self.empty)

    def export_targets(self) -> list[ExportTarget]:
        return [self.filled.token_export_target("filled"), self.empty.token_export_target("empty"),
                ExportTarget("table", self.filled, lambda: (["x", "y"], np.zeros((0, 2))))]


def test_export_all_leaves_empty_views_out(qtbot, monkeypatch, tmp_path: Path) -> None:
    module = types.ModuleType("fake_empty_views_for_tests")
    module.TwoMaps = _TwoMaps
    monkeypatch.setitem(sys.modules, module.__name__, module)
    window = MainWindow(AppSettings(tmp_path / "settings"), panels=(PanelSpec("two_maps", "Two maps",
                                                                                f"{module.__name__}:TwoMaps"),),
                        device_probe=lambda: "test-device", probe_after_module=None)
    qtbot.addWidget(window)
    window.confirm_close = lambda reasons: True
    window.show()
    folder = tmp_path / "out"
    folder.mkdir()
    job = window.classroom.export_all(str(folder), png_width=300, min_wait_ms=0)
    with qtbot.waitSignal(job.finished, timeout=20_000) as blocker:
        pass
    result = blocker.args[0]
    written = sorted(f.name for f in result.files)
    assert all(name.startswith("two_maps-filled") or name.startswith("two_maps-table") for name in written), written
    assert not any("table" in name and name.endswith(".csv") for name in written)  # a header alone
    assert any(name.endswith(".csv") and "filled" in name for name in written)
    assert len(result.empty) == 1 and "Empty" in result.empty[0]
    assert "Empty, not exported" in (folder / "index.html").read_text(encoding="utf-8")
    window.shutdown(save=False)
