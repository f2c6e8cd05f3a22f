"""The comparison table of book §11.6.2 (its Table of complexities), with the exact numbers for the chosen sizes."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QSize, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QSizePolicy, QTableWidget, QTableWidgetItem

from explorer.core.chapter.architecture_costs import ARCHITECTURES, ComparisonResult

ROWS = ((QT_TRANSLATE_NOOP("CostTable", "multiply–adds"), "cost", ("O(knd²)", "O(nd²)", "O(n²d)")),
        (QT_TRANSLATE_NOOP("CostTable", "sequential operations"), "sequential", ("O(1)", "O(n)", "O(1)")),
        (QT_TRANSLATE_NOOP("CostTable", "maximum path length"), "path", ("O(n/k)", "O(n)", "O(1)")))
#: The core's architectures by their names on screen (CNN and RNN are names in every language).
_ARCHITECTURE_NAMES = {"self-attention": QT_TRANSLATE_NOOP("CostTable", "self-attention")}


def architecture_name(arch: str) -> str:
    """``arch`` (one of core's ``ARCHITECTURES``) as shown, in the language in force."""
    return QCoreApplication.translate("CostTable", _ARCHITECTURE_NAMES.get(arch, arch))


class CostTable(QTableWidget):
    """Three measures × three architectures: the exact number, then the book's order of growth."""

    def __init__(self, parent=None) -> None:
        super().__init__(len(ROWS), len(ARCHITECTURES), parent)
        self.retranslate()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(2 * self.fontMetrics().height() + 8)  # number, then order
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        for r in range(len(ROWS)):
            for c in range(len(ARCHITECTURES)):
                item = QTableWidgetItem()
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(r, c, item)
        height = self.horizontalHeader().sizeHint().height() + sum(self.rowHeight(r) for r in range(len(ROWS)))
        self.setFixedHeight(height + 2 * self.frameWidth())
        self.result: ComparisonResult | None = None

    def retranslate(self) -> None:
        """Name the architectures and the measures in the language in force (at build and on LanguageChange)."""
        self.setHorizontalHeaderLabels([architecture_name(a) for a in ARCHITECTURES])
        self.setVerticalHeaderLabels([self.tr(label) for label, _, _ in ROWS])

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def show_result(self, r: ComparisonResult) -> None:
        """Fill the cells; the dearest cost and the shortest path are bold."""
        self.result = r
        for row, (_label, field, orders) in enumerate(ROWS):
            numbers = getattr(r, field)
            best = (max if field == "cost" else min)(numbers.values())
            for col, arch in enumerate(ARCHITECTURES):
                item = self.item(row, col)
                item.setText(f"{numbers[arch]:,}\n{orders[col]}")
                font = item.font()
                font.setBold(numbers[arch] == best and field != "sequential")
                item.setFont(font)
        self.updateGeometry()  # longer numbers need wider columns

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """Wide enough for every number and architecture name whole: stretched columns narrower than their text
        would shorten them with "…"."""
        hint = super().minimumSizeHint()
        header = self.horizontalHeader()
        widest = max(max(self.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in range(self.columnCount()))
        # the columns stretch to equal widths: each needs the widest one's
        width = self.verticalHeader().sizeHint().width() + self.columnCount() * widest + 2 * self.frameWidth()
        return QSize(max(hint.width(), width), hint.height())

    def csv_table(self) -> tuple[list[str], np.ndarray]:
        """Header and rows: one row per measure (0 cost, 1 sequential operations, 2 path length)."""
        r = self.result
        data = np.array([[row, *(getattr(r, field)[a] for a in ARCHITECTURES)]
                         for row, (_, field, _) in enumerate(ROWS)], dtype=np.float64)
        return ["measure", *ARCHITECTURES], data
