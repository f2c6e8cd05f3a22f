"""What a Qt tool tip shows: rich text when Qt guesses it is (a known tag such as ``<s>``, or ``&lt;``), drawn as
HTML; plain text otherwise, drawn as it is, entities and all."""
from __future__ import annotations

from PySide6.QtGui import QTextDocument
from PySide6.QtGui import Qt as GuiQt  # Qt's namespace with its text functions

#: Tokens a tool tip must show as they are: special tokens (``<s>`` and ``<b>`` are HTML tags), a stray ``<``,
#: and the characters an HTML escape rewrites.
TOKENS = ("<unk>", "<s>", "<b>", "a<b", "it's", "a&b", '"q"')


def shown_tooltip(tip: str) -> str:
    """The text a user reads in a tool tip set to ``tip``."""
    if not GuiQt.mightBeRichText(tip):
        return tip
    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()
