"""The main window (book §11.1–11.7 in order): navigation, one lazily built panel at a time, closing and settings.

Its menus, theme, language, teaching tools and status messages are helpers it makes in ``_compose``, each given
what it uses. Only Qt is imported here; panels (and through them torch) load when first shown.
"""
from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMessageBox, QSplitter, QWidget

from explorer.ui import theme
from explorer.ui.shell.about_dialog import DeviceStatus
from explorer.ui.shell.appearance import Appearance
from explorer.ui.shell.classroom import Classroom
from explorer.ui.i18n.translators import language_manager
from explorer.ui.shell.main_menus import build_menus
from explorer.ui.shell.nav_list import NavigationList
from explorer.ui.panels.model_exchange import ModelExchange
from explorer.ui.shell.panel_access import PanelAccess
from explorer.ui.shell.panel_registry import PANELS, PanelSpec, panel_section, panel_title
from explorer.ui.shell.panel_stack import PanelStack, ask_panel
from explorer.ui.shell.panel_status import PanelStatus
from explorer.ui.settings import AppSettings
from explorer.ui.shell.shell_menus import ShellMenus
from explorer.ui.shell.shortcut_guard import ShortcutGuard
from explorer.ui.shell.torch_warmup import TorchWarmup
from explorer.ui.shell.window_geometry import clamp_to_screen, open_fitted
from explorer.ui.shell.window_language import WindowLanguage

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent

    from explorer.ui.panels.base_panel import BasePanel

log = logging.getLogger(__name__)
SHUTDOWN_TIMEOUT_MS = 1000


