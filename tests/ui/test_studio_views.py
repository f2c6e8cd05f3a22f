"""The studio's views: form validation, data loading and drops, detail view and export, history scrubbing,
alignment scores, and models saved, reopened and translated identically."""
from __future__ import annotations

import numpy as np
import pytest

from explorer.core.runs.loss_record import LossRecord, ema
from explorer.core.training.probe import probe_attention
from explorer.ui.panels.studio.loss_plot_widget import LossPlotWidget
from explorer.ui.panels.studio.studio_panel import StudioPanel

TINY = dict(num_hiddens=16, num_layers=2, num_heads=2, ffn_num_hiddens=32, dropout=0.0, batch_size=32,
            lr=0.005, device="cpu", seed=0)


@pytest.fixture
def panel(studio_panel):
    return studio_panel


@pytest.fixture(scope="module")
def trained(qapp, tmp_path_factory):
    """One tiny finished run shared by the read-only tests of this module."""
    from pytestqt.qtbot import QtBot

    p = StudioPanel()
    p.form.set_values({**TINY, "num_epochs": 4, "snapshot_every": 2})
    p.data.num_examples.setValue(96)
    assert p.start_training(), p.inline_message()
    QtBot(qapp).waitUntil(lambda: p.state == "finished", timeout=90_000)
    yield p
    p.shutdown(3000)
    p.deleteLater()


def test_form_explains_invalid_settings_and_blocks_start(panel) -> None:
    assert panel.form.preset_combo.currentText().startswith("book")
    assert panel.form.values()["num_epochs"] == 200 and panel.form.values()["num_hiddens"] == 32
    panel.form.fields["num_heads"].setValue(5)
    assert "divisible by num_heads" in panel.form.error_label.text()
    assert not panel.controls.start_button.isEnabled()
    assert panel.form.preset_combo.currentText() == "custom"
    assert not panel.start_training() and "divisible" in panel.inline_message()
    panel.form.preset_combo.setCurrentText("d2l 1.0")
    assert panel.form.values()["num_hiddens"] == 256 and panel.form.values()["num_epochs"] == 30
    assert panel.form.error_label.text() == "" and panel.controls.start_button.isEnabled()
    panel.form.fields["lr"].setValue(0.0)
    assert "lr must be greater than 0" in panel.form.error_label.text()


def test_form_keeps_the_default_for_unusable_stored_values(panel) -> None:
    """Stored text, null, NaN, inf, booleans and numbers beyond 32 bits leave a field as it was; other numbers
    are clamped to the field's range; text numbers from an INI file are read as numbers."""
    form = panel.form
    before = form.values()
    form.set_values({"num_hiddens": "abc", "dropout": float("nan"), "lr": float("inf"), "num_layers": True,
                     "num_heads": 10**12, "batch_size": -2**40, "num_steps": [4], "norm_first": "maybe",
                     "device": ["cpu"], "seed": None})
    assert form.values() == before
    form.set_values({"num_hiddens": "64", "dropout": "0.25", "num_epochs": 12.0, "norm_first": "true",
                     "lr": 1e9, "min_freq": -7})
    after = form.values()
    assert (after["num_hiddens"], after["dropout"], after["num_epochs"], after["norm_first"]) == (64, 0.25, 12, True)
    assert (after["lr"], after["min_freq"]) == (10.0, 0)
    assert isinstance(after["num_hiddens"], int) and form.validation_error() is None


def test_task_source_sets_a_task_probe(panel) -> None:
    panel.data.source_combo.setCurrentIndex(panel.data.source_combo.findData("task:reverse"))
    src, tgt = panel.data.probe()
    assert tgt.split() == src.split()[::-1]
    assert "task: reverse" in panel.data.info.text()


def test_dropped_dataset_reports_pairs_and_skipped_lines(qtbot, panel, tmp_path) -> None:
    good = tmp_path / "fra.txt"
    lines = [f"hello {i} .\tbonjour {i} .\tCC-BY 2.0 (France) Attribution: tatoeba.org" for i in range(20)]
    lines.insert(5, "a line without a tab")
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with qtbot.waitSignal(panel.dataset_load_finished, timeout=5000) as loaded:
        assert panel.handle_drop([str(good)])
        assert "Loading fra.txt" in panel.data.info.text() and not panel.controls.start_button.isEnabled()
    assert loaded.args == [True]
    info = panel.data.info.text()
    assert "20 pairs" in info and "1 malformed line skipped (line 6)" in info
    assert panel.data.probe() == ("hello 0 .", "bonjour 0 .")
    bad = tmp_path / "broken.txt"
    bad.write_bytes(b"go .\tva !\n\xff\xfe\xfa\tbad\n")
    with qtbot.waitSignal(panel.dataset_load_finished, timeout=5000) as refused:
        assert panel.handle_drop([str(bad)])
    assert refused.args == [False]
    assert "Could not load" in panel.inline_message()
    assert panel.data.source_spec() == str(good)  # the good file stays chosen
    assert not panel.handle_drop([str(tmp_path / "notes.pdf")])


