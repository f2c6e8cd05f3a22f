"""The attention grid's last block: the rollout and flow (Abnar & Zuidema 2020) of each self-attention kind over all
layers, one thumbnail each, filled once core has computed them on a worker and blank until then."""
from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QCoreApplication

from explorer.core.debug.rollout_settings import METHODS
from explorer.ui.widgets.followed_maps import extra_name, self_kinds
from explorer.ui.widgets.map_kinds import grid_maps, kind_title
from explorer.ui.widgets.thumbnail_item import Thumbnail

#: The grid's way to set a text now and again on a change of language: ``word(setter, words)``.
Word = Callable[[Callable[[str], Any], Callable[[], str]], None]


class FollowedBlock:
    """The extra maps' thumbnails (``plots``, by name: ``rollout:encoder``): built into a block of the grid, filled
    with the results of the grid's ``FollowedMapsRunner``. The texts keep the grid's translation context."""

    def __init__(self) -> None:
        self.plots: dict[str, Thumbnail] = {}

    def build(self, block: Any, kinds: list[str], lut: np.ndarray, fg: str, word: Word,
              clicked: Callable[[str], None]) -> None:
        """Fill ``block`` (a pyqtgraph layout of the grid): rollout and flow (rows) of ``kinds`` (columns), each over
        all layers and heads; ``clicked(name)`` when a thumbnail is clicked."""
        self.plots = {}
        word(block.addLabel("", colspan=len(kinds) + 1, color=fg, size="9pt").setText,
             lambda: QCoreApplication.translate("AttentionGrid", "All layers"))
        block.nextRow()
        block.addLabel("", color=fg)
        for kind in kinds:
            word(block.addLabel("", color=fg, size="8pt").setText, partial(_kind_short, kind))
        for method in METHODS:
            block.nextRow()
            word(block.addLabel("", angle=-90, color=fg, size="8pt").setText, partial(_method_word, method))
            for kind in kinds:
                thumb = Thumbnail(lut)
                name = extra_name(method, kind)
                thumb.image_item.clicked.connect(partial(clicked, name))
                word(thumb.image_item.setToolTip, partial(_extra_tip, method, kind))
                block.addItem(thumb)
                self.plots[name] = thumb

    def show(self, snapshot: Any, result: Any) -> None:
        """Fill the thumbnails with ``result`` (the runner's for ``snapshot``, None while it is computed); blank where
        flow was refused (its tool tip says why) or the maps are pooled (a long text)."""
        for name, thumb in self.plots.items():
            method, kind = name.split(":")
            matrix = None if result is None else result.maps[method].get(kind)
            if matrix is not None:
                thumb.set_matrix(matrix)
            elif thumb.matrix is not None and (result is not None or not _same_shape(thumb, snapshot, kind)):
                thumb.matrix = None
                thumb.image_item.clear()
            if result is not None and kind in result.refused and method == "flow":
                thumb.image_item.setToolTip(result.refused[kind])
        if self.plots and not self_kinds(snapshot):  # a long text's pooled maps: no rollout from bins
            for thumb in self.plots.values():
                thumb.image_item.setToolTip(QCoreApplication.translate(
                    "AttentionGrid", "Rollout and flow need every head's full map; this text is long, so only pooled "
                                     "maps were computed"))


def _same_shape(thumb: Thumbnail, snapshot: Any, kind: str) -> bool:
    """Whether the thumbnail's old map has the size of ``snapshot``'s (then it stays until the new arrives)."""
    maps = grid_maps(snapshot).get(kind)
    return maps is not None and thumb.matrix is not None and thumb.matrix.shape == tuple(maps.shape[-2:])


def _kind_short(kind: str) -> str:
    if kind == "encoder":
        return QCoreApplication.translate("AttentionGrid", "encoder")
    return QCoreApplication.translate("AttentionGrid", "decoder")


def _method_word(method: str) -> str:
    if method == "rollout":
        return QCoreApplication.translate("AttentionGrid", "rollout")
    return QCoreApplication.translate("AttentionGrid", "flow")


def _extra_tip(method: str, kind: str) -> str:
    if method == "rollout":
        return QCoreApplication.translate(
            "AttentionGrid", "Attention rollout of the {map} over all layers (Abnar & Zuidema 2020): which input tokens "
                             "each output token draws on; click for a large view").format(map=kind_title(kind))
    return QCoreApplication.translate(
        "AttentionGrid", "Attention flow of the {map} over all layers (maximum flow, Abnar & Zuidema 2020); click for "
                         "a large view").format(map=kind_title(kind))
