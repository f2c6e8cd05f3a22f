"""The loss plot's steady auto range: bounds move in steps, so a curve growing at every redraw does not lay its axes
out again each time, and the data always stays in view."""
from __future__ import annotations

import math

import pytest

from explorer.core.runs.loss_record import LossRecord
from explorer.ui.panels.studio.loss_plot_widget import LossPlotWidget
from explorer.ui.widgets.steady_range_view_box import SteadyRangeViewBox, nice_ceiling, outward


@pytest.mark.parametrize(("value", "expected"), [(412.6, 500.0), (500.0, 500.0), (501.0, 600.0), (0.013, 0.015),
                                                 (9.1, 10.0), (1.0, 1.0), (1.05, 1.2), (0.0, 0.0), (-3.0, -3.0)])
def test_nice_ceiling(value: float, expected: float) -> None:
    assert nice_ceiling(value) == pytest.approx(expected)


def test_nice_ceiling_within_a_tolerance_stays_at_the_value_passed() -> None:
    assert nice_ceiling(3009.0, 0.01) == 3000.0 and nice_ceiling(3040.0, 0.01) == 4000.0
    assert nice_ceiling(0.0, 0.01) == 0.0


def test_outward_rounds_to_half_the_spans_power_of_ten() -> None:
    assert outward(2.37, 5.91) == pytest.approx((2.0, 6.0))
    assert outward(-0.34, 5.84) == pytest.approx((-0.5, 6.0))
    assert outward(0.012, 0.047) == pytest.approx((0.01, 0.05))
    assert outward(-12.3, 500.0, 0.01) == pytest.approx((-13.0, 500.0))
    assert outward(3.0, 3.0) == (3.0, 3.0) and math.isnan(outward(math.nan, 1.0)[0])


def test_live_loss_keeps_its_range_until_it_passes_a_step(qtbot) -> None:
    record = LossRecord()
    plot = LossPlotWidget(record)
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    plot.show()
    view = plot.getPlotItem().getViewBox()
    assert isinstance(view, SteadyRangeViewBox)
    plot.set_growing(True)  # as the studio does while a run trains
    ranges = []
    for step in range(1, 1301):
        record.append_step(step, step / 100, step * 0.01, 5.0 * math.exp(-step / 300) + 0.3)
        if step % 10 == 0:  # a redraw every ten steps, as the studio's ~5 Hz at the book's speed
            plot.refresh()
            (x0, x1), (y0, y1) = view.viewRange()
            s = record.steps.view()
            assert x0 <= s[:, 0].min() and x1 >= s[:, 0].max()  # every point in view
            assert y0 <= s[:, 3].min() and y1 >= s[:, 3].max()
            ranges.append((round(x0, 6), round(x1, 6), round(y0, 6), round(y1, 6)))
    later = ranges[60:]  # steps 610 to 1300: 70 redraws, the x range passing 800, 1000 and 1200
    changes = sum(a != b for a, b in zip(later, later[1:]))
    assert 2 <= changes <= 6, changes  # at a few nice steps, not at each redraw
    assert ranges[-1][1] < 1500 * 1.1  # the end of the x range at the next nice value (and the padding)
    for step in range(1301, 1501):  # a run that ends on a nice value: the curve's pen does not push the range on
        record.append_step(step, step / 100, step * 0.01, 0.3)
    plot.refresh()
    (x0, x1), _ = view.viewRange()
    assert x0 < 1 and 1500 < x1 < 1500 * 1.1
    view.setXRange(100, 200, padding=0)  # a range set by hand stays
    record.append_step(1501, 15.01, 15.01, 0.3)
    plot.refresh()
    assert view.viewRange()[0] == pytest.approx([100, 200])
    view.enableAutoRange()  # and the auto range comes back steady, the newest step in view
    plot.refresh()
    assert 1501 <= view.viewRange()[0][1] <= 1500 * 1.1  # 1,500 still (1501 is within the padding), in view
    plot.set_growing(False)  # the run has finished: its curve fills the plot
    assert 1501 <= view.viewRange()[0][1] <= 1501 * 1.1
    assert view.viewRange()[1][0] > 0  # the y range fits the losses too (rounded, it started below 0)
