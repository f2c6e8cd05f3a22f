"""Colour maps of every heatmap, thumbnail and colour bar: the standard palette or a colour-blind-safe one
(the maps themselves are :mod:`explorer.render.colormaps`).

One app-wide setting. The shell applies it to each panel as it applies the theme: :func:`restyle_maps` walks
the plots (like ``theme.restyle_plots``), then ``BasePanel.apply_palette`` reaches whatever the walk cannot.
numpy and pyqtgraph are imported only by the functions that need them (the window paints before they load).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.render.colormaps import resolve

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

__all__ = ["restyle_maps"]


def restyle_maps(root: QWidget, palette: str) -> int:
    """Switch every colour map inside ``root`` to ``palette``; returns how many items changed.

    Image items and colour bars whose map has a partner (``render.colormaps.SAFE_ALTERNATIVES``) are switched; a
    plot widget with an ``apply_palette(palette)`` method is asked too (for maps it builds later, e.g. new tiles).
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
