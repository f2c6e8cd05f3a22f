"""Texts built from values that can be worded again in another language: a :class:`Words` is the text in the
language in force and keeps how it was made, so a widget showing it re-renders it in ``retranslate()``."""
from __future__ import annotations

import types
import weakref
from typing import Any, Callable

from PySide6.QtCore import QObject


class Words(str):
    """A text (a ``str``) made by ``render()`` in the language in force; :func:`again` makes it anew.

    States post messages as ``Words(lambda: self.tr("Opening {name}…").format(name=name))``; a view keeps what it
    shows and sets ``again(text)`` when the language changes. Plain strings (data, core's messages) stay as they
    are.
    """

    render: Callable[[], str]

    def __new__(cls, render: Callable[[], str]) -> Words:
        text = super().__new__(cls, render())
        text.render = _held_weakly(render, str(text))
        return text

    @classmethod
    def formatted(cls, template: Callable[[], str], /, **values: object) -> Words:
        """``template()`` (a ``tr`` call, so that lupdate finds its text) formatted with ``values`` as they are
        now; values that are ``Words`` are worded again with it."""
        return cls(lambda: template().format(**{name: again(value) if isinstance(value, str) else value
                                                for name, value in values.items()}))


def _held_weakly(render: Callable[[], str], fallback: str) -> Callable[[], str]:
    """``render`` holding the Qt objects it uses (``self`` of a ``self.tr`` call) by weak reference, so that a
    widget keeping the text it shows makes no reference cycle with itself: a cycle of Qt objects is freed by the
    cyclic collector, on whichever thread it runs, and a widget freed on a worker thread crashes the app. Once
    such an object is gone the text stays as it was (``fallback``)."""
    copy = _weak_copy(render)
    if copy is render:
        return render

    def weak_render() -> str:
        try:
            return copy()
        except ReferenceError:
            return fallback

    return weak_render


def _weak_copy(fn: Any) -> Any:
    """A copy of function ``fn`` whose closure holds Qt objects by weak proxy (nested functions copied alike);
    ``fn`` itself when it holds none. The enclosing function's own variables are left as they are."""
    closure = getattr(fn, "__closure__", None)
    if not isinstance(fn, types.FunctionType) or not closure:
        return fn
    cells, changed = [], False
    for cell in closure:
        try:
            value = cell.cell_contents
        except ValueError:  # a variable not bound yet
            cells.append(cell)
            continue
        if isinstance(value, weakref.ProxyTypes):
            held = value
        elif isinstance(value, QObject):
            held = weakref.proxy(value)
        else:
            held = _weak_copy(value)
        changed = changed or held is not value
        cells.append(cell if held is value else types.CellType(held))
    if not changed:
        return fn
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells))
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def again(text: str) -> str:
    """``text`` worded in the language in force now (unchanged unless it is :class:`Words`)."""
    return Words(text.render) if isinstance(text, Words) else text
