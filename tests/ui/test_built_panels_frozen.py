"""A built panel lives as long as the window, so the window puts it out of the cyclic collector's walks: a full
collection later (on whichever thread) does not have to walk every panel's widgets again."""
from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from classroom_fakes import make_window

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def test_a_built_panel_is_frozen_and_later_objects_are_not(qtbot, monkeypatch, tmp_path: Path) -> None:
    window = make_window(qtbot, monkeypatch, tmp_path / "settings")
    window.show()
    key = window.keys()[1]

    class Cycle:
        pass

    garbage = Cycle()
    garbage.me = garbage  # garbage made just before the build: collected, not frozen for good
    gone = weakref.ref(garbage)
    del garbage
    before = gc.get_freeze_count()
    window.show_panel(key)
    assert gone() is None
    panel = window.panel(key)
    assert panel is not None and gc.get_freeze_count() > before
    assert not any(o is panel for o in gc.get_objects())  # not walked by any later collection
    later = [object()]  # made after the build: the collector still sees it
    assert any(o is later for o in gc.get_objects())
