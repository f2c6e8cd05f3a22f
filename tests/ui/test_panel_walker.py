"""The panel walker waits for a panel's pending debounce before calling it settled, also when it looks often
(``poll_ms``), and visits the panels in order."""
from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QObject, QTimer
from PySide6.QtWidgets import QWidget

from explorer.ui.shell.panel_walker import PanelWalker


class _Panels(QObject):
    """Two panels; showing one starts a 120 ms single-shot timer on it (a debounce)."""

    def __init__(self) -> None:
        super().__init__()
        self.widgets = {key: QWidget() for key in ("a", "b")}
        self.fired: list[str] = []

    def show_panel(self, key: str) -> None:
        debounce = QTimer(self.widgets[key])
        debounce.setSingleShot(True)
        debounce.timeout.connect(lambda: self.fired.append(key))
        debounce.start(120)

    def panel(self, key: str) -> QWidget:
        return self.widgets[key]


def test_a_quick_poll_still_waits_for_the_debounce(qtbot) -> None:
    panels = _Panels()
    settled: list[tuple[str, list[str], int]] = []
    clock = QElapsedTimer()
    clock.start()
    done: list[bool] = []
    walker = PanelWalker(panels, ["a", "b"], lambda key: settled.append((key, list(panels.fired), clock.elapsed())),
                         lambda: done.append(True), min_wait_ms=0, poll_ms=5)
    walker.start()
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert [key for key, _, _ in settled] == ["a", "b"]
    assert settled[0][1] == ["a"] and settled[1][1] == ["a", "b"]  # each debounce had fired before "settled"
    assert settled[1][2] >= 200  # two 120 ms debounces, which Qt's coarse timers may fire up to 5 % early


class _Settling(QWidget):
    """A panel that says it is still bringing in what it shows (as the studio does while it reads a followed run)."""

    def __init__(self) -> None:
        super().__init__()
        self.settling = True

    def is_settling(self) -> bool:
        return self.settling


def test_a_panel_that_says_it_is_settling_is_waited_for(qtbot) -> None:
    panels = _Panels()
    panels.widgets["a"] = _Settling()
    settled: list[str] = []
    walker = PanelWalker(panels, ["a"], settled.append, lambda: None, min_wait_ms=0, poll_ms=5)
    walker.start()
    qtbot.wait(300)
    assert settled == []  # its debounce fired long ago; it still says it is settling
    panels.widgets["a"].settling = False
    qtbot.waitUntil(lambda: settled == ["a"], timeout=2000)
