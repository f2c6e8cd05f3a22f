"""Layout audits for panels on a small screen: a window like the app's at 1024×700 around one
panel, and the problems a user would see in it (overlapping or clipped widgets, cut-off text, sliver plots,
plot items pushed out of their view)."""
from __future__ import annotations

from itertools import combinations

import pyqtgraph as pg
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import (QAbstractButton, QAbstractScrollArea, QAbstractSpinBox, QComboBox, QLabel,
                               QListWidget, QMainWindow, QSplitter, QWidget)

PROJECTOR = QSize(1024, 700)
SIDEBAR_PX = 200  # the navigation list of the main window (it is 180–200 px wide)
MIN_PLOT = QSize(200, 150)  # a plot smaller than this is a sliver on a projector


def window_around(panel: QWidget, size: QSize = PROJECTOR) -> QMainWindow:
    """A main window of ``size`` like the app's (menu bar, sidebar, status bar) showing ``panel``."""
    window = QMainWindow()
    for title in ("File", "View", "Help"):
        window.menuBar().addMenu(title)
    nav = QListWidget()
    nav.addItems(["1. Kernel regression", "2. Scoring functions", "3. Multi-head attention"])
    nav.setFixedWidth(SIDEBAR_PX)
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(nav)
    splitter.addWidget(panel)
    splitter.setStretchFactor(1, 1)
    window.setCentralWidget(splitter)
    window.statusBar().showMessage("Device: cpu")
    window.resize(size)
    window.show()
    return window


def _scroll_policies(widget: QWidget) -> tuple[bool, bool] | None:
    """(may overflow horizontally, vertically) for the content of a scroll area's viewport, else None."""
    area = widget.parentWidget().parentWidget() if widget.parentWidget() is not None else None
    if isinstance(area, QAbstractScrollArea) and widget.parentWidget() is area.viewport():
        return (area.horizontalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff,
                area.verticalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return None


def _name(w: QWidget) -> str:
    text = w.text() if isinstance(w, (QLabel, QAbstractButton)) else ""
    return f"{type(w).__name__}{f' {text!r}' if text else ''}{f' #{w.objectName()}' if w.objectName() else ''}"


def _text_problem(w: QWidget) -> str | None:
    """Text cut off or controls squeezed below what they need (e.g. spin box arrows)."""
    hint = w.minimumSizeHint()
    if isinstance(w, QLabel) and w.text():
        if w.wordWrap():
            if w.height() + 1 < w.heightForWidth(w.width()):
                return f"{_name(w)}: {w.height()} px high, its wrapped text needs {w.heightForWidth(w.width())}"
        elif w.width() + 1 < hint.width() or w.height() + 1 < hint.height():
            return f"{_name(w)}: {w.size().toTuple()} cuts its text ({hint.toTuple()} needed)"
    elif isinstance(w, (QAbstractButton, QAbstractSpinBox, QComboBox)):
        if w.width() + 1 < hint.width() or w.height() + 1 < hint.height():
            return f"{_name(w)}: {w.size().toTuple()} below its minimum {hint.toTuple()}"
    return None


def _plot_problems(view: pg.GraphicsView) -> list[str]:
    """Items of a pyqtgraph layout outside the view (a colour bar pushed away) and cut-off titles."""
    problems = []
    fixed = view.minimumHeight() == view.maximumHeight()  # a deliberately small inset (e.g. a kernel's shape)
    if not fixed and (view.width() < MIN_PLOT.width() or view.height() < MIN_PLOT.height()):
        problems.append(f"{type(view).__name__} is a sliver: {view.size().toTuple()}")
    visible = view.mapToScene(view.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)
    layout = getattr(view, "ci", None)
    items = list(layout.items) if layout is not None else [view.getPlotItem()] if hasattr(view, "getPlotItem") else []
    for item in items:
        if item.isVisible() and not visible.contains(item.sceneBoundingRect()):
            problems.append(f"{type(item).__name__} in {type(view).__name__} lies outside the view")
        for name in ("left", "bottom"):
            axis = item.getAxis(name) if hasattr(item, "getAxis") else None
            if axis is not None and axis.isVisible() and axis.label.isVisible() and axis.labelText:
                need = axis.label.boundingRect().width()
                length = axis.height() if name == "left" else axis.width()
                if need > length + 1:
                    problems.append(f"{name} caption {axis.labelText!r} is cut: {need:.0f} px along {length:.0f} px")
        title = getattr(item, "titleLabel", None)
        if title is not None and title.isVisible() and title.text:
            need = title.item.boundingRect().width()
            if getattr(title, "elided", False) or title.width() + 1 < need or item.width() + 1 < need:
                problems.append(f"title {title.text!r} is cut: {need:.0f} px of text in {item.width():.0f} px")
    return problems


def layout_problems(root: QWidget, ignore: tuple[QWidget, ...] = ()) -> list[str]:
    """Everything visible under ``root`` that a user would see as broken; [] when all is well."""
    problems: list[str] = []
    widgets = [w for w in root.findChildren(QWidget) if w.isVisibleTo(root) and not w.isWindow()
               and not any(w is i or i.isAncestorOf(w) for i in ignore)]
    by_parent: dict[int, list[QWidget]] = {}
    for w in widgets:
        by_parent.setdefault(id(w.parentWidget()), []).append(w)
        parent_rect = w.parentWidget().rect()
        geo = w.geometry()
        overflow = _scroll_policies(w)
        if overflow is not None:  # scrolled content: only the directions that cannot scroll must fit
            if not overflow[0] and (geo.left() < 0 or geo.right() > parent_rect.right()):
                problems.append(f"{_name(w)} is wider ({geo.width()}) than its scroll area ({parent_rect.width()})")
        elif not parent_rect.contains(geo):
            parent = _name(w.parentWidget())
            problems.append(f"{_name(w)} {geo.getRect()} sticks out of {parent} {parent_rect.getRect()}")
        text = _text_problem(w)
        if text:
            problems.append(text)
        if isinstance(w, pg.GraphicsView):
            problems += _plot_problems(w)
    for siblings in by_parent.values():
        for a, b in combinations(siblings, 2):
            common: QRect = a.geometry().intersected(b.geometry())
            if common.width() > 1 and common.height() > 1:
                problems.append(f"{_name(a)} {a.geometry().getRect()} overlaps {_name(b)} {b.geometry().getRect()}")
    return problems


def fits(window: QMainWindow, panel: QWidget, size: QSize = PROJECTOR) -> list[str]:
    """Problems of ``panel`` in ``window``: a window that had to grow, a minimum that cannot fit, bad layout."""
    problems = []
    if window.size() != size:
        problems.append(f"the window grew to {window.size().toTuple()}: the panel's minimum does not fit")
    hint, room = panel.minimumSizeHint(), panel.size()
    if hint.width() > room.width() or hint.height() > room.height():
        problems.append(f"the panel needs at least {hint.toTuple()}, it has {room.toTuple()}")
    return problems + layout_problems(panel)


def settled_problems(qtbot, window: QMainWindow, panel: QWidget, timeout_ms: int = 2000) -> list[str]:
    """`fits` once the layout has settled (resizes travel through the event loop): [] when all is well."""
    try:
        qtbot.waitUntil(lambda: not fits(window, panel), timeout=timeout_ms)
    except Exception:  # noqa: BLE001 (pytest-qt's timeout): report what is still wrong
        pass
    return fits(window, panel)
