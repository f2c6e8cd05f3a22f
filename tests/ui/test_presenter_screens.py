"""Presenter mode with the app's real panels: leaving it gives every panel back its normal sizes (also panels first
opened while presenting), and on a classroom screen the formula folds, the navigation list narrows to numbers, no
plot is squashed below readability and no panel needs sideways scrolling, in English and in 简体中文."""
from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QScrollArea, QStackedWidget, QTabBar, QTabWidget

from explorer.ui.i18n.translators import language_manager

from explorer.ui.settings import AppSettings
from explorer.ui.shell.main_window import MainWindow
from explorer.ui.shell.panel_registry import PANELS
from explorer.ui.shell.presenter import MIN_PLOT

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def _window(qtbot, tmp_path: Path) -> MainWindow:
    window = MainWindow(AppSettings(tmp_path), device_probe=lambda: "test-device", probe_after_module=None)
    qtbot.addWidget(window)
    window.confirm_close = lambda reasons: True
    window.resize(1280, 820)
    window.show()
    return window


def _sizes(panel) -> dict[str, object]:
    """What presenter mode scales, as a user would see it: the formula's font, the legends and axis captions."""
    legends, captions = [], []
    for view in panel.findChildren(pg.GraphicsView):
        for item in view.scene().items():
            if isinstance(item, pg.LegendItem):
                legends.append((round(item.width()), round(item.height())))
            elif isinstance(item, pg.AxisItem) and item.label is not None and item.labelText:
                captions.append((item.labelText, round(item.label.font().pointSizeF(), 2)))
    return {"formula_pt": round(panel.formula_label.font().pointSizeF(), 2), "legends": sorted(legends),
            "captions": sorted(captions)}


def test_a_panel_opened_while_presenting_gets_its_normal_sizes_back(qtbot, tmp_path: Path) -> None:
    normal = _window(qtbot, tmp_path / "a")
    normal.show_panel("kernel_regression")
    QApplication.processEvents()  # as drawn: a legend takes its rows' size when its plot is laid out
    expected = _sizes(normal.panel("kernel_regression"))
    normal.close()

    window = _window(qtbot, tmp_path / "b")
    app_pt = QApplication.font().pointSizeF()
    window.classroom.set_presenter_scale(1.5)
    window.menu_actions.classroom.presenter.setChecked(True)
    window.show_panel("kernel_regression")  # built while presenting
    panel = window.panel("kernel_regression")
    presenting = _sizes(panel)
    assert presenting["formula_pt"] == pytest.approx(1.5 * expected["formula_pt"])  # scaled once, not twice
    window.menu_actions.classroom.presenter.setChecked(False)
    assert QApplication.font().pointSizeF() == pytest.approx(app_pt)
    assert _sizes(panel) == expected  # formula text, legend and axis captions as if never presented
    window.close()


def test_the_formula_folds_for_presenter_mode_and_the_users_choice_comes_back(qtbot, tmp_path: Path) -> None:
    window = _window(qtbot, tmp_path)
    window.show_panel("scoring")
    panel = window.panel("scoring")
    assert panel.explanation_visible()
    window.classroom.set_presenter_scale(1.5)
    window.menu_actions.classroom.presenter.setChecked(True)
    window.showNormal()
    window.resize(1024, 768)
    assert not panel.explanation_visible()
    window.show_panel("multihead")  # built while folded: folded too
    assert not window.panel("multihead").explanation_visible()
    window.menu_actions.classroom.presenter.setChecked(False)
    assert panel.explanation_visible() and window.panel("multihead").explanation_visible()
    assert AppSettings(tmp_path).get("view/explanation_visible") is True  # never remembered as folded
    window.close()