def test_thumbnail_click_opens_detail_with_average_readout_and_export(trained, tmp_path) -> None:
    panel = trained
    snap = panel.studio_state.attention.current_snapshot()
    panel.live.grid.plots["decoder"][1][0].image_item.clicked.emit()
    assert panel.tabs.currentWidget() is panel.detail_page
    np.testing.assert_array_equal(panel.detail.current_matrix(), snap.maps["decoder"][1, 0])
    assert panel.detail.heatmap.row_labels == snap.tgt_input_tokens
    mask = panel.detail.heatmap.mask
    assert mask is not None and not mask[0, 1] and mask[1, 0]  # causal: query 0 cannot see key 1
    panel.detail.average_box.setChecked(True)
    np.testing.assert_allclose(panel.detail.current_matrix(), snap.maps["decoder"][1].mean(axis=0), rtol=1e-6)
    panel.detail.heatmap.cell_hovered.emit(1, 0, 0.25)
    assert "query <b>" + snap.tgt_input_tokens[1] in panel.detail.readout.text() and "0.2500" in panel.detail.readout.text()
    for fmt in ("png", "svg", "csv"):
        path = panel.detail.export_to(tmp_path / f"detail.{fmt}")
        assert path.stat().st_size > 100
    import csv

    with open(tmp_path / "detail.csv", newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh))
    assert table[0] == ["query \\ key", *snap.tgt_input_tokens]  # rows and columns are named by their tokens
    assert [row[0] for row in table[1:]] == snap.tgt_input_tokens
    numbers = np.array([[float(v) for v in row[1:]] for row in table[1:]])
    np.testing.assert_allclose(numbers, panel.detail.current_matrix(), atol=1e-6)
    assert "Decoder self-attention · layer 2 · all heads (mean) · step" in panel.detail.heatmap.plot.titleLabel.text
    panel.detail.average_box.setChecked(False)


def test_scrubber_and_loss_click_replay_history(trained) -> None:
    panel = trained
    assert panel.history.steps.tolist() == [0, 2, 4, 6, 8, 10, 12]
    panel.scrubber.slider.setValue(2)
    assert not panel.scrubber.live
    np.testing.assert_array_equal(panel.grid.matrix("cross", 0, 1), panel.history[2].maps["cross"][0, 1])
    assert panel.loss_plot.marker.value() == 4
    panel.loss_plot.step_clicked.emit(9.2)  # nearest snapshot: step 10
    assert panel.studio_state.attention.shown_index == 5 and panel.scrubber.slider.value() == 5
    np.testing.assert_array_equal(panel.grid.matrix("encoder", 1, 1), panel.history[5].maps["encoder"][1, 1])
    panel.scrubber.live_box.setChecked(True)
    assert panel.studio_state.attention.shown_index == len(panel.history) - 1 and panel.scrubber.live
    assert panel.loss_plot.step_at_x(3.4) == 3.0


def test_task_alignment_scores_match_a_hand_computation(qtbot, panel) -> None:
    panel.data.source_combo.setCurrentIndex(panel.data.source_combo.findData("task:copy"))
    panel.form.set_values({**TINY, "num_epochs": 1, "snapshot_every": 2})
    panel.data.num_examples.setValue(64)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)
    snap = panel.studio_state.attention.current_snapshot()
    scores = panel.grid.scores["cross"]
    cross = snap.maps["cross"]  # (L, h, Tt, Ts); copy: output t should look at source t
    expected = np.array([[np.mean([cross[l, h, t, t] for t in range(cross.shape[2])]) for h in range(2)]
                         for l in range(2)])
    np.testing.assert_allclose(scores, expected, rtol=1e-5)
    assert panel.grid.score_labels[0][1].text == f"{expected[0, 1]:.2f}"


