"""The inspector's Debug tools on a tiny trained checkpoint (the sentence sets from the studio's data): ticking heads shows ablation.evaluate's BLEU and
loss, the sweep fills one sortable row per head, an explained cell's weight equals the detail map's cell, greedy's
top-1 is the output, seeded sampling repeats, the beam tree's best path is the beam output and a node shows its
cross-attention row, and the model diff grid holds B − A."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
import debug_helpers  # noqa: E402
import tooltip_checks  # noqa: E402

from explorer.core.debug.ablation import evaluate  # noqa: E402
from explorer.core.inspect.opening import open_model  # noqa: E402
from explorer.core.debug.model_diff import diff_models  # noqa: E402
from explorer.ui.panels.inspector.debug_widget import DebugTabs  # noqa: E402
from explorer.ui.panels.inspector.inspector_panel import InspectorPanel  # noqa: E402
from explorer.ui.panels.model_exchange import ModelExchange  # noqa: E402
from explorer.ui.panels.studio.studio_panel import StudioPanel  # noqa: E402

TIMEOUT = 30_000
SOURCE, TARGET = "i lost .", "j'ai perdu ."


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_tiny", epochs=40)


@pytest.fixture(scope="module")
def studio(qapp):  # type: ignore[no-untyped-def]
    """The studio whose loaded pairs are the inspector's "data" sentence set (through the exchange)."""
    panel = StudioPanel()
    yield panel
    panel.shutdown(3000)
    panel.deleteLater()


@pytest.fixture(scope="module")
def inspector(qapp, studio, checkpoint):  # type: ignore[no-untyped-def]
    """An inspector reading the tiny checkpoint (one for the module: the tests only read it or reset what they
    set), joined to the studio as in the main window."""
    panel = InspectorPanel()
    panel.resize(1024, 700)
    exchange = ModelExchange(panel)
    studio.join_exchange(exchange)
    panel.join_exchange(exchange)
    inspect = panel.inspector_state.inspect
    inspect.source, inspect.target = SOURCE, TARGET
    inspect.open(str(checkpoint))
    yield panel
    panel.shutdown(3000)
    panel.deleteLater()


@pytest.fixture
def ready(qtbot, studio, inspector):  # type: ignore[no-untyped-def]
    state, data = inspector.inspector_state, studio.studio_state.data
    qtbot.waitUntil(lambda: state.inspect.opened is not None and state.inspect.last is not None
                    and data.source is not None and not data.is_loading(), timeout=TIMEOUT)
    assert state.debug.data_pairs == data.source.pairs
    return inspector


def debug_tabs(panel: InspectorPanel) -> DebugTabs:
    return panel.findChild(DebugTabs)


def reference(checkpoint: Path):  # type: ignore[no-untyped-def]
    return open_model(checkpoint)


def test_ablating_heads_shows_evaluate_numbers_and_dims_thumbnails(qtbot, ready, studio, checkpoint) -> None:
    view, debug = debug_tabs(ready).ablation, ready.inspector_state.debug
    view.count_spin.setValue(8)
    items = [view.heads.item(i) for i in range(view.heads.count())]
    assert len(items) == 12  # encoder, decoder, cross × 2 layers × 2 heads
    wanted = [("cross", 0, 0), ("cross", 0, 1), ("encoder", 1, 0)]
    with qtbot.waitSignal(debug.evaluated, timeout=TIMEOUT,
                          check_params_cb=lambda r: len(r[1].heads) == len(wanted)) as got:
        for item in items:
            if tuple(item.data(Qt.ItemDataRole.UserRole)) in wanted:
                item.setCheckState(Qt.CheckState.Checked)
    base, now = got.args[0]
    pairs = list(studio.studio_state.data.source.pairs[:8])
    model = reference(checkpoint)
    expected, plain = evaluate(model, pairs, wanted), evaluate(model, pairs)
    assert (now.bleu, now.translations) == (expected.bleu, expected.translations)
    assert now.loss == pytest.approx(expected.loss, rel=1e-5) and base.loss == pytest.approx(plain.loss, rel=1e-5)
    assert now.loss != pytest.approx(plain.loss)  # switching off three heads changes the loss
    text = view.result.text()
    assert f"BLEU {expected.bleu:.4f}" in text and f"loss {expected.loss:.4f}" in text
    assert ready.grid.plots["cross"][0][1].opacity() < 1 and ready.grid.plots["cross"][1][0].opacity() == 1
    for item in items:
        item.setCheckState(Qt.CheckState.Unchecked)
    assert debug.ablated == set() and ready.grid.plots["cross"][0][1].opacity() == 1


