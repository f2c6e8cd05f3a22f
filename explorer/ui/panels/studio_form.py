"""The studio's settings form (book §11.7): data source, probe pair, presets and the training config.

Builds a core ``TrainingConfig`` and explains invalid combinations with the config's own messages.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Signal, Slot
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout,
                               QLabel, QLineEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from explorer.core.tasks import default_probe
from explorer.core.training import TrainingConfig, resolve_device
from explorer.core.transformer import ConfigError, TransformerConfig
from explorer.ui.worker import emit

#: The book's probe sentence (one of the four §11.7 translates perfectly).
BOOK_PROBE = ("i'm home .", "je suis chez moi .")
_BOOK = dict(num_hiddens=32, num_layers=2, num_heads=4, ffn_num_hiddens=64, dropout=0.1, batch_size=64,
             num_steps=10, lr=0.005, num_epochs=200, grad_clip=1.0, snapshot_every=10, min_freq=2)
PRESETS: dict[str, dict[str, Any]] = {
    "book (§11.7)": _BOOK,
    "d2l 1.0": {**_BOOK, "num_hiddens": 256, "dropout": 0.2, "batch_size": 128, "lr": 0.001, "num_epochs": 30,
                "snapshot_every": 5},
    "quick demo": {**_BOOK, "num_epochs": 30, "snapshot_every": 5},
}
CUSTOM = "custom"
SOURCES = (("Built-in English–French", "builtin"), ("Task: copy", "task:copy"),
           ("Task: reverse", "task:reverse"), ("Task: sort", "task:sort"))
DEVICES = ("auto", "cpu", "cuda", "mps")
# name: (label, kind, minimum, maximum, decimals/step)
_FIELDS: dict[str, tuple[str, str, float, float, float]] = {
    "num_hiddens": ("hidden size", "int", 1, 4096, 1),
    "num_layers": ("layers", "int", 1, 24, 1),
    "num_heads": ("heads", "int", 1, 64, 1),
    "ffn_num_hiddens": ("FFN hidden size", "int", 1, 16384, 1),
    "dropout": ("dropout", "float", 0.0, 0.99, 2),
    "batch_size": ("batch size", "int", 1, 8192, 1),
    "num_steps": ("time steps (num_steps)", "int", 1, 512, 1),
    "lr": ("learning rate", "float", 0.0, 10.0, 5),
    "num_epochs": ("epochs", "int", 1, 100000, 1),
    "grad_clip": ("gradient clip (0 = off)", "float", 0.0, 1000.0, 2),
    "snapshot_every": ("attention snapshot every N steps", "int", 0, 100000, 1),
    "min_freq": ("vocabulary min. frequency", "int", 0, 1000, 1),
    "seed": ("seed", "int", 0, 2**31 - 1, 1),
}
_MODEL_FIELDS = ("num_hiddens", "num_layers", "num_heads", "ffn_num_hiddens", "dropout")


class TrainingForm(QWidget):
    """Data source, probe pair, preset and hyper-parameters.

    Signals
    -------
    settings_changed(): any training setting changed (re-validate).
    source_changed(): the data source or the number of pairs changed (reload the data).
    open_file_clicked(): the user asked to open a dataset file.
    """

    settings_changed = Signal()
    source_changed = Signal()
    open_file_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._probe_edited = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        data_box = QGroupBox("Data", self)
        data_form = QFormLayout(data_box)
        self.source_combo = QComboBox(data_box)
        for label, spec in SOURCES:
            self.source_combo.addItem(label, spec)
        self.open_button = QPushButton("Open…", data_box)
        self.open_button.setToolTip("Open a Tatoeba-style file (English<TAB>French per line, .txt/.tsv/.zip)")
        row = QHBoxLayout()
        row.addWidget(self.source_combo, 1)
        row.addWidget(self.open_button)
        data_form.addRow("source", row)
        self.num_examples = QSpinBox(data_box)
        self.num_examples.setRange(1, 10_000_000)
        self.num_examples.setValue(600)
        data_form.addRow("pairs to use", self.num_examples)
        self.data_info = QLabel("", data_box)
        self.data_info.setWordWrap(True)
        data_form.addRow(self.data_info)
        self.probe_src = QLineEdit(BOOK_PROBE[0], data_box)
        self.probe_tgt = QLineEdit(BOOK_PROBE[1], data_box)
        self.probe_src.setToolTip("Source sentence whose attention is drawn while training")
        self.probe_tgt.setToolTip("Its target sentence (teacher-forced into the decoder)")
        data_form.addRow("probe source", self.probe_src)
        data_form.addRow("probe target", self.probe_tgt)
        layout.addWidget(data_box)

        model_box = QGroupBox("Model and training", self)
        form = QFormLayout(model_box)
        self.preset_combo = QComboBox(model_box)
        self.preset_combo.addItems([*PRESETS, CUSTOM])
        form.addRow("preset", self.preset_combo)
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
            form.addRow(label, box)
            box.valueChanged.connect(self._on_field_value_changed)
        self.norm_first = QCheckBox("Pre-LN (norm first)", model_box)
        form.addRow(self.norm_first)
        self.device_combo = QComboBox(model_box)
        self.device_combo.addItems(DEVICES)
        self.device_info = QLabel("", model_box)
        drow = QHBoxLayout()
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
        self.preset_combo.currentTextChanged.connect(self._on_preset_combo_current_text_changed)
        self.source_combo.currentIndexChanged.connect(self._on_source_combo_current_index_changed)
        self.num_examples.valueChanged.connect(self._on_num_examples_value_changed)
        self.open_button.clicked.connect(self._on_open_button_clicked)
        self.probe_src.textEdited.connect(self._on_probe_text_edited)
        self.probe_tgt.textEdited.connect(self._on_probe_text_edited)
        self.norm_first.toggled.connect(self._on_field_value_changed)
        self.device_combo.currentTextChanged.connect(self._on_device_combo_current_text_changed)

    # ---- reading ----------------------------------------------------------------------------
    def values(self) -> dict[str, Any]:
        """Every field's value by config name (plus ``norm_first`` and ``device``)."""
        out: dict[str, Any] = {name: box.value() for name, box in self.fields.items()}
        out["norm_first"] = self.norm_first.isChecked()
        out["device"] = self.device_combo.currentText()
        return out

    def config(self) -> TrainingConfig:
        """The ``TrainingConfig`` the fields describe (not validated)."""
        v = self.values()
        model = TransformerConfig(**{k: v[k] for k in _MODEL_FIELDS}, norm_first=v["norm_first"])
        return TrainingConfig(model=model, **{k: v[k] for k in _FIELDS if k not in _MODEL_FIELDS},
                              device=v["device"])

    def validation_error(self) -> str | None:
        """The config's own message for the first impossible setting, or None when all is well."""
        try:
            config = self.config().validate()
            resolve_device(config.device)
        except ConfigError as exc:
            return str(exc)
        return None

    def source_spec(self) -> str:
        """``builtin``, ``task:<name>`` or a file path."""
        return str(self.source_combo.currentData())

    def task_name(self) -> str | None:
        spec = self.source_spec()
        return spec.split(":", 1)[1] if spec.startswith("task:") else None

    @property
    def probe_edited(self) -> bool:
        """Whether the user typed the probe pair (then a source change keeps it)."""
        return self._probe_edited

    def probe(self) -> tuple[str, str]:
        """The probe pair as typed."""
        return self.probe_src.text().strip(), self.probe_tgt.text().strip()

    # ---- writing ----------------------------------------------------------------------------
    def apply_preset(self, name: str) -> None:
        """Fill the fields from preset ``name`` (``custom`` leaves them)."""
        values = PRESETS.get(name)
        if values is None:
            return
        self.set_values(values)
        with QSignalBlocker(self.preset_combo):
            self.preset_combo.setCurrentText(name)

    def set_values(self, values: dict[str, Any]) -> None:
        """Set fields by config name without echoing one signal per field; emits ``settings_changed`` once."""
        for name, value in values.items():
            if name in self.fields:
                with QSignalBlocker(self.fields[name]):
                    self.fields[name].setValue(value)
            elif name == "norm_first":
                with QSignalBlocker(self.norm_first):
                    self.norm_first.setChecked(bool(value))
            elif name == "device" and value in DEVICES:
                with QSignalBlocker(self.device_combo):
                    self.device_combo.setCurrentText(value)
        self._match_preset()
        self._update_device_info()
        self._revalidate()

    def set_file(self, path: str, label: str) -> None:
        """Add (or select) a dataset file as the source."""
        index = self.source_combo.findData(path)
        if index < 0:
            self.source_combo.addItem(f"File: {label}", path)
            index = self.source_combo.count() - 1
        self.source_combo.setCurrentIndex(index)

    def set_probe(self, src: str, tgt: str, user: bool = False) -> None:
        """Fill the probe pair (``user=False``: a default that a source change may replace)."""
        self.probe_src.setText(src)
        self.probe_tgt.setText(tgt)
        self._probe_edited = user
        self._revalidate()

    def default_probe(self) -> tuple[str, str]:
        """The book sentence, or a sample of the chosen task."""
        task = self.task_name()
        return default_probe(task, seed=self.fields["seed"].value()) if task else BOOK_PROBE

    def set_data_info(self, text: str) -> None:
        self.data_info.setText(text)

    def set_editable(self, editable: bool) -> None:
        """Lock the form while training runs."""
        for child in self.findChildren(QWidget):
            if isinstance(child, (QSpinBox, QDoubleSpinBox, QComboBox, QCheckBox, QLineEdit, QPushButton)):
                child.setEnabled(editable)

    # ---- slots -------------------------------------------------------------------------------
    def _match_preset(self) -> None:
        values = self.values()
        name = next((n for n, p in PRESETS.items() if all(values[k] == p[k] for k in p)), CUSTOM)
        with QSignalBlocker(self.preset_combo):
            self.preset_combo.setCurrentText(name)

    def _revalidate(self) -> None:
        error = self.validation_error()
        self.error_label.setText(error or "")
        self.error_label.setVisible(bool(error))
        emit(self.settings_changed)

    def _update_device_info(self) -> None:
        try:
            picked = resolve_device(self.device_combo.currentText())
        except ConfigError:
            self.device_info.setText("not available here")
            return
        self.device_info.setText(f"→ {picked.type}" if self.device_combo.currentText() == "auto" else "")

    @Slot()
    def _on_field_value_changed(self) -> None:
        self._match_preset()
        self._revalidate()

    @Slot(str)
    def _on_preset_combo_current_text_changed(self, name: str) -> None:
        self.apply_preset(name)

    @Slot(str)
    def _on_device_combo_current_text_changed(self, _name: str) -> None:
        self._update_device_info()
        self._revalidate()

    @Slot(int)
    def _on_source_combo_current_index_changed(self, _index: int) -> None:
        if not self._probe_edited:
            self.set_probe(*self.default_probe())
        emit(self.source_changed)

    @Slot(int)
    def _on_num_examples_value_changed(self, _value: int) -> None:
        emit(self.source_changed)

    @Slot()
    def _on_open_button_clicked(self) -> None:
        emit(self.open_file_clicked)

    @Slot(str)
    def _on_probe_text_edited(self, _text: str) -> None:
        self._probe_edited = True
        self._revalidate()
