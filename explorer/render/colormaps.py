"""The colour maps of every heatmap, thumbnail, colour bar and time-lapse frame: the standard palette or a
colour-blind-safe one, by name. numpy and pyqtgraph load only when a lookup table is asked for (the CLI's
``--help`` and the window's first paint need neither)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: The app-wide palettes: the standard colour maps, or their colour-blind-safe partners.
PALETTES: tuple[str, ...] = ("standard", "colour_blind")

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
