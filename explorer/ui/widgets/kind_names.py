"""The attention kinds (``core.choices``: encoder, decoder, cross) named short, for table cells, lists of heads and
small map titles, in the language in force (core's keys stay the data)."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

KIND_NAMES = {"encoder": QT_TRANSLATE_NOOP("KindNames", "encoder"),
              "decoder": QT_TRANSLATE_NOOP("KindNames", "decoder"),
              "cross": QT_TRANSLATE_NOOP("KindNames", "cross")}


def short_kind(kind: str) -> str:
    """``kind``'s short name in the language in force (a kind this table does not know is shown as it is)."""
    return QCoreApplication.translate("KindNames", KIND_NAMES[kind]) if kind in KIND_NAMES else kind
