"""A panel computes its first view when it is made; restoring settings that hold the values it was made with asks
for nothing more (the window restores every panel right after building it), and a stored value that differs asks
once."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from explorer.ui.panels.multihead.multihead_panel import MultiHeadPanel
from explorer.ui.panels.scoring.scoring_panel import ScoringPanel
from explorer.ui.panels.transformer_anatomy.anatomy_panel import AnatomyPanel


def stored(panel, tmp_path: Path, name: str) -> QSettings:
    """``panel``'s settings written to a file and opened again."""
    path = tmp_path / f"{name}.ini"
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    panel.save_settings(settings)
    settings.sync()
    return QSettings(str(path), QSettings.Format.IniFormat)


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
    made = panel_class()
    qtbot.addWidget(made)
    same = stored(made, tmp_path, "same")
    panel = panel_class()
    qtbot.addWidget(panel)
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
