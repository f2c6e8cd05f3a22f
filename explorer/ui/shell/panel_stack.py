"""The stack of panel pages: a placeholder per panel, replaced by the panel (or an error page) when built.

Panels are imported only when first built, so the main window can paint before torch is loaded.
"""
from __future__ import annotations

import functools
import html
import logging
import traceback
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QStackedWidget, QVBoxLayout, QWidget

from explorer.ui.i18n.words import Words, again
from explorer.ui.process_settings import making_lasting_objects
from explorer.ui.qt_compat import plain_imports
from explorer.ui.shell.panel_registry import PanelLoadError, PanelSpec, load_panel_class, panel_title
from explorer.ui.panels.base_panel import BasePanel

if TYPE_CHECKING:
    from PySide6.QtGui import QFont, QPaintEvent

log = logging.getLogger(__name__)


def ask_panel(hook: Callable, *args: object) -> object:
    """Call a panel's hook (``save_settings``, ``shutdown``, ``panel_menu`` …); if it raises, log it and answer
    None: closing, saving or theming never fails because one panel hook did."""
    try:
        return hook(*args)
    except Exception:
        log.exception("%s failed", getattr(hook, "__qualname__", hook))
        return None


class ErrorPage(QWidget):
    """Shown in place of a panel that could not be built: a sentence, then the details."""

    def __init__(self, title: str, message: str, details: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message, self._title = message, title
        self.heading = heading = QLabel(self)
        heading.setWordWrap(True)
        heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text = QPlainTextEdit(details, self)
        text.setReadOnly(True)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(text, 1)
        self.retranslate()

    def retranslate(self) -> None:
        """The sentence in the language in force (at build and on ``LanguageChange``)."""
        self.heading.setText(self.tr("<h3>{title} could not be opened</h3><p>{message}</p>").format(
            title=html.escape(again(self._title)), message=html.escape(again(self.message))))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class Placeholder(QLabel):
    """The page shown until a panel is built; says when it has been painted."""

    painted = Signal()

    def __init__(self, words: str, parent: QWidget | None = None) -> None:
        super().__init__(words, parent)
        self._words = words

    def retranslate(self) -> None:
        """"Opening …" in the language in force (on ``LanguageChange``)."""
        self.setText(again(self._words))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        super().paintEvent(event)
        self.painted.emit()


class PanelStack(QStackedWidget):
    """One page per ``PanelSpec``; ``build(key)`` swaps the placeholder for the real panel.

    ``panel_built(key)`` is emitted after a panel is constructed and installed; ``panel_failed(key,
    message)`` when an error page took its place; ``placeholder_painted(key)`` once the
    "Opening …" page of ``key`` is on screen (a good moment to start a slow build). Building
    never raises.
    """

    panel_built = Signal(str)
    panel_failed = Signal(str, str)
    placeholder_painted = Signal(str)

    def __init__(self, specs: tuple[PanelSpec, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.specs = tuple(specs)
        self._pages: dict[str, QWidget] = {}
        self._panels: dict[str, BasePanel] = {}
        self._errors: dict[str, str] = {}
        for spec in self.specs:
            page = Placeholder(Words(lambda spec=spec: self.tr("Opening {title}…").format(title=panel_title(spec))),
                               self)
            page.setAlignment(Qt.AlignmentFlag.AlignCenter)
            page.painted.connect(functools.partial(self.placeholder_painted.emit, spec.key))
            self._pages[spec.key] = page
            self.addWidget(page)

    def keys(self) -> list[str]:
        """Panel keys in order."""
        return [spec.key for spec in self.specs]

    def page(self, key: str) -> QWidget:
        """The widget for ``key``: placeholder, panel or error page (``KeyError`` if unknown)."""
        return self._pages[key]

    def panel(self, key: str) -> BasePanel | None:
        """The built panel for ``key``, or None."""
        return self._panels.get(key)

    def error(self, key: str) -> str | None:
        """Why ``key`` could not be built, or None."""
        return self._errors.get(key)

    def loaded_panels(self) -> list[BasePanel]:
        """Panels built so far, in order."""
        return [self._panels[k] for k in self.keys() if k in self._panels]

    def is_settled(self, key: str) -> bool:
        """True once ``key`` is a panel or an error page."""
        return key in self._panels or key in self._errors

    def show_page(self, key: str) -> None:
        """Make the page of ``key`` current (without building it)."""
        self.setCurrentWidget(self._pages[key])

    def build(self, key: str, font: QFont | None = None) -> BasePanel | None:
        """Construct ``key``'s panel if not done yet; on failure install an error page and return None.

        ``font``: the font to build it with (presenter mode passes the unscaled one), so that sizes a panel
        derives from its font while it is built are those of the normal size, which presenter mode then scales.
        """
        if self.is_settled(key):
            return self._panels.get(key)
        spec = next(s for s in self.specs if s.key == key)
        holder = None
        if font is not None:
            holder = QWidget()
            holder.setFont(font)
        try:
            # What a build makes (its modules, torch's for the first panel that needs it, and its widgets) lives as
            # long as the window: a full collection later (on any thread) does not walk it again (~155 ms for every
            # panel's ~265k objects, measured), nor does the collector while it is made
            with making_lasting_objects():
                panel = self._make(spec, holder)
        except Exception as exc:  # a broken panel must never take the window down
            message = str(exc) if isinstance(exc, PanelLoadError) else f"{type(exc).__name__}: {exc}"
            log.warning("panel %s could not be built: %s", key, message)
            self._errors[key] = message
            self._install(key, ErrorPage(Words(lambda: panel_title(spec)), message, traceback.format_exc()))
            self.panel_failed.emit(key, message)
            return None
        finally:
            if holder is not None:  # the panel leaves it when installed; a failed one goes with it
                holder.deleteLater()
        self._panels[key] = panel
        self._install(key, panel)
        self.panel_built.emit(key)  # out of the collector's pause: a listener may open a dialog (a lesson's report)
        return panel

    def _make(self, spec: PanelSpec, holder: QWidget | None) -> BasePanel:
        """Import and construct ``spec``'s panel (``PanelLoadError`` if the class is not a panel)."""
        with plain_imports():  # a panel's modules (torch's for the first that needs it): Python's own import
            panel_class = load_panel_class(spec.target)
        panel = panel_class(parent=holder)
        if not isinstance(panel, BasePanel):
            raise PanelLoadError(self.tr("{target} is not a BasePanel.").format(target=spec.target))
        return panel

    def _install(self, key: str, widget: QWidget) -> None:
        old = self._pages[key]
        was_current = self.currentWidget() is old
        self.insertWidget(self.indexOf(old), widget)
        self._pages[key] = widget
        if was_current:
            self.setCurrentWidget(widget)
        self.removeWidget(old)
        old.deleteLater()
