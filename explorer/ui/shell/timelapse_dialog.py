"""File → Export training time-lapse: choose the map, the head (or every head), frames, speed and file; the
studio's attention history and loss curve become an animated GIF, an MP4 or PNG frames."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Slot
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPushButton, QSpinBox, QWidget)

from explorer.core.runs.timelapse import DEFAULT_KIND, build_timelapse
from explorer.render.colormaps import lookup_table
from explorer.render.timelapse_files import FORMAT_NAMES, available_formats, format_of
from explorer.render.timelapse_frame import KIND_TITLES
from explorer.ui.shell.timelapse_job import TimelapseJob
from explorer.ui.widgets.file_dialogs import start_folder

if TYPE_CHECKING:
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QStatusBar

    from explorer.ui.settings import AppSettings

SIZES = ((960, 540), (1280, 720), (1920, 1080))
NO_HISTORY = QT_TRANSLATE_NOOP("Timelapse", "The Transformer studio has no attention history yet: train a model there "
                                            "(or open one), then export its time-lapse.")
translate = QCoreApplication.translate


def studio_run(studio: QWidget | None) -> tuple[Any, list[Any]] | None:
    """The state of the ``studio`` panel (None: not built) and its attention snapshots, or None when there are
    none."""
    state = getattr(studio, "studio_state", None)
    if state is None or not len(state.attention.history):
        return None
    return state, list(state.attention.history)


def timelapse_job(studio: QWidget | None, bar: QStatusBar, palette: str, dark: bool, path: str,
                  kind: str = DEFAULT_KIND, head: tuple[int, int] | None = None, max_frames: int | None = None,
                  fps: float = 4.0, size: tuple[int, int] = SIZES[0],
                  parent: QObject | None = None) -> TimelapseJob | None:
    """A job (not started) writing the ``studio`` panel's time-lapse to ``path`` (format from its suffix) in
    ``palette`` on a ``dark`` or light background; its progress goes to the status bar ``bar``. None (with a
    status message) when there is nothing to show or the request is bad."""
    run = studio_run(studio)
    fmt = format_of(path)
    if run is None or fmt not in available_formats():
        bar.showMessage(translate("Timelapse", NO_HISTORY) if run is None else translate(
            "Timelapse", "Cannot write {name}: choose a .gif, .png or (with imageio-ffmpeg) .mp4 file.").format(
            name=Path(path).name), 10_000)
        return None
    state, snapshots = run
    table = state.loss.steps.view()  # (n, 4): step, epoch, seconds, loss
    try:
        timelapse = build_timelapse(snapshots, table[:, 0], table[:, 3], kind, head, max_frames)
    except ValueError as exc:
        bar.showMessage(str(exc), 10_000)
        return None
    job = TimelapseJob(timelapse, lookup_table("viridis", palette), path, fmt, fps, size, dark, parent)
    job.progressed.connect(lambda done, total: bar.showMessage(
        translate("Timelapse", "Drawing the time-lapse: frame {done} of {total}…").format(done=done, total=total)
        if done < total else translate("Timelapse", "Encoding the time-lapse…")))
    job.finished.connect(lambda written: bar.showMessage(
        translate("Timelapse", "Wrote the time-lapse {path}.").format(path=written), 10_000))
    job.failed.connect(lambda why: bar.showMessage(why, 10_000))
    return job


class TimelapseDialog(QDialog):
    """The time-lapse options; :meth:`request` returns them for :func:`timelapse_job`."""

    def __init__(self, snapshot: Any, selected: tuple[str, int, int] | None, directory: str, fps: int,
                 max_frames: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export training time-lapse"))
        self._snapshot = snapshot
        self._heads: list[tuple[int, int] | None] = [None]  # what each entry of the head combo stands for
        self.kind_combo = QComboBox(self)
        maps = getattr(snapshot, "maps", None) or {}
        for kind, title in KIND_TITLES.items():
            if kind in maps and len(maps[kind]):  # the kinds the run's model has
                self.kind_combo.addItem(translate("Timelapse", title), kind)
        self.head_combo = QComboBox(self)
        self.frames_spin = QSpinBox(self)
        self.frames_spin.setRange(2, 2000)
        self.frames_spin.setValue(max_frames)
        self.frames_spin.setToolTip(
            self.tr("At most this many snapshots, evenly spread over the run (first and last kept)"))
        self.fps_spin = QSpinBox(self)
        self.fps_spin.setRange(1, 30)
        self.fps_spin.setValue(fps)
        self.size_combo = QComboBox(self)
        for w, h in SIZES:
            self.size_combo.addItem(f"{w} × {h}", (w, h))
        self.path_edit = QLineEdit(str(Path(directory or Path.home()) / "attention-timelapse.gif"), self)
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._on_browse_clicked)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c0392b;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.accepted.connect(self._on_buttons_accepted)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.tr("Attention"), self.kind_combo)
        form.addRow(self.tr("Head"), self.head_combo)
        form.addRow(self.tr("Frames (at most)"), self.frames_spin)
        form.addRow(self.tr("Frames per second"), self.fps_spin)
        form.addRow(self.tr("Size"), self.size_combo)
        form.addRow(self.tr("File"), row)
        form.addRow(self.error_label)
        form.addRow(buttons)
        self.kind_combo.currentIndexChanged.connect(self._on_kind_combo_current_index_changed)
        # the studio's chosen map and head, or the CLI's default (cross attention, every head); a rollout or flow
        # thumbnail has no time-lapse of its own: the raw maps of its kind (every head), else the first kind there is
        wanted = selected[0] if selected is not None else DEFAULT_KIND
        found = [self.kind_combo.findData(kind) for kind in (wanted, wanted.partition(":")[2], DEFAULT_KIND)]
        index = next((i for i in found if i >= 0), 0)
        self.kind_combo.setCurrentIndex(index)
        self._on_kind_combo_current_index_changed()
        if selected is not None and index == found[0] and (selected[1], selected[2]) in self._heads:
            self.head_combo.setCurrentIndex(self._heads.index((selected[1], selected[2])))

    def request(self) -> dict[str, Any]:
        """Keyword arguments for :func:`timelapse_job`."""
        return {"path": self.path_edit.text().strip(), "kind": self.kind_combo.currentData(),
                "head": self._heads[max(0, self.head_combo.currentIndex())], "max_frames": self.frames_spin.value(),
                "fps": float(self.fps_spin.value()), "size": self.size_combo.currentData()}

    @Slot()
    def _on_kind_combo_current_index_changed(self) -> None:
        kind = self.kind_combo.currentData()
        self.head_combo.clear()
        if kind is None:  # a snapshot without maps: nothing to choose
            self._heads = [None]
            return
        layers, heads = self._snapshot.maps[kind].shape[:2]
        self._heads = [None, *((layer, head) for layer in range(layers) for head in range(heads))]
        self.head_combo.addItem(self.tr("Every head (a grid)"))
        for layer, head in self._heads[1:]:
            self.head_combo.addItem(self.tr("Layer {layer}, head {head}").format(layer=layer + 1, head=head + 1))

    @Slot()
    def _on_browse_clicked(self) -> None:
        filters = [f"{translate('Timelapse', FORMAT_NAMES[f])} (*.{f})" for f in available_formats()]
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export training time-lapse"), self.path_edit.text(),
                                              ";;".join(filters))
        if path:
            self.path_edit.setText(path)

    @Slot()
    def _on_buttons_accepted(self) -> None:
        path = Path(self.path_edit.text().strip()).expanduser()
        if format_of(path) not in available_formats():
            names = ", ".join(f".{f}" for f in available_formats())
            self.error_label.setText(self.tr("Choose a file ending in one of {names}.").format(names=names))
        elif not path.parent.is_dir():
            self.error_label.setText(self.tr("The folder {folder} does not exist.").format(folder=path.parent))
        else:
            self.path_edit.setText(str(path))
            self.accept()


def ask_timelapse(studio: QWidget | None, settings: AppSettings, bar: QStatusBar,
                  parent: QWidget) -> dict[str, Any] | None:
    """Ask for the time-lapse options of the ``studio`` panel (remembered in ``settings``): keyword arguments for
    :func:`timelapse_job`, or None when cancelled or when there is nothing to show (said in the status bar)."""
    run = studio_run(studio)
    if run is None:
        bar.showMessage(translate("Timelapse", NO_HISTORY), 10_000)
        return None
    state, snapshots = run
    dialog = TimelapseDialog(snapshots[-1], state.attention.selected_head,
                             start_folder(settings.get("timelapse/last_dir")),
                             settings.get("timelapse/fps"), settings.get("timelapse/max_frames"), parent)
    try:
        if not dialog.exec():
            return None
        request = dialog.request()
    finally:
        dialog.deleteLater()
    settings.set("timelapse/last_dir", str(Path(request["path"]).parent))
    settings.set("timelapse/fps", int(request["fps"]))
    settings.set("timelapse/max_frames", request["max_frames"])
    return request
