"""The inspector's generation step view on a decoder-only model (a tiny Llama with grouped-query attention): the
decoded steps are the core's, picking a step shows that token's attention of every layer and head over the prompt
and the tokens before it, with its probabilities, and a beam tree node shows the same for the step that produced
it."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
import hf_tiny  # noqa: E402

hf_tiny.require_hf_extra()

import hf_gen_tiny  # noqa: E402

from explorer.core.debug.beam_tree import beam_tree  # noqa: E402
from explorer.core.debug.sampling import decode_steps  # noqa: E402
from explorer.core.inspect.opening import open_model, step_model  # noqa: E402
from explorer.ui.panels.inspector.debug_widget import DebugTabs  # noqa: E402
from explorer.ui.panels.inspector.inspector_panel import InspectorPanel  # noqa: E402
from explorer.ui.panels.inspector.step_attention_widget import StepAttentionMap  # noqa: E402

TIMEOUT = 60_000


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hf_gen_tiny.folder("llama", tmp_path_factory.getbasetemp() / "hf_gen_tiny")


@pytest.fixture(scope="module")
def panel(qapp, folder):  # type: ignore[no-untyped-def]
    panel = InspectorPanel()
    panel.resize(1024, 760)
    yield panel
    panel.shutdown(3000)
    panel.deleteLater()


@pytest.fixture
def tabs(qtbot, panel, folder) -> DebugTabs:  # type: ignore[no-untyped-def]
    inspect = panel.inspector_state.inspect
    if inspect.opened is None:
        inspect.source = hf_gen_tiny.PROMPT
        with qtbot.waitSignal(inspect.open_finished, timeout=TIMEOUT) as opened:
            panel.open_model(str(folder))
        assert opened.args == [True], panel.inline_message()
    return panel.findChild(DebugTabs)


def test_a_step_shows_its_attention_over_the_prompt_and_the_tokens_before_it(qtbot, tabs, folder) -> None:
    view, debug = tabs.decoding, tabs.state
    view.source_edit.setText(hf_gen_tiny.PROMPT)
    with qtbot.waitSignal(debug.decoded, timeout=TIMEOUT):
        view.decode_button.click()
    trace = view.trace
    expected = decode_steps(step_model(open_model(folder)), hf_gen_tiny.PROMPT)
    assert trace.attends == "decoder" and trace.ids == expected.ids
    first = trace.steps[0].self_attention
    layers, heads, width = first.shape
    assert view.step_map.matrix.shape == (layers * heads, width)  # the first step is shown at once
    view.table.setCurrentCell(2, 0)  # the third generated token
    step = trace.steps[2]
    np.testing.assert_allclose(view.step_map.matrix, step.self_attention.reshape(layers * heads, width + 2),
                               atol=1e-7)
    n = len(trace.source_tokens)
    assert view.step_map.col_labels == [*trace.source_tokens, *trace.tokens[:2]] and width == n
    # two query heads share each key/value head (grouped-query attention); no sliding window, so no key is masked
    assert view.step_map.row_labels[:3] == ["L1 h1 · KV 1", "L1 h2 · KV 1", "L1 h3 · KV 2"]
    assert len(view.step_map.row_labels) == 2 * 4 and view.step_map.mask is None
    assert f"{step.chosen_prob:.3f}" in view.step_map.note and step.chosen_token in view.step_map.note
    np.testing.assert_allclose(view.step_map.matrix.sum(axis=1), 1.0, atol=1e-5)  # each row a distribution


def test_a_beam_node_shows_the_attention_of_the_step_that_produced_it(qtbot, tabs, folder) -> None:
    view, debug = tabs.beam, tabs.state
    view.source_edit.setText(hf_gen_tiny.PROMPT)
    view.width_spin.setValue(3)
    with qtbot.waitSignal(debug.beam_built, timeout=TIMEOUT):
        view.build_button.click()
    tree = view.tree
    model = step_model(open_model(folder))
    assert tree.best_ids() == beam_tree(model, hf_gen_tiny.PROMPT, 3).best_ids()
    node = tree.nodes[view.best_path()[3]]  # the third token of the best path
    view.select_node(node.id)
    layers, heads, width = node.self_attention.shape
    assert width == len(tree.source_tokens) + 2
    np.testing.assert_allclose(view.heatmap.matrix, node.self_attention.reshape(layers * heads, width), atol=1e-7)
    assert view.heatmap.col_labels == tree.key_tokens(node.id)
    view.select_node(0)  # the root produced nothing
    assert view.heatmap.attends == "decoder" and view.heatmap.token == tree.nodes[0].token
    assert view.heatmap.matrix is None


def test_keys_outside_a_sliding_window_are_masked_in_the_step_view(qtbot, tmp_path_factory) -> None:
    model = open_model(hf_gen_tiny.folder("mistral", tmp_path_factory.getbasetemp() / "hf_gen_tiny"))
    trace = decode_steps(step_model(model), hf_gen_tiny.PROMPT, max_new_tokens=4)
    view = StepAttentionMap()
    qtbot.addWidget(view)
    step = trace.steps[3]
    view.show_step(step.chosen_token, step.attention, trace.key_tokens(3), trace.attends, 4, step.chosen_prob,
                   prompt=len(trace.source_tokens), info=model.describe())
    window = hf_gen_tiny.DECODERS["mistral"]["sliding_window"]
    keys = step.self_attention.shape[-1]
    expected = np.zeros((2 * 4, keys), bool)
    expected[:, keys - window:] = True  # the query is the last key: it sees the window's keys only
    np.testing.assert_array_equal(view.mask, expected)
    assert np.all(view.matrix[~expected] == 0)  # what the mask hides the model gave no weight