def test_sweep_fills_one_sortable_row_per_head(qtbot, ready) -> None:
    view, debug = debug_tabs(ready).ablation, ready.inspector_state.debug
    view.count_spin.setValue(6)
    progress: list[tuple[int, int]] = []
    debug.sweep_progressed.connect(lambda done, total: progress.append((done, total)))
    with qtbot.waitSignal(debug.sweep_ended, timeout=TIMEOUT) as ended:
        view.sweep_button.click()
    assert ended.args == [True] and progress[-1] == (13, 13)
    rows = view.table_model.rows
    assert len(rows) == 12 and len({r[:3] for r in rows}) == 12
    proxy = view.table.model()
    proxy.sort(6, Qt.SortOrder.DescendingOrder)
    shown = [proxy.index(i, 6).data(Qt.ItemDataRole.UserRole) for i in range(proxy.rowCount())]
    assert shown == sorted(shown, reverse=True)
    base = view.table_model.baseline
    assert all(r[6] == pytest.approx(r[5] - base.loss) for r in rows)


def test_explained_cell_weight_equals_the_heatmap_cell(qtbot, ready) -> None:
    ready.grid.plots["cross"][1][1].image_item.clicked.emit()
    qtbot.waitUntil(lambda: ready.detail.has_map, timeout=TIMEOUT)
    matrix = ready.detail.current_matrix()
    explain = debug_tabs(ready).explain
    row, col = matrix.shape[0] - 1, 1
    with qtbot.waitSignal(ready.inspector_state.debug.explained, timeout=TIMEOUT):
        ready.detail.heatmap.cell_clicked.emit(row, col)
    shown = explain.explanation
    assert (shown.kind, shown.layer, shown.head, shown.query, shown.key) == ("cross", 1, 1, row, col)
    assert shown.weight == pytest.approx(float(matrix[row, col]), abs=1e-6)
    assert f"{float(matrix[row, col]):.6f}" in explain.steps.text()
    assert explain.vectors.rowCount() == shown.head_dim == 8


def test_greedy_top1_is_the_output_and_seeded_sampling_repeats(qtbot, ready, checkpoint) -> None:
    view, debug = debug_tabs(ready).decoding, ready.inspector_state.debug
    view.source_edit.setText(SOURCE)
    with qtbot.waitSignal(debug.decoded, timeout=TIMEOUT):
        view.decode_button.click()
    trace = view.trace
    assert all(s.top_ids[0] == s.chosen_id for s in trace.steps)
    assert trace.text == reference(checkpoint).generate(SOURCE).text
    assert view.table.rowCount() == len(trace.steps) and view.table.item(0, 0).text() == trace.steps[0].chosen_token
    view.method_combo.setCurrentIndex(view.method_combo.findData("sample"))
    view.temperature.setValue(1.5)
    view.seed.setValue(7)
    texts = []
    for _ in range(2):
        with qtbot.waitSignal(debug.decoded, timeout=TIMEOUT):
            view.decode_button.click()
        texts.append((view.trace.choice.method, view.trace.ids))
    assert texts[0] == texts[1] and texts[0][0] == "sample"


def test_beam_tree_best_path_is_the_beam_output_and_a_node_shows_its_row(qtbot, ready, checkpoint) -> None:
    view, debug = debug_tabs(ready).beam, ready.inspector_state.debug
    view.source_edit.setText(SOURCE)
    view.width_spin.setValue(3)
    with qtbot.waitSignal(debug.beam_built, timeout=TIMEOUT):
        view.build_button.click()
    tree = view.tree
    produced = [tree.nodes[i].token for i in view.best_path()[1:]]
    generation = reference(checkpoint).generate(SOURCE, method="beam", beam_width=3)
    assert [t for t in produced if t != "<eos>"] == [t for t in generation.tokens if t != "<eos>"]
    node = tree.nodes[view.best_path()[1]]
    view.select_node(node.id)
    layers, heads, ts = node.cross_attention.shape
    np.testing.assert_allclose(view.heatmap.matrix, node.cross_attention.reshape(layers * heads, ts), atol=1e-7)
    assert view.heatmap.row_labels[0] == "L1 h1"


