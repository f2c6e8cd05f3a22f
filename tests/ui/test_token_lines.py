"""The token-line view (BertViz's head view) and rollout/flow as extra maps: lines above the threshold per head
shown, hover isolates a token's lines without building items, a click chooses the token in the selection the
heatmap shares, SVG/PNG export, 100 tokens scroll; the large view's lines tab, rollout map and bar chart; the
grid's rollout and flow thumbnails (computed by core on a worker)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest

from explorer.core.debug import rollout as ro
from explorer.core.training.events import SnapshotEvent
from explorer.ui.widgets.attention_detail_widget import AttentionDetail
from explorer.ui.widgets.attention_grid_widget import AttentionGrid
from explorer.ui.widgets.token_lines_widget import TokenLinesView

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform, on showing a top window


def _maps(rng: np.random.Generator, heads: int, tokens: int, layers: int | None = None) -> np.ndarray:
    shape = (heads, tokens, tokens) if layers is None else (layers, heads, tokens, tokens)
    m = rng.random(shape) ** 4
    return (m / m.sum(-1, keepdims=True)).astype(np.float32)


def _snapshot(tokens: int = 4) -> SnapshotEvent:
    rng = np.random.default_rng(0)
    src = [f"s{i}" for i in range(tokens - 1)] + ["<eos>"]
    tgt = [f"t{i}" for i in range(tokens - 1)] + ["<eos>"]
    decoder = _maps(rng, 2, tokens, 2) * np.tril(np.ones((tokens, tokens), np.float32))
    decoder /= decoder.sum(-1, keepdims=True)
    maps = {"encoder": _maps(rng, 2, tokens, 2), "decoder": decoder,
            "cross": rng.random((2, 2, tokens, tokens)).astype(np.float32)}
    return SnapshotEvent(step=10, epoch=1, maps=maps, src_tokens=src, tgt_tokens=tgt,
                         tgt_input_tokens=["<bos>", *tgt[:-1]])


def test_lines_per_head_hover_and_click(qtbot) -> None:
    view = TokenLinesView()
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()
    weights = np.array([[[0.9, 0.1, 0.0], [0.5, 0.5, 0.0], [0.01, 0.2, 0.79]],
                        [[0.0, 0.0, 1.0], [0.3, 0.3, 0.4], [1.0, 0.0, 0.0]]], np.float32)
    tokens = ["a", "b", "c"]
    view.set_maps(weights, tokens, tokens, ["head 1", "head 2"], [0])
    assert view.lines.count == int((weights[0] >= 0.02).sum()) == 6  # 0.01 and 0.0 draw nothing
    view.head_boxes[1].setChecked(True)  # overlay head 2: its own colour
    assert view.shown_heads == [0, 1] and view.lines.count == 6 + int((weights[1] >= 0.02).sum())
    items = list(view.scene.items())
    point = view.view.mapFromScene(view.token_position("query", 1))
    QTest.mouseMove(view.view.viewport(), point)
    qtbot.waitUntil(lambda: view.hovered == ("query", 1))
    assert view.lines.isolated == ("query", 1) and len(view.lines.token.lines) == 2 + 3
    assert not view.lines.full.isVisible() and view.lines.token.isVisible()
    view.isolate("key", 2)
    assert len(view.lines.token.lines) == 1 + 2  # 0.79 (head 1); 1.0 and 0.4 (head 2)
    view.isolate(None)
    assert view.lines.full.isVisible() and not view.lines.token.isVisible()
    assert list(view.scene.items()) == items  # hovering made no item and removed none
    QTest.mouseClick(view.view.viewport(), Qt.MouseButton.LeftButton, pos=view.view.mapFromScene(
        view.token_position("key", 0)))
    assert view.selection.key == 0 and view.lines.isolated == ("key", 0)
    view.threshold.setValue(0.5)
    assert view.lines.count == int((weights[:2] >= 0.5).sum())


def test_a_hundred_tokens_scroll_and_export(qtbot, tmp_path: Path) -> None:
    view = TokenLinesView()
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()
    tokens = [f"w{i}" for i in range(100)]
    view.set_maps(_maps(np.random.default_rng(1), 4, 100), tokens, tokens, [f"h{i}" for i in range(4)], [0, 1, 2])
    qtbot.waitExposed(view)
    assert view.view.verticalScrollBar().maximum() > 0  # the columns scroll
    items = [id(item) for item in view._tokens["query"]]
    view.set_maps(_maps(np.random.default_rng(2), 4, 100), tokens, tokens, [f"h{i}" for i in range(4)], [0])
    assert [id(item) for item in view._tokens["query"]] == items  # a new map re-uses the token items
    svg = view.export_to(tmp_path / "lines.svg")
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "w99" in text and text.count("<path") + text.count("<polyline") > 10
    png = view.export_to(tmp_path / "lines.png")
    image = QImage(str(png))
    assert image.height() >= 2 * 100 * 18  # every token, not only those scrolled into view, at twice the size
    with pytest.raises(Exception, match="SVG or PNG"):
        view.export_to(tmp_path / "lines.csv")


def test_detail_shows_the_layers_heads_as_lines_with_one_selection(qtbot) -> None:
    detail = AttentionDetail()
    qtbot.addWidget(detail)
    detail.resize(700, 600)
    detail.show()
    snap = _snapshot()
    detail.show_snapshot(snap)
    detail.select("encoder", 1, 1)
    assert detail.token_lines.weights is None  # the lines wait until their tab is shown
    detail.show_view("lines")
    np.testing.assert_array_equal(detail.token_lines.weights, snap.maps["encoder"][1])
    assert detail.token_lines.shown_heads == [1]
    detail.average_box.setChecked(True)
    assert detail.token_lines.shown_heads == [0, 1]
    detail.heatmap.cell_clicked.emit(2, 0)  # a click on the heatmap chooses the token in the lines too
    assert detail.selection.query == 2 and detail.token_lines.lines.isolated == ("query", 2)
    assert detail.heatmap.highlighted_row == 2


def test_detail_refuses_lines_for_too_many_tokens_and_exports_the_view_shown(qtbot, tmp_path, monkeypatch) -> None:
    from explorer.ui.widgets import map_views_widget

    monkeypatch.setattr(map_views_widget, "LINES_LIMIT", 3)
    detail = AttentionDetail()
    qtbot.addWidget(detail)
    snap = _snapshot()  # 4 tokens
    detail.show_snapshot(snap)
    detail.select("encoder", 0, 0)
    detail.show_view("lines")
    assert detail.token_lines.weights is None and "4 tokens are too many for lines" in detail.readout.text()
    monkeypatch.setattr(map_views_widget, "LINES_LIMIT", 1500)
    detail.select("encoder", 0, 1)
    np.testing.assert_array_equal(detail.token_lines.weights, snap.maps["encoder"][0])
    assert "Attention as lines between tokens" in detail.export_to(tmp_path / "lines.svg").read_text(encoding="utf-8")
    detail.show_view("heatmap")
    assert "Attention as lines" not in detail.export_to(tmp_path / "map.svg").read_text(encoding="utf-8")
    detail.show_view("lines")  # CSV is the heatmap's numbers, whichever view is shown
    rows = detail.export_to(tmp_path / "map.csv").read_text(encoding="utf-8").strip().splitlines()
    assert len(rows) >= 4


def test_detail_rollout_with_bars_and_refused_flow(qtbot) -> None:
    detail = AttentionDetail()
    qtbot.addWidget(detail)
    detail.resize(700, 700)
    detail.show()
    snap = _snapshot()
    detail.show_snapshot(snap)
    detail.select("rollout:encoder", 0, 0)
    qtbot.waitUntil(lambda: detail.current_matrix() is not None and detail.bars.isVisible(), timeout=10_000)
    expected = ro.rollout(snap.maps["encoder"])
    np.testing.assert_allclose(detail.current_matrix(), expected, atol=1e-6)
    np.testing.assert_allclose(detail.bars.values, expected[-1], atol=1e-6)  # the last output token by default
    detail.heatmap.cell_clicked.emit(0, 1)
    np.testing.assert_allclose(detail.bars.values, expected[0], atol=1e-6)
    assert "“s0”" in detail.bars.caption.text() and "Rollout · " in detail.title.text()
    detail.select("flow:decoder", 0, 0)
    qtbot.waitUntil(lambda: detail.title.text().startswith("<b>Flow"), timeout=10_000)
    decoder = ro.flow(snap.maps["decoder"]).normalised
    np.testing.assert_allclose(detail.current_matrix(), decoder, atol=1e-5)

    long = _snapshot(tokens=60)
    detail._followed.limit_s = 1e-4  # two layers of 60 tokens: the closed form's estimate is ~1 ms
    detail.show_snapshot(long)
    qtbot.waitUntil(lambda: "would take about" in detail.stack.hint_label.text(), timeout=10_000)
    assert detail.stack.showing_hint and not detail.bars.isVisible()


def test_grid_draws_rollout_and_flow_thumbnails(qtbot) -> None:
    grid = AttentionGrid()
    qtbot.addWidget(grid)
    grid.resize(900, 400)
    grid.show()
    snap = _snapshot()
    grid.set_snapshot(snap)
    assert set(grid.extra_plots) == {"rollout:encoder", "rollout:decoder", "flow:encoder", "flow:decoder"}
    qtbot.waitUntil(lambda: grid.matrix("flow:decoder", 0, 0) is not None, timeout=10_000)
    np.testing.assert_allclose(grid.matrix("rollout:encoder", 0, 0), ro.rollout(snap.maps["encoder"]), atol=1e-6)
    clicked = []
    grid.thumbnail_clicked.connect(lambda *args: clicked.append(args))
    grid.extra_plots["rollout:decoder"].image_item.clicked.emit()
    assert clicked == [("rollout:decoder", 0, 0)]
    encoder_only = SnapshotEvent(step=1, epoch=1, maps={"encoder": snap.maps["encoder"]}, src_tokens=snap.src_tokens,
                                 tgt_tokens=[], tgt_input_tokens=[])
    grid.set_snapshot(encoder_only)
    assert set(grid.extra_plots) == {"rollout:encoder", "flow:encoder"}
