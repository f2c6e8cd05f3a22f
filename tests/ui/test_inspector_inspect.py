"""The inspector reads models trained elsewhere: every Hugging Face family opened in the inspector shows exactly its
kinds × layers × heads, a thumbnail opens the model's own full map with the tokenizer's tokens on the axes,
generation shows the output's cross-attention, long texts open heads on demand, bad folders and a missing extra say
why, the studio's model is offered through the shell's exchange, and a folder opens from a drop and the command
line."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
import hf_tiny  # noqa: E402

hf_tiny.require_hf_extra()

from explorer.core.choices import ATTENTION_KINDS  # noqa: E402
from explorer.core.inspect.interface import InspectableModel  # noqa: E402

from explorer.core.inspect.opening import open_model
from explorer.core.inspect.inspection import FULL_MAPS_BUDGET  # noqa: E402
from explorer.ui.panels.inspector.inspector_panel import InspectorPanel  # noqa: E402
from explorer.ui.panels.model_exchange import ModelExchange  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60_000


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "hf_tiny"


@pytest.fixture(scope="module")
def shared(qapp):  # type: ignore[no-untyped-def]
    """One inspector for the read-only family tests (opening a folder replaces the one inspected)."""
    panel = InspectorPanel()
    panel.resize(1024, 700)
    yield panel
    panel.shutdown(3000)
    panel.deleteLater()


@pytest.fixture
def inspector(qtbot, studio_panel):  # type: ignore[no-untyped-def]
    """A fresh inspector that reads the studio's model through an exchange, as in the main window."""
    panel = InspectorPanel()
    qtbot.addWidget(panel)
    exchange = ModelExchange(panel)
    studio_panel.join_exchange(exchange)
    panel.join_exchange(exchange)
    yield panel
    panel.shutdown(3000)


@cache
def reference(folder: Path) -> InspectableModel:
    """The same folder opened by the core directly (what the CLI uses)."""
    return open_model(folder)


def open_and_inspect(qtbot, panel: InspectorPanel, folder: Path, source: str, target: str = ""):  # type: ignore[no-untyped-def]
    """Open ``folder`` in the inspector; it is read at once with the text typed last (set here)."""
    inspect = panel.inspector_state.inspect
    inspect.source, inspect.target = source, target
    before = inspect.last  # a reading of the same model and text by an earlier test is not this one
    with qtbot.waitSignal(inspect.open_finished, timeout=TIMEOUT) as opened:
        panel.open_model(str(folder))
    assert opened.args == [True], panel.inline_message()
    qtbot.waitUntil(lambda: inspect.last is not None and inspect.last is not before
                    and inspect.last.model_name == folder.name and inspect.last.source == source, timeout=TIMEOUT)
    return inspect.last


def tokens(model: InspectableModel, text: str, target: bool = False) -> list[str]:
    tok = model.tokenizer  # type: ignore[attr-defined]
    ids = tok(text_target=text)["input_ids"] if target else tok(text)["input_ids"]
    return [str(t) for t in tok.convert_ids_to_tokens(ids)]


def click(qtbot, panel: InspectorPanel, name: str, layer: int, head: int) -> None:  # type: ignore[no-untyped-def]
    panel.grid.plots[name][layer][head].image_item.clicked.emit()
    qtbot.waitUntil(lambda: panel.detail.has_map and not panel.detail.computing, timeout=TIMEOUT)


