"""Multi-head panel: one heatmap per head plus the average; invalid head counts explained inline."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from explorer.core.chapter.attention_demos import multihead_demo
from explorer.ui.panels.multihead.multihead_panel import DEFAULT_SENTENCE, INPUT_MODES, MultiHeadPanel
from explorer.ui.widgets.export import export_target
from layout_checks import settled_problems, window_around


@pytest.fixture
def panel(qtbot):
    p = MultiHeadPanel()
    qtbot.addWidget(p)
    settle(qtbot, p)
    yield p
    p.shutdown(2000)


def settle(qtbot, p: MultiHeadPanel) -> None:
    """Wait until the newest weights computed on the worker thread are drawn."""
    qtbot.waitUntil(lambda: not p.runner.is_busy(), timeout=10000)


def _images(p: MultiHeadPanel) -> list[np.ndarray]:
    return [plot.image_item.image for plot in p.grid.plots]


def test_one_tile_per_head_plus_average(panel):
    ref = multihead_demo(16, 4, sentence=DEFAULT_SENTENCE)
    images = _images(panel)
    assert len(images) == 5 and panel.grid.titles[-1] == "average of 4 heads"
    for i in range(4):
        np.testing.assert_allclose(images[i], ref.weights[i], rtol=1e-5, atol=1e-7)  # thread counts may differ
    np.testing.assert_allclose(images[4], ref.weights.mean(axis=0), rtol=1e-5)
    assert panel.grid.plots[0].row_labels == ref.tokens == panel.grid.plots[0].col_labels


def test_head_count_changes_tiles(panel, qtbot):
    panel.heads_spin.setValue(8)
    settle(qtbot, panel)
    assert len(panel.grid.plots) == 9 and panel.inline_message() == ""
    assert "<b>2</b>" in panel.info_label.text()  # 16 / 8 dimensions per head
    panel.heads_spin.setValue(1)
    settle(qtbot, panel)
    assert len(panel.grid.plots) == 2


def test_invalid_head_count_is_explained_not_crashed(panel, qtbot):
    before = [img.copy() for img in _images(panel)]
    panel.heads_spin.setValue(2)  # a computation starts on the worker thread...
    panel.heads_spin.setValue(3)  # ...and is overtaken at once: 16 is not divisible by 3
    settle(qtbot, panel)  # the dropped result must neither hide the message nor be drawn
    message = panel.inline_message()
    assert "not divisible" in message and "Try num_heads = 1, 2, 4." in message
    assert "1, 2, 4, 8, 16" in panel.info_label.text()
    assert len(panel.grid.plots) == len(before)  # the last valid picture stays, dimmed
    assert panel.grid.ci.opacity() < 0.5
    panel.hiddens_spin.setValue(18)  # 18 / 3 works again
    settle(qtbot, panel)
    assert panel.inline_message() == "" and len(panel.grid.plots) == 4 and panel.grid.ci.opacity() == 1.0


def test_sentence_and_random_input(panel, qtbot):
    panel.sentence_edit.setText("a b a")
    panel.sentence_edit.editingFinished.emit()
    settle(qtbot, panel)
    assert panel.grid.plots[0].col_labels == ["a", "b", "a"]
    np.testing.assert_allclose(_images(panel)[0][0], _images(panel)[0][2], atol=1e-6)  # equal words, equal rows
    panel.positions_check.setChecked(True)
    settle(qtbot, panel)
    assert not np.allclose(_images(panel)[0][0], _images(panel)[0][2], atol=1e-4)
    panel.mode_combo.setCurrentText(INPUT_MODES[1])
    settle(qtbot, panel)
    assert panel.tokens_spin.isVisibleTo(panel) and not panel.sentence_edit.isVisibleTo(panel)
    assert panel.grid.plots[0].col_labels == [f"x{i}" for i in range(8)]
    panel.tokens_spin.setValue(5)
    settle(qtbot, panel)
    assert _images(panel)[0].shape == (5, 5)
    before = _images(panel)[0].copy()
    panel.seed_spin.setValue(3)
    settle(qtbot, panel)
    assert not np.allclose(before, _images(panel)[0])


def test_typing_recomputes_after_a_pause(panel, qtbot):
    panel.sentence_edit.setText("hello world")
    panel.sentence_edit.textEdited.emit("hello world")
    qtbot.waitUntil(lambda: panel.grid.plots[0].col_labels == ["hello", "world"], timeout=3000)
    panel.sentence_edit.setText("   ")
    panel.sentence_edit.editingFinished.emit()
    settle(qtbot, panel)
    assert "at least one word" in panel.inline_message()


def test_stretch_colours(panel):
    assert tuple(panel.grid.plots[0].image_item.getLevels()) == (0.0, 1.0)
    panel.stretch_check.setChecked(True)
    lo, hi = panel.grid.plots[0].image_item.getLevels()
    assert hi == pytest.approx(max(float(img.max()) for img in _images(panel)))
    assert lo == pytest.approx(min(float(img.min()) for img in _images(panel)))


def test_click_highlights_query_in_every_head(panel, qtbot):
    with qtbot.waitSignal(panel.status_message) as msg:
        panel.grid.cell_clicked.emit(0, 1, 3)
    assert all(p.highlighted_row == 1 for p in panel.grid.plots)
    assert msg.args[0].startswith("head 1: 'cat' attends most to")


def test_settings_round_trip(panel, qtbot, tmp_path):
    panel.hiddens_spin.setValue(24)
    panel.heads_spin.setValue(6)
    panel.sentence_edit.setText("one two three")
    panel.positions_check.setChecked(True)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    other = MultiHeadPanel()
    qtbot.addWidget(other)
    other.restore_settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settle(qtbot, other)
    assert (other.hiddens_spin.value(), other.heads_spin.value()) == (24, 6)
    assert other.sentence_edit.text() == "one two three" and other.positions_check.isChecked()
    assert len(other.grid.plots) == 7 and other.grid.plots[0].col_labels == ["one", "two", "three"]
    other.shutdown(1000)


def test_export(panel, tmp_path):
    (target,) = panel.export_targets()
    for fmt in ("png", "svg", "csv"):
        assert export_target(target, tmp_path / f"heads.{fmt}", fmt).stat().st_size > 100
    header, data = target.csv()
    t = len(panel.result.tokens)
    assert header == ["head", "query", "key", "weight"] and data.shape == (5 * t * t, 4)
    np.testing.assert_allclose(data[data[:, 0] == 4, 3], panel.result.average.ravel(), rtol=1e-6)


# --------------------------------------------------------------------------- on a projector (1024×700)
@pytest.mark.qt_log_ignore("propagateSizeHints")
@pytest.mark.parametrize("heads", [2, 4])
def test_every_head_labels_every_token_alike_at_1024x700(qtbot, heads):
    p = MultiHeadPanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    sentence = "the cat sat on the mat because it was very tired ."
    tokens = sentence.split()
    assert len(tokens) == 12
    p.sentence_edit.setText(sentence)
    p.heads_spin.setValue(heads)
    p.sentence_edit.editingFinished.emit()
    settle(qtbot, p)
    assert settled_problems(qtbot, window, p) == []
    qtbot.waitUntil(lambda: not p.grid.tick_sync.pending(), timeout=2000)
    fonts = set()
    for plot in p.grid.plots:
        bottom, left = plot.getAxis("bottom"), plot.getAxis("left")
        assert [t for _, t in bottom._tickLevels[0]] == tokens
        assert [t for _, t in bottom.label_positions()] == tokens  # drawn, none dropped at the ends
        if left.isVisible():
            assert [t for _, t in left.label_positions()] == tokens
        fonts.add((bottom.style["tickFont"].pointSizeF(), bottom.rotated))
    assert len(fonts) == 1  # same size and direction in every head
    p.shutdown(2000)


def test_messages_clear_when_their_cause_is_gone(panel, qtbot):
    panel.heads_spin.setValue(3)
    assert "divisible" in panel.inline_message()
    panel.heads_spin.setValue(2)
    settle(qtbot, panel)
    assert panel.inline_message() == ""


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_nine_tiles_thin_their_rows_alike_when_there_is_no_room(qtbot):
    p = MultiHeadPanel()
    window = window_around(p)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    p.heads_spin.setValue(8)
    p.sentence_edit.setText("the cat sat on the mat because it was very tired .")
    p.sentence_edit.editingFinished.emit()
    settle(qtbot, p)
    assert settled_problems(qtbot, window, p) == []
    qtbot.waitUntil(lambda: not p.grid.tick_sync.pending(), timeout=2000)
    ticks = {tuple(plot.getAxis("left")._tickLevels[0]) for plot in p.grid.plots}
    assert len(ticks) == 1  # the same labels in every head
    shown = [t for _, t in ticks.pop()]
    tokens = "the cat sat on the mat because it was very tired .".split()
    assert shown == tokens[::len(tokens) // len(shown)]  # every n-th word, evenly
    p.shutdown(2000)
