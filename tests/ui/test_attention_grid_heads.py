"""The attention grid names the key/value head each grouped-query head shares, and draws masked cells (a causal
decoder's later keys, a sliding window's far keys) in a neutral grey instead of the colour of zero."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pyqtgraph as pg

from explorer.ui.widgets.attention_grid_widget import AttentionGrid
from explorer.ui.widgets.thumbnail_item import MASKED_PIXEL

MASKED = tuple(MASKED_PIXEL)  # a masked cell's bytes in the thumbnail's image


def _inspection(layers: int, heads: int, tokens: int) -> SimpleNamespace:
    maps = np.full((layers, heads, tokens, tokens), 0.0, np.float32)  # (L, h, T, T)
    return SimpleNamespace(thumbnails={"decoder": maps}, map_size=lambda kind: (tokens, tokens),
                           query_tokens={"decoder": ["t"] * tokens}, key_tokens={"decoder": ["t"] * tokens})


def test_grouped_query_heads_are_labelled_with_their_key_value_head(qtbot) -> None:
    grid = AttentionGrid()
    qtbot.addWidget(grid)
    grid.set_head_info({"decoder": 2}, {"decoder": (3, 0)})  # 4 query heads share 2 key/value heads
    grid.set_snapshot(_inspection(2, 4, 6))
    texts = [item.text for item in grid.scene().items() if isinstance(item, pg.LabelItem)]
    assert {"head 1 · KV 1", "head 2 · KV 1", "head 3 · KV 2", "head 4 · KV 2"} <= set(texts)
    sliding, full = grid.plots["decoder"][0][0], grid.plots["decoder"][1][0]
    pixels = sliding.image_item.image  # (T, T, 4) image bytes: row = query, column = key
    assert tuple(pixels[5, 0]) == MASKED  # 5 keys behind, outside a window of 3
    assert tuple(pixels[5, 3]) != MASKED and tuple(pixels[0, 1]) == MASKED  # in the band; a later key
    assert tuple(full.image_item.image[5, 0]) != MASKED  # the global layer sees every earlier key
    grid.set_head_info({}, None)  # a model without shared heads, and no masks (the studio's grid)
    grid.set_snapshot(_inspection(2, 4, 6))
    texts = [item.text for item in grid.scene().items() if isinstance(item, pg.LabelItem)]
    assert "head 3" in texts and not any("KV" in t for t in texts)
    assert tuple(grid.plots["decoder"][0][0].image_item.image[0, 1]) != MASKED


def test_the_large_view_hatches_the_cells_outside_a_sliding_window() -> None:
    from explorer.ui.widgets.attention_detail_widget import causal_keep

    keep = causal_keep(6, 3)  # (T, T): True where the query sees the key
    assert keep[5, 3] and keep[5, 5] and not keep[5, 2] and not keep[2, 3]
    assert (causal_keep(6) == np.tril(np.ones((6, 6), bool))).all()  # no window: the causal triangle only


def test_export_all_sees_a_grid_without_a_snapshot_as_empty(qtbot) -> None:
    from explorer.ui.shell.export_all import shows_nothing

    grid = AttentionGrid()
    qtbot.addWidget(grid)
    grid.prepare_layout((("encoder", 2, 4),))  # thumbnails laid out, nothing drawn in them yet
    assert grid.plots["encoder"] and shows_nothing(grid)  # skipped by File → Export all, not written blank
    grid.set_snapshot(_inspection(2, 4, 6))
    assert not shows_nothing(grid)
