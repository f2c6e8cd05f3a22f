"""Write a panel's plots to PNG / SVG (pyqtgraph exporters) and their numbers to CSV; the export dialog.

Files are written to a temporary name beside the target and renamed, so a failure never leaves a
half-written file in place of a good one (DESIGN rule 7).
"""
from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from PySide6.QtCore import QCoreApplication, QEvent, QSignalBlocker, Slot
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout,
                               QLabel, QLineEdit, QPushButton, QSpinBox, QWidget)

from explorer.core.atomic_file import write_bytes_atomic
from explorer.ui.widgets.form_controls import set_row_labels
from explorer.ui.widgets.file_dialogs import remember_choice, start_folder

translate = QCoreApplication.translate

if TYPE_CHECKING:
    from explorer.ui.panels.base_panel import ExportTarget
    from explorer.ui.settings import AppSettings

FORMATS: tuple[str, ...] = ("png", "svg", "csv")


class ExportError(Exception):
    """An export failed; the message is fit for users."""


def _export_item(graphics: Any) -> Any:
    """The graphics item or scene a pyqtgraph exporter should render for ``graphics``."""
    import pyqtgraph as pg

    if isinstance(graphics, pg.GraphicsView):
        for attr in ("plotItem", "ci"):
            item = getattr(graphics, attr, None)
            if item is not None:
                return item
        return graphics.scene()
    return graphics


