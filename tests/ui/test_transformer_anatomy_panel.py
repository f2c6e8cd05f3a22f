"""Transformer anatomy panel (book §11.7): the FFN's repeated word, LayerNorm vs BatchNorm equal to torch, the block
diagram's boxes showing the tensors of the model's own forward pass; model sources (built-in, the studio's, a file),
messages, settings, export, dark theme, 1024×700."""
from __future__ import annotations

import types

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from explorer.core.training.checkpoint import save_model
from explorer.core.data.text import Vocab
from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig
from explorer.ui.panels.transformer_anatomy.anatomy_panel import AnatomyPanel
from explorer.ui.widgets.export import export_target
from layout_checks import settled_problems, window_around

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def wait_drawn(qtbot, panel: AnatomyPanel) -> None:
    qtbot.waitUntil(lambda: panel.views is not None and not panel.runner.is_busy(), timeout=20_000)


@pytest.fixture
def panel(qtbot):
    p = AnatomyPanel()
    qtbot.addWidget(p)
    wait_drawn(qtbot, p)
    yield p
    p.shutdown(2000)


def tiny_model() -> tuple[Seq2SeqTransformer, Vocab, Vocab]:
    src = Vocab([["he's", "calm", ".", "go"]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    tgt = Vocab([["il", "est", "calme", "."]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    torch.manual_seed(3)
    cfg = TransformerConfig(num_hiddens=8, num_layers=3, num_heads=2, ffn_num_hiddens=16)
    return Seq2SeqTransformer(cfg, len(src), len(tgt)).eval(), src, tgt


def test_ffn_view_shows_equal_rows_for_a_repeated_word(panel) -> None:
    demo = panel.views.ffn
    assert demo.repeats == [(1, 4)]
    np.testing.assert_allclose(panel.ffn_view.x_map.matrix, demo.X, atol=1e-5)
    ffn = panel.views.model.model.encoder.blocks[0].ffn
    with torch.no_grad():
        expected = ffn(torch.from_numpy(demo.X).float())  # (T, d): Linear → ReLU → Linear, row by row
    np.testing.assert_allclose(panel.ffn_view.y_map.matrix, expected.numpy(), atol=1e-5)
    assert [r[1] for r in panel.ffn_view.outlines[1].rects] == [1, 4]  # both rows of "calm" outlined
    assert "equal" in panel.ffn_view.caption.text()
    panel.positions_check.setChecked(True)
    wait_drawn_again(panel)
    assert panel.views.ffn.input_gap > 0 and "positions were added" in panel.ffn_view.caption.text()


def wait_drawn_again(panel: AnatomyPanel) -> None:
    from pytestqt.qtbot import QtBot

    QtBot(panel).waitUntil(lambda: not panel.runner.is_busy(), timeout=20_000)


def test_only_the_tab_on_screen_is_drawn_and_the_others_when_shown(panel) -> None:
    assert panel.tabs.currentWidget() is panel.ffn_view and panel.ffn_view.x_map.matrix is not None
    assert panel.norm_view.book_grid.matrices == [] and panel.norm_view.norm_grid.matrices == []
    assert panel.blocks_tab.stage_view.stage is None
    panel.tabs.setCurrentWidget(panel.blocks_tab)
    assert panel.blocks_tab.stage_view.stage is not None and panel.norm_view.book_grid.matrices == []
    panel.source_edit.setText("i lost .")  # new numbers: the tab on screen at once, the others when shown
    panel.source_edit.editingFinished.emit()
    wait_drawn_again(panel)
    assert panel.blocks_tab.stage_view.stage.output.tokens[:3] == ["i", "lost", "."]
    panel.tabs.setCurrentWidget(panel.norm_page)
    assert len(panel.norm_view.book_grid.matrices) == 3


def test_norm_view_equals_torch_and_outlines_the_axes(panel) -> None:
    panel.tabs.setCurrentWidget(panel.norm_page)
    tiles = panel.norm_view.book_grid.matrices
    np.testing.assert_allclose(tiles[1], [[-1, 1], [-1, 1]], atol=1e-4)
    np.testing.assert_allclose(tiles[2], [[-1, -1], [1, 1]], atol=1e-4)
    batch = panel.views.batch
    B, T, d = batch.X.shape
    assert (B, T, d) == (4, 6, 32)
    X = torch.from_numpy(batch.X)
    bn = torch.nn.BatchNorm1d(d).double().train()
    with torch.no_grad():
        ln_expected = F.layer_norm(X, (d,)).reshape(B * T, d)
        bn_expected = bn(X.transpose(1, 2)).transpose(1, 2).reshape(B * T, d)  # BatchNorm1d wants (B, d, T)
    ln_shown, bn_shown = panel.norm_view.norm_grid.matrices
    np.testing.assert_allclose(ln_shown, ln_expected.numpy(), atol=1e-5)
    np.testing.assert_allclose(bn_shown, bn_expected.numpy(), atol=1e-5)
    assert (~panel.norm_view.x_map.mask).any()  # padding hatched
    panel.norm_view.x_map.cell_clicked.emit(7, 12)  # as a click on a cell
    assert panel.norm_view._norm_outlines[0].rects == [(0, 7, d, 1)]  # LayerNorm: the token's row
    assert panel.norm_view._norm_outlines[1].rects == [(12, 0, 1, B * T)]  # BatchNorm: the feature's column


def test_clicking_boxes_shows_the_models_tensors(panel) -> None:
    tab = panel.blocks_tab
    panel.tabs.setCurrentWidget(tab)
    model = panel.views.model.model
    trace = panel.views.trace
    for (side, index), button in tab.diagram.buttons.items():
        button.click()
        stage = tab.stage_view.stage
        assert (tab.side, tab.index) == (side, index) and stage is trace.stages[(side, 0)][index]
        assert stage.output.shape == (1, 4 if side == "encoder" else 5, 32)  # (batch, steps, num_hiddens)
        np.testing.assert_allclose(tab.stage_view.output_map.matrix, stage.output.values)
        for i, tensor in enumerate(stage.inputs):  # a box with two inputs draws the one chosen
            tab.stage_view.input_combo.setCurrentIndex(i)
            np.testing.assert_allclose(tab.stage_view.input_map.matrix, tensor.values)
        assert tab.stage_view.input_combo.isVisibleTo(tab) == (len(stage.inputs) > 1)
        x = [torch.from_numpy(t.values) for t in stage.inputs]
        if stage.kind == "addnorm":
            np.testing.assert_allclose(stage.output.values, F.layer_norm(x[0] + x[1], (32,)).numpy(), atol=1e-5)
        if stage.kind == "ffn":
            block = (model.encoder if side == "encoder" else model.decoder).blocks[0]
            with torch.no_grad():
                np.testing.assert_allclose(stage.output.values, block.ffn(x[0]).numpy(), atol=1e-5)
    kinds = [k for k, _ in tab.diagram._layout_key[1]]
    assert kinds == ["input", "masked_attention", "addnorm", "cross_attention", "addnorm", "ffn", "addnorm"]
    tab.block_spin.setValue(2)
    assert tab.stage_view.stage is trace.stages[(tab.side, 1)][tab.index]
    assert "(1, 4, 32)" in tab.shape_note.text()


def test_model_sources_studio_and_file(panel, qtbot, tmp_path) -> None:
    panel.model_source.combo.setCurrentIndex(1)  # no studio in this window
    assert "studio has no model" in panel.inline_message()
    model, src, tgt = tiny_model()
    record = types.SimpleNamespace(model=model, src_vocab=src, tgt_vocab=tgt, origin="trained here (step 9)")
    studio = types.SimpleNamespace(studio_state=types.SimpleNamespace(record=record))
    window = QMainWindow()
    window.panel = lambda key: studio if key == "studio" else None
    window.setCentralWidget(panel)
    qtbot.addWidget(window)
    window.show()  # the panel takes the studio's model when shown
    qtbot.waitUntil(lambda: panel.views is not None and panel.views.model.model is model, timeout=20_000)
    wait_drawn_again(panel)
    assert "trained here" in panel.model_source.origin_label.text()
    assert panel.inline_message().startswith("Not in the model's vocabulary, read as <unk>: , she's i lost")
    assert panel.views.trace.stages[("encoder", 0)][0].output.shape == (1, 4, 8)
    panel.tabs.setCurrentWidget(panel.blocks_tab)
    assert panel.layer_spin.maximum() == 3 and panel.blocks_tab.block_spin.maximum() == 3
    path = save_model(tmp_path / "tiny.safetensors", model, None, src, tgt)
    panel.model_source.set_path(str(path))
    qtbot.waitUntil(lambda: "opened tiny" in panel.model_source.origin_label.text(), timeout=20_000)
    panel.model_source.set_path(str(tmp_path / "missing.safetensors"))
    qtbot.waitUntil(lambda: "Could not open the model" in panel.inline_message(), timeout=20_000)
    window.takeCentralWidget()


def test_bad_sentences_are_explained_per_view(panel) -> None:
    panel.ffn_edit.setText("   ")
    panel.ffn_edit.editingFinished.emit()
    wait_drawn_again(panel)
    assert "type a sentence" in panel.inline_message() and not panel.ffn_view.isEnabled()
    assert panel.norm_view.isEnabled() and panel.blocks_tab.isEnabled()
    panel.ffn_edit.setText("he's zorglub , she's zorglub .")
    panel.ffn_edit.editingFinished.emit()
    wait_drawn_again(panel)
    assert "zorglub" in panel.inline_message() and panel.ffn_view.isEnabled()  # read as <unk>: a note


def test_settings_export_and_dark_theme(panel, qtbot, tmp_path) -> None:
    panel.source_edit.setText("i lost .")
    panel.steps_spin.setValue(8)
    panel.positions_check.setChecked(True)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    other = AnatomyPanel()
    qtbot.addWidget(other)
    other.restore_settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.waitUntil(lambda: other.views is not None and other.views.batch.X.shape[1] == 8, timeout=20_000)
    assert other.views.trace.src_tokens == ["i", "lost", ".", "<eos>"] and other.views.ffn.positions
    other.shutdown(2000)
    targets = panel.export_targets()
    assert [t.name for t in targets] == ["ffn_input", "ffn_output", "norm_book_example", "batch_x",
                                         "batch_layer_norm", "batch_batch_norm", "block_box_output"]
    for t in targets:
        for fmt in ("png", "svg", "csv"):
            assert export_target(t, tmp_path / f"{t.name}.{fmt}", fmt).stat().st_size > 50
    header, data = targets[0].csv()
    assert header[0] == "feature0" and data.shape == (7, 32) and targets[0].row_labels()[1][1] == "2 calm"
    panel.apply_theme(True)
    assert panel.ffn_view.x_map.backgroundBrush().color().lightness() < 50
    assert "#6b4a26" in panel.blocks_tab.diagram.styleSheet()  # dark boxes


def test_fits_a_1024x700_window(qtbot) -> None:
    p = AnatomyPanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    wait_drawn(qtbot, p)
    for tab in range(p.tabs.count()):
        p.tabs.setCurrentIndex(tab)
        for side, index in (("encoder", 1), ("decoder", 4)):
            p.blocks_tab.select(side, index)
            assert settled_problems(qtbot, window, p) == [], (tab, side, index)
    p.shutdown(2000)
