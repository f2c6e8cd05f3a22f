"""Switching the language while the app runs: every text on screen is re-set in the new language.

Texts are put on widgets in many places (built once, or by slots as values change). Rather than a
``retranslate()`` method repeating every ``setText`` of every view, the texts on screen are looked up in the
translation catalogues: a text that is the old language's rendering of a message (with its placeholders
``{name}``, ``%n``, ``%1`` filled in) becomes the new language's rendering, with the same values put in. What
matches no message (numbers, tokens, file names, the user's own text) is left alone. Views whose texts come
from class attributes re-set them themselves on ``QEvent.Type.LanguageChange`` (``BasePanel``), and texts
drawn in ``paintEvent`` are translated as they are painted.

:func:`text_slots` lists the texts of a widget tree (labels, buttons, group boxes, tabs, combo items, actions and
menus, tool tips, window titles, table items, pyqtgraph titles, axis labels, legends and text items); tests use
it to check that nothing is left in English. A widget whose text is data (a sentence the user typed, a
translation produced by the model) says so with the dynamic property ``i18n_data`` = True: its own text is
neither converted nor checked (its tool tip still is).
"""
from __future__ import annotations

import logging
import re
import string
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from PySide6.QtCore import QObject, QSignalBlocker, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractSpinBox, QComboBox, QDoubleSpinBox,
                               QGraphicsView, QGroupBox, QLabel, QLineEdit, QListWidget, QMenu, QPlainTextEdit,
                               QProgressBar, QSpinBox, QTableWidget, QTabBar, QTextEdit, QWidget, QWidgetAction)

from explorer.ui.i18n import BASENAME, LANGUAGE_NAMES, SOURCE_LANGUAGE, i18n_dir

log = logging.getLogger(__name__)

DATA_PROPERTY = "i18n_data"
_QT_ARG = re.compile(r"%L?(\d{1,2})")
_TOKEN = "\x00"


# ---------------------------------------------------------------------------------------------- catalogues
@dataclass(frozen=True)
class Message:
    """One message of a ``.ts`` file: its context, source text and the renderings in one language (one per
    plural form for a ``%n`` message)."""

    context: str
    source: str
    numerus: bool
    forms: tuple[str, ...]


def read_ts(path: Path) -> list[Message]:
    """The finished messages of a Qt Linguist file (unfinished, obsolete and vanished ones are skipped)."""
    messages = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is None or translation.get("type") in ("unfinished", "obsolete", "vanished"):
                continue
            numerus = message.get("numerus") == "yes"
            forms = tuple(f.text or "" for f in translation.iter("numerusform")) if numerus else (
                translation.text or "",)
            if all(forms):
                messages.append(Message(name, message.findtext("source", ""), numerus, forms))
    return messages


def plural_form(language: str, n: int) -> int:
    """Which plural form ``n`` takes: English has two (1 / other), Chinese one."""
    return 0 if language != SOURCE_LANGUAGE or n == 1 else 1


@lru_cache(maxsize=None)
def _catalogue(language: str, folder: str) -> dict[tuple[str, str], Message]:
    path = Path(folder) / f"{BASENAME}_{language}.ts"
    return {(m.context, m.source): m for m in read_ts(path)} if path.is_file() else {}


def renderings(language: str, folder: Path | None = None) -> dict[tuple[str, str], tuple[str, ...]]:
    """Every message (``(context, source)``) of the translation catalogues, rendered in ``language``: the source
    text in English (its plural forms from the English catalogue), the translation otherwise."""
    folder = str(folder or i18n_dir())
    sources: dict[tuple[str, str], Message] = {}
    for other in LANGUAGE_NAMES:
        sources.update(_catalogue(other, folder))
    own = _catalogue(language, folder)
    out = {}
    for key, message in sources.items():
        if key in own:
            out[key] = own[key].forms
        elif language == SOURCE_LANGUAGE:
            out[key] = (message.source,)
    return out


# ---------------------------------------------------------------------------------------------- patterns
def _fields(text: str, numerus: bool) -> list[tuple[str, str | None]] | None:
    """``text`` as (literal, field) pairs; fields are Python format fields (``{name}``, ``{0:.2f}``, ``{}`` as
    ``0``, ``1`` …), Qt's ``%1`` … and, in a plural message, ``%n``. None if ``text`` has no field at all."""
    parts: list[tuple[str, str | None]] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:  # stray braces: no Python fields
        parsed = [(text, None, None, None)]
    auto = 0
    for literal, name, _spec, _conversion in parsed:
        parts.extend(_split_qt(literal, numerus))
        if name is not None:
            if name == "":
                name, auto = str(auto), auto + 1
            parts.append(("", f"py:{name}"))
    if all(field is None for _, field in parts):
        return None
    return parts


def _split_qt(literal: str, numerus: bool) -> list[tuple[str, str | None]]:
    pattern = re.compile(r"%L?(\d{1,2})|%n") if numerus else _QT_ARG
    out: list[tuple[str, str | None]] = []
    last = 0
    for match in pattern.finditer(literal):
        out.append((literal[last:match.start()], None))
        out.append(("", "qt:n" if match.group(0) == "%n" else f"qt:{match.group(1)}"))
        last = match.end()
    out.append((literal[last:], None))
    return out


@dataclass
class _Pattern:
    regex: re.Pattern[str]
    groups: dict[str, str]  # field -> regex group name
    longest: str  # its longest literal chunk (a cheap test before the regex)
    weight: int  # literal characters: the more, the more specific
    target: list[tuple[str, str | None]]  # the new rendering
    target_forms: tuple[str, ...]
    numerus: bool


