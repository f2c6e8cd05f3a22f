"""What a grid of attention maps shows (book §11.7): the kinds a training snapshot or an inspection holds, with their
layers and heads, their titles and their query and key tokens."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from explorer.core.choices import ATTENTION_KINDS

# The titles keep the grid's translation context: the words were translated there first.
KIND_TITLES = {"encoder": QT_TRANSLATE_NOOP("AttentionGrid", "Encoder self-attention"),
               "decoder": QT_TRANSLATE_NOOP("AttentionGrid", "Decoder self-attention"),
               "cross": QT_TRANSLATE_NOOP("AttentionGrid", "Encoder–decoder (cross) attention")}
#: Which kinds of map, with how many layers and heads each: ``((kind, layers, heads), …)`` in ``ATTENTION_KINDS`` order.
GridLayout = tuple[tuple[str, int, int], ...]


def kind_title(kind: str) -> str:
    """The title of a kind of map (``encoder``, ``decoder``, ``cross``) in the language in force."""
    return QCoreApplication.translate("AttentionGrid", KIND_TITLES[kind])


def uniform_layout(layers: int, heads: int) -> GridLayout:
    """All three kinds with the same shape (the studio's own Transformer)."""
    return tuple((kind, layers, heads) for kind in ATTENTION_KINDS)


def grid_maps(snapshot: Any) -> dict[str, Any]:
    """The ``(L, h, Tq, Tk)`` arrays a grid draws: an inspection's pooled thumbnails, a training snapshot's maps."""
    thumbnails = getattr(snapshot, "thumbnails", None)
    return thumbnails if thumbnails is not None else snapshot.maps


def grid_layout(snapshot: Any) -> GridLayout:
    """The kinds present in a snapshot (or inspection) with their layers and heads."""
    maps = grid_maps(snapshot)
    return tuple((kind, int(maps[kind].shape[0]), int(maps[kind].shape[1])) for kind in ATTENTION_KINDS if kind in maps)


def axis_labels(kind: str, snapshot: Any) -> tuple[list[str], list[str]]:
    """Query and key token labels of one kind of map in a ``SnapshotEvent``-like object (or an inspection,
    which names them per kind: ``query_tokens`` / ``key_tokens``).

    Decoder queries of the cross map are labelled with the token each position predicts (as in a
    translation's cross-attention); decoder self-attention uses the decoder's input tokens.
    """
    queries = getattr(snapshot, "query_tokens", None)
    if queries is not None:
        return list(queries[kind]), list(snapshot.key_tokens[kind])
    if kind == "encoder":
        return list(snapshot.src_tokens), list(snapshot.src_tokens)
    if kind == "decoder":
        return list(snapshot.tgt_input_tokens), list(snapshot.tgt_input_tokens)
    return list(snapshot.tgt_tokens), list(snapshot.src_tokens)