def _squashed_plots(qtbot, window: MainWindow, key: str) -> list[str]:
    """Plots of panel ``key`` smaller than MIN_PLOT and tabs out of sight, on every page of every tab widget."""
    panel = window.panel(key)
    problems: list[str] = []

    def found(where: str) -> list[str]:
        out = []
        for bar in panel.findChildren(QTabBar):
            hidden = [bar.tabText(i) for i in range(bar.count()) if not bar.rect().contains(bar.tabRect(i))]
            if bar.isVisible() and hidden:
                out.append(f"{key}{where}: tabs {hidden} out of sight in a {bar.width()} px bar")
        for view in panel.findChildren(pg.GraphicsView):
            fixed = view.minimumHeight() == view.maximumHeight()  # a deliberately small inset
            if view.isVisible() and not fixed and (view.width() < MIN_PLOT.width() or
                                                   view.height() < MIN_PLOT.height()):
                out.append(f"{key}{where}: {type(view).__name__} {view.size().toTuple()}")
        return out

    def check(where: str) -> None:
        try:  # layouts settle through the event loop (slower on a busy machine)
            qtbot.waitUntil(lambda: not found(where), timeout=2000)
        except Exception:  # noqa: BLE001 (pytest-qt's timeout): report what is still wrong
            problems.extend(found(where))

    _on_every_page(panel, check)
    return problems


def _on_every_page(panel, check) -> None:
    """Call ``check(where)`` with the panel as it opens, then with each page of each of its tab widgets in sight."""
    check("")
    for tabs in panel.findChildren(QTabWidget):  # outer tab widgets first: an inner one shows when its page does
        for index in range(tabs.count()):
            page = tabs.widget(index)
            outer = tabs.parentWidget()
            while outer is not None and outer is not panel:  # bring the pages holding this tab widget forward
                parent = outer.parentWidget()
                if isinstance(parent, QStackedWidget) and isinstance(parent.parentWidget(), QTabWidget):
                    parent.parentWidget().setCurrentWidget(outer)
                outer = parent
            tabs.setCurrentWidget(page)
            check(f" / {tabs.tabText(index)}")


@pytest.mark.parametrize(("size", "scale"), [((1024, 768), 1.5), ((1280, 800), 2.0)], ids=["1024x768@150", "1280x800@200"])
def test_presenter_mode_keeps_every_plot_usable_on_a_classroom_screen(qtbot, tmp_path: Path, size, scale) -> None:
    window = _window(qtbot, tmp_path)
    window.classroom.set_presenter_scale(scale)
    window.menu_actions.classroom.presenter.setChecked(True)
    window.showNormal()  # the offscreen screen is not a projector's: the window takes the projector's size
    window.resize(*size)
    problems = []
    for spec in PANELS:
        window.show_panel(spec.key)
        window.resize(*size)
        assert not window.panel(spec.key).explanation_visible()  # the formula folded first
        problems += _squashed_plots(qtbot, window, spec.key)
    window.menu_actions.classroom.presenter.setChecked(False)
    window.close()
    assert not problems, problems


