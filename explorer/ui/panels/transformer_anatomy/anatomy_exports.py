"""What File → Export writes from the anatomy panel: each view's plots, with the matrices behind them as CSV
(rows named by their tokens)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from explorer.ui.i18n.translators import translate
from explorer.ui.panels.base_panel import ExportTarget

if TYPE_CHECKING:
    from explorer.core.chapter.anatomy_views import AnatomyViews
    from explorer.ui.panels.transformer_anatomy.stage_view_widget import StageView
    from explorer.ui.panels.transformer_anatomy.sublayer_views_widget import FFNView, NormView
    from explorer.ui.widgets.heatmap_widget import HeatmapWidget

Table = Callable[[], tuple[list[str], np.ndarray]]


def _rows(heatmap: HeatmapWidget) -> Callable[[], tuple[str, list[str]]]:
    return lambda: ("token", list(heatmap.row_labels))


def _matrix(header: str, matrix: Callable[[], np.ndarray | None]) -> Table:
    def table() -> tuple[list[str], np.ndarray]:
        m = matrix()
        if m is None:
            return [header], np.zeros((0, 1))
        return [f"{header}{j}" for j in range(m.shape[1])], np.asarray(m, dtype=np.float64)
    return table


def export_targets(ffn: FFNView, norm: NormView, view: StageView,
                   views: Callable[[], AnatomyViews | None]) -> list[ExportTarget]:
    """FFN input and output, the book's norm example, the batch and its norms, and the chosen box's output.

    ``ffn``, ``norm`` and ``view`` are the panel's views; ``views`` returns what it computed last (or None).
    """

    def batch(which: str) -> Table:
        def matrix() -> np.ndarray | None:
            b = norm.batch
            return None if b is None else getattr(b, which).reshape(-1, b.X.shape[-1])
        return _matrix("feature", matrix)

    def book() -> tuple[list[str], np.ndarray]:
        computed = views()
        r = computed.book if computed is not None else None
        if r is None:
            return ["x0", "x1", "ln0", "ln1", "bn0", "bn1"], np.zeros((0, 6))
        return ["x0", "x1", "ln0", "ln1", "bn0", "bn1"], np.hstack([r.X, r.ln, r.bn])

    def stage_output() -> np.ndarray | None:
        return view.stage.output.values if view.stage is not None else None

    return [ExportTarget("ffn_input", ffn.x_map, _matrix("feature", lambda: ffn.x_map.matrix), _rows(ffn.x_map),
                         translate("AnatomyPanel", "FFN input")),
            ExportTarget("ffn_output", ffn.y_map, _matrix("feature", lambda: ffn.y_map.matrix), _rows(ffn.y_map),
                         translate("AnatomyPanel", "FFN output")),
            ExportTarget("norm_book_example", norm.book_grid, book,
                         label=translate("AnatomyPanel", "The book's norm example")),
            ExportTarget("batch_x", norm.x_map, batch("X"), _rows(norm.x_map), translate("AnatomyPanel", "Batch X")),
            ExportTarget("batch_layer_norm", norm.norm_grid, batch("ln"), _rows(norm.x_map),
                         translate("AnatomyPanel", "Batch LayerNorm")),
            ExportTarget("batch_batch_norm", norm.norm_grid, batch("bn"), _rows(norm.x_map),
                         translate("AnatomyPanel", "Batch BatchNorm")),
            ExportTarget("block_box_output", view.output_map, _matrix("feature", stage_output),
                         lambda: ("token", list(view.stage.output.tokens) if view.stage else []),
                         translate("AnatomyPanel", "Output of the chosen box"))]