def test_saved_model_reopens_and_translates_identically(qtbot, trained, panel, tmp_path) -> None:
    path = tmp_path / "tiny.safetensors"
    assert trained.save_model_to(str(path)), trained.inline_message()
    view = trained.translate_view
    view.sentence_edit.setText("i'm home .")
    before = view.translate_now()
    with qtbot.waitSignal(panel.model_open_finished, timeout=5000) as opened:
        assert panel.open_model(str(path)), panel.inline_message()
    assert opened.args == [True], panel.inline_message()
    assert "opened tiny.safetensors" in panel.translate_view.model_label.text()
    panel.translate_view.sentence_edit.setText("i'm home .")
    after = panel.translate_view.translate_now()
    assert after.tokens == before.tokens
    np.testing.assert_allclose(after.cross_attention, before.cross_attention, atol=1e-6)
    # the opened model's loss history and probe attention are shown
    _, y = panel.loss_plot.step_curve.getData()
    np.testing.assert_allclose(y, trained.record.history.step_loss)
    _, ey = panel.loss_plot.epoch_curve.getData()
    np.testing.assert_allclose(ey, trained.record.history.epoch_loss)
    assert len(panel.history) == 1 and panel.grid.shape == (2, 2)
    assert panel.studio_state.attention.current_snapshot().epoch == 4  # "step 12, epoch 4", not "epoch 0"
    panel.loss_view.x_combo.setCurrentText("seconds")  # a file holds no timings: drawn over steps, and said so
    x, _ = panel.loss_plot.step_curve.getData()
    np.testing.assert_array_equal(x, np.arange(1, len(y) + 1))
    assert "no timings" in panel.loss_plot.getPlotItem().getAxis("bottom").labelText
    panel.loss_view.x_combo.setCurrentText("steps")
    record = trained.record
    trainers = probe_attention(record.model, record.src_vocab, record.tgt_vocab, *trained.data.probe(),
                               record.num_steps)
    shown = panel.studio_state.attention.current_snapshot()  # same probe, same weights
    assert (shown.src_tokens, shown.tgt_input_tokens) == (trainers.src_tokens, trainers.tgt_input_tokens)
    for kind, maps in trainers.maps.items():
        np.testing.assert_allclose(shown.maps[kind], maps, atol=1e-6)


def test_translate_flags_unknown_words_and_scores_bleu(trained) -> None:
    view = trained.translate_view
    view.method_combo.setCurrentText("greedy")
    view.sentence_edit.setText("i'm zyxwv .")
    view.reference_edit.setText("je suis chez moi .")
    result = view.translate_now()
    assert result.unknown == ["zyxwv"]
    assert "zyxwv" in view.output_label.text() and "&lt;unk&gt;" in view.output_label.text()
    assert "zyxwv (<unk>)" in view.heatmap.col_labels
    assert view.heatmap.row_labels == result.row_labels
    assert f"BLEU</b> {view.bleu_score(result):.3f}" in view.output_label.text()
    view.sentence_edit.setText("   ")
    assert view.translate_now() is None and "empty" in view.error_label.text()


def test_bad_checkpoint_is_refused_with_a_message(qtbot, panel, tmp_path) -> None:
    bad = tmp_path / "broken.safetensors"
    bad.write_bytes(b"\x00" * 64)
    with qtbot.waitSignal(panel.model_open_finished, timeout=5000) as opened:
        assert panel.handle_drop([str(bad)])
    assert opened.args == [False]
    assert "Could not open the model" in panel.inline_message()
    assert panel.record is None and not panel.translate_view.has_model


def test_loss_plot_draws_the_record_and_switches_units(qtbot) -> None:
    record = LossRecord()
    plot = LossPlotWidget(record)
    qtbot.addWidget(plot)
    n = 3000  # beyond the first capacity
    for i in range(1, n + 1):
        record.append_step(i, i / 100, i * 0.01, 1.0 / i)
    for e in range(1, 31):
        record.append_epoch(e, e * 100, e * 1.0, 1.0 / e)
    plot.refresh()
    x, y = plot.step_curve.getData()
    np.testing.assert_array_equal(x, np.arange(1, n + 1))
    np.testing.assert_allclose(y, 1.0 / np.arange(1, n + 1))
    plot.set_x_mode("epochs")
    x, _ = plot.step_curve.getData()
    np.testing.assert_allclose(x, np.arange(1, n + 1) / 100)
    assert plot.step_at_x(12.344) == 1234.0
    legend_names = lambda: [label.text for _sample, label in plot.legend.items]  # noqa: E731
    assert "previous run" not in legend_names() and not any("smoothed" in n for n in legend_names())
    plot.set_smoothing(0.9)
    _, s = plot.smooth_curve.getData()
    ref = [y[0]]
    for v in y[1:]:
        ref.append(0.1 * v + 0.9 * ref[-1])
    np.testing.assert_allclose(s, ref)
    assert "smoothed (EMA 0.90)" in legend_names()
    record.append_step(n + 1, 30.01, 30.01, 0.5)  # appended rows extend the smoothed curve
    plot.refresh()
    _, s = plot.smooth_curve.getData()
    np.testing.assert_allclose(s[-1], 0.1 * 0.5 + 0.9 * ref[-1])
    np.testing.assert_allclose(ema(np.array([2.0]), 0.5), [2.0])
    record.new_run()
    plot.refresh()
    assert plot.step_count() == 0 and len(plot.previous_curve.getData()[0]) == n + 1
    assert "previous run" in legend_names()
    with pytest.raises(ValueError):
        plot.set_x_mode("hours")