@pytest.mark.parametrize("family", hf_tiny.FAMILIES)
def test_each_family_shows_its_kinds_layers_and_heads(qtbot, shared, root, family) -> None:
    folder = hf_tiny.folder(family, root)
    target = hf_tiny.TARGET if family in hf_tiny.ENCODER_DECODERS else ""
    shown = open_and_inspect(qtbot, shared, folder, hf_tiny.SOURCE, target)
    ref = reference(folder)
    info = ref.describe()
    expected = tuple((k, info.layers[k], info.heads[k]) for k in info.kinds)
    assert shared.grid.layout == expected and shown.full
    for name in ATTENTION_KINDS:  # exactly the kinds it has, each with its own layers and heads
        rows = shared.grid.plots[name]
        assert [len(row) for row in rows] == [h for n, layers, h in expected if n == name for _ in range(layers)]
    assert shared.tabs.currentWidget() is shared.inspect_view
    assert info.summary() in shared.inspect_view.header.text()
    full = ref.attention(hf_tiny.SOURCE, target or None)
    name, layers, heads = expected[-1]
    kind = name
    click(qtbot, shared, name, layers - 1, heads - 1)
    assert shared.tabs.currentWidget() is shared.detail_page
    np.testing.assert_allclose(shared.detail.current_matrix(), full.maps[kind][layers - 1][heads - 1], atol=1e-6)
    np.testing.assert_allclose(shared.grid.matrix(name, layers - 1, heads - 1), full.maps[kind][layers - 1][heads - 1],
                               atol=1e-6)  # short texts are not pooled
    source = tokens(ref, hf_tiny.SOURCE)
    rows, cols = shared.detail.heatmap.row_labels, shared.detail.heatmap.col_labels
    if name == "cross":  # each row is labelled with the target token it predicts
        assert (rows, cols) == (tokens(ref, target, target=True), source)
    else:
        assert rows == cols == source
    shared.detail.average_box.setChecked(True)
    try:
        np.testing.assert_allclose(shared.detail.current_matrix(), full.maps[kind][layers - 1].mean(axis=0), atol=1e-6)
    finally:
        shared.detail.average_box.setChecked(False)


def test_generate_shows_the_cross_attention_of_the_output(qtbot, shared, root) -> None:
    folder = hf_tiny.folder("marian", root)
    open_and_inspect(qtbot, shared, folder, hf_tiny.SOURCE)
    view = shared.inspect_view
    assert view.generate_button.isEnabled()
    view.source_edit.setPlainText(hf_tiny.SOURCE)
    view.method_combo.setCurrentText("beam")
    view.width_spin.setValue(2)
    view.generate_button.click()
    inspect = shared.inspector_state.inspect
    qtbot.waitUntil(lambda: inspect.last.method == "beam", timeout=TIMEOUT)
    generation = reference(folder).generate(hf_tiny.SOURCE, method="beam", beam_width=2)
    shown = inspect.last
    assert shown.output == generation.text and "beam output" in view.result_label.text()
    layers = generation.attention.maps["cross"]
    click(qtbot, shared, "cross", len(layers) - 1, 0)
    assert shared.detail.heatmap.row_labels == generation.tokens  # row i is the step that produced token i
    assert shared.detail.heatmap.col_labels == tokens(reference(folder), hf_tiny.SOURCE)
    np.testing.assert_allclose(shared.detail.current_matrix(), layers[-1][0], atol=1e-6)


def test_the_large_view_names_the_key_value_head_a_grouped_query_head_shares(qtbot, shared, root) -> None:
    open_and_inspect(qtbot, shared, hf_tiny.folder("gpt2", root), hf_tiny.SOURCE)  # one key/value head per head
    click(qtbot, shared, "decoder", 1, 2)
    assert "layer 2 · head 3 · gpt2" in shared.detail.title.text()
    assert "KV" not in shared.detail.heatmap.plot.titleLabel.text
    open_and_inspect(qtbot, shared, hf_tiny.folder("llama", root), hf_tiny.SOURCE)  # 4 query heads, 2 key/value
    click(qtbot, shared, "decoder", 0, 3)  # another head than the next test's, which waits for its own
    assert "layer 1 · head 4 · KV 2 · llama" in shared.detail.title.text()  # as the grid's column says
    assert "head 4 · KV 2" in shared.detail.heatmap.plot.titleLabel.text  # exported pictures carry it too
    shared.detail.show_view("lines")  # the token lines' legend names heads the same way
    try:
        qtbot.waitUntil(lambda: len(shared.detail.token_lines.head_labels) == 4, timeout=TIMEOUT)
        assert shared.detail.token_lines.head_labels == ["head 1 · KV 1", "head 2 · KV 1", "head 3 · KV 2",
                                                         "head 4 · KV 2"]
    finally:
        shared.detail.show_view("heatmap")


