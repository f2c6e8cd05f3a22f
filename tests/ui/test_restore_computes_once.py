"""A panel computes its first view when it is made; restoring settings that hold the values it was made with asks
for nothing more (the window restores every panel right after building it), and a stored value that differs asks
once."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from explorer.ui.panels.architecture_comparison.architecture_panel import ArchitecturePanel
from explorer.ui.panels.attention_cues.attention_cues_panel import AttentionCuesPanel
from explorer.ui.panels.kernel_regression.kernel_regression_panel import KernelRegressionPanel
from explorer.ui.panels.multihead.multihead_panel import MultiHeadPanel
from explorer.ui.panels.positional.positional_panel import PositionalPanel
from explorer.ui.panels.scoring.scoring_panel import ScoringPanel
from explorer.ui.panels.transformer_anatomy.anatomy_panel import AnatomyPanel
from explorer.ui.shell.lessons.store import apply_panel, capture_panel

#: The method each panel that computes on the GUI thread recomputes its view with.
SYNC_RECOMPUTE = {PositionalPanel: "recompute", ArchitecturePanel: "recompute", AttentionCuesPanel: "_new_layout",
                  KernelRegressionPanel: "_regenerate"}


def stored(panel, tmp_path: Path, name: str) -> QSettings:
    """``panel``'s settings written to a file and opened again."""
    path = tmp_path / f"{name}.ini"
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    return QSettings(str(path), QSettings.Format.IniFormat)


def twins(panel_class, qtbot, tmp_path: Path) -> tuple:
    """A panel, the settings it stores as made, and a second panel made the same way (not restored yet)."""
    made = panel_class()
    qtbot.addWidget(made)
    same = stored(made, tmp_path, "same")
    panel = panel_class()
    qtbot.addWidget(panel)
    return made, same, panel


def count_jobs(panel, monkeypatch) -> list:
    """The jobs ``panel``'s runners are asked for from now on."""
    asked: list = []
    for runner in panel.findChildren(type(panel.runner)):
        real = runner.submit
        monkeypatch.setattr(runner, "submit", lambda fn, *a, real=real, **k: (asked.append(fn), real(fn, *a, **k))[1])
    return asked


@pytest.mark.parametrize("panel_class", [MultiHeadPanel, ScoringPanel, AnatomyPanel])
def test_restoring_the_values_it_was_made_with_computes_nothing_again(qtbot, tmp_path: Path, monkeypatch,
                                                                      panel_class) -> None:
    made, same, panel = twins(panel_class, qtbot, tmp_path)
    asked = count_jobs(panel, monkeypatch)
    panel.restore_settings(same)
    assert asked == []
    made.shutdown(2000)
    panel.shutdown(2000)


def test_a_stored_value_that_differs_computes_once(qtbot, tmp_path: Path, monkeypatch) -> None:
    made = MultiHeadPanel()
    qtbot.addWidget(made)
    made.seed_spin.setValue(made.seed_spin.value() + 1)
    changed = stored(made, tmp_path, "changed")
    panel = MultiHeadPanel()
    qtbot.addWidget(panel)
    asked = count_jobs(panel, monkeypatch)
    panel.restore_settings(changed)
    assert len(asked) == 1
    qtbot.waitUntil(lambda: not panel.runner.is_busy(), timeout=10_000)
    assert panel.seed_spin.value() == made.seed_spin.value()
    made.shutdown(2000)
    panel.shutdown(2000)


@pytest.mark.parametrize("panel_class", list(SYNC_RECOMPUTE))
def test_panels_that_compute_on_the_gui_thread_do_not_again_either(qtbot, tmp_path: Path, monkeypatch,
                                                                  panel_class) -> None:
    made, same, panel = twins(panel_class, qtbot, tmp_path)
    name = SYNC_RECOMPUTE[panel_class]
    calls: list = []
    real = getattr(panel, name)
    monkeypatch.setattr(panel, name, lambda *a, **k: (calls.append(a), real(*a, **k))[1])
    panel.restore_settings(same)
    assert calls == []
    made.shutdown(2000)
    panel.shutdown(2000)


def test_the_anatomy_block_range_stays_the_models_after_a_restore_of_the_same_values(qtbot, tmp_path: Path) -> None:
    panel = AnatomyPanel()
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.views is not None, timeout=20_000)
    depth = panel.views.model.config.num_layers
    assert panel.layer_spin.maximum() == depth
    apply_panel(panel, capture_panel(panel)[0])  # a lesson holding the values on show
    assert panel.layer_spin.maximum() == depth
    panel.shutdown(2000)


def test_a_lesson_with_the_same_values_still_brings_back_the_seeds_data(qtbot) -> None:
    """Dragged training points are not the seed's data: a lesson shows the data its values make."""
    panel = KernelRegressionPanel()
    qtbot.addWidget(panel)
    values = capture_panel(panel)[0]
    seeds = panel.y_train.copy()
    panel._on_points_item_point_dragged(0, float(panel.x_train[0]), 5.0)  # what a drag of the first point does
    panel._on_points_item_drag_finished()
    assert not (panel.y_train == seeds).all()
    apply_panel(panel, values)
    assert (panel.y_train == seeds).all()
    panel.shutdown(2000)


def test_a_scaling_value_restored_recomputes_the_scaling_demo_only(qtbot, tmp_path: Path, monkeypatch) -> None:
    made = ScoringPanel()
    qtbot.addWidget(made)
    made.scaling.d_slider.setValue(128)
    changed = stored(made, tmp_path, "scaling")
    panel = ScoringPanel()
    qtbot.addWidget(panel)
    panel.scaling.ensure_computed()  # as after its tab was shown
    asked = count_jobs(panel, monkeypatch)
    panel.restore_settings(changed)
    assert [fn.__name__ for fn in asked] == ["compute_scaling"]
    qtbot.waitUntil(lambda: panel.scaling.result.dim == 128, timeout=10_000)
    made.shutdown(2000)
    panel.shutdown(2000)