def test_model_diff_grid_holds_b_minus_a(qtbot, ready, checkpoint, tmp_path_factory) -> None:
    other = debug_helpers.trained_checkpoint(tmp_path_factory.getbasetemp() / "debug_tiny", epochs=3, seed=1)
    view, debug = debug_tabs(ready).diff, ready.inspector_state.debug
    with qtbot.waitSignal(debug.model_b_changed, timeout=TIMEOUT):
        debug.open_model_b(str(other))
    view.source_edit.setText(SOURCE)
    view.target_edit.setText(TARGET)
    with qtbot.waitSignal(debug.diffed, timeout=TIMEOUT):
        view.compare_button.click()
    expected = diff_models(reference(checkpoint), open_model(other), SOURCE, TARGET, TARGET)
    a, b = expected.a.maps["cross"][1][0], expected.b.maps["cross"][1][0]
    np.testing.assert_allclose(view.grid.matrix("cross", 1, 0), b - a, atol=1e-6)
    assert expected.translation_a in view.summary.text() and expected.translation_b in view.summary.text()


def test_head_summaries_table_and_maps_equal_the_core(qtbot, ready, studio, checkpoint) -> None:
    from explorer.core.debug.head_summaries import summarize_heads

    view, debug = debug_tabs(ready).summaries, ready.inspector_state.debug
    view.count_spin.setValue(6)
    with qtbot.waitSignal(debug.summarized, timeout=TIMEOUT) as got:
        assert view.summarize()
    summary = got.args[0]
    pairs = list(studio.studio_state.data.source.pairs[:6])
    expected = summarize_heads(reference(checkpoint), pairs, studio.studio_state.data.task())
    for kind in expected.scores:
        np.testing.assert_allclose(summary.scores[kind]["entropy"], expected.scores[kind]["entropy"], rtol=1e-6)
    assert view.table_model.rowCount() == 12  # one row per head
    view.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)  # entropy, highest first
    shown = [view.table_model.item(r, 3).data(Qt.ItemDataRole.UserRole) for r in range(12)]
    assert shown == sorted(shown, reverse=True)
    view.score_combo.setCurrentIndex(view.score_combo.findData("same"))
    kinds = list(summary.scores)
    np.testing.assert_allclose(view.maps.matrices[kinds.index("cross")],
                               np.nan_to_num(summary.scores["cross"]["same"]), rtol=1e-6)



def test_rollout_map_of_the_inspected_text_and_no_cell_to_explain(qtbot, ready) -> None:
    from explorer.core.debug.rollout import rollout

    qtbot.waitUntil(lambda: ready.grid.matrix("rollout:encoder", 0, 0) is not None, timeout=TIMEOUT)
    ready.grid.extra_plots["rollout:encoder"].image_item.clicked.emit()
    qtbot.waitUntil(lambda: not ready.detail.bars.isHidden(), timeout=TIMEOUT)  # the panel itself is not shown
    expected = rollout(ready.inspector_state.inspect.last.maps["encoder"])
    np.testing.assert_allclose(ready.detail.current_matrix(), expected, atol=1e-6)
    ready.detail.heatmap.cell_clicked.emit(0, 0)
    assert "combine every head of every layer" in debug_tabs(ready).explain.steps.text()


@pytest.mark.parametrize("token", tooltip_checks.TOKENS)
def test_a_beam_node_tooltip_shows_its_token_as_it_is(qapp, token: str) -> None:
    from types import SimpleNamespace

    from explorer.ui.panels.inspector.beam_tree_widget import BeamNodeItem

    node = SimpleNamespace(token=token, status="kept", score=-1.25, log_prob=-0.5)
    shown = tooltip_checks.shown_tooltip(BeamNodeItem(node, best=False).toolTip())
    assert shown == f"{token} · kept · log p -0.500 · score -1.250"
