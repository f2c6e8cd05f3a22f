"""Form controls (spin boxes, labelled sliders, combos, titled groups) and their QSettings round trip,
shared by the scoring, multi-head and positional panels."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSignalBlocker, Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QLayout,
                               QLineEdit, QSpinBox, QWidget)
from superqt import QLabeledSlider

from explorer.ui.settings import coerce

translate = QCoreApplication.translate

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

    from explorer.ui.panels.base_panel import BasePanel


def spin_box(lo: int, hi: int, value: int, tip: str = "") -> QSpinBox:
    """An integer spin box that reports values only when typing pauses or arrows are used."""
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setValue(value)
    box.setKeyboardTracking(False)
    box.setToolTip(tip)
    return box


def labeled_slider(lo: int, hi: int, value: int, tip: str = "") -> QLabeledSlider:
    """A horizontal superqt slider with an editable value label."""
    slider = QLabeledSlider(Qt.Orientation.Horizontal)
    slider.setRange(lo, hi)
    slider.setValue(value)
    slider.setToolTip(tip)
    return slider


def combo_box(items: list[tuple[str, str]], current: str, tip: str = "") -> QComboBox:
    """A combo of ``(key, text)`` items (``text`` in the language in force) with ``current`` (a key) chosen.

    The key is the item's data: code and settings use it, so neither depends on the language shown."""
    combo = QComboBox()
    for key, text in items:
        combo.addItem(text, key)
    combo.setCurrentIndex(max(0, combo.findData(current)))
    combo.setToolTip(tip)
    return combo


def form_group(title: str, rows: list[tuple[str, QWidget]]) -> QGroupBox:
    """A titled group with one labelled row per control ('' puts the widget across the row)."""
    group = QGroupBox(title)
    form = QFormLayout(group)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    for label, widget in rows:
        if label:
            form.addRow(label, widget)
        else:
            form.addRow(widget)
    return group


def set_row_labels(form: QFormLayout, labels: list[tuple[QWidget | QLayout, str]]) -> None:
    """Set the labels of a form's rows, each found by its field (a panel's ``retranslate()``); a row added
    without a label gets one."""
    for field, text in labels:
        label = form.labelForField(field)
        if isinstance(label, QLabel):
            label.setText(text)
            continue
        row, _role = form.getLayoutPosition(field) if isinstance(field, QLayout) else form.getWidgetPosition(field)
        if row >= 0:
            label = QLabel(text)
            if isinstance(field, QWidget):
                label.setBuddy(field)
            form.setWidget(row, QFormLayout.ItemRole.LabelRole, label)


def set_item_texts(combo: QComboBox, texts: list[str]) -> None:
    """Re-set a combo's item texts in order (its keys and choice stay; no signal is emitted)."""
    with QSignalBlocker(combo):
        for index, text in enumerate(texts[:combo.count()]):
            combo.setItemText(index, text)


def control_value(widget: QWidget) -> object:
    """The value a control shows, in the type QSettings stores."""
    if isinstance(widget, (QSpinBox, QLabeledSlider, QDoubleSpinBox)):
        return widget.value()
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        data = widget.currentData()
        return data if isinstance(data, str) else widget.currentText()
    if isinstance(widget, QLineEdit):
        return widget.text()
    raise TypeError(f"no settings support for {type(widget).__name__}")


def value_problem(widget: QWidget, stored: object) -> str | None:
    """Why ``stored`` cannot be shown by ``widget`` as it is (not a number, not one of its choices, out of its
    range), in words for the user; None when it can. A lesson lists these instead of dropping the value."""
    if isinstance(widget, (QSpinBox, QLabeledSlider, QDoubleSpinBox)):
        return number_problem(stored, widget.minimum(), widget.maximum(),
                              whole=isinstance(widget, (QSpinBox, QLabeledSlider)))
    if isinstance(widget, QComboBox):
        text = str(stored)
        if widget.findData(text) < 0 and widget.findText(text) < 0:
            choices = [str(widget.itemData(i) if isinstance(widget.itemData(i), str) else widget.itemText(i))
                       for i in range(widget.count())]
            return translate("FormControls", "{value} is not one of {allowed}").format(
                value=_shown(stored), allowed=", ".join(choices))
    if isinstance(widget, QCheckBox) and coerce(stored, True) != coerce(stored, False):
        return translate("FormControls", "{value} is not true or false").format(value=_shown(stored))
    return None


def number_problem(stored: object, low: float, high: float, whole: bool = False) -> str | None:
    """Why ``stored`` is refused by a control that takes numbers ``low`` … ``high``; None if it is taken."""
    number = _number(stored)
    if number is None:
        return translate("FormControls", "{value} is not a number").format(value=_shown(stored))
    if whole and number != int(number):
        return translate("FormControls", "{value} is not a whole number").format(value=_shown(stored))
    if low <= number <= high:
        return None
    return translate("FormControls", "{value} is not between {low} and {high}").format(
        value=f"{number:g}", low=f"{low:g}", high=f"{high:g}")


def _number(stored: object) -> float | None:
    if isinstance(stored, bool):
        return None
    try:
        number = float(stored)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _shown(stored: object) -> str:
    return f'"{stored}"' if isinstance(stored, str) else str(stored)


def set_control_value(widget: QWidget, stored: object) -> None:
    """Show ``stored`` (converted to the control's type; unusable values are ignored) without signals."""
    current = control_value(widget)
    value = coerce(stored, current)
    with QSignalBlocker(widget):
        if isinstance(widget, (QSpinBox, QLabeledSlider, QDoubleSpinBox)):
            widget.setValue(value)  # out-of-range values are clamped by the control
        elif isinstance(widget, QCheckBox):
            widget.setChecked(bool(value))
        elif isinstance(widget, QComboBox):
            index = widget.findData(str(value))
            if index < 0:
                index = widget.findText(str(value))  # a combo without keys
            if index >= 0:
                widget.setCurrentIndex(index)
        elif isinstance(widget, QLineEdit):
            widget.setText(str(value))


def save_controls(panel: BasePanel, settings: QSettings, controls: dict[str, QWidget]) -> None:
    """Store every control under ``panels/<key>/<name>``."""
    for name, widget in controls.items():
        settings.setValue(panel.settings_key(name), control_value(widget))


def restore_controls(panel: BasePanel, settings: QSettings, controls: dict[str, QWidget]) -> bool:
    """Restore what `save_controls` stored; missing keys keep the current value. Emits nothing. A value the
    control cannot show as it is goes into ``panel.setting_problems`` (``"name: why"``) and is clamped or left.

    Returns whether any control shows another value now: a panel computed its first view when it was made, and
    computes it again only then (stored values are most often the ones it was made with).
    """
    changed = False
    for name, widget in controls.items():
        stored = settings.value(panel.settings_key(name))
        if stored is not None:
            problem = value_problem(widget, stored)
            if problem is not None:
                panel.setting_problems.append(f"{name}: {problem}")
            before = control_value(widget)
            set_control_value(widget, stored)
            changed = changed or control_value(widget) != before
    return changed
