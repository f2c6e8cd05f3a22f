"""Head ablation in the inspector (book §11.5 multi-head attention): tick heads to switch them off and see
the translations, their BLEU and the loss on a sentence set change; a sweep switches off each head in turn and
fills a sortable table (kind, layer, head, ΔBLEU, Δloss). A view of :class:`DebugState`."""
from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QAbstractTableModel, QCoreApplication, QEvent, QModelIndex,
                            QPersistentModelIndex, QSignalBlocker, QSortFilterProxyModel, Qt, Slot)
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QListWidget,
                               QListWidgetItem, QProgressBar, QPushButton, QSpinBox, QSplitter, QTableView,
                               QVBoxLayout, QWidget)

from explorer.core.choices import ATTENTION_KINDS
from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.inspector.debug_state import DebugState, Head
from explorer.ui.widgets.form_controls import set_item_texts
from explorer.ui.widgets.file_dialogs import open_file_name
from explorer.ui.widgets.kind_names import short_kind

COLUMNS = ("kind", "layer", "head", "BLEU", "ΔBLEU", "loss", "Δloss")
#: The columns' headers (BLEU is a name in every language).
HEADERS = {"kind": QT_TRANSLATE_NOOP("AblationView", "kind"), "layer": QT_TRANSLATE_NOOP("AblationView", "layer"),
           "head": QT_TRANSLATE_NOOP("AblationView", "head"), "loss": QT_TRANSLATE_NOOP("AblationView", "loss"),
           "Δloss": QT_TRANSLATE_NOOP("AblationView", "Δloss")}
OFF_OPACITY = 0.25