def render_image(graphics: Any, width: int | None = None) -> QImage:
    """Render ``graphics`` as it looks on screen, scaled as a whole to ``width`` pixels (default: on-screen width).

    pyqtgraph's ``ImageExporter`` scales the scene's transform, which items that ignore transformations
    (legends, text items) do not follow: a 4000 px export kept an on-screen-sized legend. Painting at a
    device pixel ratio instead scales everything alike, as a high-DPI screen would.
    """
    import pyqtgraph.exporters as pge
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QPainter

    exporter = pge.ImageExporter(_export_item(graphics))
    source = exporter.getSourceRect()
    logical = exporter.getTargetRect()  # (0, 0, on-screen width, height)
    if logical.width() <= 0 or logical.height() <= 0:
        raise ExportError(translate("Export", "The plot has no size yet (is it shown?)."))
    scale = width / logical.width() if width is not None and width > 0 else 1.0
    image = QImage(round(logical.width() * scale), round(logical.height() * scale), QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(exporter.parameters()["background"])
    painter = QPainter(image)
    try:
        exporter.setExportMode(True, {"antialias": True, "background": exporter.parameters()["background"],
                                      "painter": painter, "resolutionScale": 1.0})
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        exporter.getScene().render(painter, QRectF(0, 0, logical.width(), logical.height()), QRectF(source))
    finally:
        exporter.setExportMode(False)
        painter.end()
    image.setDevicePixelRatio(1.0)
    return image


def export_png(graphics: Any, path: str | os.PathLike[str], width: int | None = None) -> Path:
    """Render ``graphics`` to a PNG file, ``width`` pixels wide (default: its on-screen size)."""
    from PySide6.QtCore import QBuffer, QIODevice

    path = Path(path)
    try:
        image = render_image(graphics, width)
    except ExportError:
        raise
    except Exception as exc:  # pyqtgraph raises bare Exception for an empty plot
        raise ExportError(translate("Export", "Could not render the plot as PNG: {error}").format(
            error=exc)) from exc
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if image is None or image.isNull() or not image.save(buffer, "PNG"):
        raise ExportError(translate("Export", "Could not encode the plot as PNG."))
    _write(path, bytes(buffer.data().data()))
    return path


@contextlib.contextmanager
def _closed_paths_tolerated() -> Iterator[None]:
    """Work around pyqtgraph 0.14 failing on the ``Z`` (close path) that Qt ≥ 6.10 writes in SVG paths.

    pyqtgraph issue #3495: its coordinate fix-up expects every path token to be ``x,y``. While we
    export, the fix-up first drops ``Z`` tokens (an SVG fill closes its path anyway; our closed
    paths already end at their start point), then runs unchanged. Restored afterwards.
    """
    import pyqtgraph.exporters.SVGExporter  # noqa: F401  (the module, not the class)

    module = sys.modules["pyqtgraph.exporters.SVGExporter"]
    original = module.correctCoordinates

    def correct_without_close(node: Any, defs: Any, item: Any, options: Any) -> Any:
        for element in node.getElementsByTagName("path"):
            d = element.getAttribute("d")
            if "Z" in d or "z" in d:
                element.setAttribute("d", " ".join(t for t in d.split() if t not in ("Z", "z")))
        return original(node, defs, item, options)

    module.correctCoordinates = correct_without_close
    try:
        yield
    finally:
        module.correctCoordinates = original


def export_svg(graphics: Any, path: str | os.PathLike[str]) -> Path:
    """Render ``graphics`` to an SVG file."""
    import pyqtgraph.exporters as pge

    path = Path(path)
    try:
        with _closed_paths_tolerated():
            data = pge.SVGExporter(_export_item(graphics)).export(toBytes=True)
    except Exception as exc:  # pyqtgraph raises bare Exception for an empty plot
        raise ExportError(translate("Export", "Could not render the plot as SVG: {error}").format(
            error=exc)) from exc
    _write(path, data)
    return path


def csv_text(header: list[str], data: Any, row_labels: tuple[str, list[str]] | None = None) -> str:
    """Format ``header`` and ``data`` ``(rows, len(header))`` (or ``(rows,)`` for one column) as CSV.

    ``row_labels`` ``(column name, labels)`` puts one text label before each row (tokens may hold commas or
    quotes: they are quoted as CSV requires)."""
    import numpy as np

    table = np.asarray(data, dtype=float)
    if table.ndim == 1:
        table = table.reshape(-1, 1)  # (rows,) -> (rows, 1)
    if table.ndim != 2 or table.shape[1] != len(header):
        raise ExportError(translate("Export", "The table has shape {shape} but {count} column names.").format(
            shape=table.shape, count=len(header)))
    buffer = io.StringIO()
    if row_labels is None:
        for name in header:
            if re.search(r'[",\n\r]', name):
                raise ExportError(translate(
                    "Export", "Column name {name} contains a comma, quote or line break.").format(name=repr(name)))
        np.savetxt(buffer, table, fmt="%.9g", delimiter=",", header=",".join(header), comments="")
        return buffer.getvalue()
    name, labels = row_labels
    if len(labels) != table.shape[0]:
        raise ExportError(translate("Export", "The table has {rows} rows but {labels} row labels.").format(
            rows=table.shape[0], labels=len(labels)))
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([name, *header])
    for label, row in zip(labels, table):
        writer.writerow([label, *(f"{v:.9g}" for v in row)])
    return buffer.getvalue()


def export_csv(target: ExportTarget, path: str | os.PathLike[str]) -> Path:
    """Write the numbers behind ``target`` (its ``csv()`` callable) to a CSV file."""
    path = Path(path)
    if target.csv is None:
        raise ExportError(translate("Export", "“{name}” has no table of numbers to export.").format(
            name=target.label or display_name(target.name)))
    try:
        header, data = target.csv()
    except ExportError:
        raise
    except Exception as exc:
        raise ExportError(translate("Export", "Could not collect the numbers of “{name}”: {error}").format(
            name=target.label or display_name(target.name), error=exc)) from exc
    labels = target.row_labels() if target.row_labels is not None else None
    _write(path, csv_text(list(header), data, labels).encode("utf-8"))
    return path


def export_target(target: ExportTarget, path: str | os.PathLike[str], fmt: str | None = None,
                  width: int | None = None) -> Path:
    """Export ``target`` as ``fmt`` (``png``/``svg``/``csv``; default: from the file suffix)."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise ExportError(translate("Export", "Unknown export format {format}; choose PNG, SVG or CSV.").format(
            format=repr(fmt)))
    if fmt == "png":
        return export_png(target.graphics, path, width)
    if fmt == "svg":
        return export_svg(target.graphics, path)
    return export_csv(target, path)


def _write(path: Path, data: bytes) -> None:
    if not path.parent.is_dir():
        raise ExportError(translate("Export", "The folder {folder} does not exist.").format(folder=path.parent))
    try:
        write_bytes_atomic(path, data)
    except OSError as exc:
        raise ExportError(translate("Export", "Could not write {path}: {error}").format(
            path=path, error=exc.strerror or exc)) from exc


def display_name(target_name: str) -> str:
    """The name shown for a target: ``attention_weights`` -> ``Attention weights``, ``P`` stays ``P``."""
    words = target_name.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else "Plot"


def format_for(path: Path, chosen: str) -> str:
    """The format a file name asks for by its extension (``.png``/``.svg``/``.csv``), else ``chosen``."""
    suffix = path.suffix.lower().lstrip(".")
    return suffix if suffix in FORMATS else chosen


def with_format(path: Path, fmt: str) -> Path:
    """``path`` with the extension of ``fmt``: a known extension is replaced, any other kept and ``.fmt`` added."""
    if path.suffix.lower().lstrip(".") in FORMATS:
        return path.with_suffix(f".{fmt}")
    return path.with_name(f"{path.name}.{fmt}")


def default_file_name(panel_key: str, target_name: str, fmt: str) -> str:
    """``<panel>-<target>.<fmt>`` with the target name made file-safe."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", target_name).strip("-").lower() or "plot"
    return f"{panel_key}-{slug}.{fmt}"