def test_heads_open_at_full_resolution_on_demand_beyond_the_budget(qtbot, shared, root) -> None:
    folder = hf_tiny.folder("gpt2", root)
    inspect = shared.inspector_state.inspect
    inspect.maps_budget = 0  # as a 4,096-token text would be: pooled thumbnails only
    try:
        shown = open_and_inspect(qtbot, shared, folder, hf_tiny.SOURCE, " le chat")
    finally:
        inspect.maps_budget = FULL_MAPS_BUDGET
    assert not shown.full and shown.thumbnails["decoder"].shape[:2] == (2, 4)
    full = reference(folder).attention(hf_tiny.SOURCE, " le chat").maps["decoder"]
    shared.grid.plots["decoder"][1][2].image_item.clicked.emit()
    assert shared.detail.computing and "at full resolution" in shared.detail.stack.hint_label.text()
    qtbot.waitUntil(lambda: not shared.detail.computing, timeout=TIMEOUT)
    np.testing.assert_allclose(shared.detail.current_matrix(), full[1][2], atol=1e-6)
    assert shared.detail.heatmap.row_labels == shown.query_tokens["decoder"]
    shared.detail.average_box.setChecked(True)
    try:
        qtbot.waitUntil(lambda: not shared.detail.computing, timeout=TIMEOUT)
        np.testing.assert_allclose(shared.detail.current_matrix(), full[1].mean(axis=0), atol=1e-6)
    finally:
        shared.detail.average_box.setChecked(False)


