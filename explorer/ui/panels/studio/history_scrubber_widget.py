"""The studio's history scrubber (book §11.7): a slider over the kept attention snapshots, live by default."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal, Slot
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSlider, QWidget



class HistoryScrubber(QWidget):
    """Slider over snapshot indices plus a "live" box that follows the newest snapshot.

    Signals
    -------
    index_chosen(int): the user moved the slider to a snapshot.
    live_toggled(bool): follow the newest snapshot or not.
    """

    index_chosen = Signal(int)
    live_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, 0)
        self.slider.setEnabled(False)
        self.live_box = QCheckBox(self)
        self.live_box.setChecked(True)
        self.label = QLabel(self.tr("no snapshots yet"), self)  # which snapshot is shown: then the owner words it
        self.label.setMinimumWidth(150)
        self.label.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._history_label = QLabel(self)
        layout.addWidget(self._history_label)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.live_box)
        layout.addWidget(self.label)
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.live_box.toggled.connect(self._on_live_box_toggled)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force (at build and on ``LanguageChange``)."""
        self.slider.setToolTip(self.tr("Replay how the attention evolved: every kept snapshot, oldest on the left"))
        self.live_box.setText(self.tr("live"))
        self.live_box.setToolTip(self.tr("Show the newest snapshot as training goes"))
        self._history_label.setText(self.tr("History"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    @property
    def live(self) -> bool:
        return self.live_box.isChecked()

    def set_count(self, count: int) -> None:
        """The history holds ``count`` snapshots; in live mode the slider jumps to the newest."""
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, max(0, count - 1))
            self.slider.setEnabled(count > 1)
            if self.live:
                self.slider.setValue(max(0, count - 1))

    def show_index(self, index: int, text: str) -> None:
        """Put the slider on ``index`` (no signal) and describe the snapshot shown."""
        with QSignalBlocker(self.slider):
            self.slider.setValue(index)
        self.label.setText(text)

    def set_live(self, live: bool) -> None:
        """Show the live mode the state is in (no signal: the state is the source of truth)."""
        with QSignalBlocker(self.live_box):
            self.live_box.setChecked(live)

    @Slot(int)
    def _on_slider_value_changed(self, index: int) -> None:
        self.index_chosen.emit(index)

    @Slot(bool)
    def _on_live_box_toggled(self, live: bool) -> None:
        self.live_toggled.emit(live)
