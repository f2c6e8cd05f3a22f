"""Colour maps of every heatmap, thumbnail and colour bar: the standard palette or a colour-blind-safe one.

One app-wide setting. The shell applies it to each panel as it applies the theme: :func:`restyle_maps` walks
the plots (like ``theme.restyle_plots``), then ``BasePanel.apply_palette`` reaches whatever the walk cannot.
numpy and pyqtgraph are imported only by the functions that need them (the window paints before they load).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.ui.settings import PALETTES

if TYPE_CHECKING:
    import numpy as np
    from PySide6.QtWidgets import QWidget

__all__ = ["PALETTES", "SAFE_ALTERNATIVES", "lookup_table", "resolve", "restyle_maps"]

#: Each map of the standard palette and its colour-blind-safe partner (perceptually uniform, readable with
#: deuteranopia and protanopia). A one-to-one table, so a map can be switched either way from its name alone.
SAFE_ALTERNATIVES: dict[str, str] = {
    "viridis": "cividis",
    "CET-D1": "CET-CBD1",  # diverging blue-white-red -> blue-white-yellow
    "CET-L17": "CET-CBL2",
}
_STANDARD_OF = {safe: base for base, safe in SAFE_ALTERNATIVES.items()}


def resolve(name: str, palette: str) -> str:
    """The colour map to use for ``name`` (a standard or safe map name) in ``palette``; unknown names stay."""
    base = _STANDARD_OF.get(name, name)
    return SAFE_ALTERNATIVES.get(base, base) if palette == "colour_blind" else base


def lookup_table(name: str, palette: str, n: int = 256) -> np.ndarray:
    """``(n, 4)`` uint8 RGBA colours of map ``name`` in ``palette``, from 0 to 1."""
    import numpy as np
    import pyqtgraph as pg

    return np.ascontiguousarray(pg.colormap.get(resolve(name, palette)).getLookupTable(0.0, 1.0, n, alpha=True))


def restyle_maps(root: QWidget, palette: str) -> int:
    """Switch every colour map inside ``root`` to ``palette``; returns how many items changed.

    Image items and colour bars whose map has a partner in :data:`SAFE_ALTERNATIVES` are switched; a plot
    widget with an ``apply_palette(palette)`` method is asked too (for maps it builds later, e.g. new tiles).
    A colour bar that drives no image item describes pixels coloured elsewhere (pre-coloured thumbnails): it
    is left to its view's ``apply_palette``, so that bar and pixels never disagree.
    """
    import pyqtgraph as pg
    from PySide6.QtWidgets import QGraphicsView

    changed = 0
    for view in root.findChildren(QGraphicsView):
        if not isinstance(view, pg.GraphicsView):
            continue
        hook = getattr(view, "apply_palette", None)
        if callable(hook):
            hook(palette)
        for item in view.scene().items():
            if isinstance(item, pg.ColorBarItem):
                if not any(ref() is not None for ref in getattr(item, "img_list", [])):
                    continue
                cmap = item.colorMap()
            elif isinstance(item, pg.ImageItem):
                cmap = item.getColorMap()
            else:
                continue
            name = getattr(cmap, "name", None) if cmap is not None else None
            if not name or resolve(name, palette) == name:
                continue
            item.setColorMap(pg.colormap.get(resolve(name, palette)))
            changed += 1
    return changed
