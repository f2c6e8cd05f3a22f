"""The inspector's "Model" menu: open a Hugging Face model folder, a saved model or a run directory to inspect; it
asks for the folder or file, then says which one was chosen."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from explorer.core.training.checkpoint_read import SUFFIX
from explorer.ui.widgets.file_dialogs import open_file_name, open_folder_name


class InspectorMenu(QMenu):
    """Model → Open Hugging Face model folder…, Open saved model…, Open run directory….

    Signals
    -------
    model_chosen(str): the folder or file to inspect.
    """

    model_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder_action, self.file_action, self.run_action = QAction(self), QAction(self), QAction(self)
        for action in (self.folder_action, self.file_action, self.run_action):
            self.addAction(action)
        self.folder_action.triggered.connect(self._on_folder_action_triggered)
        self.file_action.triggered.connect(self._on_file_action_triggered)
        self.run_action.triggered.connect(self._on_run_action_triggered)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the menu's texts in the language in force (at build and on ``LanguageChange``)."""
        self.setTitle(self.tr("&Model"))
        self.folder_action.setText(self.tr("Open &Hugging Face model folder…"))
        self.file_action.setText(self.tr("Open &saved model…"))
        self.run_action.setText(self.tr("Open &run directory…"))
        self.folder_action.setToolTip(self.tr("Inspect a model trained elsewhere: a folder with config.json, weights "
                                              "and a tokenizer (BERT, RoBERTa, GPT-2, Marian, BART, mBART, T5; local "
                                              "files only)"))
        self.file_action.setToolTip(self.tr("Inspect a model saved by the studio or the command line"))
        self.run_action.setToolTip(self.tr("Inspect the latest model of a run directory"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @Slot()
    def _on_folder_action_triggered(self) -> None:
        path = open_folder_name(self.parentWidget(), self.tr("Open a Hugging Face model folder"))
        if path:
            self.model_chosen.emit(path)

    @Slot()
    def _on_file_action_triggered(self) -> None:
        path = open_file_name(self.parentWidget(), self.tr("Open model"),
                              self.tr("Attention Explorer model (*{suffix})").format(suffix=SUFFIX))
        if path:
            self.model_chosen.emit(path)

    @Slot()
    def _on_run_action_triggered(self) -> None:
        path = open_folder_name(self.parentWidget(), self.tr("Open run directory"))
        if path:
            self.model_chosen.emit(path)
