"""A plot title shrinks to the largest font, in 1 pt steps from the wanted size, at which it fits its width, and is
elided only where even the smallest is too wide: the same size a scan down from the wanted size finds."""
from __future__ import annotations

import pyqtgraph as pg
import pytest

from explorer.ui.widgets.fitting_title import MIN_TITLE_PT, FittingTitle

TITLE = "attention weights of head 3 in layer 2 (masked softmax)"


def width_at(pt: float) -> float:
    """The title's width at ``pt`` in a plain label (the reference measure)."""
    label = pg.LabelItem(TITLE, size=f"{pt:g}pt")
    return label.item.boundingRect().width()


def scanned_size(width: float, wanted: float) -> float:
    """The size a scan down from ``wanted`` settles on (the smallest when nothing fits)."""
    pt = wanted
    while width_at(pt) > width and pt > MIN_TITLE_PT:
        pt = max(MIN_TITLE_PT, pt - 1)
    return pt


@pytest.mark.parametrize("wanted", [11.0, 14.0, 13.75, 16.5])  # presenter mode scales to fractions
def test_the_title_takes_the_size_a_scan_from_the_top_finds(qtbot, wanted: float) -> None:
    smallest, natural = width_at(MIN_TITLE_PT), width_at(wanted)
    for width in range(int(smallest) - 6, int(natural) + 6):  # from elided to whole, every pixel
        title = FittingTitle(size_pt=wanted)
        title.resize(width, 30)
        title.setText(TITLE)
        assert title.shown_pt == scanned_size(width, wanted), width
        assert title.elided == (smallest > width)
        assert title.full_text == TITLE


def test_a_title_that_fits_again_after_a_resize_grows_back(qtbot) -> None:
    natural = width_at(11.0)
    title = FittingTitle(size_pt=11.0)
    title.resize(natural * 0.6, 30)
    title.setText(TITLE)
    assert title.shown_pt < 11.0
    title.resize(natural * 1.5, 30)
    assert title.shown_pt == 11.0 and not title.elided


def test_a_style_that_changes_the_width_is_fitted_again(qtbot) -> None:
    width = width_at(11.0) * 1.01  # the plain title fits whole; in bold it does not
    title, fresh = FittingTitle(size_pt=11.0), FittingTitle(size_pt=11.0)
    for label in (title, fresh):
        label.setMaximumWidth(width)
        label.resize(width, 30)
    title.setText(TITLE)
    title.setText(TITLE, bold=True)
    fresh.setText(TITLE, bold=True)
    assert (title.shown_pt, title.elided) == (fresh.shown_pt, fresh.elided)
    assert title.shown_pt < 11.0 and not title.elided
