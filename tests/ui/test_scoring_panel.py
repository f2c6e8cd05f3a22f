"""Scoring panel: each control changes what the heatmaps / histograms hold; masking, settings, export."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from explorer.core.chapter.attention_demos import scoring_demo
from explorer.ui.panels.scoring.scoring_panel import MASK_MODES, SHOW_MODES, ScoringPanel
from explorer.ui.widgets.export import export_target
from layout_checks import settled_problems, window_around


@pytest.fixture
def panel(qtbot):
    p = ScoringPanel()
    qtbot.addWidget(p)
    settle(qtbot, p)
    yield p
    p.shutdown(2000)


def settle(qtbot, p: ScoringPanel) -> None:
    """Wait until the newest weights computed on the worker thread are drawn."""
    qtbot.waitUntil(lambda: not p.runner.is_busy(), timeout=10000)


def _images(p: ScoringPanel) -> list[np.ndarray]:
    return [plot.image_item.image for plot in p.grid.plots]


def test_draws_both_scorers_of_the_chosen_sequence(panel):
    ref = scoring_demo(batch_size=2, num_queries=4, num_keys=10, dim=8, num_hiddens=8, seed=0, valid_lens=[2, 6])
    add, dot = _images(panel)
    np.testing.assert_allclose(add, ref.additive_weights[0])
    np.testing.assert_allclose(dot, ref.dot_weights[0])
    panel.batch_index_spin.setValue(1)
    np.testing.assert_allclose(_images(panel)[1], ref.dot_weights[1])
    assert panel.grid.plots[0].col_labels[:3] == ["k0", "k1", "k2"]


def test_shape_controls_change_the_image(panel, qtbot):
    panel.queries_spin.setValue(6)
    settle(qtbot, panel)
    assert all(img.shape == (6, 10) for img in _images(panel))
    panel.keys_spin.setValue(5)
    settle(qtbot, panel)
    assert all(img.shape == (6, 5) for img in _images(panel))


def test_other_controls_change_the_weights(panel, qtbot):
    for spin, dot_changes in ((panel.dim_spin, True), (panel.seed_spin, True), (panel.hidden_spin, False)):
        before = [img.copy() for img in _images(panel)]
        spin.setValue(spin.value() + 3)
        settle(qtbot, panel)
        after = _images(panel)
        assert not np.allclose(before[0], after[0])  # additive depends on all three
        # the dot product has no hidden layer
        assert (not np.allclose(before[1], after[1])) == dot_changes


def test_one_d_lengths_mask_cells(panel, qtbot):
    plot = panel.grid.plots[0]
    assert plot.mask_item.isVisible()
    assert plot.mask[:, :2].all() and not plot.mask[:, 2:].any()
    assert (plot.image_item.image[:, 2:] == 0).all()
    panel.length_spins[0].setValue(7)
    settle(qtbot, panel)
    assert plot.mask[:, :7].all() and not plot.mask[:, 7:].any()
    panel.keys_spin.setValue(4)  # lengths are clamped to the new number of keys
    settle(qtbot, panel)
    assert panel.length_spins[0].value() == 4 and not plot.mask_item.isVisible()  # every key valid
    panel.mask_combo.setCurrentText(MASK_MODES[0])
    settle(qtbot, panel)
    assert plot.mask is None and not plot.mask_item.isVisible()


def test_two_d_lengths_per_query_and_bad_text(panel, qtbot):
    panel.mask_combo.setCurrentText(MASK_MODES[2])
    settle(qtbot, panel)
    assert panel.length_edits[0].isVisibleTo(panel) and not panel.length_spins[0].isVisibleTo(panel)
    panel.length_edits[0].setText("1 3 0 10")
    panel.length_edits[0].editingFinished.emit()
    settle(qtbot, panel)
    mask = panel.grid.plots[1].mask
    np.testing.assert_array_equal(mask.sum(axis=1), [1, 3, 0, 10])
    np.testing.assert_array_equal(panel.grid.plots[1].image_item.image[2], 0.0)  # no valid key: zeros
    panel.length_edits[0].setText("1 two 3 4")
    panel.length_edits[0].editingFinished.emit()
    assert "sequence 0" in panel.inline_message() and "whole numbers" in panel.inline_message()
    panel.length_edits[0].setText("2")
    panel.length_edits[0].editingFinished.emit()
    settle(qtbot, panel)
    assert panel.inline_message() == ""
    np.testing.assert_array_equal(panel.grid.plots[1].mask.sum(axis=1), [2, 2, 2, 2])


def test_raw_scores_mode(panel):
    panel.show_combo.setCurrentText(SHOW_MODES[1])
    r = panel.result
    np.testing.assert_allclose(_images(panel)[1], r.dot_scores[0])
    lo, hi = panel.grid.plots[1].image_item.getLevels()
    assert lo < 0 < hi and hi != 1.0


def test_click_highlights_row_and_reports(panel, qtbot):
    with qtbot.waitSignal(panel.status_message) as msg:
        panel.grid.cell_clicked.emit(1, 2, 0)
    assert all(p.highlighted_row == 2 for p in panel.grid.plots)
    assert msg.args[0].startswith("q2:")


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_the_scaling_demo_waits_for_its_tab(panel, qtbot):
    """A hidden tab's demo is not computed with the panel; shown, it is, from the worker thread."""
    assert panel.scaling.result is None and not panel.scaling.runner.is_busy()
    panel.show()
    with qtbot.waitSignal(panel.scaling.drawn, timeout=10000):
        panel.tabs.setCurrentWidget(panel.scaling)
    assert panel.scaling.result.dim == panel.scaling.d_slider.value()
    assert panel.scaling.sweep is not None
    assert panel.scaling.plots.raw_hist.xData is not None


