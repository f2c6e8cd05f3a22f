"""Export defects from the walkthrough: the file's extension decides its format, the plot chooser
shows human names, and a legend grows with the PNG's width."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QDialogButtonBox

from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.widgets.export import ExportDialog, export_png

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def plot(qtbot) -> pg.PlotWidget:
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    widget.plot([0, 1, 2], [1, 3, 2])
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _save(dialog: ExportDialog, path: str) -> None:
    dialog.path_edit.setText(path)
    dialog.path_edit.textEdited.emit(path)  # as if typed
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()


@pytest.mark.parametrize("typed_into_the_field", [True, False])
def test_png_name_with_the_csv_format_still_selected_writes_a_png(qtbot, plot, tmp_path: Path,
                                                                  typed_into_the_field: bool) -> None:
    target = ExportTarget("fit", plot, lambda: (["x"], np.arange(3.0)))
    dialog = ExportDialog([target], "kernel_regression", str(tmp_path), fmt="csv")
    qtbot.addWidget(dialog)
    path = str(tmp_path / "figure.png")
    if typed_into_the_field:
        _save(dialog, path)
    else:  # set programmatically (a paste without textEdited): Save still reads the extension
        dialog.path_edit.setText(path)
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert dialog.written == tmp_path / "figure.png"
    assert (tmp_path / "figure.png").read_bytes()[:8] == PNG_MAGIC
    assert dialog.fmt() == "png"


def test_a_name_without_a_known_extension_gets_the_chosen_one(qtbot, plot, tmp_path: Path) -> None:
    target = ExportTarget("fit", plot, lambda: (["x"], np.arange(3.0)))
    dialog = ExportDialog([target], "kernel_regression", str(tmp_path), fmt="csv")
    qtbot.addWidget(dialog)
    _save(dialog, str(tmp_path / "numbers"))
    assert dialog.written == tmp_path / "numbers.csv"
    assert (tmp_path / "numbers.csv").read_text().splitlines()[0] == "x"


def test_changing_the_format_changes_the_extension(qtbot, plot, tmp_path: Path) -> None:
    dialog = ExportDialog([ExportTarget("fit", plot, None)], "kernel_regression", str(tmp_path), fmt="png")
    qtbot.addWidget(dialog)
    dialog.path_edit.setText(str(tmp_path / "my figure.png"))
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("svg"))
    assert dialog.path_edit.text() == str(tmp_path / "my figure.svg")


def test_plot_chooser_shows_human_names(qtbot, plot, tmp_path: Path) -> None:
    targets = [ExportTarget(name, plot, None) for name in ("attention_weights", "entropy_vs_d", "P", "loss curve")]
    dialog = ExportDialog(targets, "kernel_regression", str(tmp_path))
    qtbot.addWidget(dialog)
    shown = [dialog.target_combo.itemText(i) for i in range(dialog.target_combo.count())]
    assert shown == ["Attention weights", "Entropy vs d", "P", "Loss curve"]
    assert dialog.path_edit.text().endswith("kernel_regression-attention-weights.png")


def _content_box(image: QImage, background: QColor) -> tuple[int, int]:
    """Width and height of the box around every pixel that differs from ``background``."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    array = np.frombuffer(rgb.constBits(), np.uint8).reshape(rgb.height(), rgb.bytesPerLine() // 4, 4)
    array = array[:, : rgb.width(), :3].astype(int)
    bg = np.array([background.blue(), background.green(), background.red()])
    ys, xs = np.nonzero(np.abs(array - bg).sum(axis=2) > 60)
    assert xs.size, "nothing drawn"
    return int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def test_the_legend_grows_with_the_png_width(qtbot, tmp_path: Path) -> None:
    widget = pg.PlotWidget(background="w")
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    item = widget.getPlotItem()
    for side in ("left", "bottom"):
        item.hideAxis(side)
    legend = item.addLegend(offset=(-10, 10), labelTextColor="k")
    legend.addItem(pg.PlotDataItem(pen=pg.mkPen("r", width=2)), "training loss, smoothed")  # only the legend
    widget.show()
    qtbot.waitExposed(widget)
    small = QImage(str(export_png(widget, tmp_path / "small.png", width=400)))
    large = QImage(str(export_png(widget, tmp_path / "large.png", width=1600)))
    assert large.width() == 1600 and small.width() == 400
    (w1, h1), (w4, h4) = _content_box(small, QColor("white")), _content_box(large, QColor("white"))
    assert 3.5 < w4 / w1 < 4.5 and 3.5 < h4 / h1 < 4.5, ((w1, h1), (w4, h4))
