"""Every text a widget tree shows, listed: labels, buttons, group boxes, tabs, combo items, actions and menus,
tool tips, window titles, table items, pyqtgraph titles, axis labels, legends and text items, each with a setter.

It parses nothing and translates nothing (every widget re-sets its own texts in ``retranslate()``): tests use it
to check that a screen has nothing left in English (or in Chinese). A widget whose text is data (a sentence the
user typed, a translation produced by the model) says so with the dynamic property ``i18n_data`` = True: its own
text is skipped (its tool tip is not).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractSpinBox, QComboBox, QDoubleSpinBox,
                               QGraphicsView, QGroupBox, QLabel, QLineEdit, QListWidget, QMenu, QPlainTextEdit,
                               QProgressBar, QSpinBox, QTableWidget, QTabBar, QTextEdit, QWidget, QWidgetAction)

__all__ = ["DATA_PROPERTY", "TextSlot", "text_slots"]

DATA_PROPERTY = "i18n_data"


# ---------------------------------------------------------------------------------------------- widget texts
@dataclass
class TextSlot:
    """One text shown by a widget or a plot item: where it is (for messages), its value and how to replace it.
    ``data`` is True for a widget's own text marked as data (``i18n_data``)."""

    where: str
    text: str
    setter: Callable[[str], Any]
    data: bool = False
    owner: Any = None  # the QObject whose signals stay blocked while the text is replaced


def _describe(obj: Any, text: str = "") -> str:
    name = type(obj).__name__
    parent = obj.parent() if hasattr(obj, "parent") and callable(obj.parent) else None
    owner = ""
    while parent is not None:
        if type(parent).__module__.startswith("explorer."):
            owner = f" in {type(parent).__name__}"
            break
        parent = parent.parent() if callable(getattr(parent, "parent", None)) else None
    return f"{name}{owner}"


def _stripped_action_text(text: str) -> str:
    """What ``QAction.toolTip()`` returns when no tool tip was set: the text without ``&`` and a trailing "…"."""
    out = re.sub(r"&(.)", r"\1", text)
    return out.removesuffix("...").removesuffix("…") if out.endswith(("...", "…")) else out


def _widget_slots(w: QWidget) -> Iterator[TextSlot]:
    for slot in _own_slots(w):
        slot.owner = w
        yield slot


def _own_slots(w: QWidget) -> Iterator[TextSlot]:
    data = bool(w.property(DATA_PROPERTY))
    where = _describe(w)
    if w.toolTip():
        yield TextSlot(f"{where} tool tip", w.toolTip(), w.setToolTip)
    if w.statusTip():
        yield TextSlot(f"{where} status tip", w.statusTip(), w.setStatusTip)
    if w.whatsThis():
        yield TextSlot(f"{where} what's this", w.whatsThis(), w.setWhatsThis)
    if w.isWindow() and w.windowTitle():
        yield TextSlot(f"{where} window title", w.windowTitle(), w.setWindowTitle)
    if isinstance(w, QLabel) and w.text():
        yield TextSlot(f"{where} text", w.text(), w.setText, data)
    elif isinstance(w, QAbstractButton) and w.text():
        yield TextSlot(f"{where} text", w.text(), w.setText, data)
    elif isinstance(w, QGroupBox) and w.title():
        yield TextSlot(f"{where} title", w.title(), w.setTitle, data)
    elif isinstance(w, (QLineEdit, QPlainTextEdit, QTextEdit)) and w.placeholderText():
        yield TextSlot(f"{where} placeholder", w.placeholderText(), w.setPlaceholderText)
    elif isinstance(w, QComboBox):
        for i in range(w.count()):
            if w.itemText(i):
                yield TextSlot(f"{where} item {i}", w.itemText(i), lambda t, i=i, c=w: c.setItemText(i, t), data)
            tip = w.itemData(i, Qt.ItemDataRole.ToolTipRole)
            if isinstance(tip, str) and tip:
                yield TextSlot(f"{where} item {i} tool tip", tip,
                               lambda t, i=i, c=w: c.setItemData(i, t, Qt.ItemDataRole.ToolTipRole))
    elif isinstance(w, QTabBar):
        for i in range(w.count()):
            if w.tabText(i):
                yield TextSlot(f"{where} tab {i}", w.tabText(i), lambda t, i=i, b=w: b.setTabText(i, t))
            if w.tabToolTip(i):
                yield TextSlot(f"{where} tab {i} tool tip", w.tabToolTip(i), lambda t, i=i, b=w: b.setTabToolTip(i, t))
    elif isinstance(w, QListWidget):
        for i in range(w.count()):
            item = w.item(i)
            if item.text():
                yield TextSlot(f"{where} item {i}", item.text(), item.setText, data)
            if item.toolTip():
                yield TextSlot(f"{where} item {i} tool tip", item.toolTip(), item.setToolTip)
    elif isinstance(w, QTableWidget):
        for header in (*(w.horizontalHeaderItem(c) for c in range(w.columnCount())),
                       *(w.verticalHeaderItem(r) for r in range(w.rowCount()))):
            if header is not None and header.text():
                yield TextSlot(f"{where} header", header.text(), header.setText)
        for r in range(w.rowCount()):
            for c in range(w.columnCount()):
                item = w.item(r, c)
                if item is not None and item.text():
                    yield TextSlot(f"{where} cell {r},{c}", item.text(), item.setText, data)
                if item is not None and item.toolTip():
                    yield TextSlot(f"{where} cell {r},{c} tool tip", item.toolTip(), item.setToolTip)
    elif isinstance(w, QAbstractItemView) and w.model() is not None and not isinstance(w, QListWidget):
        model = w.model()  # a table or tree of a model: its column headers
        for section in range(model.columnCount()):
            header = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
            if isinstance(header, str) and header:
                yield TextSlot(f"{where} header {section}", header,
                               lambda t, s=section, m=model: m.setHeaderData(s, Qt.Orientation.Horizontal, t))
    elif isinstance(w, QProgressBar) and w.format() not in ("%p%", ""):
        yield TextSlot(f"{where} format", w.format(), w.setFormat)
    if isinstance(w, (QSpinBox, QDoubleSpinBox)):
        if w.prefix():
            yield TextSlot(f"{where} prefix", w.prefix(), w.setPrefix)
        if w.suffix():
            yield TextSlot(f"{where} suffix", w.suffix(), w.setSuffix)
    if isinstance(w, QAbstractSpinBox) and w.specialValueText():
        yield TextSlot(f"{where} special value", w.specialValueText(), w.setSpecialValueText)
    if isinstance(w, QMenu) and w.title():
        yield TextSlot(f"{where} title", w.title(), w.setTitle)