def test_scaling_slider_redraws_histograms(panel, qtbot):
    panel.scaling.ensure_computed()
    x_before = panel.scaling.plots.raw_hist.xData.copy()
    with qtbot.waitSignal(panel.scaling.drawn, timeout=10000):
        panel.scaling.d_slider.setValue(256)
    qtbot.waitUntil(lambda: panel.scaling.result.dim == 256, timeout=10000)
    r = panel.scaling.result
    assert r.raw_var == pytest.approx(256, rel=0.15) and r.scaled_var == pytest.approx(1, rel=0.15)
    assert np.ptp(panel.scaling.plots.raw_hist.xData) > 1.5 * np.ptp(x_before)  # wider spread at larger d
    assert "256" in panel.scaling.summary.text()
    raw_h = panel.scaling.plots.raw_entropy_hist.getOriginalDataset()
    scaled_h = panel.scaling.plots.scaled_entropy_hist.getOriginalDataset()
    centres = (raw_h[0][:-1] + raw_h[0][1:]) / 2  # step-mode x holds bin edges
    assert (centres * raw_h[1]).sum() < (centres * scaled_h[1]).sum()  # raw entropies pile up near 0
    x, y = panel.scaling.plots.now_marker.getOriginalDataset()  # getData() is log10(x) here
    assert list(x) == [256, 256] and y[0] < y[1]  # raw entropy below scaled


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_settings_round_trip(panel, qtbot, tmp_path):
    panel.queries_spin.setValue(5)
    panel.seed_spin.setValue(42)
    panel.mask_combo.setCurrentText(MASK_MODES[2])
    assert panel.length_edits[0].text() == "1 2 3 4 5"  # refilled to fit the new number of queries
    panel.length_edits[1].setText("5 4 3 2 1")
    panel.length_edits[1].editingFinished.emit()
    settle(qtbot, panel)
    assert panel.inline_message() == ""
    panel.scaling.d_slider.setValue(32)
    panel.batch_size_spin.setValue(4)  # ranges that depend on other controls must not clamp the restore
    panel.batch_index_spin.setValue(3)
    panel.mask_combo.setCurrentText(MASK_MODES[1])
    panel.keys_spin.setValue(20)
    panel.length_spins[2].setValue(17)
    settle(qtbot, panel)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    other = ScoringPanel()
    qtbot.addWidget(other)
    other.restore_settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settle(qtbot, other)
    assert other.queries_spin.value() == 5 and other.seed_spin.value() == 42
    assert other.mask_combo.currentText() == MASK_MODES[1] and other.length_edits[1].text() == "5 4 3 2 1"
    assert (other.batch_size_spin.value(), other.batch_index_spin.value()) == (4, 3)
    assert other.length_spins[2].value() == 17
    assert other.scaling.d_slider.value() == 32
    assert other.scaling.result is None  # its tab was not shown: computed with the restored values when it is
    other.show()
    other.tabs.setCurrentWidget(other.scaling)
    qtbot.waitUntil(lambda: other.scaling.result is not None and other.scaling.result.dim == 32, timeout=10000)
    assert other.scaling.plots.raw_sweep.getOriginalDataset()[0] is not None
    assert len(other.scaling.plots.raw_sweep.getOriginalDataset()[0]) == 10
    np.testing.assert_allclose(_images(other)[0], _images(panel)[0])
    other.shutdown(2000)


