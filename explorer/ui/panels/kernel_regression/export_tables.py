"""What File → Export writes for the kernel regression panel (book §11.2): its four plots and the numbers
behind them (every weight, not the block averages a big heatmap draws)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from explorer.ui.i18n.translators import translate
from explorer.ui.panels.base_panel import ExportTarget

if TYPE_CHECKING:
    from explorer.ui.panels.kernel_regression.kernel_regression_widgets import KernelRegressionPlots

Table = tuple[list[str], np.ndarray]


@dataclass(frozen=True)
class KernelRegressionNumbers:
    """The numbers the panel shows now: data, fits, the (test × train) weights on screen, the query, the loss."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_truth: np.ndarray
    pred: np.ndarray
    param_pred: np.ndarray | None
    shown_weights: np.ndarray  # (test, train): nonparametric or the trained parametric ones
    query_index: int
    losses: list[float]
    w_history: list[float]


def export_targets(plots: KernelRegressionPlots, numbers: Callable[[], KernelRegressionNumbers]) -> list[ExportTarget]:
    """The fit, the attention weights, one query's weights and the parametric loss of ``plots``, each with its
    table read from ``numbers()`` when it is written."""

    def fit_table() -> Table:
        n = numbers()
        param = n.param_pred if n.param_pred is not None else np.full(n.x_test.size, np.nan)
        return (["x_test", "y_truth", "nonparametric_pred", "parametric_pred"],
                np.column_stack([n.x_test, n.y_truth, n.pred, param]).astype(np.float64))

    def weights_table() -> Table:
        """One row per test point, one column per training point."""
        n = numbers()
        header = ["x_test", *(f"w@x_train={v:.6g}" for v in n.x_train.tolist())]
        return header, np.column_stack([n.x_test, n.shown_weights]).astype(np.float64)

    def stem_table() -> Table:
        n = numbers()
        w = n.shown_weights[min(n.query_index, n.x_test.size - 1)]
        return ["x_train", "y_train", "weight"], np.column_stack([n.x_train, n.y_train, w]).astype(np.float64)

    def loss_table() -> Table:
        n = numbers()
        count = len(n.losses)
        return ["epoch", "loss", "w"], np.column_stack([np.arange(1, count + 1), n.losses, n.w_history])

    return [ExportTarget("fit", plots.fit_plot, fit_table, label=translate("KernelRegressionPanel", "Fit")),
            ExportTarget("attention_weights", plots.heatmap, weights_table,
                         label=translate("KernelRegressionPanel", "Attention weights")),
            ExportTarget("query_weights", plots.stem_plot, stem_table,
                         label=translate("KernelRegressionPanel", "Weights of one test point")),
            ExportTarget("parametric_loss", plots.loss_plot, loss_table,
                         label=translate("KernelRegressionPanel", "Parametric loss"))]