def test_a_bad_folder_shows_the_core_message_and_keeps_the_model_on_offer(qtbot, studio_panel, inspector,
                                                                          tmp_path) -> None:
    import torch

    from explorer.core.training.checkpoint import save_model
    from explorer.core.data.text import Vocab
    from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig

    panel = studio_panel
    src = Vocab([["he's", "calm", "."]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    tgt = Vocab([["il", "est", "calme", "."]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    torch.manual_seed(0)
    model = Seq2SeqTransformer(TransformerConfig(num_hiddens=8, num_layers=3, num_heads=2, ffn_num_hiddens=16),
                               len(src), len(tgt)).eval()
    path = save_model(tmp_path / "ours.safetensors", model, None, src, tgt)
    with qtbot.waitSignal(panel.model_open_finished, timeout=TIMEOUT):
        panel.open_model(str(path))
    record = panel.record
    assert record is not None
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "config.json").write_text('{"model_type": "not-a-model"}')
    with pytest.raises(ValueError) as core:
        open_model(bad)
    inspect = inspector.inspector_state.inspect
    with qtbot.waitSignal(inspect.open_finished, timeout=TIMEOUT) as done:
        inspector.open_model(str(bad))
    assert done.args == [False] and str(core.value) in inspector.inline_message()
    assert panel.record is record and [c for c, _ in inspect.choices()] == ["offer"]
    # our own model goes through the same path
    inspector.tabs.setCurrentWidget(inspector.inspect_view)
    assert "Seq2SeqTransformer" in inspector.inspect_view.header.text()  # the studio's model, offered
    inspector.inspect_view.source_edit.setPlainText("he's calm .")
    inspector.inspect_view.target_edit.setText("il est calme .")
    inspector.inspect_view.inspect_button.click()
    qtbot.waitUntil(lambda: inspect.last is not None, timeout=TIMEOUT)
    assert inspector.grid.layout == (("encoder", 3, 2), ("decoder", 3, 2), ("cross", 3, 2))
    panel.form.set_values({"num_layers": 5})  # the studio's training grid is its own
    assert inspector.grid.layout == (("encoder", 3, 2), ("decoder", 3, 2), ("cross", 3, 2))
    expected = open_model(path).attention("he's calm .", "il est calme .")
    click(qtbot, inspector, "encoder", 2, 1)
    np.testing.assert_allclose(inspector.detail.current_matrix(), expected.maps["encoder"][2][1], atol=1e-6)
    assert inspector.detail.heatmap.row_labels == expected.source_tokens
    panel.reset(confirm=False)  # the studio takes its model back: no longer a choice
    assert panel.record is None and inspect.choices() == [] and inspect.model() is None


def test_without_transformers_the_install_hint_appears(qtbot, inspector, root, monkeypatch) -> None:
    from explorer.core.inspect.hf.folder import INSTALL_HINT, MissingExtraError

    folder = hf_tiny.folder("bert", root)  # built before the import is blocked
    monkeypatch.setitem(sys.modules, "transformers", None)  # `import transformers` now fails
    with pytest.raises(MissingExtraError) as core:
        open_model(folder)
    inspect = inspector.inspector_state.inspect
    with qtbot.waitSignal(inspect.open_finished, timeout=TIMEOUT) as done:
        inspector.open_model(str(folder))
    assert done.args == [False]
    assert str(core.value) in inspector.inline_message() and INSTALL_HINT in inspector.inline_message()


def test_a_dropped_model_folder_opens_and_run_folders_are_still_followed(qtbot, studio_panel, inspector, root,
                                                                        tmp_path, monkeypatch) -> None:
    followed: list[str] = []
    monkeypatch.setattr(studio_panel, "open_run", followed.append)
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}")
    assert studio_panel.handle_drop([str(run)]) and followed == [str(run)]
    folder = hf_tiny.folder("bert", root)
    assert not studio_panel.handle_drop([str(folder)])  # the inspector's, not the studio's
    with qtbot.waitSignal(inspector.inspector_state.inspect.open_finished, timeout=TIMEOUT) as done:
        assert inspector.handle_drop([str(folder)])
    assert done.args == [True] and inspector.inspector_state.inspect.opened_info.name == "bert"


def test_split_model_path_skips_option_values(tmp_path) -> None:
    from explorer.ui.shell.open_argument import path_problem, split_model_path

    folder = tmp_path / "m"
    folder.mkdir()
    assert split_model_path(["--screenshots", str(tmp_path), "-platform", "offscreen"]) == (
        None, ["--screenshots", str(tmp_path), "-platform", "offscreen"])
    assert split_model_path(["--theme", "dark", str(folder), "--size", "1024x700"]) == (
        str(folder), ["--theme", "dark", "--size", "1024x700"])
    assert "neither a model folder" in path_problem(str(folder))
    assert split_model_path(["x.safetensors"])[0] == "x.safetensors" and "no such file" in path_problem("x.safetensors")


def test_the_app_opens_a_model_folder_given_on_the_command_line(root, tmp_path) -> None:
    folder = hf_tiny.folder("bert", root)
    out = tmp_path / "shots"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path / "settings"))
    result = subprocess.run([sys.executable, "-m", "explorer", str(folder), "--screenshots", str(out), "--size",
                             "1024x700"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert "inspector: Inspecting bert: BertModel (encoder-only)" in result.stdout, result.stdout
    assert [p.name for p in out.iterdir()] == ["inspector.png"]
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = subprocess.run([sys.executable, "-m", "explorer", str(empty), "--screenshots", str(out)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "neither a model folder" in bad.stderr


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_the_inspector_fits_a_projector(qtbot, root) -> None:
    from layout_checks import settled_problems, window_around

    panel = InspectorPanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    try:
        open_and_inspect(qtbot, panel, hf_tiny.folder("marian", root), hf_tiny.SOURCE)
        assert panel.tabs.currentWidget() is panel.inspect_view and panel.grid.isVisible()
        assert settled_problems(qtbot, window, panel) == []
        for index in range(1, panel.tabs.count()):  # detail and debug too
            panel.tabs.setCurrentIndex(index)
            assert settled_problems(qtbot, window, panel) == [], index
    finally:
        panel.shutdown(3000)
