"""CNN vs RNN vs self-attention panel (book §11.6.2): the table, the curves, the crossover line and the drawn paths
follow n, d and k; settings, export, dark theme, 1024×700."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from explorer.core.chapter.architecture_costs import ARCHITECTURES, crossover
from explorer.ui.panels.architecture_comparison.architecture_panel import ArchitecturePanel
from explorer.ui.widgets.export import export_target
from layout_checks import settled_problems, window_around


@pytest.fixture
def panel(qtbot):
    p = ArchitecturePanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown(1000)


def set_sizes(panel: ArchitecturePanel, n: int, d: int, k: int) -> None:
    panel.n_slider.setValue(n)
    panel.d_slider.setValue(d)
    panel.k_slider.setValue(k)
    panel._recompute_throttled.flush()


def cell(panel: ArchitecturePanel, row: int, arch: str) -> str:
    return panel.table.item(row, ARCHITECTURES.index(arch)).text()


def test_table_curves_and_crossover_follow_the_sliders(panel) -> None:
    set_sizes(panel, 100, 64, 5)
    assert cell(panel, 0, "CNN") == f"{5 * 100 * 64**2:,}\nO(knd²)"
    assert cell(panel, 0, "RNN") == f"{2 * 100 * 64**2:,}\nO(nd²)"
    assert cell(panel, 0, "self-attention") == f"{2 * 100**2 * 64:,}\nO(n²d)"
    assert [cell(panel, 1, a).split()[0] for a in ARCHITECTURES] == ["1", "100", "1"]
    assert [cell(panel, 2, a).split()[0] for a in ARCHITECTURES] == ["50", "100", "1"]  # ⌈99/2⌉ layers of k = 5
    assert panel.table.item(0, 0).font().bold()  # the CNN is the dearest at n = 100
    x, y = panel.curves["self-attention"].getOriginalDataset()  # getData() is in log10 units
    np.testing.assert_allclose(y, 2 * x**2 * 64)
    assert panel.cross_line.value() == pytest.approx(np.log10(crossover(64, 5)))  # n = 161
    assert "161" in panel.cross_line.label.format and "161" in panel.summary.text()
    np.testing.assert_allclose(panel.markers.getOriginalDataset()[1], [5 * 100 * 64**2, 2 * 100 * 64**2, 2 * 100**2 * 64])
    panel.projections_check.setChecked(True)
    assert cell(panel, 0, "self-attention").startswith(f"{4 * 100 * 64**2 + 2 * 100**2 * 64:,}")
    assert panel.cross_line.value() == pytest.approx(np.log10(crossover(64, 5, True)))


def test_kernel_is_kept_odd_and_drawings_show_the_paths(panel) -> None:
    set_sizes(panel, 9, 16, 4)
    assert panel.k_slider.value() == 5  # an even kernel is rounded up
    assert panel.drawing.hop_counts == {"CNN": 4, "RNN": 9, "self-attention": 1}  # CNN: ⌈8/2⌉ layers
    cnn = panel.drawing.plots["CNN"]
    xs, ys = cnn.path.getData()
    assert (xs[0], ys[0]) == (0, 0) and (xs[-1], ys[-1]) == (8, 4)  # x₁ up four layers to position 9
    assert "4 hops" in cnn.plot.titleLabel.text
    set_sizes(panel, 40, 16, 3)
    assert panel.drawing.drawn_tokens == 12 and panel.drawing.hop_counts["CNN"] == 11
    assert "first 12 tokens" in panel.summary.text()


def test_settings_round_trip(panel, qtbot, tmp_path) -> None:
    set_sizes(panel, 300, 32, 7)
    panel.projections_check.setChecked(True)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    other = ArchitecturePanel()
    qtbot.addWidget(other)
    other.restore_settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    r = other.result
    assert (r.n, r.d, r.k, r.projections) == (300, 32, 7, True)
    other.shutdown(1000)


def test_export_and_dark_theme(panel, tmp_path) -> None:
    targets = panel.export_targets()
    assert [t.name for t in targets] == ["cost_against_n", "layers_and_table"]
    for t in targets:
        for fmt in ("png", "svg", "csv"):
            assert export_target(t, tmp_path / f"{t.name}.{fmt}", fmt).stat().st_size > 50
    header, data = targets[1].csv()
    assert header == ["measure", *ARCHITECTURES] and data[1].tolist() == [1, 1, 64, 1]
    panel.apply_theme(True)
    assert panel.cost_plot.backgroundBrush().color().lightness() < 50
    assert panel.drawing.backgroundBrush().color().lightness() < 50


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_fits_a_1024x700_window(qtbot) -> None:
    p = ArchitecturePanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    for tab in range(p.tabs.count()):
        p.tabs.setCurrentIndex(tab)
        for n, d, k in ((64, 128, 3), (2048, 1024, 15), (2, 1, 3)):
            set_sizes(p, n, d, k)
            assert settled_problems(qtbot, window, p) == [], (tab, n, d, k)
    p.shutdown(1000)
