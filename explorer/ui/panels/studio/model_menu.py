"""The studio's "Model" menu (book §11.7): save and open models, open a dataset, open, replay or overlay a run
directory, and the recent runs; it asks for the file or folder, then says which one was chosen."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from explorer.core.runs.run_dir import is_run_dir
from explorer.core.training.checkpoint_read import SUFFIX
from explorer.paths import demo_run_dir
from explorer.ui.widgets.file_dialogs import open_file_name, open_folder_name, save_file_name

DATASET_SUFFIXES = (".txt", ".tsv", ".zip")
MAX_RECENT_RUNS = 8


def ask_dataset_path(parent: QWidget | None) -> str:
    """File dialog for a sentence-pair file; '' if cancelled."""
    translate = QCoreApplication.translate
    return open_file_name(parent, translate("ModelMenu", "Open sentence pairs"),
                          translate("ModelMenu", "Sentence pairs (*.txt *.tsv *.zip);;All files (*)"))


def dropped_kind(path: str) -> str | None:
    """What a path dropped on the studio opens as: ``run`` (a run directory), ``model`` (a saved model),
    ``dataset`` (sentence pairs), or None."""
    if Path(path).is_dir() and is_run_dir(path):
        return "run"
    suffix = Path(path).suffix.lower()
    return "model" if suffix == SUFFIX else "dataset" if suffix in DATASET_SUFFIXES else None


def remember_run(recent: list[str], path: str) -> list[str]:
    """``recent`` with ``path`` first, without duplicates, at most :data:`MAX_RECENT_RUNS` long."""
    path = str(Path(path))
    return [path, *(p for p in recent if p != path)][:MAX_RECENT_RUNS]


class ModelMenu(QMenu):
    """Model → Save…, Open…, Open run…, Recent runs, Replay the demo run,
    Replay a run…, Overlay a run's loss…, Clear overlaid runs, Open dataset….

    Signals
    -------
    save_chosen(str), open_chosen(str), dataset_chosen(str), run_chosen(str),
    replay_chosen(str), overlay_chosen(str), overlays_cleared().
    """

    save_chosen = Signal(str)
    open_chosen = Signal(str)
    dataset_chosen = Signal(str)
    run_chosen = Signal(str)
    replay_chosen = Signal(str)
    overlay_chosen = Signal(str)
    overlays_cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.save_action, self.open_action, self.run_action = QAction(self), QAction(self), QAction(self)
        self.recent_menu = QMenu(self)
        self.demo_action, self.replay_action, self.overlay_action = QAction(self), QAction(self), QAction(self)
        self.clear_overlays_action, self.dataset_action = QAction(self), QAction(self)
        for action in (self.save_action, self.open_action, self.run_action):
            self.addAction(action)
        self.addMenu(self.recent_menu)
        self.addAction(self.demo_action)
        self.addAction(self.replay_action)
        self.addSeparator()
        self.addAction(self.overlay_action)
        self.addAction(self.clear_overlays_action)
        self.addSeparator()
        self.addAction(self.dataset_action)
        self.save_action.triggered.connect(self._on_save_action_triggered)
        self.open_action.triggered.connect(self._on_open_action_triggered)
        self.run_action.triggered.connect(self._on_run_action_triggered)
        self.demo_action.triggered.connect(self._on_demo_action_triggered)
        self.replay_action.triggered.connect(self._on_replay_action_triggered)
        self.overlay_action.triggered.connect(self._on_overlay_action_triggered)
        self.clear_overlays_action.triggered.connect(self.overlays_cleared)
        self.dataset_action.triggered.connect(self._on_dataset_action_triggered)
        self.set_recent_runs([])
        self.retranslate()

    def retranslate(self) -> None:
        """Set the menu's texts in the language in force (at build and on ``LanguageChange``)."""
        self.setTitle(self.tr("&Model"))
        self.save_action.setText(self.tr("&Save model…"))
        self.open_action.setText(self.tr("&Open model…"))
        self.run_action.setText(self.tr("Open &run…"))
        self.recent_menu.setTitle(self.tr("&Recent runs"))
        self.demo_action.setText(self.tr("Replay the d&emo run"))
        self.replay_action.setText(self.tr("Re&play a run…"))
        self.overlay_action.setText(self.tr("Overlay a run's &loss…"))
        self.clear_overlays_action.setText(self.tr("&Clear overlaid runs"))
        self.dataset_action.setText(self.tr("Open &dataset…"))
        self.save_action.setToolTip(self.tr("Save the trained (or paused) model with its vocabularies and settings"))
        self.open_action.setToolTip(self.tr("Open a model saved here or by the command line, to inspect and "
                                            "translate"))
        self.run_action.setToolTip(self.tr("Open a run directory (finished, or still being trained by the command "
                                           "line) and follow it live"))
        self.demo_action.setToolTip(self.tr("Watch the book's model train (a run of 200 epochs recorded with this app) "
                                            "at any speed, without training it here"))
        self.replay_action.setToolTip(self.tr("Replay a recorded run directory as it was trained, at any speed"))
        self.overlay_action.setToolTip(self.tr("Draw another run's loss curve over this one"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def enable_for(self, has_model: bool, training: bool) -> None:
        """Save needs a model; opening or replaying a model, dataset or run waits until training ends."""
        self.save_action.setEnabled(has_model)
        for action in (self.open_action, self.dataset_action, self.run_action, self.demo_action, self.replay_action,
                       self.recent_menu.menuAction()):
            action.setEnabled(not training)

    def set_recent_runs(self, paths: list[str]) -> None:
        """List ``paths`` (newest first) under Recent runs."""
        self.recent_menu.clear()
        for path in paths:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.setData(path)
            action.triggered.connect(self._on_recent_action_triggered)
        self.recent_menu.setEnabled(bool(paths))

    def _checkpoint_filter(self) -> str:
        return self.tr("Attention Explorer model (*{suffix})").format(suffix=SUFFIX)

    def _ask_run_dir(self, title: str) -> str:
        return open_folder_name(self.parentWidget(), title)

    @Slot()
    def _on_save_action_triggered(self) -> None:
        path, _ = save_file_name(self.parentWidget(), self.tr("Save model"), f"transformer{SUFFIX}",
                                 self._checkpoint_filter())
        if path:
            self.save_chosen.emit(path)

    @Slot()
    def _on_open_action_triggered(self) -> None:
        path = open_file_name(self.parentWidget(), self.tr("Open model"), self._checkpoint_filter())
        if path:
            self.open_chosen.emit(path)

    @Slot()
    def _on_run_action_triggered(self) -> None:
        path = self._ask_run_dir(self.tr("Open run directory"))
        if path:
            self.run_chosen.emit(path)

    @Slot()
    def _on_demo_action_triggered(self) -> None:
        self.replay_chosen.emit(str(demo_run_dir()))

    @Slot()
    def _on_replay_action_triggered(self) -> None:
        path = self._ask_run_dir(self.tr("Replay run directory"))
        if path:
            self.replay_chosen.emit(path)

    @Slot()
    def _on_overlay_action_triggered(self) -> None:
        path = self._ask_run_dir(self.tr("Overlay the loss of run"))
        if path:
            self.overlay_chosen.emit(path)

    @Slot()
    def _on_recent_action_triggered(self) -> None:
        action = self.sender()
        if isinstance(action, QAction) and action.data():
            self.run_chosen.emit(str(action.data()))

    @Slot()
    def _on_dataset_action_triggered(self) -> None:
        path = ask_dataset_path(self.parentWidget())
        if path:
            self.dataset_chosen.emit(path)
