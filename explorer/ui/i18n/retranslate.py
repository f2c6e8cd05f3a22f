"""Switching the language while the app runs, for the widgets that do not yet re-word themselves.

Widgets that follow STYLE rule 26 set their texts in ``retranslate()``, called at build and on
``QEvent.Type.LanguageChange`` (the explore panels, their views, the base panel's formula box); their trees are left
alone here (:func:`rewords_itself`). For the rest, the texts on screen (:mod:`explorer.ui.i18n.text_walk`) are
looked up in the translation catalogues: a text that is the old language's rendering of a message (with its
placeholders ``{name}``, ``%n``, ``%1`` filled in) becomes the new language's rendering, with the same values put
in; what matches no message (numbers, tokens, file names, the user's own text) is left alone
(:mod:`explorer.ui.i18n.converter`).
"""
from __future__ import annotations

import logging
from typing import Iterable

import shiboken6
from PySide6.QtCore import QObject, QSignalBlocker
from PySide6.QtWidgets import QApplication, QWidget

from explorer.ui.i18n.converter import Converter, converter_for
from explorer.ui.i18n.text_walk import text_slots

__all__ = ["Converter", "converter_for", "own_popups", "retranslate_tree", "rewords_itself"]

log = logging.getLogger(__name__)


def rewords_itself(widget: QWidget) -> bool:
    """True for a widget that sets its own texts in ``retranslate()`` on ``LanguageChange`` (a panel that keeps
    the base panel's, which words only the formula box, does not)."""
    method = getattr(type(widget), "retranslate", None)
    return callable(method) and method.__qualname__ != "BasePanel.retranslate"


def retranslate_tree(roots: Iterable[QWidget], old: str, new: str) -> int:
    """Re-set every text under ``roots`` from ``old`` into ``new`` (see :class:`Converter`), but for the widgets
    that re-word themselves; returns how many texts changed."""
    if old == new:
        return 0
    converter = converter_for(old, new)
    changed = 0
    for slot in list(text_slots(roots, skip=rewords_itself)):
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


def own_popups(window: QWidget) -> list[QWidget]:
    """The windows that belong to ``window``'s widgets: menus (the menu bar's, the panels') and open dialogs.

    Not every top-level widget: the application holds popups of windows being destroyed, whose texts must not
    be touched."""
    own = []
    for widget in QApplication.topLevelWidgets():
        if widget is window or not shiboken6.isValid(widget):
            continue
        parent = widget.parentWidget()
        while parent is not None and parent is not window:
            parent = parent.parentWidget()
        if parent is window:
            own.append(widget)
    return own
