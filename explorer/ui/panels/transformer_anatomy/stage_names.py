"""The names core.block_trace gives the boxes of a block and their tensors (book §11.7), as shown on screen: in
the language in force, and short enough for a box of the diagram."""
from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

_CONTEXT = "StageNames"
#: core's stage titles (every one it makes) -> the text of a box of the diagram.
SHORT_TITLES = {
    "embedding × √d + positional encoding": QT_TRANSLATE_NOOP("StageNames", "embedding + P"),
    "multi-head self-attention": QT_TRANSLATE_NOOP("StageNames", "self-attention"),
    "masked multi-head self-attention": QT_TRANSLATE_NOOP("StageNames", "masked self-attention"),
    "encoder–decoder attention": QT_TRANSLATE_NOOP("StageNames", "enc–dec attention"),
    "position-wise FFN": "FFN",
    "block input": QT_TRANSLATE_NOOP("StageNames", "block input"),
    "add & norm": QT_TRANSLATE_NOOP("StageNames", "add & norm"),
    "add (residual)": QT_TRANSLATE_NOOP("StageNames", "add (residual)"),
    "layer norm": QT_TRANSLATE_NOOP("StageNames", "layer norm"),
}
#: core's stage titles -> their full names (tool tips, captions).
TITLES = {
    "embedding × √d + positional encoding": QT_TRANSLATE_NOOP("StageNames", "embedding × √d + positional encoding"),
    "multi-head self-attention": QT_TRANSLATE_NOOP("StageNames", "multi-head self-attention"),
    "masked multi-head self-attention": QT_TRANSLATE_NOOP("StageNames", "masked multi-head self-attention"),
    "encoder–decoder attention": QT_TRANSLATE_NOOP("StageNames", "encoder–decoder attention"),
    "position-wise FFN": QT_TRANSLATE_NOOP("StageNames", "position-wise FFN"),
}
#: core's tensor names that are words (X, sublayer(X) and the like stay as they are).
TENSORS = {
    "queries": QT_TRANSLATE_NOOP("StageNames", "queries"),
    "encoder output": QT_TRANSLATE_NOOP("StageNames", "encoder output"),
    "embedding × √d": QT_TRANSLATE_NOOP("StageNames", "embedding × √d"),
    "positions P": QT_TRANSLATE_NOOP("StageNames", "positions P"),
}
_BLOCK_OUTPUT = re.compile(r"block (\d+) output")


def _tr(text: str) -> str:
    return QCoreApplication.translate(_CONTEXT, text)


def stage_title(title: str) -> str:
    """The full name of the stage core calls ``title``."""
    return _tr(TITLES.get(title, SHORT_TITLES.get(title, title)))


def short_stage_title(title: str) -> str:
    """The name of the stage ``title`` in a box of the diagram."""
    return _tr(SHORT_TITLES.get(title, title))


def tensor_name(name: str) -> str:
    """The tensor core calls ``name`` (``X``, ``queries``, ``block 1 output`` …) as shown."""
    match = _BLOCK_OUTPUT.fullmatch(name)
    if match:
        # the context spelled out: lupdate reads literal strings only
        return QCoreApplication.translate("StageNames", "block {number} output").format(number=match.group(1))
    return _tr(TENSORS.get(name, name))
