"""The base class every panel builds on: formula + explanation box, a message banner, shell hooks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt, Signal, Slot
from PySide6.QtWidgets import QFrame, QLabel, QMenu, QScrollArea, QVBoxLayout, QWidget
from superqt import QCollapsible

from explorer.ui.i18n.pyqtgraph_texts import retranslate_plot_menus
from explorer.ui.i18n.words import Words
from explorer.ui.widgets.lazy_page import LazyPage
from explorer.ui.widgets.message_banner import MessageBanner

if TYPE_CHECKING:
    import numpy as np

    from explorer.ui.panels.model_exchange import ModelExchange



@dataclass
class ExportTarget:
    """One exportable plot of a panel.

    Attributes
    ----------
    name : str
        Shown in the export dialog and used in the default file name.
    graphics : Any
        A pyqtgraph ``GraphicsLayoutWidget``, ``PlotWidget``, ``PlotItem`` (or any graphics item
        ``pyqtgraph.exporters`` accepts); PNG and SVG are rendered from it.
    csv : Callable[[], tuple[list[str], np.ndarray]] | None
        Returns ``(header, data)``, ``data`` shaped ``(rows, len(header))``: the numbers behind the
        picture. ``None`` if the plot has no table.
    row_labels : Callable[[], tuple[str, list[str]]] | None
        For a matrix whose rows are tokens: the name of the label column and one label per row of ``data``
        (written as the CSV's first column, quoted as needed). ``None``: rows are not labelled.
    label : str
        The name shown to the user, in the language in force ('' shows ``name`` made readable).
    """

    name: str
    graphics: Any
    csv: Callable[[], tuple[list[str], np.ndarray]] | None = None
    row_labels: Callable[[], tuple[str, list[str]]] | None = None
    label: str = ""


class BasePanel(QWidget):
    """A page of the main window, built as ``Panel(parent=None)``.

    Subclasses set the class attributes, call ``super().__init__(parent)`` and then add their
    widgets to ``self.body_layout`` (below the collapsible formula box). Every hook has a harmless
    default, so a panel overrides only what it needs.

    ``title``, ``formula_html`` and ``explanation_html`` are English, marked for translation with
    ``QT_TRANSLATE_NOOP("<class name>", …)`` (``"Panels"`` for the title); :meth:`class_text` translates them.
    """

    key: str = "base"
    title: str = "Panel"
    formula_html: str = ""
    explanation_html: str = ""

    status_message = Signal(object)  # a str, or Words: the status bar words it again when the language changes
    #: A :meth:`lazy_page` of this panel made its widgets just now: the shell gives them the panel's look.
    page_built = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dark = False
        self._message_words: Callable[[], str] | None = None  # words the inline message in any language
        self.setting_problems: list[str] = []  # "name: why" of values the last restore could not use as they were
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)

        self.explanation_box = QCollapsible("", self, expandedIcon="▼", collapsedIcon="▶")
        self.explanation_box.layout().setContentsMargins(0, 0, 0, 0)  # as tight as the panel's other boxes
        self.formula_label = QLabel(self.explanation_box)
        self.formula_label.setTextFormat(Qt.TextFormat.RichText)
        self.formula_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.formula_label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.formula_label.setWordWrap(True)  # a long formula wraps instead of widening the window
        font = self.formula_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        self.formula_label.setFont(font)
        self.formula_label.setVisible(bool(self.formula_html))
        self.explanation_label = QLabel(self.explanation_box)
        self.explanation_label.setTextFormat(Qt.TextFormat.RichText)
        self.explanation_label.setWordWrap(True)
        self.explanation_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.explanation_label.setOpenExternalLinks(True)
        self.explanation_label.setVisible(bool(self.explanation_html))
        BasePanel.retranslate(self)  # before the layout measures the labels; subclasses word their own texts
        self.explanation_box.addWidget(self.formula_label)
        self.explanation_box.addWidget(self.explanation_label)
        self.explanation_box.expand(animate=False)
        self.explanation_box.setVisible(bool(self.formula_html or self.explanation_html))
        layout.addWidget(self.explanation_box)

        # The banner is laid out below the body, not over it: it covers no control and takes no click meant for
        # one; the body keeps its top, so the controls above its lower edge stay where they are.
        self.message_banner = MessageBanner(self)
        self.message_label = self.message_banner.label
        self.message_close_button = self.message_banner.close_button
        self.message_banner.closed.connect(self._on_message_banner_closed)
        self._message_error = True

        self.body = QWidget()
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(0, 0, 0, 0)
        # A window smaller than the body's minimum (presenter mode at 1.5-2x on a 1280x720 projector) scrolls
        # the body; without this, splitters squeezed below their children's minimum drew them over each other.
        self.body_scroll = QScrollArea(self)
        self.body_scroll.setObjectName("panel_body_scroll")
        self.body_scroll.setWidget(self.body)
        self.body_scroll.setWidgetResizable(True)
        self.body_scroll.setFrameShape(QFrame.Shape.NoFrame)
        layout.addWidget(self.body_scroll, 1)
        layout.addWidget(self.message_banner)

    # ------------------------------------------------------------------ translation
    def class_text(self, name: str) -> str:
        """The class attribute ``name`` (``title``, ``formula_html``, ``explanation_html``) in the language in
        force, translated in the context of the class that sets it (``"Panels"`` for titles)."""
        text = getattr(self, name)
        if not text:
            return text
        if name == "title":
            return QCoreApplication.translate("Panels", text)
        owner = next((c for c in type(self).__mro__ if name in vars(c)), type(self))
        return QCoreApplication.translate(owner.__name__, text)

    def formula_text(self) -> str:
        """The formula shown above the panel, in the language in force (default: ``formula_html`` translated)."""
        return self.class_text("formula_html")

    def retranslate(self) -> None:
        """Set every text the panel shows in the language in force: called at build and when the language
        changes. Subclasses set their own texts after ``super().retranslate()``; texts built from values are
        rendered again from the state the panel keeps."""
        self.explanation_box.setText(self.tr("Formula and explanation"))
        self.formula_label.setText(self.formula_text())
        self.explanation_label.setText(self.class_text("explanation_html"))
        if self._message_words is not None:
            self.message_label.setText(self._message_words())
        retranslate_plot_menus(self)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def is_settling(self) -> bool:
        """True while the panel is still bringing in what it was asked to show, beyond its ``LatestOnlyRunner``
        jobs and debounce timers (which the panel walker sees for itself); a panel that reads a stream overrides it."""
        return False

    # ------------------------------------------------------------------ helpers for subclasses
    def lazy_page(self, factory: Callable[[], QWidget]) -> LazyPage:
        """A page whose widgets ``factory`` makes when it is first shown or asked for (``content()``); its
        ``built`` is announced as :attr:`page_built`, after which the shell restyles the panel."""
        page = LazyPage(factory)
        page.built.connect(self.page_built)
        return page

    def settings_key(self, name: str) -> str:
        """The QSettings key for one of this panel's values: ``panels/<key>/<name>``."""
        return f"panels/{self.key}/{name}"

    def show_inline_message(self, text: str | Callable[[], str], error: bool = True) -> None:
        """Show a message (e.g. why a setting is impossible) in the banner below the panel's body, with a close
        button. ``text`` may be a function that words the message in the language in force, or
        :class:`~explorer.ui.i18n.words.Words`: it is worded again when the language changes. It stays until
        closed, replaced or cleared (panels clear it when the user acts again)."""
        self._message_error = error
        self._message_words = text if callable(text) else text.render if isinstance(text, Words) else None
        self._style_message()
        self.message_banner.show_message(text() if callable(text) else text)

    def clear_inline_message(self) -> None:
        """Hide the message banner."""
        self._message_words = None
        self.message_banner.clear()

    def inline_message(self) -> str:
        """The message shown now ('' if none)."""
        return self.message_label.text() if self.message_banner.isVisibleTo(self) else ""

    def _style_message(self) -> None:
        self.message_banner.restyle(self._message_error, self._dark)

    @Slot()
    def _on_message_banner_closed(self) -> None:
        self._message_words = None

    def set_explanation_visible(self, visible: bool) -> None:
        """Expand or collapse the formula and explanation box (``toggled`` is emitted if that changes it)."""
        if visible != self.explanation_box.isExpanded():
            if visible:
                self.explanation_box.expand(animate=False)
            else:
                self.explanation_box.collapse(animate=False)

    def explanation_visible(self) -> bool:
        """Whether the formula and explanation box is expanded."""
        return self.explanation_box.isExpanded()

    @property
    def dark(self) -> bool:
        """The theme last given to ``apply_theme``."""
        return self._dark

    # ------------------------------------------------------------------ hooks the shell calls
    def join_exchange(self, exchange: ModelExchange) -> None:
        """Take part in what panels hand each other through the shell (the studio's model; default: nothing)."""

    def save_settings(self, settings: QSettings) -> None:
        """Store this panel's controls under ``panels/<key>/`` (default: nothing)."""

    def restore_settings(self, settings: QSettings) -> None:
        """Restore what ``save_settings`` stored; missing or bad values keep defaults."""

    def export_targets(self) -> list[ExportTarget]:
        """The plots File → Export can write (default: none)."""
        return []

    def panel_menu(self) -> QMenu | None:
        """A menu shown in the menu bar while this panel is current (default: none)."""
        return None

    def handle_drop(self, paths: list[str]) -> bool:
        """Files dropped on the window; return True if used (default: not handled)."""
        return False

    def busy_reason(self) -> str | None:
        """A sentence saying what would be lost by closing now, or None if idle."""
        return None

    def shutdown(self, timeout_ms: int) -> None:
        """Stop threads and timers; called once when the window closes."""

    def apply_theme(self, dark: bool) -> None:
        """Restyle anything the shell's palette and pyqtgraph restyling don't reach.

        Overrides should call ``super().apply_theme(dark)``.
        """
        self._dark = dark
        self._style_message()

    def apply_palette(self, palette: str) -> None:
        """Recolour maps that the shell's walk over the plots does not reach (default: nothing).

        ``palette`` is ``"standard"`` or ``"colour_blind"``; the shell has already switched every image item and
        colour bar it found (``explorer.ui.palette.restyle_maps``) and calls this after ``apply_theme``.
        """
