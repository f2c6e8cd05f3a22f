"""What File → Export writes for the kernel regression panel (book §11.2): its four plots and the numbers
behind them (every weight, not the block averages a big heatmap draws)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from explorer.ui.i18n.translators import translate
from explorer.ui.panels.base_panel import ExportTarget

if TYPE_CHECKING:
    from explorer.ui.panels.kernel_regression.kernel_regression_panel import KernelRegressionPanel

Table = tuple[list[str], np.ndarray]


def export_targets(panel: KernelRegressionPanel) -> list[ExportTarget]:
    """The fit, the attention weights, one query's weights and the parametric loss, each with its table."""

    def fit_table() -> Table:
        param = panel.param_pred if panel.param_pred is not None else np.full(panel.x_test.size, np.nan)
        return (["x_test", "y_truth", "nonparametric_pred", "parametric_pred"],
                np.column_stack([panel.x_test, panel.y_truth, panel.pred, param]).astype(np.float64))

    def weights_table() -> Table:
        """One row per test point, one column per training point."""
        header = ["x_test", *(f"w@x_train={v:.6g}" for v in panel.x_train.tolist())]
        return header, np.column_stack([panel.x_test, panel.shown_weights()]).astype(np.float64)

    def stem_table() -> Table:
        w = panel.shown_weights()[min(panel.query_index, panel.x_test.size - 1)]
        return ["x_train", "y_train", "weight"], np.column_stack([panel.x_train, panel.y_train, w]).astype(np.float64)

    def loss_table() -> Table:
        n = len(panel.losses)
        return ["epoch", "loss", "w"], np.column_stack([np.arange(1, n + 1), panel.losses, panel.w_history])

    return [ExportTarget("fit", panel.fit_plot, fit_table, label=translate("KernelRegressionPanel", "Fit")),
            ExportTarget("attention_weights", panel.heatmap, weights_table,
                         label=translate("KernelRegressionPanel", "Attention weights")),
            ExportTarget("query_weights", panel.stem_plot, stem_table,
                         label=translate("KernelRegressionPanel", "Weights of one test point")),
            ExportTarget("parametric_loss", panel.loss_plot, loss_table,
                         label=translate("KernelRegressionPanel", "Parametric loss"))]
