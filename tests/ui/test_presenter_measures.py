"""Presenter mode measures a plot's texts again only when their font changed: entering it lays the axis captions
out in the larger font (the left axis widens for it), and a plot built in the font in force is not laid out twice."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget

from explorer.ui.shell.presenter import Presenter

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def plot_window(qtbot, monkeypatch):
    app = QApplication.instance()
    monkeypatch.setattr(app, "font", lambda f=app.font(): f)  # presenter mode sets the app font: not in other tests
    window = QMainWindow()
    qtbot.addWidget(window)
    plot = pg.PlotWidget()
    plot.setLabel("left", "weight α")
    plot.setLabel("bottom", "keys")
    plot.setTitle("weights")
    window.setCentralWidget(plot)
    window.resize(640, 420)
    window.show()
    qtbot.waitExposed(window)
    return window, plot.getPlotItem()


def _count_html(monkeypatch, plot_item) -> list[str]:
    """Every HTML set on the plot's axis captions from now on."""
    calls: list[str] = []
    for name in ("left", "bottom"):
        label = plot_item.getAxis(name).label
        original = label.setHtml
        monkeypatch.setattr(label, "setHtml", lambda html, o=original: (calls.append(html), o(html))[1])
    return calls


def test_a_plot_in_the_font_in_force_is_not_measured_again(qtbot, plot_window, monkeypatch) -> None:
    window, plot_item = plot_window
    presenter = Presenter(window, 1.5)
    presenter.enter()
    presenter.leave()  # scaled once: from now on the window is walked at every size
    qtbot.wait(20)
    calls = _count_html(monkeypatch, plot_item)
    presenter.apply_to(window)  # at the normal size, the font in force: nothing measured again
    assert calls == []


def test_entering_and_leaving_measures_the_captions_in_their_new_font(qtbot, plot_window, monkeypatch) -> None:
    window, plot_item = plot_window
    presenter = Presenter(window, 1.5)
    left = plot_item.getAxis("left")
    before_pt, before_width = left.label.font().pointSizeF(), left.width()
    calls = _count_html(monkeypatch, plot_item)
    presenter.enter()
    qtbot.wait(20)
    assert left.label.font().pointSizeF() == pytest.approx(before_pt * 1.5)
    assert {"weight α", "keys"} <= {html.split(">")[1].split("<")[0].strip() for html in calls}
    presenting_width = left.width()
    assert presenting_width > before_width  # laid out again: the taller caption needs a wider axis
    presenter.leave()
    qtbot.wait(20)
    assert left.label.font().pointSizeF() == pytest.approx(before_pt)
    assert left.width() < presenting_width and left.width() == pytest.approx(before_width, abs=2)


def test_a_root_never_scaled_is_not_walked_at_the_normal_size_but_its_tabs_stay_whole(qtbot, plot_window,
                                                                                     monkeypatch) -> None:
    window, _ = plot_window
    presenter = Presenter(window, 1.5)
    panel = QTabWidget()
    panel.addTab(pg.PlotWidget(), "plot")
    qtbot.addWidget(panel)
    walked: list[object] = []
    original = presenter._scale_plot_items
    monkeypatch.setattr(presenter, "_scale_plot_items", lambda view: (walked.append(view), original(view))[1])
    presenter.apply_to(panel)  # built outside presenter mode: as built
    assert walked == []
    assert not panel.tabBar().usesScrollButtons()  # every tab in sight, presenting or not
    presenter.enter()
    presenter.apply_to(panel)  # built while presenting: scaled, and from now on walked at every size
    presenter.leave()
    walked.clear()
    presenter.apply_to(panel)
    assert len(walked) == 1
