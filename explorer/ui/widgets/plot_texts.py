"""Re-setting the texts of pyqtgraph items in another language (legend names): what a widget's
``retranslate()`` needs beyond ``setTitle``/``setLabel``, which pyqtgraph re-sets itself."""
from __future__ import annotations

from typing import Any, Sequence

import pyqtgraph as pg


def set_legend_names(plot: pg.PlotItem, names: Sequence[tuple[Any, str]]) -> None:
    """Rename curves (``(curve, name)`` pairs) in ``plot``'s legend, each label keeping its colour."""
    legend = plot.legend
    if legend is None:
        return
    for sample, label in legend.items:
        for item, name in names:
            if sample.item is item:
                item.opts["name"] = name
                label.setText(name)
