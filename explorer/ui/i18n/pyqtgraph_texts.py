"""The texts of pyqtgraph's plot context menus (right click on a plot: View All, the axis options, Plot Options,
Export…), marked here so that lupdate puts them in our catalogues: pyqtgraph translates them itself, through
``QCoreApplication.translate`` with its own contexts, when it builds a menu, but has no ``retranslate()`` of its
own: :func:`retranslate_plot_menus` re-sets them when the language changes. Copied from pyqtgraph 0.13/0.14
(``ViewBoxMenu``, ``axisCtrlTemplate``, ``PlotItem``, ``plotConfigTemplate``, ``GraphicsScene``); a text pyqtgraph
changes simply stays English."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QWidget

translate = QCoreApplication.translate

PYQTGRAPH_TEXTS = (
    QT_TRANSLATE_NOOP("ViewBox", "ViewBox options"),
    QT_TRANSLATE_NOOP("ViewBox", "View All"),
    QT_TRANSLATE_NOOP("ViewBox", "axis"),
    QT_TRANSLATE_NOOP("ViewBox", "Mouse Mode"),
    QT_TRANSLATE_NOOP("ViewBox", "3 button"),
    QT_TRANSLATE_NOOP("ViewBox", "1 button"),
    QT_TRANSLATE_NOOP("Form", "Link Axis:"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>Links this axis with another view. When linked, both views will display "
                      "the same data range.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>Percent of data to be visible when auto-scaling. It may be useful to "
                      "decrease this value for data with spiky noise.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>Automatically resize this axis whenever the displayed data is "
                      "changed.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Auto"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>Set the range for this axis manually. This disables automatic scaling. "
                      "</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Manual"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Minimum value to display for this axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "<html><head/><body><p>Maximum value to display for this axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>Inverts the display of this axis. (+y points downward instead of "
                      "upward)</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Invert Axis"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>Enables mouse interaction (panning, scaling) for this "
                      "axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Mouse Enabled"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>When checked, the axis will only auto-scale to data that is visible "
                      "along the orthogonal axis.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Visible Data Only"),
    QT_TRANSLATE_NOOP("Form",
                      "<html><head/><body><p>When checked, the axis will automatically pan to center on the current "
                      "data, but the scale along this axis will not change.</p></body></html>"),
    QT_TRANSLATE_NOOP("Form", "Auto Pan Only"),
    QT_TRANSLATE_NOOP("GraphicsScene", "Export..."),
    QT_TRANSLATE_NOOP("PlotItem", "Transforms"),
    QT_TRANSLATE_NOOP("PlotItem", "Downsample"),
    QT_TRANSLATE_NOOP("PlotItem", "Average"),
    QT_TRANSLATE_NOOP("PlotItem", "Alpha"),
    QT_TRANSLATE_NOOP("PlotItem", "Grid"),
    QT_TRANSLATE_NOOP("PlotItem", "Points"),
    QT_TRANSLATE_NOOP("PlotItem", "Plot Options"),
    QT_TRANSLATE_NOOP("Form",
                      "Display averages of the curves displayed in this plot. The parameter list allows you to choose "
                      "parameters to average over (if any are available)."),
    QT_TRANSLATE_NOOP("Form", "Average"),
    QT_TRANSLATE_NOOP("Form",
                      "Plot only the portion of each curve that is visible. This assumes X values are uniformly "
                      "spaced."),
    QT_TRANSLATE_NOOP("Form", "Clip to View"),
    QT_TRANSLATE_NOOP("Form",
                      "If multiple curves are displayed in this plot, check this box to limit the number of traces "
                      "that are displayed."),
    QT_TRANSLATE_NOOP("Form", "Max Traces:"),
    QT_TRANSLATE_NOOP("Form", "Downsample"),
    QT_TRANSLATE_NOOP("Form",
                      "Downsample by drawing a saw wave that follows the min and max of the original data. This "
                      "method produces the best visual representation of the data but is slower."),
    QT_TRANSLATE_NOOP("Form", "Peak"),
    QT_TRANSLATE_NOOP("Form",
                      'If multiple curves are displayed in this plot, check "Max Traces" and set this value to limit '
                      'the number of traces that are displayed.'),
    QT_TRANSLATE_NOOP("Form",
                      "If MaxTraces is checked, remove curves from memory after they are hidden (saves memory, but "
                      "traces can not be un-hidden)."),
    QT_TRANSLATE_NOOP("Form", "Forget hidden traces"),
    QT_TRANSLATE_NOOP("Form", "Downsample by taking the mean of N samples."),
    QT_TRANSLATE_NOOP("Form", "Mean"),
    QT_TRANSLATE_NOOP("Form",
                      "Downsample by taking the first of N samples. This method is fastest and least accurate."),
    QT_TRANSLATE_NOOP("Form", "Subsample"),
    QT_TRANSLATE_NOOP("Form",
                      "Automatically downsample data based on the visible range. This assumes X values are uniformly "
                      "spaced."),
    QT_TRANSLATE_NOOP("Form", "Downsample data before plotting. (plot every Nth sample)"),
    QT_TRANSLATE_NOOP("Form", "Log X"),
    QT_TRANSLATE_NOOP("Form", "Power Spectrum (FFT)"),
    QT_TRANSLATE_NOOP("Form", "Log Y"),
    QT_TRANSLATE_NOOP("Form", "Subtract Mean"),
    QT_TRANSLATE_NOOP("Form", "Points"),
    QT_TRANSLATE_NOOP("Form", "Show X Grid"),
    QT_TRANSLATE_NOOP("Form", "Show Y Grid"),
    QT_TRANSLATE_NOOP("Form", "Opacity"),
    QT_TRANSLATE_NOOP("Form", "Alpha"),
)


def retranslate_plot_menus(root: QWidget) -> None:
    """Re-set, in the language in force, the texts of the context menus of every pyqtgraph plot under ``root``
    (the calls pyqtgraph makes when it builds them, made again)."""
    import pyqtgraph as pg

    form = _NoForm()
    for view in root.findChildren(pg.GraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for action in getattr(scene, "contextMenu", []):
            action.setText(translate("GraphicsScene", "Export..."))
        for item in scene.items():
            if isinstance(item, pg.ViewBox) and item.menu is not None:
                _retranslate_view_box_menu(item.menu, form)
            elif isinstance(item, pg.PlotItem):
                _retranslate_plot_item_menu(item, form)


class _NoForm:
    """What the templates' ``retranslateUi(form)`` titles: nothing (no widget made while Qt delivers the event)."""

    def setWindowTitle(self, _title: str) -> None:  # noqa: N802 (Qt's name)
        pass


