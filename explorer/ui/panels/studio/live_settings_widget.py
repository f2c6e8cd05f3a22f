"""The studio's settings that change while a run trains (book §11.7 training loop): learning rate, gradient clip and
dropout, applied by the training process at its next step, and the learning rate the last step used."""
from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QEvent, QSignalBlocker, Signal, Slot
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QPushButton, QWidget

from explorer.ui.widgets.form_controls import set_row_labels

#: name: (minimum, maximum, decimals, single step); the core checks the values again (lr > 0, dropout < 1).
_FIELDS = {"lr": (0.0, 10.0, 6, 0.0005), "grad_clip": (0.0, 1000.0, 2, 0.1), "dropout": (0.0, 0.99, 2, 0.05)}


class LiveSettings(QGroupBox):
    """Three fields and Apply, enabled while a run trained here runs or is paused; the rate now under them.

    Signals
    -------
    settings_requested(object): a dict of the fields whose value differs from the settings in force.
    """

    settings_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._form = form = QFormLayout(self)
        self.fields: dict[str, QDoubleSpinBox] = {}
        for name, (low, high, decimals, step) in _FIELDS.items():
            box = QDoubleSpinBox(self)
            box.setRange(low, high)
            box.setDecimals(decimals)
            box.setSingleStep(step)
            box.setKeyboardTracking(False)
            self.fields[name] = box
            form.addRow(name, box)
        self.apply_button = QPushButton(self)
        self.rate_label = QLabel(self)
        form.addRow(self.apply_button)
        form.addRow(self.rate_label)
        self.in_force: dict[str, float] = {}  # the run's settings now (as its events say)
        self._rate = math.nan
        self.apply_button.clicked.connect(self._on_apply_button_clicked)
        self.set_active(False)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the texts in the language in force (at build and on ``LanguageChange``)."""
        self.setTitle(self.tr("Change while training"))
        set_row_labels(self._form, [(self.fields["lr"], self.tr("learning rate (base)")),
                                    (self.fields["grad_clip"], self.tr("gradient clip (0 = off)")),
                                    (self.fields["dropout"], self.tr("dropout"))])
        self.apply_button.setText(self.tr("Apply at the next step"))
        self.apply_button.setToolTip(self.tr("The training process takes the new values before its next step; the "
                                             "loss curve marks the change. With a schedule, the learning rate set "
                                             "here is the base the schedule scales."))
        self._show_rate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def set_active(self, active: bool) -> None:
        """Fields and Apply usable (a run trained here is running or paused) or not. The box shows only then:
        before a run it would offer settings of no run (zeros), and the form below holds the ones for Start."""
        for widget in (*self.fields.values(), self.apply_button):
            widget.setEnabled(active)
        self.setVisible(active)

    def requested(self) -> dict[str, float]:
        """The fields that differ from the settings in force (all of them before any is known)."""
        values = {name: box.value() for name, box in self.fields.items()}
        return {name: value for name, value in values.items()
                if name not in self.in_force or not math.isclose(value, self.in_force[name], rel_tol=1e-9)}

    @Slot(object)
    def show_settings(self, settings: dict[str, float] | None) -> None:
        """Fill the fields with the settings in force (None: keep them; no run)."""
        if not settings:
            return
        self.in_force = {k: float(v) for k, v in settings.items() if isinstance(v, (int, float))}
        for name, value in self.in_force.items():
            box = self.fields.get(name)
            if box is not None:
                with QSignalBlocker(box):
                    box.setValue(value)

    @Slot(object)
    def show_progress(self, progress: Any) -> None:
        """The learning rate of the newest step (a ``run_progress.Progress``)."""
        self._rate = float(getattr(progress, "lr", math.nan))
        self._show_rate()

    def clear_rate(self) -> None:
        self._rate = math.nan
        self._show_rate()

    def _show_rate(self) -> None:
        if math.isfinite(self._rate):
            self.rate_label.setText(self.tr("learning rate now: {rate}").format(rate=f"{self._rate:.3g}"))
        else:
            self.rate_label.setText(self.tr("learning rate now: –"))

    @Slot()
    def _on_apply_button_clicked(self) -> None:
        values = self.requested()
        if values:
            self.settings_requested.emit(values)
