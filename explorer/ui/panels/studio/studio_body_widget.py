"""The studio's widget tree (book §11.7): settings column on the left; loss, live attention, detail and
translate tabs on the right. Only builds and arranges; the panel wires the signals."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from explorer.ui.panels.studio.run_controls_widget import TrainingControls
from explorer.ui.panels.studio.data_box_widget import DataBox
from explorer.ui.panels.studio.detail_widget import AttentionDetail
from explorer.ui.panels.studio.training_form_widget import TrainingForm
from explorer.ui.panels.studio.live_attention_widget import LiveAttention
from explorer.ui.panels.studio.loss_plot_widget import LossView
from explorer.ui.panels.studio.translate_widget import TranslateView


class StudioBody(QSplitter):
    """Controls, data and form in a scrollable column | tabs "Training" (loss over live attention),
    "Attention detail" and "Translate"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.form = TrainingForm()
        self.data = DataBox()
        self.controls = TrainingControls()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 4, 0)
        left_layout.addWidget(self.controls)
        left_layout.addWidget(self.data)
        left_layout.addWidget(self.form, 1)
        scroll = QScrollArea()
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(430)

        self.loss_view = LossView()
        self.live = LiveAttention()
        live = QSplitter(Qt.Orientation.Vertical)
        live.addWidget(self.loss_view)
        live.addWidget(self.live)
        live.setSizes([300, 400])

        self.detail = AttentionDetail()
        self.translate_view = TranslateView()
        self.tabs = QTabWidget()
        self.tabs.addTab(live, "Training")
        self.tabs.addTab(self.detail, "Attention detail")
        self.tabs.addTab(self.translate_view, "Translate")
        self.addWidget(scroll)
        self.addWidget(self.tabs)
        self.setStretchFactor(1, 1)
        self.setSizes([440, 900])