def test_typing_in_the_probe_fields_keeps_the_probe_through_source_changes(qtbot, panel) -> None:
    qtbot.keyClicks(panel.data.probe_src, " x")  # used to raise AttributeError in a slot on every keystroke
    qtbot.keyClicks(panel.data.probe_tgt, " y")
    assert panel.data.probe() == ("i'm home . x", "je suis chez moi . y") and panel.data.probe_typed()
    panel.data.source_combo.setCurrentIndex(panel.data.source_combo.findData("task:copy"))
    assert panel.data.probe() == ("i'm home . x", "je suis chez moi . y")


def test_bleu_uses_the_typed_reference_else_the_datasets_own(qtbot, panel) -> None:
    panel.data.source_combo.setCurrentIndex(panel.data.source_combo.findData("task:reverse"))
    panel.form.set_values({**TINY, "num_epochs": 1, "snapshot_every": 0})
    panel.data.num_examples.setValue(64)
    assert panel.start_training(), panel.inline_message()
    qtbot.waitUntil(lambda: panel.state == "finished", timeout=60_000)
    view = panel.translate_view
    src, tgt = panel.source.pairs[0]
    view.sentence_edit.setText(src)
    assert view.reference_edit.text() == ""  # no fixed sentence of the book's corpus
    result = view.translate_now()
    assert view.reference_source == "dataset"
    from explorer.core.model.metrics import bleu
    assert f"BLEU</b> {bleu(result.tokens, tgt.split(), 2):.3f}" in view.output_label.text()
    view.sentence_edit.setText("zz qq")  # not in the data, no reference typed: no BLEU at all
    view.translate_now()
    assert view.reference_source == "" and "BLEU" not in view.output_label.text()
    view.reference_edit.setText(" ".join(tgt.split()))
    view.sentence_edit.setText(src)
    view.translate_now()
    assert view.reference_source == "typed"


def test_long_sentences_say_what_was_cut(trained) -> None:
    view = trained.translate_view
    view.sentence_edit.setText("a b c d e f g h i j k l")
    view.translate_now()
    text = view.output_label.text()
    assert "at most 10 words" in text and "cut off k l" in text  # as the core cut them: ten words read


def test_empty_views_show_hints_not_axes(panel) -> None:
    assert panel.loss_stack.showing_hint and panel.translate_view.stack.showing_hint
    assert panel.detail.stack.showing_hint


def test_model_menu_saves_and_opens_through_file_dialogs(qtbot, trained, panel, tmp_path, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    path = str(tmp_path / "menu.safetensors")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (path, "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (path, "")))
    menu = trained.panel_menu()
    assert [a.text() for a in menu.actions() if a.text()] == [
        "&Save model…", "&Open model…", "Open &run…", "&Recent runs",  # model folders: the inspector's menu
        "Replay the d&emo run", "Re&play a run…", "Overlay a run's &loss…", "&Clear overlaid runs", "Open &dataset…"]
    assert menu.save_action.isEnabled()
    menu.save_action.trigger()
    assert (tmp_path / "menu.safetensors").stat().st_size > 1000
    other = panel.panel_menu()
    assert not other.save_action.isEnabled()  # nothing to save before a model exists
    with qtbot.waitSignal(panel.model_open_finished, timeout=5000) as opened:
        other.open_action.trigger()
    assert opened.args == [True], panel.inline_message()
    assert panel.record is not None and panel.translate_view.has_model and other.save_action.isEnabled()


def test_thumbnails_follow_the_colour_blind_palette(trained) -> None:
    from explorer.render.colormaps import lookup_table

    grid = trained.grid
    grid.apply_palette("colour_blind")
    try:
        thumb = grid.plots["cross"][0][0]
        np.testing.assert_array_equal(thumb.lut, lookup_table("viridis", "colour_blind"))
        assert thumb.matrix is not None  # redrawn with the new colours
    finally:
        grid.apply_palette("default")
    np.testing.assert_array_equal(grid.plots["cross"][0][0].lut, lookup_table("viridis", "default"))


def test_loss_range_moves_in_steps_only_while_the_run_grows(panel) -> None:
    # a fresh panel (its run states set as the state sets them), so the shared finished run is left alone
    view = panel.loss_plot.getPlotItem().getViewBox()
    state = panel.studio_state
    assert state.run_state == "idle" and not view.steady
    for run_state, steady in (("running", True), ("paused", True), ("following", True), ("finished", False)):
        state._set_run_state(run_state)
        assert view.steady is steady, run_state
    state._set_run_state("following")
    assert view.steady
    state.run_feed.finished = object()  # a followed run's end has arrived with its last losses
    state.run_feed.loss_changed.emit()
    assert not view.steady
    state.run_feed.finished = None
    state._set_run_state("idle")
