"""Switching the language while the studio shows a run: the progress line and the "previous run" overlay follow,
and switching back gives the very English the screen had (no text worded from another message)."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QMenu

from explorer.core.runs.loss_record import PREVIOUS
from explorer.paths import demo_run_dir
from explorer.ui.i18n.text_walk import text_slots
from explorer.ui.i18n.translators import language_manager
from i18n_checks import english_words, has_cjk

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def test_the_progress_line_of_a_paused_replay_follows_the_language(qtbot, studio_panel) -> None:
    panel = studio_panel
    panel.resize(1024, 700)
    panel.show()
    panel.controls.speed_combo.setCurrentIndex(0)  # slow: it is still running when paused
    assert panel.replay_run(str(demo_run_dir()))
    qtbot.waitUntil(lambda: bool(panel.controls.info_label.text()), timeout=10_000)
    panel.controls.pause_button.click()
    qtbot.waitUntil(lambda: panel.studio_state.run_state == "paused", timeout=5_000)
    qtbot.wait(100)
    english = panel.controls.info_label.text()
    assert english_words(english), english
    language_manager().apply("zh_CN")
    chinese = panel.controls.info_label.text()
    assert has_cjk(chinese) and not english_words(chinese), chinese
    language_manager().apply("en")
    assert panel.controls.info_label.text() == english


def test_the_previous_run_overlay_is_named_in_the_language_in_force(qtbot) -> None:
    from explorer.ui.panels.studio.loss_plot_widget import LossPlotWidget

    plot = LossPlotWidget()
    qtbot.addWidget(plot)
    plot.record.overlays[PREVIOUS] = np.array([[0, 0.0, 0.0, 1.0], [1, 0.5, 1.0, 0.5]], dtype=np.float64)
    plot.refresh()

    def names() -> list[str]:
        return [label.text for _sample, label in plot.legend.items]

    assert "previous run" in names()
    language_manager().apply("zh_CN")
    assert "previous run" not in names() and any(has_cjk(name) for name in names())
    language_manager().apply("en")
    assert "previous run" in names()


def test_switching_to_chinese_and_back_gives_the_same_english(qtbot, tmp_path) -> None:
    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.main_window import MainWindow

    window = MainWindow(AppSettings(tmp_path), device_probe=lambda: "test-device", probe_after_module=None)
    qtbot.addWidget(window)
    window.confirm_close = lambda reasons: True
    window.show()
    for key in ("transformer_anatomy", "inspector", "studio"):  # "Model" and "Sentence pair" boxes, menus
        window.show_panel(key)

    def texts() -> set[str]:  # a set: the walk may meet a shared menu more than once
        menus = [a.menu() for a in window.menuBar().actions() if isinstance(a.menu(), QMenu)]
        return {s.text for s in text_slots([window, *menus]) if not s.data}

    before = texts()
    window.language.choose("zh_CN")
    window.language.choose("en")
    after = texts()
    assert "Model" in before and "Sentence pair" in before
    assert sorted(before - after) == sorted(after - before) == []
    window.shutdown(save=False)
