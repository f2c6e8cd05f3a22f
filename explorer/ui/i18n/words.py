"""Texts built from values that can be worded again in another language: a :class:`Words` is the text in the
language in force and keeps how it was made, so a widget showing it re-renders it in ``retranslate()``."""
from __future__ import annotations

from typing import Callable


class Words(str):
    """A text (a ``str``) made by ``render()`` in the language in force; :func:`again` makes it anew.

    States post messages as ``Words(lambda: self.tr("Opening {name}…").format(name=name))``; a view keeps what it
    shows and sets ``again(text)`` when the language changes. Plain strings (data, core's messages) stay as they
    are.
    """

    render: Callable[[], str]

    def __new__(cls, render: Callable[[], str]) -> Words:
        text = super().__new__(cls, render())
        text.render = render
        return text


def again(text: str) -> str:
    """``text`` worded in the language in force now (unchanged unless it is :class:`Words`)."""
    return Words(text.render) if isinstance(text, Words) else text
