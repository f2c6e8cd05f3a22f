"""Rollout workers stop with their panel (a late result is dropped, no deleted widget touched); the token-line view
in the studio's Translate tab and in a generation step; the rollout residual control; the time-lapse dialog with a
rollout thumbnail chosen."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from explorer.core.debug import rollout as ro
from explorer.core.training.events import SnapshotEvent
from explorer.ui.widgets.attention_detail_widget import AttentionDetail
from explorer.ui.widgets.attention_grid_widget import AttentionGrid

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform, on showing a top window


def _snapshot(tokens: int = 4) -> SnapshotEvent:
    rng = np.random.default_rng(0)
    maps = {kind: rng.random((2, 2, tokens, tokens)).astype(np.float32) for kind in ("encoder", "cross")}
    for m in maps.values():
        m /= m.sum(-1, keepdims=True)
    src = [f"s{i}" for i in range(tokens)]
    tgt = [f"t{i}" for i in range(tokens)]
    return SnapshotEvent(step=10, epoch=1, maps=maps, src_tokens=src, tgt_tokens=tgt,
                         tgt_input_tokens=["<bos>", *tgt[:-1]])


@pytest.fixture
def slow_rollout(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``follow_all`` that takes 0.6 s; the event is set when a job has ended."""
    done = threading.Event()
    real = ro.follow_all

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            time.sleep(0.6)
            return real(*args, **kwargs)
        finally:
            done.set()

    monkeypatch.setattr(ro, "follow_all", slow)
    return done


@pytest.mark.parametrize("which", ["studio", "inspector"])
def test_closing_a_panel_drops_a_rollout_still_on_its_way(qtbot, monkeypatch, slow_rollout, which) -> None:
    late: list[str] = []
    for cls in (AttentionDetail, AttentionGrid):
        real = cls._on_followed_computed
        monkeypatch.setattr(cls, "_on_followed_computed",
                            lambda self, *a, _real=real, _name=cls.__name__: (late.append(_name), _real(self, *a)))
    if which == "studio":
        from explorer.ui.panels.studio.studio_panel import StudioPanel as Panel
    else:
        from explorer.ui.panels.inspector.inspector_panel import InspectorPanel as Panel
    panel = Panel()
    snap = _snapshot()
    panel.grid.set_snapshot(snap)
    panel.detail.show_snapshot(snap)
    panel.detail.select("rollout:encoder", 0, 0)
    qtbot.waitUntil(lambda: panel.grid.followed._runner.is_busy() and panel.detail._followed._runner.is_busy())
    panel.shutdown(0)  # the jobs are still running
    panel.close()  # closed, not yet deleted: its slots would still run
    assert slow_rollout.wait(5)
    qtbot.wait(400)  # the jobs' ends are delivered now: dropped
    assert late == []
    panel.deleteLater()


def test_a_widget_deleted_while_its_rollout_runs_is_not_touched(qtbot, slow_rollout) -> None:
    grid = AttentionGrid()
    snap = _snapshot()
    grid.set_snapshot(snap)
    qtbot.waitUntil(lambda: grid.followed._runner.is_busy())
    grid.deleteLater()  # without shutdown: Qt disconnects the deleted receivers
    qtbot.wait(10)
    assert slow_rollout.wait(5)
    qtbot.wait(400)  # pytest-qt fails the test on an exception in a slot


def test_translate_tab_shows_the_cross_attention_as_token_lines(qtbot) -> None:
    from explorer.core.model.decoding import Translation
    from explorer.ui.panels.studio.translate_widget import TranslateView

    view = TranslateView()
    qtbot.addWidget(view)
    rng = np.random.default_rng(1)
    cross = rng.random((2, 3, 4, 5)).astype(np.float32)  # (L, h, out, src)
    cross /= cross.sum(-1, keepdims=True)
    view.layer_combo.addItems(["layer 1", "layer 2"])
    view.layer_combo.setCurrentIndex(1)
    view.head_combo.addItems(["mean", "head 1", "head 2", "head 3"])
    view.result = Translation(tokens=["a", "b", "c"], text="a b c", cross_attention=cross, unknown=[],
                              src_tokens=["w", "x", "y", "z", "<eos>"], score=0.0, finished=True)
    view._draw_attention()
    assert view.map_views.token_lines.weights is None  # drawn when their view is shown
    view.map_views.show_view("lines")
    np.testing.assert_array_equal(view.map_views.token_lines.weights, cross[1])
    assert view.map_views.token_lines.shown_heads == [0, 1, 2]  # the mean: every head overlaid
    view.head_combo.setCurrentIndex(2)
    assert view.map_views.token_lines.shown_heads == [1]
    view.heatmap.cell_clicked.emit(2, 0)  # the same token chosen in both views
    assert view.map_views.token_lines.lines.isolated == ("query", 2) and view.heatmap.highlighted_row == 2


