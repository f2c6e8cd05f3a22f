"""A horizontal slider on a logarithmic scale with a value readout (the bandwidth of book §11.2)."""
from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QWidget

#: The default range: the bandwidth h of the kernel regression panel.
BANDWIDTH_RANGE: tuple[float, float] = (0.01, 10.0)
_SLIDER_STEPS = 600


class LogSlider(QWidget):
    """A horizontal slider over [lo, hi] on a log scale with a readout ``h = …``.

    Signal ``value_changed(float)`` fires on every slider move (also while dragging).
    """

    value_changed = Signal(float)

    def __init__(self, lo: float = BANDWIDTH_RANGE[0], hi: float = BANDWIDTH_RANGE[1], value: float = 1.0,
                 prefix: str = "h = ", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lo, self._hi, self._prefix = math.log10(lo), math.log10(hi), prefix
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, _SLIDER_STEPS)
        self.slider.setMinimumWidth(160)
        self.label = QLabel(self)
        self.label.setMinimumWidth(70)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.label)
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.set_value(value)

    def value(self) -> float:
        """The value the slider shows now."""
        frac = self.slider.value() / _SLIDER_STEPS
        return 10 ** (self._lo + frac * (self._hi - self._lo))

    def step_for(self, value: float) -> int:
        """The slider step nearest `value` (clamped to the range)."""
        v = min(max(math.log10(max(value, 1e-300)), self._lo), self._hi)
        return round((v - self._lo) / (self._hi - self._lo) * _SLIDER_STEPS)

    def set_value(self, value: float) -> None:
        """Move to the step nearest `value` without emitting."""
        with QSignalBlocker(self.slider):
            self.slider.setValue(self.step_for(value))
        self._update_label()

    def _update_label(self) -> None:
        self.label.setText(f"{self._prefix}{self.value():.3g}")

    @Slot(int)
    def _on_slider_value_changed(self, _step: int) -> None:
        self._update_label()
        self.value_changed.emit(self.value())
