"""pyqtgraph work-arounds: with the quicker axis labels, axes show the same label text and take the same size
through range, unit, label and visibility changes as pyqtgraph's own method, set the HTML far fewer times, and
put back a label whose document someone else changed."""
from __future__ import annotations

import json
import os
import subprocess
import sys

_SCENARIO = """
import json, sys
from PySide6.QtWidgets import QApplication, QGraphicsTextItem
app = QApplication([])
import pyqtgraph as pg
from explorer.ui.pyqtgraph_compat import quicken_axis_labels
patched = sys.argv[1] == "patched"
if patched:
    assert quicken_axis_labels() is True and quicken_axis_labels() is False
calls = [0]
original_set_html = QGraphicsTextItem.setHtml
def counting(item, html):
    calls[0] += 1
    original_set_html(item, html)
QGraphicsTextItem.setHtml = counting
plot = pg.PlotItem()
seen = []
def look():
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        seen.append([axis.label.toPlainText(), axis.label.isVisible(), axis.width(), axis.height(), axis.autoSIPrefixScale])
for x0, x1 in [(0, 1), (0, 1e-4), (0, 2e4), (0, 5e9), (0, 1), (0, 1)]:
    plot.setXRange(x0, x1, padding=0)
    plot.setYRange(-x1, x1, padding=0)
    look()
plot.setLabel("left", "volts", units="V")
for y in (1e-3, 1e-3, 5e3, 1.0):
    plot.setYRange(0, y, padding=0)
    look()
plot.setLabel("bottom", "time")
plot.showAxis("top"); plot.getAxis("bottom").showLabel(False)
plot.setXRange(0, 1e-6, padding=0)
look()
axis = plot.getAxis("left")
axis.label.setPlainText("someone else's text")
plot.setYRange(0, 2.0, padding=0)
look()
print(json.dumps({"seen": seen, "set_html": calls[0]}))
"""


def _run(mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _SCENARIO, mode], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_axes_show_the_same_labels_and_sizes_with_fewer_html_sets() -> None:
    stock, quick = _run("stock"), _run("patched")
    assert quick["seen"] == stock["seen"]
    assert any("mV" in row[0] for row in stock["seen"])  # the SI prefix did change on the way
    assert stock["seen"][-2][0] == "volts (V)"  # the label someone else overwrote is put back
    assert quick["set_html"] < stock["set_html"] // 2


def test_view_box_menus_are_built_on_the_first_right_click_as_before(qapp) -> None:
    import importlib

    import pyqtgraph as pg

    from explorer.ui.i18n.translators import language_manager
    from explorer.ui.pyqtgraph_compat import defer_view_box_menus

    defer_view_box_menus()
    assert defer_view_box_menus() is False  # once
    menus = importlib.import_module("pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu")
    built = []
    original_init = menus.ViewBoxMenu.__init__

    def counting(menu, view):  # type: ignore[no-untyped-def]
        built.append(view)
        original_init(menu, view)

    menus.ViewBoxMenu.__init__ = counting
    try:
        plot, other = pg.PlotItem(name="deferred_a"), pg.PlotItem(name="deferred_b")
        bar = pg.ColorBarItem()
        assert built == [] and plot.vb.menu is None and bar.vb.menu is None  # none made, none made and dropped
        assert plot.vb.menuEnabled() and not bar.vb.menuEnabled() and bar.vb.getContextMenus(None) == []
        actions = plot.vb.getContextMenus(None)  # what a right click on an item in the plot asks for
        menu = plot.vb.menu
        assert built == [plot.vb] and isinstance(menu, menus.ViewBoxMenu) and menu.viewAll in actions
        assert plot.vb.getMenu(None) is menu and len(built) == 1  # built once
        links = [menu.ctrl[0].linkCombo.itemText(i) for i in range(menu.ctrl[0].linkCombo.count())]
        assert "deferred_b" in links  # told of the named views, as a menu built in __init__ is
        plot.vb.setMenuEnabled(False)
        assert plot.vb.menu is None and plot.vb.getContextMenus(None) == []
        language_manager().apply("zh_CN")
        try:
            assert other.vb.getMenu(None).viewAll.text() != "View All"  # built later, in the language in force
        finally:
            language_manager().apply("en")
    finally:
        menus.ViewBoxMenu.__init__ = original_init


def test_plot_option_groups_are_gathered_when_first_used_and_hold_the_same_state(qapp) -> None:
    import importlib

    import pyqtgraph as pg

    from explorer.ui.pyqtgraph_compat import defer_plot_option_groups

    defer_plot_option_groups()
    assert defer_plot_option_groups() is False  # once
    module = importlib.import_module("pyqtgraph.graphicsItems.PlotItem.PlotItem")
    real = module.WidgetGroup.real
    plot, other = pg.PlotItem(), pg.PlotItem()
    assert plot.stateGroup._group is None  # nothing walked yet
    plot.setLogMode(y=True)  # through the menu's own widgets, as a user's click would
    plot.showGrid(x=True, alpha=0.4)
    state = plot.saveState()
    assert isinstance(plot.stateGroup.group(), real)
    reference = real()  # what a group built in __init__ would hold
    for box in (plot.ctrl.transformGroup, plot.ctrl.decimateGroup, plot.ctrl.averageGroup, plot.ctrl.alphaGroup,
                plot.ctrl.gridGroup, plot.ctrl.pointsGroup):
        reference.autoAdd(box)
    assert state == {**reference.state(), "view": state["view"], "paramList": {}}
    assert state["logYCheck"] is True and state["xGridCheck"] is True and state["yGridCheck"] is False
    other.restoreState(state)  # the other plot's group is made by setState
    assert other.ctrl.logYCheck.isChecked() and other.ctrl.xGridCheck.isChecked()
    assert other.getAxis("left").logMode is True


def test_a_plot_destroyed_after_its_legend_was_renamed_raises_nothing(qtbot) -> None:
    # The legend is laid out once more while Qt destroys the plot, after its view box: unguarded, pyqtgraph's anchor
    # read the deleted box in a slot ("Internal C++ object (ViewBox) already deleted"), which fails this test.
    from PySide6.QtCore import QCoreApplication, QEvent

    from explorer.ui.i18n.translators import language_manager
    from explorer.ui.panels.studio.loss_plot_widget import LossPlotWidget
    from explorer.ui.pyqtgraph_compat import guard_legend_anchors

    guard_legend_anchors()  # in force for the whole ui suite already (tests/ui/conftest.py), as in the app
    plot = LossPlotWidget()
    plot.resize(400, 300)
    plot.show()
    qtbot.wait(20)
    language_manager().apply("zh_CN")  # renames the legend's entries
    assert [label.text for _sample, label in plot.legend.items][:2] == ["每步", "每轮"]
    plot.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qtbot.wait(20)
