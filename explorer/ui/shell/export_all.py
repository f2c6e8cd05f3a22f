"""File → Export all: every panel's plots as PNG and SVG and the numbers behind them as CSV, in one folder with
an ``index.html`` naming each file's panel and plot.

Panels are visited one at a time (built if they were not yet, laid out, settled) and one file is written per
event-loop turn, so the window stays responsive; the panel shown before comes back at the end.
"""
from __future__ import annotations

import html
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QStackedWidget, QWidget

from explorer.core.atomic_file import write_text_atomic
from explorer.ui.shell.panel_walker import PanelWalker
from explorer.ui.widgets.export import ExportError, default_file_name, display_name, export_target

if TYPE_CHECKING:
    from explorer.ui.shell.panel_access import PanelAccess

log = logging.getLogger(__name__)
INDEX_NAME = "index.html"
PICTURE_FORMATS = ("png", "svg")
LAYOUT_MS = 30  # after a hidden tab is brought forward, let its layout settle before drawing it


@dataclass(frozen=True)
class ExportedFile:
    """One file written: its panel, plot, format and name inside the folder."""

    panel_key: str
    panel_title: str
    plot: str
    fmt: str
    name: str


@dataclass
class ExportAllResult:
    """What an export-all run wrote, what failed (``"panel — plot (FMT): why"``) and the index file."""

    folder: Path
    files: list[ExportedFile] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)  # "panel — plot" of views with nothing to show, not written
    index: Path | None = None
    cancelled: bool = False


_INDEX_TITLE = QT_TRANSLATE_NOOP("ExportAll", "Attention Explorer export")
_INDEX_HEADS = (QT_TRANSLATE_NOOP("ExportAll", "Panel"), QT_TRANSLATE_NOOP("ExportAll", "Plot"),
                QT_TRANSLATE_NOOP("ExportAll", "Format"), QT_TRANSLATE_NOOP("ExportAll", "File"),
                QT_TRANSLATE_NOOP("ExportAll", "Preview"))
_NOT_EXPORTED = QT_TRANSLATE_NOOP("ExportAll", "Not exported")
_EMPTY = QT_TRANSLATE_NOOP("ExportAll", "Empty, not exported")


def _tr(text: str) -> str:
    """One of the texts marked above, in the language in force (the index is written in it)."""
    return QCoreApplication.translate("ExportAll", text)


def index_html(result: ExportAllResult) -> str:
    """An HTML page listing every file of ``result`` by panel and plot, with the PNGs shown small."""
    rows: list[str] = []
    for file in result.files:
        link = html.escape(file.name, quote=True)
        preview = f'<img src="{link}" alt="" height="80">' if file.fmt == "png" else ""
        rows.append(f"<tr><td>{html.escape(file.panel_title)}</td><td>{html.escape(file.plot)}</td>"
                    f"<td>{file.fmt.upper()}</td><td><a href=\"{link}\">{html.escape(file.name)}</a></td>"
                    f"<td>{preview}</td></tr>")
    failures = "".join(f"<li>{html.escape(f)}</li>" for f in result.failures)
    empty = "".join(f"<li>{html.escape(e)}</li>" for e in result.empty)
    title = html.escape(_tr(_INDEX_TITLE))
    heads = "".join(f"<th>{html.escape(_tr(h))}</th>" for h in _INDEX_HEADS)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + title + "</title>"
            "<style>body{font-family:sans-serif} td,th{padding:4px 8px;text-align:left;vertical-align:top}"
            "</style></head><body><h1>" + title + "</h1>\n"
            "<table><tr>" + heads + "</tr>\n"
            + "\n".join(rows) + "\n</table>\n"
            + (f"<h2>{html.escape(_tr(_NOT_EXPORTED))}</h2><ul>{failures}</ul>\n" if failures else "")
            + (f"<h2>{html.escape(_tr(_EMPTY))}</h2><ul>{empty}</ul>\n" if empty else "")
            + "</body></html>\n")


def shows_nothing(graphics: Any) -> bool:
    """True for a plot whose data items (images, curves, scatter points) all hold nothing, e.g. a heatmap before
    its first matrix; a picture with no data items of those kinds (a drawing) is never empty."""
    import pyqtgraph as pg

    if isinstance(graphics, pg.PlotItem):
        items = [i for item in graphics.items for i in (item, *item.childItems())]
    elif hasattr(graphics, "scene") and callable(graphics.scene) and graphics.scene() is not None:
        items = graphics.scene().items()
    else:
        return False
    from explorer.ui.widgets.thumbnail_item import ThumbnailImage

    data = [i for i in items if isinstance(i, (pg.ImageItem, pg.PlotDataItem, pg.ScatterPlotItem, pg.BarGraphItem,
                                               ThumbnailImage)) and not _in_colour_bar(i)]
    return bool(data) and not any(_holds_data(i) for i in data)


def _in_colour_bar(item: Any) -> bool:
    """A colour bar's gradient is an image too, and says nothing about the data."""
    import pyqtgraph as pg

    parent = item.parentItem()
    while parent is not None:
        if isinstance(parent, pg.ColorBarItem):
            return True
        parent = parent.parentItem()
    return False


def _holds_data(item: Any) -> bool:
    import pyqtgraph as pg

    from explorer.ui.widgets.thumbnail_item import ThumbnailImage

    if isinstance(item, (pg.ImageItem, ThumbnailImage)):  # an attention grid's thumbnail: an image of its own
        return item.image is not None and item.image.size > 0 and item.isVisible()
    if isinstance(item, pg.PlotDataItem):
        return item.xData is not None and len(item.xData) > 0
    if isinstance(item, pg.ScatterPlotItem):
        return len(item.data) > 0
    return True  # a bar graph: its bars are its data