def _action_slots(action: Any, where: str) -> Iterator[TextSlot]:
    text = action.text()
    if text:
        yield TextSlot(f"action in {where}", text, action.setText)
    tip = action.toolTip()
    if tip and tip != _stripped_action_text(text):
        yield TextSlot(f"action in {where} tool tip", tip, action.setToolTip)
    if action.statusTip():
        yield TextSlot(f"action in {where} status tip", action.statusTip(), action.setStatusTip)


def _axis_setter(axis: Any) -> Callable[[str], None]:
    def set_label(text: str) -> None:
        shown = axis.label.isVisible()
        axis.setLabel(text=text, units=axis.labelUnits or None, unitPrefix=axis.labelUnitPrefix or None,
                      **axis.labelStyle)
        axis.showLabel(shown)
    return set_label


def _scene_slots(view: QGraphicsView) -> Iterator[TextSlot]:
    import pyqtgraph as pg

    where = _describe(view)
    for item in view.scene().items():
        if isinstance(item, pg.LabelItem) and item.text:
            yield TextSlot(f"plot label in {where}", item.text, item.setText)
        elif isinstance(item, pg.AxisItem) and item.labelText:
            yield TextSlot(f"axis label in {where}", item.labelText, _axis_setter(item))
        elif isinstance(item, pg.TextItem) and item.textItem.toPlainText():
            yield TextSlot(f"text item in {where}", item.textItem.toPlainText(), item.setText)


def _plot_menus(view: QGraphicsView) -> list[QWidget]:
    """pyqtgraph's context menus of ``view``'s plots (parentless windows, so no widget tree reaches them)."""
    import pyqtgraph as pg

    menus = []
    for item in view.scene().items():
        for name in ("menu", "ctrlMenu"):  # a ViewBox's menu; a PlotItem's "Plot Options"
            menu = getattr(item, name, None) if isinstance(item, (pg.ViewBox, pg.PlotItem)) else None
            if isinstance(menu, QMenu):
                menus.append(menu)
    return menus


def text_slots(roots: Iterable[QWidget], skip: Callable[[QWidget], bool] | None = None) -> Iterator[TextSlot]:
    """Every text the widget trees under ``roots`` show (see the module docstring), each widget once; menus
    reached through actions (sub-menus, widgets in a menu) and pyqtgraph's plot menus are walked too. The trees
    of widgets for which ``skip`` is true are left out."""
    seen: set[int] = set()
    actions: set[int] = set()
    pending = list(roots)
    while pending:
        root = pending.pop(0)
        tree = [root, *root.findChildren(QWidget)]
        if skip is not None:
            for w in tree:
                if id(w) not in seen and skip(w):
                    seen.update(id(x) for x in [w, *w.findChildren(QWidget)])
        for w in tree:
            if id(w) in seen:
                continue
            seen.add(id(w))
            yield from _widget_slots(w)
            for action in w.actions():
                if id(action) in actions:
                    continue
                actions.add(id(action))
                yield from _action_slots(action, _describe(w))
                if action.menu() is not None:
                    pending.append(action.menu())
                if isinstance(action, QWidgetAction) and action.defaultWidget() is not None:
                    pending.append(action.defaultWidget())
            if isinstance(w, QGraphicsView) and w.scene() is not None:
                yield from _scene_slots(w)
                pending.extend(_plot_menus(w))
                for action in getattr(w.scene(), "contextMenu", []):  # pyqtgraph's "Export..."
                    if isinstance(action, QAction) and id(action) not in actions:
                        actions.add(id(action))
                        yield from _action_slots(action, _describe(w))