class ExportDialog(QDialog):
    """Choose one of a panel's plots, a format and a file; errors are shown inline."""

    def __init__(self, targets: list[ExportTarget], panel_key: str, directory: str = "",
                 fmt: str = "png", png_width: int = 1600, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._targets = targets
        self._panel_key = panel_key
        self._directory = directory or str(Path.home())
        self.written: Path | None = None

        self.target_combo = QComboBox(self)
        for target in targets:
            self.target_combo.addItem(target.label or display_name(target.name), target.name)
        self.format_combo = QComboBox(self)
        for name in FORMATS:
            self.format_combo.addItem(name.upper(), name)
        self.format_combo.setCurrentIndex(max(0, self.format_combo.findData(fmt)))
        self.width_spin = QSpinBox(self)
        self.width_spin.setRange(200, 8000)
        self.width_spin.setSuffix(" px")
        self.width_spin.setValue(png_width)
        self.path_edit = QLineEdit(self)
        self.browse_button = QPushButton(self)
        self.browse_button.clicked.connect(self._on_browse_clicked)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(self.browse_button)
        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c0392b;")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)

        self._form = form = QFormLayout(self)
        self._path_row = path_row
        for field in (self.target_combo, self.format_combo, self.width_spin, path_row):
            form.addRow("", field)
        form.addRow(self.error_label)
        form.addRow(self.buttons)
        self.retranslate()
        self.target_combo.currentIndexChanged.connect(self._on_target_combo_current_index_changed)
        self.format_combo.currentIndexChanged.connect(self._on_format_combo_current_index_changed)
        self.path_edit.textEdited.connect(self._on_path_edit_text_edited)
        self._on_target_combo_current_index_changed()

    def retranslate(self) -> None:
        """Set the dialog's texts in the language in force (at build and on ``LanguageChange``; the plots'
        names are the panel's, worded when it opened the dialog)."""
        self.setWindowTitle(self.tr("Export plot"))
        self.browse_button.setText(self.tr("Browse…"))
        set_row_labels(self._form, [(self.target_combo, self.tr("Plot")), (self.format_combo, self.tr("Format")),
                                    (self.width_spin, self.tr("PNG width")), (self._path_row, self.tr("File"))])

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def fmt(self) -> str:
        """The chosen format (``png``/``svg``/``csv``)."""
        return self.format_combo.currentData()

    def _set_format(self, fmt: str) -> None:
        """Select ``fmt`` in the combo without rewriting the file name."""
        with QSignalBlocker(self.format_combo):
            self.format_combo.setCurrentIndex(self.format_combo.findData(fmt))
        self.width_spin.setEnabled(fmt == "png")

    @Slot()
    def _on_target_combo_current_index_changed(self) -> None:
        target = self._targets[self.target_combo.currentIndex()]
        folder = Path(self.path_edit.text()).parent if self.path_edit.text() else Path(self._directory)
        self.path_edit.setText(str(folder / default_file_name(self._panel_key, target.name, self.fmt())))
        self.width_spin.setEnabled(self.fmt() == "png")
        self.error_label.clear()

    @Slot()
    def _on_format_combo_current_index_changed(self) -> None:
        text = self.path_edit.text().strip()
        if text:
            self.path_edit.setText(str(with_format(Path(text), self.fmt())))
        self.width_spin.setEnabled(self.fmt() == "png")
        self.error_label.clear()

    @Slot(str)
    def _on_path_edit_text_edited(self, text: str) -> None:
        self._set_format(format_for(Path(text.strip()), self.fmt()))  # typing ".png" picks PNG

    @Slot()
    def _on_browse_clicked(self) -> None:
        filters = [self.tr("{format} files (*.{suffix})").format(format=name.upper(), suffix=name) for name in FORMATS]
        path, chosen = QFileDialog.getSaveFileName(self, self.tr("Export plot"), self.path_edit.text(),
                                                   ";;".join(filters),
                                                   filters[FORMATS.index(self.fmt())])
        if path:
            fmt = FORMATS[filters.index(chosen)] if chosen in filters else self.fmt()
            fmt = format_for(Path(path), fmt)
            self._set_format(fmt)
            self.path_edit.setText(str(with_format(Path(path), fmt)))

    @Slot()
    def _on_buttons_accepted(self) -> None:
        text = self.path_edit.text().strip()
        if not text:
            self.error_label.setText(self.tr("Choose a file name."))
            return
        target = self._targets[self.target_combo.currentIndex()]
        path = Path(text).expanduser()
        fmt = format_for(path, self.fmt())  # the extension wins over a format left selected
        path = with_format(path, fmt)
        self._set_format(fmt)
        self.path_edit.setText(str(path))
        try:
            self.written = export_target(target, path, fmt, self.width_spin.value())
        except ExportError as exc:
            self.error_label.setText(str(exc))
            return
        self.accept()


def run_export_dialog(targets: list[ExportTarget], panel_key: str, settings: AppSettings,
                      parent: QWidget | None = None) -> Path | None:
    """Show the export dialog with remembered folder, format and width; returns the file written."""
    dialog = ExportDialog(targets, panel_key, start_folder(settings.get("export/last_dir")),
                          settings.get("export/last_format"), settings.get("export/png_width"), parent)
    if not dialog.exec() or dialog.written is None:
        return None
    settings.set("export/last_dir", str(dialog.written.parent))
    remember_choice(str(dialog.written))
    settings.set("export/last_format", dialog.fmt())
    settings.set("export/png_width", dialog.width_spin.value())
    return dialog.written