class SweepTable(QAbstractTableModel):
    """The sweep's rows: ``(kind, layer, head, bleu, Δbleu, loss, Δloss)``; layers and heads shown from 1."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, int, int, float, float, float, float]] = []
        self.baseline: Any = None

    def clear(self) -> None:
        self.beginResetModel()
        self.rows, self.baseline = [], None
        self.endResetModel()

    def add(self, head: Head | None, evaluation: Any) -> None:
        """The baseline (``head`` None) or one head's evaluation."""
        if head is None:
            self.baseline = evaluation
            return
        base = self.baseline
        row = (head[0], head[1], head[2], evaluation.bleu, evaluation.bleu - base.bleu, evaluation.loss,
               evaluation.loss - base.loss)
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows))
        self.rows.append(row)
        self.endInsertRows()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        value = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.UserRole:  # what sorting compares
            return value
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() in (1, 2):
                return str(value + 1)
            if isinstance(value, float):
                return f"{value:+.4f}" if index.column() in (4, 6) else f"{value:.4f}"
            return short_kind(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return QCoreApplication.translate("AblationView", HEADERS.get(COLUMNS[section], COLUMNS[section]))
        return None


def mark_ablated(grid: Any, heads: set[Head]) -> None:
    """Dim the thumbnails of the heads switched off (and say so in their tooltips)."""
    for kind in ATTENTION_KINDS:
        for layer, row in enumerate(grid.plots.get(kind, [])):
            for head, thumb in enumerate(row):
                off = (kind, layer, head) in heads
                thumb.setOpacity(OFF_OPACITY if off else 1.0)
                thumb.setToolTip(QCoreApplication.translate("AblationView", "switched off (Debug → Ablation)") if off
                                 else "")


class AblationView(QWidget):
    """Sentence set, a checkable list of heads, the measured effect, and the sweep table."""

    def __init__(self, state: DebugState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.set_combo = QComboBox(self)
        for source in ("data", "probe", "file"):
            self.set_combo.addItem(source, source)
        self.count_spin = QSpinBox(self)
        self.count_spin.setRange(1, 10_000)
        self.count_spin.setValue(20)
        self.file_path = ""
        self.heads = QListWidget(self)
        self.result = QLabel(self)
        self._result: str = self._hint()
        self._sources: list[str] = []  # the source sentences of the last set measured, in its order
        self._model: Any = None  # the model the results shown come from
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sweep_button = QPushButton(self)
        self.cancel_button = QPushButton(self)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar(self)
        self.table_model = SweepTable(self)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.table_model)
        proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTableView(self)
        self.table.setModel(proxy)
        self.table.setSortingEnabled(True)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        top = QHBoxLayout()
        self._sentences_label = QLabel(self)
        top.addWidget(self._sentences_label)
        top.addWidget(self.set_combo, 1)
        top.addWidget(self.count_spin)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self._off_label = QLabel(left)
        left_layout.addWidget(self._off_label)
        left_layout.addWidget(self.heads, 1)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.result)
        sweep_row = QHBoxLayout()
        sweep_row.addWidget(self.sweep_button)
        sweep_row.addWidget(self.cancel_button)
        sweep_row.addWidget(self.progress, 1)
        right_layout.addLayout(sweep_row)
        right_layout.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([130, 560])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        self.set_combo.activated.connect(self._on_set_combo_activated)
        self.count_spin.editingFinished.connect(self._on_count_spin_editing_finished)
        self.heads.itemChanged.connect(self._on_heads_item_changed)
        self.sweep_button.clicked.connect(self._on_sweep_button_clicked)
        self.cancel_button.clicked.connect(state.cancel_sweep)
        state.inspect.model_changed.connect(self._on_inspect_model_changed)
        state.evaluated.connect(self._on_state_evaluated)
        state.sweep_row.connect(self._on_state_sweep_row)
        state.sweep_progressed.connect(self._on_state_sweep_progressed)
        state.sweep_ended.connect(self._on_state_sweep_ended)
        state.failed.connect(self._on_state_failed)
        self._on_inspect_model_changed(state.inspect.info())
        self.retranslate()

    def _hint(self) -> str:
        return Words(lambda: self.tr("Tick heads to switch them off; the effect is measured at once."))

    def retranslate(self) -> None:
        """Set the texts in the language in force, the heads' names and the result worded again (at build and on
        ``LanguageChange``)."""
        set_item_texts(self.set_combo, [self.tr("loaded data, first N pairs"),
                                        self.tr("the Inspect tab's source and target"), self.tr("a data file…")])
        self.count_spin.setPrefix(self.tr("N = "))
        self.heads.setToolTip(self.tr("Tick a head to switch it off (its output is zeroed before W_o)"))
        self.sweep_button.setText(self.tr("Sweep every head"))
        self.sweep_button.setToolTip(self.tr("Switch off each head in turn and measure ΔBLEU and Δloss"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.progress.setFormat(self.tr("%v of %m"))
        self._sentences_label.setText(self.tr("sentences"))
        self._off_label.setText(self.tr("heads switched off"))
        for i in range(self.heads.count()):
            item = self.heads.item(i)
            kind, layer, head = item.data(Qt.ItemDataRole.UserRole)
            with QSignalBlocker(self.heads):
                item.setText(self._head_name(kind, layer, head))
        self.table_model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)
        if self.table_model.rows:  # the kinds are worded in the language in force
            last = self.table_model.index(len(self.table_model.rows) - 1, 0)
            self.table_model.dataChanged.emit(self.table_model.index(0, 0), last)
        self.result.setText(again(self._result))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _head_name(self, kind: str, layer: int, head: int) -> str:
        return self.tr("{kind} L{layer} h{head}").format(kind=short_kind(kind), layer=layer + 1, head=head + 1)

    def _say(self, text: str) -> None:
        self._result = text
        self.result.setText(text)

    def pairs(self) -> list[tuple[str, str]] | None:
        """The chosen sentence set, or None (with the reason shown)."""
        try:
            return self.state.pairs(self.set_combo.currentData(), self.count_spin.value(), self.file_path)
        except ValueError as exc:
            self._show_error(exc.args[0] if exc.args else str(exc))
            return None

    def measure(self) -> None:
        """Measure the model with the ticked heads off (off the GUI thread)."""
        pairs = self.pairs()
        if pairs is not None and self.state.model() is not None:
            count = len(pairs)
            self._sources = [src for src, _ in pairs]
            self._say(Words(lambda: self.tr("Measuring {n} sentence pairs…").format(n=count)))
            self.state.evaluate(pairs)

    def _show_error(self, text: str) -> None:
        self._say(Words(lambda: f"<span style='color:#c0392b'>{escape(again(text))}</span>"))

    # ---- view slots --------------------------------------------------------------------------
    @Slot(int)
    def _on_set_combo_activated(self, _index: int) -> None:
        if self.set_combo.currentData() == "file":
            path = open_file_name(self, self.tr("Sentence pairs"), self.tr("Corpora (*.txt *.tsv *.zip);;All files (*)"))
            if not path:
                return
            self.file_path = path
        self.measure()

    @Slot()
    def _on_count_spin_editing_finished(self) -> None:
        self.measure()

    @Slot(QListWidgetItem)
    def _on_heads_item_changed(self, _item: QListWidgetItem) -> None:
        heads = set()
        for i in range(self.heads.count()):
            item = self.heads.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                heads.add(tuple(item.data(Qt.ItemDataRole.UserRole)))
        self.state.set_ablated(heads)  # type: ignore[arg-type]
        self.measure()

    @Slot()
    def _on_sweep_button_clicked(self) -> None:
        pairs = self.pairs()
        if pairs is None:
            return
        self.table_model.clear()
        self._model = self.state.model()
        if self.state.start_sweep(pairs):
            self.sweep_button.setEnabled(False)
            self.cancel_button.setEnabled(True)
            self.progress.setValue(0)

    # ---- state slots -------------------------------------------------------------------------
    def clear(self) -> None:
        """Forget the results of another model: the measurement, the sweep's rows and its progress."""
        self.state.cancel_sweep()
        self.table_model.clear()
        self.progress.reset()
        self._sources, self._model = [], None
        self._say(self._hint())

    @Slot(object)
    def _on_inspect_model_changed(self, info: Any) -> None:
        if self._model is not None and self.state.model() is not self._model:
            self.clear()
        self.heads.blockSignals(True)
        self.heads.clear()
        self.state.set_ablated(set())
        if info is not None:
            for kind in info.kinds:
                for layer in range(info.layers[kind]):
                    for head in range(info.heads[kind]):
                        item = QListWidgetItem(self._head_name(kind, layer, head), self.heads)
                        item.setData(Qt.ItemDataRole.UserRole, (kind, layer, head))
                        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                        item.setCheckState(Qt.CheckState.Unchecked)
        self.heads.blockSignals(False)
        can = info is not None and info.family != "encoder-only"
        self.sweep_button.setEnabled(can)
        self.heads.setEnabled(can)

    @Slot(object)
    def _on_state_evaluated(self, result: Any) -> None:
        base, now = result
        self._model = self.state.model()
        sources = list(self._sources)
        self._say(Words(lambda: self._result_text(base, now, sources)))
        self.shown = now

    def _result_text(self, base: Any, now: Any, sources: list[str]) -> str:
        off = len(now.heads)
        lines = [self.tr("<b>{off} head(s) off</b> · BLEU {bleu:.4f} (all heads {base_bleu:.4f}) · loss {loss:.4f} "
                         "(all heads {base_loss:.4f}) · {tokens} tokens").format(
            off=off, bleu=now.bleu, base_bleu=base.bleu, loss=now.loss, base_loss=base.loss, tokens=now.tokens)]
        for i, (text, was) in enumerate(list(zip(now.translations, base.translations))[:3]):
            changed = "" if text == was else self.tr(" <i>(was: {was})</i>").format(was=escape(was))
            source = escape(sources[i]) + " " if i < len(sources) else ""  # which sentence each line translates
            lines.append(f"{source}→ {escape(text)}{changed}")
        return "<br>".join(lines)

    @Slot(object)
    def _on_state_sweep_row(self, row: Any) -> None:
        if self._model is not None and self._model is self.state.model():  # not a row of a model since replaced
            self.table_model.add(*row)

    @Slot(int, int)
    def _on_state_sweep_progressed(self, done: int, total: int) -> None:
        self.progress.setMaximum(total)
        self.progress.setValue(done)

    @Slot(bool)
    def _on_state_sweep_ended(self, complete: bool) -> None:
        self.sweep_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if complete:
            self.table.sortByColumn(4, Qt.SortOrder.AscendingOrder)  # the most harmful heads first

    @Slot(str, object)
    def _on_state_failed(self, tool: str, message: str) -> None:
        if tool == "ablation":
            self._show_error(message)