def _compile(old: str, numerus: bool) -> tuple[re.Pattern[str], dict[str, str], str, int] | None:
    parts = _fields(old, numerus)
    if parts is None:
        return None
    groups: dict[str, str] = {}
    regex, literals = [], []
    for literal, field in parts:
        if literal:
            regex.append(re.escape(literal))
            literals.append(literal)
        if field is not None:
            if field in groups:
                regex.append(f"(?P={groups[field]})")
            else:
                groups[field] = f"g{len(groups)}"
                regex.append(f"(?P<{groups[field]}>\\d+)" if field == "qt:n" else f"(?P<{groups[field]}>.+?)")
    weight = sum(map(len, literals))
    if weight == 0:
        return None  # "{0}" alone would match every text
    return re.compile("".join(regex), re.DOTALL), groups, max(literals, key=len), weight


class Converter:
    """Converts texts rendered in ``old`` into ``new`` (see the module docstring); ``convert`` returns None for a
    text that is no rendering of any message."""

    def __init__(self, old: str, new: str, folder: Path | None = None) -> None:
        self.old, self.new = old, new
        old_r, new_r = renderings(old, folder), renderings(new, folder)
        self.exact: dict[str, str] = {}
        self.conflicts: dict[str, set[str]] = {}
        self.patterns: list[_Pattern] = []
        for key, old_forms in old_r.items():
            new_forms = new_r.get(key)
            if new_forms is None:
                continue
            numerus = len(old_forms) > 1 or len(new_forms) > 1 or "%n" in key[1]
            for index, old_text in enumerate(old_forms):
                compiled = _compile(old_text, numerus)
                if compiled is None:
                    if not numerus:
                        self._add_exact(old_text, new_forms[min(index, len(new_forms) - 1)])
                    continue
                regex, groups, longest, weight = compiled
                target = new_forms[min(index, len(new_forms) - 1)]
                self.patterns.append(_Pattern(regex, groups, longest, weight, _fields(target, numerus) or [],
                                              new_forms, numerus))
        self.patterns.sort(key=lambda p: -p.weight)

    def _add_exact(self, old_text: str, new_text: str) -> None:
        known = self.exact.setdefault(old_text, new_text)
        if known != new_text:
            self.conflicts.setdefault(old_text, {known}).add(new_text)

    def convert(self, text: str) -> str | None:
        """``text`` in the new language, or None if it is no rendering of a message in the old one."""
        if not text or self.old == self.new:
            return None
        found = self._whole(text)
        if found is None and "&&" in text:  # a button's text with its "&" escaped
            found = self._whole(text.replace("&&", "&"))
            found = None if found is None else found.replace("&", "&&")
        if found is not None:
            return found
        symbol, space, rest = text.partition(" ")  # a symbol before a message: pyqtgraph's "X axis"
        if space and 0 < len(symbol) <= 2 and rest in self.exact:
            return f"{symbol} {self.exact[rest]}"
        for separator in ("\n", "<br>"):  # messages joined line by line
            if separator in text:
                parts = text.split(separator)
                converted = [self._whole(part) for part in parts]
                if any(c is not None for c in converted):
                    return separator.join(part if c is None else c for part, c in zip(parts, converted))
        return None

    def _whole(self, text: str, depth: int = 0) -> str | None:
        exact = self.exact.get(text)
        if exact is not None:
            return exact
        if depth > 2:
            return None
        for pattern in self.patterns:
            if pattern.longest not in text:
                continue
            match = pattern.regex.fullmatch(text)
            if match is None:
                continue
            values = {field: match.group(group) for field, group in pattern.groups.items()}
            target = pattern.target
            if pattern.numerus and "qt:n" in values:
                form = pattern.target_forms[min(plural_form(self.new, int(values["qt:n"])),
                                                len(pattern.target_forms) - 1)]
                target = _fields(form, True) or [(form, None)]
            out = []
            for literal, field in target:
                out.append(literal)
                if field is not None:
                    value = values.get(field, "")
                    inner = self._whole(value, depth + 1) if value else None  # a translated text inside: a title
                    out.append(value if inner is None else inner)
            return "".join(out)
        return None


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


def text_slots(roots: Iterable[QWidget]) -> Iterator[TextSlot]:
    """Every text the widget trees under ``roots`` show (see the module docstring), each widget once; menus
    reached through actions (sub-menus, widgets in a menu) and pyqtgraph's plot menus are walked too."""
    seen: set[int] = set()
    actions: set[int] = set()
    pending = list(roots)
    while pending:
        root = pending.pop(0)
        for w in [root, *root.findChildren(QWidget)]:
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


def retranslate_tree(roots: Iterable[QWidget], old: str, new: str) -> int:
    """Re-set every text under ``roots`` from ``old`` into ``new`` (see :class:`Converter`); returns how many
    texts changed."""
    if old == new:
        return 0
    converter = converter_for(old, new)
    changed = 0
    for slot in list(text_slots(roots)):
        if slot.data:
            continue
        converted = converter.convert(slot.text)
        if converted is not None and converted != slot.text:
            try:
                blocker = QSignalBlocker(slot.owner) if isinstance(slot.owner, QObject) else None
                slot.setter(converted)  # (a combo's new item text must not look like a choice)
                changed += 1
                if blocker is not None:
                    blocker.unblock()
            except RuntimeError:  # the widget went away during the walk
                log.debug("could not re-set %s", slot.where)
    return changed


@lru_cache(maxsize=8)
def converter_for(old: str, new: str) -> Converter:
    """The :class:`Converter` from ``old`` to ``new`` over the app's catalogues (built once)."""
    return Converter(old, new)
