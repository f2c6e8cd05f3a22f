"""Export: PNG and SVG of a pyqtgraph plot are valid pictures, CSV holds the numbers, failures are messages."""
from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QDialogButtonBox

from explorer.ui.panels.base_panel import ExportTarget
from explorer.ui.widgets.export import (ExportDialog, ExportError, csv_text, default_file_name, export_csv,
                                        export_png, export_svg, export_target)

X = np.linspace(0.0, 5.0, 50)
Y = 2 * np.sin(X) + X**0.8


@pytest.fixture
def target(qtbot) -> ExportTarget:
    widget = pg.PlotWidget(background="w")
    widget.resize(400, 300)
    widget.plot(X, Y, pen=pg.mkPen("r", width=3))
    qtbot.addWidget(widget)
    return ExportTarget("Fitted curve", widget, lambda: (["x", "y"], np.column_stack([X, Y])))


def _assert_non_blank_png(path: Path, min_width: int = 1) -> QImage:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = QImage(str(path))
    assert not image.isNull() and image.width() >= min_width
    small = image.scaled(40, 30)
    colours = {small.pixel(x, y) for x in range(small.width()) for y in range(small.height())}
    assert len(colours) > 2, "the picture is a single flat colour"
    return image


def test_png_is_a_non_blank_picture_of_the_requested_width(target: ExportTarget, tmp_path: Path) -> None:
    image = _assert_non_blank_png(export_png(target.graphics, tmp_path / "a.png", width=800), 800)
    assert image.width() == 800


def test_png_of_a_graphics_layout(qtbot, tmp_path: Path) -> None:
    layout = pg.GraphicsLayoutWidget()
    layout.resize(500, 300)
    qtbot.addWidget(layout)
    layout.addPlot().plot(X, Y, pen="b")
    layout.addPlot().plot(X, -Y, pen="g")
    _assert_non_blank_png(export_png(layout, tmp_path / "grid.png"))


def test_svg_parses_with_an_svg_root_holding_the_curve(target: ExportTarget, tmp_path: Path) -> None:
    root = ET.parse(export_svg(target.graphics, tmp_path / "a.svg")).getroot()
    assert root.tag.endswith("svg")
    assert any(el.tag.endswith("path") or el.tag.endswith("polyline") for el in root.iter())


def test_csv_has_header_and_the_numbers(target: ExportTarget, tmp_path: Path) -> None:
    with export_csv(target, tmp_path / "a.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["x", "y"]
    table = np.array(rows[1:], dtype=float)
    assert table.shape == (50, 2)
    np.testing.assert_allclose(table, np.column_stack([X, Y]), rtol=1e-8)


def test_csv_one_dimensional_column_and_shape_mismatch() -> None:
    assert csv_text(["w"], np.array([1.5, 2.0])) == "w\n1.5\n2\n"
    labelled = csv_text([",", "b"], np.array([[0.25, 0.75], [1.0, 0.0]]), ("query \\ key", ['"', "x"]))
    assert labelled == 'query \\ key,",",b\n"""",0.25,0.75\nx,1,0\n'  # tokens quoted as CSV requires
    with pytest.raises(ExportError):
        csv_text(["a"], np.zeros((2, 1)), ("q", ["only one"]))
    with pytest.raises(ExportError, match="shape"):
        csv_text(["a", "b", "c"], np.zeros((4, 2)))
    with pytest.raises(ExportError, match="comma"):
        csv_text(["a,b"], np.zeros(2))


def test_format_from_suffix_and_unknown_format(target: ExportTarget, tmp_path: Path) -> None:
    _assert_non_blank_png(export_target(target, tmp_path / "pic.png"))
    assert export_target(target, tmp_path / "t.csv").read_text().startswith("x,y\n")
    with pytest.raises(ExportError, match="Unknown export format"):
        export_target(target, tmp_path / "pic.gif")


def test_failures_are_messages_and_keep_the_old_file(target: ExportTarget, tmp_path: Path) -> None:
    good = tmp_path / "keep.csv"
    good.write_text("old\n")
    broken = ExportTarget("Broken", target.graphics, lambda: (_ for _ in ()).throw(RuntimeError("no data yet")))
    with pytest.raises(ExportError, match="no data yet"):
        export_csv(broken, good)
    assert good.read_text() == "old\n"
    assert list(tmp_path.iterdir()) == [good]  # no temporary file left behind
    with pytest.raises(ExportError, match="does not exist"):
        export_png(target.graphics, tmp_path / "missing" / "a.png")
    with pytest.raises(ExportError, match="no table"):
        export_csv(ExportTarget("Picture only", target.graphics), tmp_path / "b.csv")


def test_dialog_writes_the_chosen_target_and_format(qtbot, target: ExportTarget, tmp_path: Path) -> None:
    other = ExportTarget("Weights", target.graphics, lambda: (["a", "b", "c"], np.eye(3)))
    dialog = ExportDialog([target, other], "kernel_regression", str(tmp_path), fmt="csv")
    qtbot.addWidget(dialog)
    dialog.target_combo.setCurrentIndex(1)
    assert dialog.path_edit.text() == str(tmp_path / default_file_name("kernel_regression", "Weights", "csv"))
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert dialog.written == tmp_path / "kernel_regression-weights.csv"
    assert dialog.written.read_text().splitlines()[0] == "a,b,c"
    dialog.path_edit.setText(str(tmp_path / "nowhere" / "x.csv"))
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert "does not exist" in dialog.error_label.text()


def test_export_dialog_helper_remembers_folder_format_and_width(qtbot, target: ExportTarget, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.ui.settings import AppSettings
    from explorer.ui.widgets.export import run_export_dialog

    settings = AppSettings(tmp_path / "settings")
    settings.set("export/last_dir", str(tmp_path))
    settings.set("export/last_format", "svg")

    def fake_exec(dialog: ExportDialog) -> int:  # stands in for the user pressing Save
        assert dialog.fmt() == "svg" and dialog.path_edit.text().startswith(str(tmp_path))
        dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("png"))
        dialog.width_spin.setValue(640)
        dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
        return dialog.result()

    monkeypatch.setattr(ExportDialog, "exec", fake_exec)
    written = run_export_dialog([target], "scoring", settings)
    assert written == tmp_path / "scoring-fitted-curve.png"
    assert QImage(str(written)).width() == 640
    assert settings.get("export/last_format") == "png" and settings.get("export/png_width") == 640
