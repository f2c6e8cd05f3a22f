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

    @classmethod
    def formatted(cls, template: Callable[[], str], /, **values: object) -> Words:
        """``template()`` (a ``tr`` call, so that lupdate finds its text) formatted with ``values`` as they are
        now; values that are ``Words`` are worded again with it."""
        return cls(lambda: template().format(**{name: again(value) if isinstance(value, str) else value
                                                for name, value in values.items()}))


def again(text: str) -> str:
    """``text`` worded in the language in force now (unchanged unless it is :class:`Words`)."""
    return Words(text.render) if isinstance(text, Words) else text