def has_rows(csv: Any) -> bool:
    """True when the table ``csv()`` returns has at least one row (a header alone is no table)."""
    try:
        _header, data = csv()
    except Exception:  # the export itself will report why
        return True
    return getattr(data, "ndim", 0) >= 1 and len(data) > 0 and getattr(data, "size", 1) > 0


def reveal(graphics: Any) -> list[tuple[QStackedWidget, QWidget]]:
    """Make the tab or stacked page holding ``graphics`` (a widget or graphics item) current; returns each stack
    switched with the page it showed before, to switch back afterwards."""
    widget = graphics if isinstance(graphics, QWidget) else None
    if widget is None and hasattr(graphics, "getViewWidget"):
        widget = graphics.getViewWidget()
    switched: list[tuple[QStackedWidget, QWidget]] = []
    while widget is not None and widget.parentWidget() is not None:
        parent = widget.parentWidget()
        if isinstance(parent, QStackedWidget) and parent.currentWidget() is not widget and parent.indexOf(widget) >= 0:
            switched.append((parent, parent.currentWidget()))
            parent.setCurrentWidget(widget)
        widget = parent
    return switched


class ExportAllJob(QObject):
    """Exports every panel of ``panels`` (or those of ``keys``) into ``folder``; connect the signals, then
    :meth:`start`.

    Signals
    -------
    progressed(int, str): files written so far and a sentence saying what is being exported.
    finished(object): the :class:`ExportAllResult`, once the index is written (or the job was cancelled).
    """

    progressed = Signal(int, str)
    finished = Signal(object)

    def __init__(self, panels: PanelAccess, folder: str | Path, png_width: int | None = None,
                 keys: list[str] | None = None, min_wait_ms: int = 300) -> None:
        super().__init__(panels)
        self._panels = panels
        self.result = ExportAllResult(Path(folder))
        self._png_width = png_width
        self._return_to = panels.current_key()
        self._steps: list[tuple[str, Any, list[str]]] = []  # panel key, target, formats left
        self._revealed: list[tuple[QStackedWidget, QWidget]] | None = None  # stacks switched, and their pages
        self._walker = PanelWalker(panels, keys if keys is not None else panels.keys(), self._on_walker_settled,
                                   self._on_walker_done, min_wait_ms=min_wait_ms, max_wait_ms=5000)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.running = False

    def start(self) -> None:
        """Begin with the first panel on the next event-loop turn."""
        self.running = True
        self._walker.start()

    def cancel(self) -> None:
        """Stop after the file being written; the index lists what was written; the panel shown stays."""
        if self.running:
            self._walker.stop()
            self._timer.stop()
            self._steps.clear()
            for stack, page in reversed(self._revealed or []):
                stack.setCurrentWidget(page)
            self._revealed = None
            self.result.cancelled = True
            self._finish()

    def _on_walker_settled(self, key: str) -> None:
        panel = self._panels.panel(key)
        if panel is None:
            why = self._panels.panel_error(key) or self.tr("it could not be built")
            self.result.failures.append(f"{self._panels.title(key)}: {why}")
            return
        try:
            targets = list(panel.export_targets())
        except Exception as exc:  # one panel's hook failing never stops the others
            log.exception("export_targets of %s failed", key)
            self.result.failures.append(f"{self._panels.title(key)}: {type(exc).__name__}: {exc}")
            return
        for target in targets:
            formats = [*([] if shows_nothing(target.graphics) else PICTURE_FORMATS),
                       *(["csv"] if target.csv is not None and has_rows(target.csv) else [])]
            if formats:
                self._steps.append((key, target, formats))
            else:  # an empty view shows its hint on screen; a file of nothing helps no one
                self.result.empty.append(f"{self._panels.title(key)} — {target.label or display_name(target.name)}")
        if self._steps:
            self._walker.hold()
            self._timer.start()

    @Slot()
    def _on_timer_timeout(self) -> None:
        key, target, formats = self._steps[0]
        if self._revealed is None:  # first bring the plot's tab (or page) forward, then draw it a turn later
            self._revealed = reveal(target.graphics)
            self._timer.start(LAYOUT_MS if self._revealed else 0)
            return
        fmt = formats.pop(0)
        title, plot = self._panels.title(key), target.label or display_name(target.name)
        self.progressed.emit(len(self.result.files), self.tr("Exporting {panel}: {plot} ({format})…").format(
            panel=title, plot=plot, format=fmt.upper()))
        name = default_file_name(key, target.name, fmt)
        try:
            export_target(target, self.result.folder / name, fmt, self._png_width if fmt == "png" else None)
            self.result.files.append(ExportedFile(key, title, plot, fmt, name))
        except ExportError as exc:
            self.result.failures.append(f"{title} — {plot} ({fmt.upper()}): {exc}")
        if not formats:
            self._steps.pop(0)
            for stack, page in reversed(self._revealed):
                stack.setCurrentWidget(page)
            self._revealed = None
        if self._steps:
            self._timer.start(0)
        else:
            self._walker.release()

    def _on_walker_done(self) -> None:
        self._finish()

    def _finish(self) -> None:
        self.running = False
        try:
            self.result.index = write_text_atomic(self.result.folder / INDEX_NAME, index_html(self.result))
        except OSError as exc:
            self.result.failures.append(f"{INDEX_NAME}: {exc.strerror or exc}")
        if not self.result.cancelled and self._return_to in self._panels.keys():
            self._panels.show_panel(self._return_to)  # (cancelled: the window may be closing)
        self.finished.emit(self.result)
