"""The model inspector as a panel of the main window: the studio's model reaches it through the window's exchange
(offered while the studio has one, gone when the studio takes it back), a lesson keeps its text, and every tab fits
a 1024×700 projector in 简体中文. No Hugging Face extra needed (test_inspector_inspect.py covers those models)."""
from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.i18n.translators import language_manager
from explorer.ui.settings import AppSettings
from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_registry import PANELS, panel_spec

TIMEOUT = 30_000
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def tiny_checkpoint(folder: Path) -> Path:
    import torch

    from explorer.core.data.text import Vocab
    from explorer.core.model.transformer import Seq2SeqTransformer, TransformerConfig
    from explorer.core.training.checkpoint import save_model

    src = Vocab([["he's", "calm", "."]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    tgt = Vocab([["il", "est", "calme", "."]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    torch.manual_seed(0)
    model = Seq2SeqTransformer(TransformerConfig(num_hiddens=8, num_layers=2, num_heads=2, ffn_num_hiddens=16),
                               len(src), len(tgt)).eval()
    return save_model(folder / "tiny.safetensors", model, None, src, tgt)


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    specs = (panel_spec("studio"), panel_spec("inspector"))
    w = MainWindow(AppSettings(tmp_path / "settings"), panels=specs, device_probe=None)
    qtbot.addWidget(w)
    w.classroom.show_dialogs = False
    yield w
    w.shutdown(save=False)


def test_the_inspector_is_in_the_navigation_after_the_studio() -> None:
    keys = [spec.key for spec in PANELS]
    assert keys[-2:] == ["studio", "inspector"]


def test_the_studio_model_is_offered_through_the_window(qtbot, window, tmp_path) -> None:
    path = tiny_checkpoint(tmp_path)
    window.show_panel("inspector")
    inspector = window.panel("inspector")
    inspect = inspector.inspector_state.inspect
    assert inspect.choices() == [] and inspect.model() is None
    window.show_panel("studio")
    studio = window.panel("studio")
    with qtbot.waitSignal(studio.model_open_finished, timeout=TIMEOUT):
        studio.open_model(str(path))
    assert [c for c, _ in inspect.choices()] == ["offer"] and inspect.info().architecture == "Seq2SeqTransformer"
    assert inspector.inspector_state.debug.data_pairs == studio.studio_state.data.source.pairs  # the "data" set
    window.show_panel("inspector")
    inspector.inspect_view.source_edit.setPlainText("he's calm .")
    inspector.inspect_view.inspect_button.click()
    qtbot.waitUntil(lambda: inspect.last is not None, timeout=TIMEOUT)
    assert inspector.grid.layout == (("encoder", 2, 2), ("decoder", 2, 2), ("cross", 2, 2))
    studio.reset(confirm=False)
    assert inspect.choices() == [] and inspect.model() is None


def test_a_lesson_keeps_the_inspected_text(qtbot, window, tmp_path) -> None:
    window.show_panel("inspector")
    inspector = window.panel("inspector")
    inspector.inspect_view.source_edit.setPlainText("i lost .")
    inspector.inspect_view.target_edit.setText("j'ai perdu .")
    lesson = tmp_path / "lesson.json"
    assert window.classroom.save_lesson(str(lesson))
    inspector.inspect_view.source_edit.setPlainText("something else")
    inspector.inspect_view.target_edit.setText("")
    assert window.classroom.open_lesson(str(lesson)), window.classroom.last_report
    assert inspector.inspect_view.source_edit.toPlainText() == "i lost ."
    assert inspector.inspect_view.target_edit.text() == "j'ai perdu ."
    assert inspector.inspector_state.inspect.source == "i lost ."


def test_every_tab_fits_a_projector_in_chinese(qtbot) -> None:
    from layout_checks import settled_problems, window_around

    from explorer.ui.panels.inspector.inspector_panel import InspectorPanel

    language_manager().apply("zh_CN")
    panel = InspectorPanel()
    window = window_around(panel)
    qtbot.addWidget(window)
    try:
        qtbot.waitExposed(window)
        assert panel.class_text("title") == "模型检查器"
        for index in range(panel.tabs.count()):
            panel.tabs.setCurrentIndex(index)
            assert settled_problems(qtbot, window, panel) == [], index
        for index in range(panel.debug.count()):
            panel.tabs.setCurrentWidget(panel.debug)
            panel.debug.setCurrentIndex(index)
            assert settled_problems(qtbot, window, panel) == [], ("debug", index)
    finally:
        panel.shutdown(3000)
