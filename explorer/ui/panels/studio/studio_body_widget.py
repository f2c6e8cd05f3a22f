"""The studio's widget tree (book §11.7): run controls fixed at the top left, the data box and the settings
form scrolling under them; training (loss over live attention), detail and translate tabs on the right. Builds
the views on the state they show; the panel connects them to it (the loss plot follows whether its curve grows)."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from explorer.ui.panels.studio.data_box_widget import DataBox
from explorer.ui.panels.studio.live_attention_widget import LiveAttention
from explorer.ui.panels.studio.live_settings_widget import LiveSettings
from explorer.ui.panels.studio.loss_plot_widget import LossView
from explorer.ui.panels.studio.run_controls_widget import TrainingControls
from explorer.ui.panels.studio.studio_state import StudioState
from explorer.ui.panels.studio.training_form_widget import TrainingForm
from explorer.ui.panels.studio.translate_widget import TranslateView
from explorer.ui.widgets.attention_detail_widget import AttentionDetail
from explorer.ui.widgets.hint_stack_widget import HintStack
from explorer.ui.widgets.lazy_page import LazyPage

LOSS_HINT = QT_TRANSLATE_NOOP("StudioBody", "Start training (or open a saved model) to see its loss here. No time to "
                                            "train? Model → Replay the demo run.")


class StudioBody(QSplitter):
    """Controls (always visible) over data and form (scrolling) | tabs "Training" (loss over live attention),
    "Attention detail" and "Translate"."""

    def __init__(self, state: StudioState, lazy_page: Callable[[Callable[[], QWidget]], LazyPage] = LazyPage,
                 parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.form = TrainingForm()
        self.data = DataBox()
        self.controls = TrainingControls()
        self.live_settings = LiveSettings()  # what may change while a run trains, over the data and the form
        settings = QWidget()
        settings_layout = QVBoxLayout(settings)
        settings_layout.setContentsMargins(0, 0, 4, 0)
        settings_layout.addWidget(self.live_settings)
        settings_layout.addWidget(self.data)
        settings_layout.addWidget(self.form, 1)
        scroll = QScrollArea()
        scroll.setWidget(settings)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)  # never squeeze a field
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.controls)
        left_layout.addWidget(scroll, 1)
        left.setMinimumWidth(300)  # presenter mode scales it: 1.5x must still fit beside the tabs on 1024 px

        self.loss_view = LossView(state.loss)
        state.loss_growing_changed.connect(self.loss_view.plot.set_growing)  # its range moves in steps meanwhile
        self.loss_stack = HintStack(self.loss_view, "")
        self.live = LiveAttention(state)
        live = QSplitter(Qt.Orientation.Vertical)
        live.addWidget(self.loss_stack)
        live.addWidget(self.live)
        live.setSizes([300, 400])
        self.live_split = live

        self.detail_page = lazy_page(AttentionDetail)  # made when first shown (or asked for); the panel draws it
        self.translate_page = lazy_page(lambda: TranslateView(state.data.reference_for))  # the same
        self.tabs = QTabWidget()
        for page in (live, self.detail_page, self.translate_page):
            self.tabs.addTab(page, "")
        self.addWidget(left)
        self.addWidget(self.tabs)
        self.setStretchFactor(1, 1)
        self.setSizes([340, 900])
        self.retranslate()

    def retranslate(self) -> None:
        """The loss plot's hint and the tabs' names in the language in force (at build and on ``LanguageChange``;
        the views word their own texts)."""
        self.loss_stack.hint_label.setText(self.tr(LOSS_HINT))
        for index, name in enumerate((self.tr("Training"), self.tr("Attention detail"), self.tr("Translate"))):
            self.tabs.setTabText(index, name)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