class MainWindow(QMainWindow):
    """Navigation list + lazily built panels; see ``show_panel``, ``build_all_panels`` and ``closeEvent``.

    Parameters
    ----------
    settings : AppSettings
    panels : tuple of PanelSpec
        Defaults to the app's registry; tests pass fakes.
    device_probe : callable returning str, optional
        Names the compute device; run on a worker thread once ``probe_after_module`` has been
        imported by some panel (so the probe never pays for importing torch itself), or when the
        About box opens. ``None`` skips the probe.
    probe_after_module : str or None
        ``None`` starts the probe right after the first paint.
    """

    first_painted = Signal()
    panel_changed = Signal(str)

    def __init__(self, settings: AppSettings, panels: tuple[PanelSpec, ...] = PANELS,
                 device_probe: Callable[[], str] | None = None, probe_after_module: str | None = "torch",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.specs = tuple(panels)
        self._painted = False
        self._shut_down = False
        self.setAcceptDrops(True)

        self.nav = NavigationList(self)
        self.stack = PanelStack(self.specs, self)
        self.model_exchange = ModelExchange(self)  # what panels hand each other (the studio's model)
        self.stack.panel_built.connect(self._on_stack_panel_built)
        self.stack.placeholder_painted.connect(self._on_stack_placeholder_painted)
        self._wanted: set[str] = set()
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.nav)
        self.splitter.addWidget(self.stack)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([200, 1000])
        self.setCentralWidget(self.splitter)
        self._probe_after_module = probe_after_module
        self.device_label = DeviceStatus(device_probe, probe_after_module, self)
        self.torch_warmup = TorchWarmup(lambda: self.stack.panel(self.current_key()), self)
        self.statusBar().addPermanentWidget(self.device_label)
        self.menu_actions = build_menus(self.menuBar(), self.specs, self.settings.theme,
                                        self.settings.get("view/explanation_visible"), self, self.settings.palette,
                                        self.settings.presenter_scale, language_manager().choice)
        self.set_navigation_texts()
        self.shortcut_guard = ShortcutGuard(self, self.menu_actions.shell_actions())
        self._compose()

        self._restore_window_state()
        start = settings.last_panel if settings.last_panel in self.keys() else self.specs[0].key
        self._select(start)  # the page is built after the first paint (or by show_panel)
        self.nav.currentRowChanged.connect(self._on_nav_current_row_changed)

    def _compose(self) -> None:
        """Make the window's helpers, each given what it uses, and connect what one tells another."""
        actions, settings, bar = self.menu_actions, self.settings, self.statusBar()
        self.panels = PanelAccess(self.stack, self.current_key, self.show_panel, self.select_panel, self.isVisible,
                                  self)
        # File → Export current plot, Help → About, and the current panel's menu
        self.shell_menus = ShellMenus(actions, self.menuBar(), bar, settings, self.device_label, self.panels, self)
        self.panel_status = PanelStatus(bar, self.current_key, self)  # each panel's message, while it is current
        self.appearance = Appearance(settings, actions, self, self.loaded_panels, self)  # theme, explanation boxes
        # presenter mode, palette, lock, lessons, Export all, time-lapse
        self.classroom = Classroom(actions.classroom, settings, self, self.stack, self.panels,
                                   lambda: self.appearance.dark)
        self.language = WindowLanguage(settings, actions, self, self)  # View → Language, re-setting the texts
        self.appearance.panel_restyled.connect(self.classroom.restyle)  # the palette and scale go on top
        self.classroom.presenter.fold_wanted.connect(self.appearance.fold_for_presenter)  # room for the plots
        self.classroom.presenter.narrow_wanted.connect(self.nav.set_compact)  # and for the panels' width
        self.classroom.lessons.theme_chosen.connect(self.appearance.set_theme_mode)
        self.classroom.lessons.language_chosen.connect(self.language.choose)
        self.language.retranslated.connect(self._on_language_retranslated)
        actions.quit.triggered.connect(self.close)
        actions.panel_group.triggered.connect(self._on_panel_group_triggered)

    # ------------------------------------------------------------------ panels
    def keys(self) -> list[str]:
        """Panel keys in navigation order."""
        return [spec.key for spec in self.specs]

    def current_key(self) -> str:
        """Key of the panel selected now."""
        return self.specs[max(self.nav.currentRow(), 0)].key

    def panel(self, key: str) -> BasePanel | None:
        """The built panel for ``key`` (None if not built yet or if it failed)."""
        return self.stack.panel(key)

    def loaded_panels(self) -> list[BasePanel]:
        """Panels built so far, in navigation order."""
        return self.stack.loaded_panels()

    def panel_error(self, key: str) -> str | None:
        """Why ``key`` could not be built, or None."""
        return self.stack.error(key)

    def page(self, key: str) -> QWidget:
        """The widget in the stack for ``key``: a placeholder, the panel, or an error page."""
        return self.stack.page(key)

    def show_panel(self, key: str) -> None:
        """Make ``key`` the current panel, building it now if needed (``KeyError`` if unknown)."""
        self.select_panel(key)
        self.ensure_built(key)

    def select_panel(self, key: str) -> None:
        """Make ``key`` current; before the window is visible this does not build it."""
        if key not in self.keys():
            raise KeyError(key)
        self._select(key)

    def build_current_panel(self) -> None:
        """Build the panel selected now (done after the first paint)."""
        self.ensure_built(self.current_key())

    def build_all_panels(self) -> None:
        """Build every panel (for screenshots and the start-up benchmark)."""
        for key in self.keys():
            self.ensure_built(key)

    def ensure_built(self, key: str) -> None:
        """Build ``key`` if it is still a placeholder; failures become an error page."""
        if not self.stack.is_settled(key):
            theme.configure_pyqtgraph(self.appearance.dark)
            self.stack.build(key, self.classroom.presenter.normal_font())
            self.shell_menus.update_panel_menu()
            self.device_label.maybe_start()

    @Slot(str)
    def _on_stack_panel_built(self, key: str) -> None:
        panel = self.stack.panel(key)
        self.panel_status.watch(key, panel)
        ask_panel(panel.join_exchange, self.model_exchange)
        ask_panel(panel.restore_settings, self.settings.qsettings)  # bad stored values keep defaults
        self.appearance.panel_built(panel)  # its explanation box as the others, the theme, palette and scale
        self.classroom.panel_built(key, panel)

    def _select(self, key: str) -> None:
        row = self.keys().index(key)
        if self.nav.currentRow() != row:
            self.nav.setCurrentRow(row)  # re-enters through _on_nav_current_row_changed once connected
        if self.stack.currentWidget() is not self.stack.page(key):
            self.panel_status.show_for(key)  # another panel's message does not belong here
        self.stack.show_page(key)
        self._set_title()
        self.menu_actions.panels[row].setChecked(True)
        self.shell_menus.update_panel_menu()

    @Slot(QAction)
    def _on_panel_group_triggered(self, action: QAction) -> None:
        self.nav.setCurrentRow(self.keys().index(action.data()))

    @Slot(int)
    def _on_nav_current_row_changed(self, row: int) -> None:
        if 0 <= row < len(self.specs):
            key = self.specs[row].key
            self._select(key)
            if self.isVisible():  # before the first paint, paintEvent schedules the build
                self._request_build(key)
            self.panel_changed.emit(key)

    def _request_build(self, key: str) -> None:
        """Build ``key`` once its "Opening …" page has been painted (or after 250 ms at the latest),
        so a slow first import never freezes the previous panel on screen."""
        if self.stack.is_settled(key) or key in self._wanted:
            return
        self._wanted.add(key)
        QTimer.singleShot(250, self, functools.partial(self._build_wanted, key))

    @Slot(str)
    def _on_stack_placeholder_painted(self, key: str) -> None:
        if key in self._wanted:
            QTimer.singleShot(0, self, functools.partial(self._build_wanted, key))

    def _build_wanted(self, key: str) -> None:
        if key in self._wanted and not self._shut_down:
            self._wanted.discard(key)
            self.ensure_built(key)

    # ------------------------------------------------------------------ texts and language
    def set_navigation_texts(self) -> None:
        """(Re-)set the texts taken from the panel registry: navigation, View → panel entries, window title."""
        self.nav.set_entries([(panel_title(spec), panel_section(spec)) for spec in self.specs])
        for row, spec in enumerate(self.specs):
            self.menu_actions.panels[row].setText(panel_title(spec))
        self._set_title()

    def _set_title(self) -> None:
        self.setWindowTitle(self.tr("{panel} — Attention Explorer").format(
            panel=panel_title(self.specs[max(self.nav.currentRow(), 0)])))

    @Slot()
    def _on_language_retranslated(self) -> None:
        self.set_navigation_texts()  # built from the panel registry, in the language in force
        self.menu_actions.retranslate()
        self.panel_status.retranslate()  # kept messages are drawn by the bar, not a widget's text

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange and not self._shut_down:  # (a closing window stays as it is)
            try:
                self.language.retranslate()
            except Exception:  # an exception out of a virtual called by Qt takes PySide down: log it instead
                log.exception("re-setting the texts in the new language failed")
        super().changeEvent(event)

    # ------------------------------------------------------------------ window events
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.first_painted.emit()
            QTimer.singleShot(0, self._on_first_paint_done)

    @Slot()
    def _on_first_paint_done(self) -> None:
        self.build_current_panel()
        self.torch_warmup.start()  # torch's library loads on another core once this panel has settled
        if self._probe_after_module is None:
            self.device_label.maybe_start(force=True)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if self.drop_paths(paths):
            event.acceptProposedAction()

    def drop_paths(self, paths: list[str]) -> bool:
        """Hand dropped files to the current panel; True if it used them."""
        panel = self.stack.panel(self.current_key())
        handled = False
        if panel is not None and paths:
            try:
                handled = bool(panel.handle_drop(paths))
            except Exception as exc:  # a panel's failure to open a file is a message, not a crash
                log.exception("handle_drop failed")
                self.statusBar().showMessage(self.tr("Could not open the dropped file: {error}").format(error=exc),
                                             10_000)
                return False
        if not handled:
            self.statusBar().showMessage(self.tr("This panel does not open dropped files."), 5000)
        return handled

    def confirm_close(self, reasons: list[str]) -> bool:
        """Ask whether to quit although panels are busy (tests replace this)."""
        text = "\n".join(f"• {r}" for r in reasons)
        answer = QMessageBox.question(self, self.tr("Quit Attention Explorer?"),
                                      self.tr("{reasons}\n\nQuit anyway?").format(reasons=text),
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self._shut_down:
            reasons = [r for p in self.loaded_panels() if (r := ask_panel(p.busy_reason))]
            if reasons and not self.confirm_close(reasons):
                event.ignore()
                return
            self.shutdown()
        event.accept()

    def shutdown(self, save: bool = True) -> None:
        """Stop every panel's threads (once), then save settings unless ``save`` is False."""
        if self._shut_down:
            return
        self._shut_down = True
        self.classroom.shutdown()
        for panel in self.loaded_panels():
            ask_panel(panel.shutdown, SHUTDOWN_TIMEOUT_MS)
        self.device_label.shutdown(3 * SHUTDOWN_TIMEOUT_MS)
        if save:
            self.save_settings()

    # ------------------------------------------------------------------ settings
    def save_settings(self) -> None:
        """Store geometry, splitter, last panel and every built panel's settings, and sync."""
        self.settings.set("window/geometry", bytes(self.saveGeometry().data()))
        self.settings.set("window/splitter", bytes(self.splitter.saveState().data()))
        self.settings.last_panel = self.current_key()
        for panel in self.loaded_panels():
            ask_panel(panel.save_settings, self.settings.qsettings)
        self.settings.sync()

    def _restore_window_state(self) -> None:
        geometry = self.settings.get("window/geometry")
        if geometry and self.restoreGeometry(QByteArray(geometry)):
            clamp_to_screen(self)  # saved on a larger screen than this one
        else:
            open_fitted(self)
        splitter = self.settings.get("window/splitter")
        if splitter:
            self.splitter.restoreState(QByteArray(splitter))
