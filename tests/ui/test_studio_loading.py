"""The studio reads dataset files and checkpoints off the GUI thread (book §10.5 data, §11.7 models):
the event loop keeps running, the previous data stays until the new one is ready, newer requests win."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from explorer.ui.panels.studio.studio_panel import StudioPanel

BIG_LINES = 100_000


@pytest.fixture
def panel(studio_panel):
    return studio_panel


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.txt"
    path.write_text("".join(f"go {i % 997} home .\tva {i % 991} chez toi !\n" for i in range(BIG_LINES)),
                    encoding="utf-8")
    return path


def _all_pairs(qtbot, panel: StudioPanel) -> None:
    """Use every pair of a file (the spin box change reloads the built-in corpus in the background)."""
    with qtbot.waitSignal(panel.dataset_load_finished, timeout=10_000):
        panel.data.num_examples.setValue(10_000_000)
    assert not panel.is_loading()


def test_big_file_loads_while_the_event_loop_keeps_running(qtbot, panel, big_file) -> None:
    _all_pairs(qtbot, panel)
    before = panel.source
    ticks = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    with qtbot.waitSignal(panel.dataset_load_finished, timeout=60_000) as finished:
        assert panel.open_dataset(str(big_file))
        # busy state: the old data is still there, Start waits, the box says what is being read
        assert panel.is_loading() and panel.source is before
        assert "Loading big.txt" in panel.data.info.text()
        assert not panel.controls.start_button.isEnabled()
        assert panel.start_training() is False and "Still loading big.txt" in panel.inline_message()
        ticks.clear()
    timer.stop()
    assert finished.args == [True]
    assert len(ticks) >= 3, "the GUI thread's timer kept firing during the load"
    assert len(panel.source.pairs) == BIG_LINES and panel.data.source_spec() == str(big_file)
    assert "100000 pairs" in panel.data.info.text() or f"{BIG_LINES:,} pairs" in panel.data.info.text()
    assert panel.controls.start_button.isEnabled() and panel.inline_message() == ""


def test_a_later_request_supersedes_an_earlier_one(qtbot, panel, big_file, tmp_path) -> None:
    _all_pairs(qtbot, panel)
    small = tmp_path / "small.tsv"
    small.write_text("Go.\tVa !\nHi.\tSalut !\n", encoding="utf-8")
    results: list[bool] = []
    panel.dataset_load_finished.connect(results.append)
    assert panel.open_dataset(str(big_file))
    assert panel.open_dataset(str(small))
    qtbot.waitUntil(lambda: not panel.is_loading(), timeout=60_000)
    qtbot.wait(100)  # a late result of the superseded load would arrive here
    assert results == [True]
    assert len(panel.source.pairs) == 2
    combo = panel.data.source_combo
    assert combo.findData(str(big_file)) < 0, "the superseded file is not offered as if it had loaded"
    assert panel.data.source_spec() == str(small)
    # a quick source chosen while a file loads wins too (tasks of up to QUICK_PAIRS pairs load at once)
    with qtbot.waitSignal(panel.dataset_load_finished, timeout=10_000):
        panel.data.num_examples.setValue(500)
    results.clear()
    assert panel.open_dataset(str(big_file))
    combo.setCurrentIndex(combo.findData("task:copy"))
    assert not panel.is_loading() and panel.studio_state.data.task() == "copy"
    qtbot.wait(100)
    assert results == [True] and panel.data.source_spec() == "task:copy"
    assert combo.findData(str(big_file)) < 0


def test_a_refused_file_keeps_the_data_and_its_description(qtbot, panel, tmp_path) -> None:
    info, source = panel.data.info.text(), panel.source
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"go .\tva !\n\xff\xfe\tbad\n")
    with qtbot.waitSignal(panel.dataset_load_finished, timeout=10_000) as finished:
        assert panel.open_dataset(str(bad))
        assert "Loading bad.txt" in panel.data.info.text()
    assert finished.args == [False] and "Could not load the data" in panel.inline_message()
    assert panel.source is source and panel.data.info.text() == info
    assert panel.controls.start_button.isEnabled()


def test_shutdown_during_a_load_neither_hangs_nor_delivers(qtbot, big_file) -> None:
    panel = StudioPanel()
    qtbot.addWidget(panel)
    _all_pairs(qtbot, panel)
    results: list[bool] = []
    panel.dataset_load_finished.connect(results.append)
    assert panel.open_dataset(str(big_file))
    panel.shutdown(1000)
    qtbot.wait(100)
    assert results == [] and not panel.is_loading()
