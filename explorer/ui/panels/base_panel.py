"""The base class every panel builds on: formula + explanation box, inline messages, shell hooks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QRect, QSettings, Qt, Signal, Slot
from PySide6.QtWidgets import QFrame, QLabel, QMenu, QScrollArea, QTabWidget, QVBoxLayout, QWidget
from superqt import QCollapsible

from explorer.ui.i18n.pyqtgraph_texts import retranslate_plot_menus
from explorer.ui.i18n.words import Words

if TYPE_CHECKING:
    import numpy as np
    from PySide6.QtGui import QResizeEvent

    from explorer.ui.panels.model_exchange import ModelExchange

#: Banner colours: (error, dark) -> (background, text, border).
_BANNER = {(True, False): ("#fdecea", "#8e1b10", "#c0392b"), (True, True): ("#4a1f1c", "#ffb4a9", "#e06c5f"),
           (False, False): ("#e8f5e9", "#1b5e20", "#2e7d32"), (False, True): ("#1e3b22", "#a5d6a7", "#66bb6a")}
_MESSAGE_MAX_WIDTH = 640
_DEFAULT_AREA = 0.55  # without a message area, messages float over this right-hand share of the panel


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

        # The message floats over the top of the plots (`set_message_area`), outside every layout: showing
        # or clearing it never moves a control (a click meant for a field must not land on the next one).
        self.message_label = QLabel(self)
        self.message_label.setObjectName("inline_message")
        self.message_label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message_label.setVisible(False)
        self._message_error = True
        self._message_area: QWidget | None = None

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
        self.body.installEventFilter(self)  # folding the formula box moves the body, and the message with it

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
            self._place_message()
        retranslate_plot_menus(self)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # ------------------------------------------------------------------ helpers for subclasses
    def settings_key(self, name: str) -> str:
        """The QSettings key for one of this panel's values: ``panels/<key>/<name>``."""
        return f"panels/{self.key}/{name}"

    def show_inline_message(self, text: str | Callable[[], str], error: bool = True) -> None:
        """Show a message (e.g. why a setting is impossible) over the top of the message area, rather than
        pushing the controls down. ``text`` may be a function that words the message in the language in force, or
        :class:`~explorer.ui.i18n.words.Words`: it is worded again when the language changes."""
        self._message_error = error
        self._message_words = text if callable(text) else text.render if isinstance(text, Words) else None
        self._style_message()
        self.message_label.setText(text() if callable(text) else text)
        self.message_label.setVisible(True)
        self._place_message()

    def clear_inline_message(self) -> None:
        """Hide the inline message."""
        self._message_words = None
        self.message_label.clear()
        self.message_label.setVisible(False)

    def inline_message(self) -> str:
        """The inline message shown now ('' if none)."""
        return self.message_label.text() if self.message_label.isVisibleTo(self) else ""

    def _style_message(self) -> None:
        background, text, border = _BANNER[(self._message_error, self._dark)]
        self.message_label.setStyleSheet(
            f"QLabel#inline_message {{ background: {background}; color: {text}; border: 1px solid {border};"
            " border-radius: 4px; padding: 2px 8px; font-weight: bold; }")

    def set_message_area(self, widget: QWidget) -> None:
        """Float inline messages over the top of ``widget`` (a panel's plots), never over its controls."""
        if self._message_area is not None:
            self._message_area.removeEventFilter(self)
        self._message_area = widget
        widget.installEventFilter(self)
        if isinstance(widget, QTabWidget):  # over the page shown, below the tabs (they stay clickable)
            widget.currentChanged.connect(self._on_message_area_current_changed)
        self._place_message()

    @Slot(int)
    def _on_message_area_current_changed(self, _index: int) -> None:
        self._place_message()

    def _place_message(self) -> None:
        """At the top of the message area (default: the right part of the panel), as high as its text."""
        if not self.message_label.isVisibleTo(self):
            return
        area = self._message_area
        if isinstance(area, QTabWidget):
            area = area.currentWidget()
        if area is not None and area.isVisibleTo(self):
            rect = QRect(area.mapTo(self, QPoint(0, 0)), area.size())
        else:  # no area given: the right of the panel, where panels put their plots
            margins = self.layout().contentsMargins()
            rect = self.rect().adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
            rect.setLeft(rect.right() - int(rect.width() * _DEFAULT_AREA))
        width = max(120, min(_MESSAGE_MAX_WIDTH, rect.width()))
        height = self.message_label.heightForWidth(width)
        self.message_label.setGeometry(rect.right() + 1 - width, rect.top(), width, height)
        self.message_label.raise_()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._place_message()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched in (self._message_area, self.body) and event.type() in (
                QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.Hide):
            self._place_message()
        return super().eventFilter(watched, event)

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