def _sideways_scrolling(qtbot, window: MainWindow, key: str) -> list[str]:
    """The scroll areas of panel ``key`` (its body's and any inside it) that scroll sideways, on every page."""
    panel = window.panel(key)
    problems: list[str] = []

    def found(where: str) -> list[str]:
        areas = [panel.body_scroll, *panel.body.findChildren(QScrollArea)]
        return [f"{key}{where}: {area.objectName() or type(area).__name__} scrolls "
                f"{area.horizontalScrollBar().maximum()} px sideways (content needs "
                f"{area.widget().minimumSizeHint().width()} px of {area.viewport().width()})"
                for area in areas if area.isVisible() and area.horizontalScrollBar().maximum() > 0]

    def check(where: str) -> None:
        try:  # layouts settle through the event loop
            qtbot.waitUntil(lambda: not found(where), timeout=2000)
        except Exception:  # noqa: BLE001 (pytest-qt's timeout): report what is still wrong
            problems.extend(found(where))

    _on_every_page(panel, check)
    return problems


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_panel_scrolls_sideways_on_a_classroom_screen_and_leaving_restores_the_navigation(
        qtbot, tmp_path: Path, language: str) -> None:
    language_manager().apply(language)
    window = _window(qtbot, tmp_path)
    window.splitter.setSizes([230, 1046])  # a width of the user's own, given back exactly
    nav_sizes, texts = window.splitter.sizes(), [window.nav.item(r).text() for r in range(window.nav.count())]
    window.classroom.set_presenter_scale(1.5)
    window.menu_actions.classroom.presenter.setChecked(True)
    window.showNormal()
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.nav.width() < 60)  # numbers only, the titles as tool tips
    assert [window.nav.item(r).text() for r in range(window.nav.count())] == [str(r + 1) for r in range(len(PANELS))]
    assert texts[0].split(". ", 1)[1] in window.nav.item(0).toolTip()
    problems = []
    for spec in PANELS:
        window.show_panel(spec.key)
        window.resize(1024, 768)
        problems += _sideways_scrolling(qtbot, window, spec.key)
    if problems:
        window.menu_actions.classroom.presenter.setChecked(False)  # the next tests get the normal font
    assert not problems, problems

    window.resize(1920, 1080)  # a screen that has the room: the titles come back
    assert not window.nav.compact and window.nav.item(0).text() == texts[0]
    window.resize(1024, 768)
    assert window.nav.compact
    window.menu_actions.classroom.presenter.setChecked(False)
    window.resize(1280, 820)
    assert [window.nav.item(r).text() for r in range(window.nav.count())] == texts
    assert window.nav.minimumWidth() == 180 and window.nav.maximumWidth() > 10_000
    assert window.splitter.sizes()[0] == nav_sizes[0]
    window.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("n_and_d", [(64, 128), (2048, 2)], ids=["line-right", "line-left"])
def test_the_cost_table_and_the_crossover_caption_show_whole_on_a_classroom_screen(
        qtbot, tmp_path: Path, language: str, n_and_d: tuple[int, int]) -> None:
    language_manager().apply(language)
    window = _window(qtbot, tmp_path)
    window.classroom.set_presenter_scale(1.5)
    window.menu_actions.classroom.presenter.setChecked(True)
    window.showNormal()
    window.resize(800, 768)  # narrower than a classroom screen: the plot and the table at their smallest
    window.show_panel("architecture_comparison")
    panel = window.panel("architecture_comparison")
    panel.n_slider.setValue(n_and_d[0])
    panel.d_slider.setValue(n_and_d[1])
    panel.recompute()
    table, plot = panel.table, panel.cost_plot
    plot.setFixedWidth(MIN_PLOT.width())  # the narrowest plot presenter mode allows: the caption is widest beside it

    def cut() -> list[str]:
        header = table.horizontalHeader()
        out = [f"column {c} needs {max(header.sectionSizeHint(c), table.sizeHintForColumn(c))} px, has "
               f"{table.columnWidth(c)}" for c in range(table.columnCount())
               if max(header.sectionSizeHint(c), table.sizeHintForColumn(c)) > table.columnWidth(c)]
        for r in range(table.rowCount()):
            for c in range(table.columnCount()):
                item = table.item(r, c)
                metrics = QFontMetrics(item.font())
                if max(metrics.horizontalAdvance(line) for line in item.text().split("\n")) > table.columnWidth(c):
                    out.append(f"cell {item.text()!r} in {table.columnWidth(c)} px")
        label = panel.cross_line.label
        if not plot.getPlotItem().getViewBox().sceneBoundingRect().contains(label.sceneBoundingRect()):
            out.append(f"caption {label.toPlainText()!r} {label.sceneBoundingRect()} outside the plot")
        return out

    try:  # layouts settle through the event loop
        qtbot.waitUntil(lambda: not cut(), timeout=2000)
    except Exception:  # noqa: BLE001 (pytest-qt's timeout): the assertion below says what is cut
        pass
    problems = cut()
    window.menu_actions.classroom.presenter.setChecked(False)
    window.close()
    assert not problems, problems