def test_export_png_svg_csv(panel, tmp_path):
    targets = {t.name: t for t in panel.export_targets()}
    assert set(targets) == {"weights", "raw_dot_products", "scaled_dot_products", "entropy_per_query",
                            "entropy_vs_d"}
    for name, target in targets.items():
        for fmt in ("png", "svg", "csv"):
            path = export_target(target, tmp_path / f"{name}.{fmt}", fmt)
            assert path.stat().st_size > 100
    assert (tmp_path / "weights.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "weights.svg").read_bytes()
    header, data = targets["weights"].csv()
    assert data.shape == (40, len(header))
    np.testing.assert_allclose(data[:, 2].reshape(4, 10), panel.result.additive_weights[0], rtol=1e-6)


def test_dark_theme(panel):
    panel.apply_theme(True)
    assert panel.grid.backgroundBrush().color().lightness() < 50
    assert panel.scaling.plots.backgroundBrush().color().lightness() < 50


# --------------------------------------------------------------------------- generated lengths stay valid
def test_generated_lengths_stay_valid_when_sizes_change(panel, qtbot):
    panel.mask_combo.setCurrentText(MASK_MODES[2])
    panel.queries_spin.setValue(9)  # refilled with a causal pattern that reaches K = 10
    settle(qtbot, panel)
    assert panel.length_edits[1].text().split()[-1] == "10" and panel.inline_message() == ""
    panel.keys_spin.setValue(9)  # the app's own numbers must not become invalid
    settle(qtbot, panel)
    assert panel.inline_message() == ""
    assert max(int(n) for n in panel.length_edits[1].text().split()) == 9
    panel.batch_index_spin.setValue(1)
    np.testing.assert_array_equal(panel.grid.plots[0].mask.sum(axis=1), [2, 3, 4, 5, 6, 7, 8, 9, 9])
    panel.length_edits[0].setText("1, 2, 3, 4, 5, 6, 7, 8, 9")  # typed values that fit are kept as typed
    panel.length_edits[0].editingFinished.emit()
    panel.keys_spin.setValue(3)
    settle(qtbot, panel)
    assert panel.length_edits[0].text() == "1 2 3 3 3 3 3 3 3" and panel.inline_message() == ""
    panel.keys_spin.setValue(20)
    settle(qtbot, panel)
    assert panel.length_edits[0].text() == "1 2 3 3 3 3 3 3 3"
    panel.mask_combo.setCurrentText(MASK_MODES[1])  # 1-D lengths and the shown sequence follow their limits
    panel.keys_spin.setValue(2)
    panel.batch_size_spin.setValue(1)
    settle(qtbot, panel)
    assert all(s.value() <= 2 for s in panel.length_spins) and panel.batch_index_spin.value() == 0
    assert panel.inline_message() == ""


def test_a_scaling_message_is_kept_when_the_scorers_recover(panel, qtbot):
    panel._on_scaling_failed("out of memory")
    panel.length_edits[0].setText("x")
    panel.mask_combo.setCurrentText(MASK_MODES[2])
    assert "whole numbers" in panel.inline_message() and "out of memory" in panel.inline_message()
    panel.length_edits[0].setText("1")
    panel.length_edits[0].editingFinished.emit()
    settle(qtbot, panel)
    assert panel.inline_message() == "Scaling demo: out of memory"
    with qtbot.waitSignal(panel.scaling.drawn, timeout=10000):
        panel.scaling.request()
    assert panel.inline_message() == ""


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_both_tabs_fit_a_1024x700_window(qtbot):
    p = ScoringPanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    for tab in range(p.tabs.count()):
        p.tabs.setCurrentIndex(tab)
        for mode in MASK_MODES:
            p.mask_combo.setCurrentText(mode)
            settle(qtbot, p)
            assert settled_problems(qtbot, window, p) == [], (tab, mode)
    p.shutdown(2000)