def _retranslate_view_box_menu(menu: object, form: _NoForm) -> None:
    menu.setTitle(translate("ViewBox", "ViewBox options"))
    menu.viewAll.setText(translate("ViewBox", "View All"))
    submenus = [a.menu() for a in menu.actions() if a.menu() is not None]
    for axis, submenu in zip("XY", submenus):  # the axes first, then the mouse mode (ViewBoxMenu's order)
        submenu.setTitle(f"{axis} {translate('ViewBox', 'axis')}")
    if len(submenus) > 2:
        submenus[2].setTitle(translate("ViewBox", "Mouse Mode"))
    for action, text in zip(menu.mouseModes, ("3 button", "1 button")):
        action.setText(translate("ViewBox", text))
    for ui in menu.ctrl:
        ui.retranslateUi(form)


def _retranslate_plot_item_menu(plot: object, form: _NoForm) -> None:
    menu = plot.ctrlMenu
    if menu is None:
        return
    menu.setTitle(translate("PlotItem", "Plot Options"))
    names = ("Transforms", "Downsample", "Average", "Alpha", "Grid", "Points")  # PlotItem's order
    for action, name in zip((a for a in menu.actions() if a.menu() is not None), names):
        action.menu().setTitle(translate("PlotItem", name))
    plot.ctrl.retranslateUi(form)
