"""Lazy pages: made when first shown or asked for, once; a panel's page made later gets the window's look."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QTabWidget

from explorer.ui.widgets.lazy_page import LazyPage


def test_a_hidden_tab_is_made_when_it_is_first_shown_and_only_once(qtbot) -> None:
    made: list[QLabel] = []

    def make() -> QLabel:
        made.append(QLabel("second"))
        return made[-1]

    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    tabs.addTab(QLabel("first"), "one")
    page = LazyPage(make)
    seen = []
    page.built.connect(seen.append)
    tabs.addTab(page, "two")
    tabs.show()
    qtbot.waitExposed(tabs)
    assert made == [] and not page.is_built()  # not on screen: not made
    tabs.setCurrentWidget(page)
    assert len(made) == 1 and seen == made and page.is_built()
    qtbot.waitUntil(lambda: made[0].isVisible())  # laid out and shown with its page
    assert made[0].width() > 0 and made[0].parent() is page
    tabs.setCurrentIndex(0)
    tabs.setCurrentWidget(page)
    assert page.content() is made[0] and len(made) == 1


def test_asking_for_the_content_makes_it_without_showing_it(qtbot) -> None:
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    tabs.addTab(QLabel("first"), "one")
    page = LazyPage(lambda: QLabel("made on access"))
    tabs.addTab(page, "two")
    label = page.content()
    assert label.text() == "made on access" and page.is_built() and tabs.currentIndex() == 0
    assert not label.isVisible()


def test_a_panel_page_made_later_gets_the_dark_theme(qtbot, tmp_path) -> None:
    import pyqtgraph as pg

    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.panel_registry import panel_spec

    window = MainWindow(AppSettings(tmp_path / "settings"), panels=(panel_spec("transformer_anatomy"),),
                        device_probe=None)
    qtbot.addWidget(window)
    try:
        window.appearance.set_theme_mode("dark")
        window.show_panel("transformer_anatomy")
        panel = window.stack.panel("transformer_anatomy")
        assert not panel.norm_page.is_built()
        shown = panel.ffn_view.findChildren(pg.GraphicsView)[0].backgroundBrush().color().name()
        panel.tabs.setCurrentWidget(panel.norm_page)
        assert panel.norm_page.is_built()
        later = {v.backgroundBrush().color().name() for v in panel.norm_view.findChildren(pg.GraphicsView)}
        assert later == {shown} and shown != "#ffffff"
    finally:
        window.shutdown(save=False)


@pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform, full screen
def test_a_page_made_while_presenting_gets_the_scale_and_the_palette(qtbot, tmp_path) -> None:
    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.panel_registry import panel_spec

    window = MainWindow(AppSettings(tmp_path / "settings"), panels=(panel_spec("positional"),), device_probe=None)
    qtbot.addWidget(window)
    try:
        window.show()
        window.show_panel("positional")
        panel = window.stack.panel("positional")
        window.menu_actions.classroom.colour_blind.setChecked(True)
        window.classroom.set_presenter_scale(2.0)
        window.menu_actions.classroom.presenter.setChecked(True)
        assert not panel.offsets_page.is_built()
        panel.tabs.setCurrentWidget(panel.offsets_page)
        assert panel.offsets_page.is_built()
        assert panel.offsets.target_curve.opts["pen"].widthF() == pytest.approx(2 * 3.0)  # made with width 3
        assert panel.curves[0].opts["pen"].widthF() == pytest.approx(2 * 2.0)  # restyled again, not scaled twice
        assert panel.offsets.m_map.image_item.getColorMap().name == "CET-CBD1"  # the diverging map, colour-blind safe
        window.menu_actions.classroom.presenter.setChecked(False)
        assert panel.offsets.target_curve.opts["pen"].widthF() == pytest.approx(3.0)
    finally:
        window.menu_actions.classroom.presenter.setChecked(False)
        window.shutdown(save=False)


def test_each_setter_forwarded_before_the_page_is_made_reaches_it_once_with_its_latest_value(qtbot) -> None:
    class Recorder(QLabel):
        def __init__(self) -> None:
            super().__init__()
            self.heard: list[tuple[str, object]] = []

        def first(self, value: object) -> None:
            self.heard.append(("first", value))

        def second(self, value: object) -> None:
            self.heard.append(("second", value))

    page = LazyPage(Recorder)
    qtbot.addWidget(page)
    first, second = page.forward("first"), page.forward("second")
    first(1)
    second(2)
    first(3)
    assert not page.is_built()
    # the latest of each, in the order of those latest calls (an older value, e.g. an old model, is not kept)
    assert page.content().heard == [("second", 2), ("first", 3)]
    second(4)
    assert page.content().heard[-1] == ("second", 4)  # afterwards straight through
