"""The studio's settings form (book §11.7): presets and the model and training hyper-parameters.

Builds a core ``TrainingConfig`` and explains invalid combinations with the config's own messages.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSignalBlocker, Signal, Slot
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout,
                               QLabel, QSpinBox, QVBoxLayout, QWidget)

from explorer.core.choices import DEVICE_CHOICES
from explorer.core.training.config import TrainingConfig
from explorer.core.training.schedule import LR_SCHEDULES

from explorer.core.training.devices import resolve_device
from explorer.core.model.transformer import ConfigError, TransformerConfig
from explorer.ui.settings import coerce
from explorer.ui.widgets.form_controls import set_item_texts, set_row_labels

_BOOK = dict(num_hiddens=32, num_layers=2, num_heads=4, ffn_num_hiddens=64, dropout=0.1, batch_size=64,
             num_steps=10, lr=0.005, num_epochs=200, grad_clip=1.0, snapshot_every=10, min_freq=2,
             lr_schedule="constant", warmup_steps=0)
#: Preset names (the keys of ``PRESETS`` and the combo's data) as shown; "d2l 1.0" is a name in every language.
PRESET_NAMES = {"book (§11.7)": QT_TRANSLATE_NOOP("TrainingForm", "book (§11.7)"),
                "quick demo": QT_TRANSLATE_NOOP("TrainingForm", "quick demo"),
                "custom": QT_TRANSLATE_NOOP("TrainingForm", "custom")}
PRESETS: dict[str, dict[str, Any]] = {
    "book (§11.7)": _BOOK,
    "d2l 1.0": {**_BOOK, "num_hiddens": 256, "dropout": 0.2, "batch_size": 128, "lr": 0.001, "num_epochs": 30,
                "snapshot_every": 5},
    "quick demo": {**_BOOK, "num_epochs": 30, "snapshot_every": 5},
}
CUSTOM = "custom"
#: Each learning-rate schedule (core.training.schedule) as the form's combo shows it.
SCHEDULE_NAMES = {"constant": QT_TRANSLATE_NOOP("TrainingForm", "constant (the book's)"),
                  "inverse-sqrt": QT_TRANSLATE_NOOP("TrainingForm", "warm-up, then 1/√step (Vaswani et al.)"),
                  "cosine": QT_TRANSLATE_NOOP("TrainingForm", "cosine to a tenth")}
# name: (label, kind, minimum, maximum, decimals/step)
_FIELDS: dict[str, tuple[str, str, float, float, float]] = {  # labels: translate("TrainingForm", …) them
    "num_hiddens": (QT_TRANSLATE_NOOP("TrainingForm", "hidden size"), "int", 1, 4096, 1),
    "num_layers": (QT_TRANSLATE_NOOP("TrainingForm", "layers"), "int", 1, 24, 1),
    "num_heads": (QT_TRANSLATE_NOOP("TrainingForm", "heads"), "int", 1, 64, 1),
    "ffn_num_hiddens": (QT_TRANSLATE_NOOP("TrainingForm", "FFN hidden size"), "int", 1, 16384, 1),
    "dropout": (QT_TRANSLATE_NOOP("TrainingForm", "dropout"), "float", 0.0, 0.99, 2),
    "batch_size": (QT_TRANSLATE_NOOP("TrainingForm", "batch size"), "int", 1, 8192, 1),
    "num_steps": (QT_TRANSLATE_NOOP("TrainingForm", "time steps (num_steps)"), "int", 1, 512, 1),
    "lr": (QT_TRANSLATE_NOOP("TrainingForm", "learning rate"), "float", 0.0, 10.0, 5),
    "warmup_steps": (QT_TRANSLATE_NOOP("TrainingForm", "warm-up steps"), "int", 0, 1_000_000, 1),
    "num_epochs": (QT_TRANSLATE_NOOP("TrainingForm", "epochs"), "int", 1, 100000, 1),
    "grad_clip": (QT_TRANSLATE_NOOP("TrainingForm", "gradient clip (0 = off)"), "float", 0.0, 1000.0, 2),
    "snapshot_every": (QT_TRANSLATE_NOOP("TrainingForm", "attention snapshot every N steps"), "int", 0, 100000, 1),
    "min_freq": (QT_TRANSLATE_NOOP("TrainingForm", "vocabulary min. frequency"), "int", 0, 1000, 1),
    "seed": (QT_TRANSLATE_NOOP("TrainingForm", "seed"), "int", 0, 2**31 - 1, 1),
}
_INT32_LIMIT = 2**31  # stored numbers at or beyond this are corrupt, not clamped
_MODEL_FIELDS = ("num_hiddens", "num_layers", "num_heads", "ffn_num_hiddens", "dropout")


class TrainingForm(QWidget):
    """Preset and hyper-parameters.

    Signals
    -------
    settings_changed(): any training setting changed (re-validate).
    """

    settings_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        self.model_box = model_box = QGroupBox(self)
        self._form = form = QFormLayout(model_box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # long labels go above their field
        self.preset_combo = QComboBox(model_box)
        for name in [*PRESETS, CUSTOM]:  # the preset's name is the item's data
            self.preset_combo.addItem(name, name)
        form.addRow("", self.preset_combo)
        self.fields: dict[str, QSpinBox | QDoubleSpinBox] = {}
        for name, (label, kind, low, high, extra) in _FIELDS.items():
            if kind == "int":
                box: QSpinBox | QDoubleSpinBox = QSpinBox(model_box)
                box.setRange(int(low), int(high))
            else:
                box = QDoubleSpinBox(model_box)
                box.setDecimals(int(extra))
                box.setRange(low, high)
                box.setSingleStep(10 ** -int(extra) * (10 if extra > 2 else 5))
            box.setKeyboardTracking(False)
            self.fields[name] = box
            form.addRow(name, box)
            box.valueChanged.connect(self._on_field_value_changed)
        self.schedule_combo = QComboBox(model_box)
        for name in LR_SCHEDULES:  # the schedule's name is the item's data
            self.schedule_combo.addItem(name, name)
        # a long schedule name must not widen the settings column (the popup still shows it whole)
        self.schedule_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.schedule_combo.setMinimumContentsLength(14)
        form.insertRow(form.getWidgetPosition(self.fields["warmup_steps"])[0], "", self.schedule_combo)
        self.norm_first = QCheckBox(model_box)
        form.addRow(self.norm_first)
        self.device_combo = QComboBox(model_box)
        for device in DEVICE_CHOICES:  # the device's name is the item's data
            self.device_combo.addItem(device, device)
        self.device_info = QLabel("", model_box)
        self._device_row = drow = QHBoxLayout()
        drow.addWidget(self.device_combo)
        drow.addWidget(self.device_info, 1)
        form.addRow("device", drow)
        layout.addWidget(model_box)
        self.error_label = QLabel("", self)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c0392b; font-weight: bold;")
        layout.addWidget(self.error_label)
        layout.addStretch(1)

        self.apply_preset(next(iter(PRESETS)))
        self._update_device_info()
        self.preset_combo.currentIndexChanged.connect(self._on_preset_combo_current_index_changed)
        self.norm_first.toggled.connect(self._on_field_value_changed)
        self.schedule_combo.currentIndexChanged.connect(self._on_field_value_changed)
        self.device_combo.currentIndexChanged.connect(self._on_device_combo_current_index_changed)
        self.retranslate()

    def retranslate(self) -> None:
        """Set the form's texts in the language in force (at build and on ``LanguageChange``; the config's own
        messages come from core, in English)."""
        self.model_box.setTitle(self.tr("Model and training"))
        set_item_texts(self.preset_combo, [self.tr(PRESET_NAMES.get(name, name)) for name in [*PRESETS, CUSTOM]])
        set_item_texts(self.schedule_combo, [self.tr(SCHEDULE_NAMES[name]) for name in LR_SCHEDULES])
        self.schedule_combo.setToolTip(self.tr("How the learning rate changes step by step: the book keeps it "
                                               "constant; warm-up then 1/√step peaks at the learning rate after the "
                                               "warm-up steps; cosine falls to a tenth of it by the last step"))
        set_row_labels(self._form, [(self.preset_combo, self.tr("preset")), (self._device_row, self.tr("device")),
                                    (self.schedule_combo, self.tr("learning-rate schedule")),
                                    *((self.fields[name], self.tr(label)) for name, (label, *_) in _FIELDS.items())])
        self.norm_first.setText(self.tr("Pre-LN (norm first)"))
        set_item_texts(self.device_combo, [self.tr("auto") if d == "auto" else d for d in DEVICE_CHOICES])
        self._update_device_info()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # ---- reading ----------------------------------------------------------------------------
    def values(self) -> dict[str, Any]:
        """Every field's value by config name (plus ``norm_first`` and ``device``)."""
        out: dict[str, Any] = {name: box.value() for name, box in self.fields.items()}
        out["norm_first"] = self.norm_first.isChecked()
        out["device"] = self.device_combo.currentData()
        out["lr_schedule"] = self.schedule_combo.currentData()
        return out

    def config(self) -> TrainingConfig:
        """The ``TrainingConfig`` the fields describe (not validated)."""
        v = self.values()
        model = TransformerConfig(**{k: v[k] for k in _MODEL_FIELDS}, norm_first=v["norm_first"])
        return TrainingConfig(model=model, **{k: v[k] for k in _FIELDS if k not in _MODEL_FIELDS},
                              device=v["device"], lr_schedule=v["lr_schedule"])

    def validation_error(self) -> str | None:
        """The config's own message for the first impossible setting, or None when all is well."""
        try:
            config = self.config().validate()
            resolve_device(config.device)
        except ConfigError as exc:
            return str(exc)
        return None

    # ---- writing ----------------------------------------------------------------------------
    def apply_preset(self, name: str) -> None:
        """Fill the fields from preset ``name`` (``custom`` leaves them)."""
        values = PRESETS.get(name)
        if values is None:
            return
        self.set_values(values)
        with QSignalBlocker(self.preset_combo):
            self.preset_combo.setCurrentIndex(self.preset_combo.findData(name))

    def set_values(self, values: dict[str, Any]) -> None:
        """Set fields by config name without echoing one signal per field; emits ``settings_changed`` once.

        Values come from stored settings too, so each is checked: a number is clamped to the field's range,
        while text, null, NaN or a number beyond 32 bits leaves that field as it is (its default) instead
        of aborting the whole restore.
        """
        for name, value in values.items():
            if name in self.fields:
                box = self.fields[name]
                number = _field_value(value, box.value(), box.minimum(), box.maximum())
                with QSignalBlocker(box):
                    box.setValue(number)
            elif name == "norm_first":
                with QSignalBlocker(self.norm_first):
                    self.norm_first.setChecked(coerce(value, self.norm_first.isChecked()))
            elif name == "lr_schedule" and isinstance(value, str) and value in LR_SCHEDULES:
                with QSignalBlocker(self.schedule_combo):
                    self.schedule_combo.setCurrentIndex(self.schedule_combo.findData(value))
            elif name == "device" and isinstance(value, str) and value in DEVICE_CHOICES:
                with QSignalBlocker(self.device_combo):
                    self.device_combo.setCurrentIndex(self.device_combo.findData(value))
        self._match_preset()
        self._update_device_info()
        self._revalidate()

    def set_editable(self, editable: bool) -> None:
        """Lock the form while training runs."""
        for child in self.findChildren(QWidget):
            if isinstance(child, (QSpinBox, QDoubleSpinBox, QComboBox, QCheckBox)):
                child.setEnabled(editable)

    # ---- slots -------------------------------------------------------------------------------
    def _match_preset(self) -> None:
        values = self.values()
        name = next((n for n, p in PRESETS.items() if all(values[k] == p[k] for k in p)), CUSTOM)
        with QSignalBlocker(self.preset_combo):
            self.preset_combo.setCurrentIndex(self.preset_combo.findData(name))

    def _revalidate(self) -> None:
        error = self.validation_error()
        self.error_label.setText(error or "")
        self.error_label.setVisible(bool(error))
        self.settings_changed.emit()

    def _update_device_info(self) -> None:
        try:
            picked = resolve_device(self.device_combo.currentData())
        except ConfigError:
            self.device_info.setText(self.tr("not available here"))
            return
        self.device_info.setText(f"→ {picked.type}" if self.device_combo.currentData() == "auto" else "")

    @Slot()
    def _on_field_value_changed(self) -> None:
        self._match_preset()
        self._revalidate()

    @Slot(int)
    def _on_preset_combo_current_index_changed(self, _index: int) -> None:
        self.apply_preset(self.preset_combo.currentData())

    @Slot(int)
    def _on_device_combo_current_index_changed(self, _index: int) -> None:
        self._update_device_info()
        self._revalidate()


def _field_value(value: Any, current: int | float, low: int | float, high: int | float) -> int | float:
    """``value`` as the field's type, clamped to ``[low, high]`` like the spin box itself does.

    Text that is no number, null, booleans, NaN, infinity and integers beyond 32 bits (what a ``QSpinBox``
    holds) are corrupt rather than merely large: they give ``current``.
    """
    if isinstance(value, bool):  # JSON true/false is no hyper-parameter
        return current
    number = coerce(value, current)
    if not isinstance(number, (int, float)) or not abs(number) < _INT32_LIMIT:  # NaN fails `<` too
        return current
    return min(max(number, low), high)