def test_a_generation_step_shows_its_token_lines_per_layer(qtbot) -> None:
    from explorer.ui.panels.inspector.step_attention_widget import StepAttentionMap, StepAttentionViews

    step_map = StepAttentionMap()
    views = StepAttentionViews(step_map)
    qtbot.addWidget(views)
    rng = np.random.default_rng(2)
    rows = rng.random((3, 2, 5)).astype(np.float32)  # (L, h, keys)
    rows /= rows.sum(-1, keepdims=True)
    keys = ["<bos>", "the", "cat", "sat", "on"]
    step_map.show_step("mat", rows, keys, "decoder", 5, 0.4, prompt=2)
    views.show_view("lines")
    lines = views.token_lines
    np.testing.assert_array_equal(lines.weights, rows[2][:, None, :])  # the last layer, its heads overlaid
    assert lines.shown_heads == [0, 1] and views.layer_combo.isVisibleTo(views)
    assert lines._rows == ["mat"] and lines._cols == keys
    views.layer_combo.setCurrentIndex(0)
    np.testing.assert_array_equal(lines.weights, rows[0][:, None, :])
    step_map.cell_clicked.emit(3, 2)  # rows are heads: a click chooses the key "cat" in the lines
    assert views.selection.key == 2 and lines.lines.isolated == ("key", 2)
    step_map.show_step("<bos>", None, [], "decoder", 0, 1.0)  # a beam tree's root: no rows, no lines
    assert lines.weights is None and not views.layer_combo.isVisibleTo(views)


def test_the_residual_r_recomputes_rollout_in_the_view_and_the_grid(qtbot) -> None:
    from explorer.ui.panels.studio.studio_panel import StudioPanel

    panel = StudioPanel()
    qtbot.addWidget(panel)
    detail, grid = panel.detail, panel.grid
    snap = _snapshot()
    grid.set_snapshot(snap)
    detail.show_snapshot(snap)
    detail.select("encoder", 0, 0)
    assert detail.residual_spin.isHidden()  # a raw map has no r
    detail.select("rollout:encoder", 0, 0)
    assert not detail.residual_spin.isHidden() and detail.residual_spin.value() == 0.5
    qtbot.waitUntil(lambda: not detail.stack.showing_hint and not detail.bars.isHidden(), timeout=10_000)
    np.testing.assert_allclose(detail.current_matrix(), ro.rollout(snap.maps["encoder"], 0.5), atol=1e-6)
    detail.residual_spin.setValue(0.9)
    expected = ro.rollout(snap.maps["encoder"], 0.9)
    qtbot.waitUntil(lambda: detail.current_matrix() is not None
                    and np.allclose(detail.current_matrix(), expected, atol=1e-6), timeout=10_000)
    qtbot.waitUntil(lambda: grid.matrix("rollout:encoder", 0, 0) is not None
                    and np.allclose(grid.matrix("rollout:encoder", 0, 0), expected, atol=1e-6), timeout=10_000)
    assert "r = 0.9" in detail.title.text()
    panel.shutdown(1000)


@pytest.mark.parametrize(("selected", "kind"), [(("rollout:encoder", 0, 0), "encoder"),
                                                (("flow:decoder", 0, 0), "cross")])
def test_the_timelapse_dialog_falls_back_from_a_rollout_thumbnail(qtbot, tmp_path, selected, kind) -> None:
    from explorer.ui.shell.timelapse_dialog import TimelapseDialog

    snap = _snapshot()  # encoder and cross maps, no decoder
    dialog = TimelapseDialog(snap, selected, str(tmp_path), 4, 50)
    qtbot.addWidget(dialog)
    assert dialog.kind_combo.currentText() != "" and dialog.kind_combo.count() == 2
    request = dialog.request()
    assert request["kind"] == kind and request["head"] is None  # a real kind, every head
    assert dialog.head_combo.count() == 1 + 2 * 2
