"""The main window (book §11.1–11.7 in order): navigation, one lazily built panel at a time, menus, status bar.

Only Qt is imported here; panels (and through them torch) load when first shown.
"""
from __future__ import annotations

import functools
import logging
import time
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QListWidget, QMainWindow, QMessageBox, QSplitter, QWidget

from explorer.ui import theme
from explorer.ui.about_dialog import DeviceStatus
from explorer.ui.classroom import Classroom
from explorer.ui.i18n import language_manager
from explorer.ui.main_menus import build_menus
from explorer.ui.panel_registry import PANELS, PanelSpec, panel_section, panel_title
from explorer.ui.panel_stack import PanelStack
from explorer.ui.settings import AppSettings
from explorer.ui.shortcut_guard import ShortcutGuard
from explorer.ui.window_geometry import clamp_to_screen, open_fitted

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent

    from explorer.ui.about_dialog import AboutDialog
    from explorer.ui.panels.base_panel import BasePanel

log = logging.getLogger(__name__)
SHUTDOWN_TIMEOUT_MS = 1000
STATUS_MESSAGE_MS = 10_000


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
        self._status: dict[str, tuple[str, float]] = {}  # panel key -> (message, monotonic expiry)
        self.shown_language = language_manager().language  # the language of the texts on screen
        self.setWindowTitle("Attention Explorer")
        self.setAcceptDrops(True)

        self.nav = QListWidget(self)
        self.nav.addItems([""] * len(self.specs))
        self._set_navigation_texts()
        self.nav.setMinimumWidth(180)
        self.nav.setStyleSheet("QListWidget::item { padding: 6px 4px; }")
        self.stack = PanelStack(self.specs, self)
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
        self.statusBar().addPermanentWidget(self.device_label)
        self._build_menus()
        self.shortcut_guard = ShortcutGuard(self, self.menu_actions.shell_actions())
        self.classroom = Classroom(self)  # presenter mode, palette, lock, lessons, Export all, time-lapse

        self.dark = theme.resolve_dark(settings.theme)
        self._restore_window_state()
        start = settings.last_panel if settings.last_panel in self.keys() else self.specs[0].key
        self._select(start)  # the page is built after the first paint (or by show_panel)
        self.nav.currentRowChanged.connect(self._on_nav_current_row_changed)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_style_hints_color_scheme_changed)

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
            theme.configure_pyqtgraph(self.dark)
            self.stack.build(key)
            self._update_panel_menu()
            self.device_label.maybe_start()

    @Slot(str)
    def _on_stack_panel_built(self, key: str) -> None:
        panel = self.stack.panel(key)
        panel.status_message.connect(self._on_panel_status_message)
        panel.explanation_box.toggled.connect(self._on_explanation_box_toggled)
        self._ask(panel.restore_settings, self.settings.qsettings)  # bad stored values keep defaults
        panel.set_explanation_visible(self.settings.get("view/explanation_visible"))
        self._apply_theme_to(panel)
        self.classroom.panel_built(key, panel)

    def _select(self, key: str) -> None:
        row = self.keys().index(key)
        if self.nav.currentRow() != row:
            self.nav.setCurrentRow(row)  # re-enters through _on_nav_current_row_changed once connected
        if self.stack.currentWidget() is not self.stack.page(key):
            self._show_status_of(key)  # another panel's message does not belong here
        self.stack.show_page(key)
        self.setWindowTitle(self.tr("{panel} — Attention Explorer").format(panel=panel_title(self.specs[row])))
        self._panel_actions[row].setChecked(True)
        self._update_panel_menu()

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

    @Slot(str)
    def _on_panel_status_message(self, text: str) -> None:
        """A panel's message is shown while that panel is current (and again when it comes back, unexpired)."""
        key = next((k for k in self.keys() if self.stack.panel(k) is self.sender()), None)
        if key is None:
            return
        self._status[key] = (text, time.monotonic() + STATUS_MESSAGE_MS / 1000)
        if key == self.current_key():
            self.statusBar().showMessage(text, STATUS_MESSAGE_MS)

    def _show_status_of(self, key: str) -> None:
        text, expiry = self._status.get(key, ("", 0.0))
        remaining_ms = int((expiry - time.monotonic()) * 1000)
        if text and remaining_ms > 0:
            self.statusBar().showMessage(text, remaining_ms)
        else:
            self.statusBar().clearMessage()

    # ------------------------------------------------------------------ menus
    def _build_menus(self) -> None:
        self.menu_actions = build_menus(self.menuBar(), self.specs, self.settings.theme,
                                        self.settings.get("view/explanation_visible"), self, self.settings.palette,
                                        self.settings.presenter_scale, language_manager().choice)
        self.export_action = self.menu_actions.export
        self.explanation_action = self.menu_actions.explanation
        self._panel_actions = self.menu_actions.panels
        self.menu_actions.export.triggered.connect(self._on_export_action_triggered)
        self.menu_actions.quit.triggered.connect(self.close)
        self.menu_actions.panel_group.triggered.connect(self._on_panel_group_triggered)
        self.menu_actions.theme_group.triggered.connect(self._on_theme_group_triggered)
        self.menu_actions.language_group.triggered.connect(self._on_language_group_triggered)
        self.menu_actions.explanation.toggled.connect(self._on_explanation_action_toggled)
        self.menu_actions.about.triggered.connect(self.show_about)

    def _update_panel_menu(self) -> None:
        key = self.current_key()
        panel = self.stack.panel(key)
        fresh = panel is not None and key not in self.menu_actions.panel_menus
        self.menu_actions.show_panel_menu(self.menuBar(), key, self._ask(panel.panel_menu) if fresh else None)

    def panel_menu_titles(self) -> list[str]:
        """Titles of the menu-bar menus visible now."""
        return [a.text() for a in self.menuBar().actions() if a.isVisible()]

    @Slot(QAction)
    def _on_panel_group_triggered(self, action: QAction) -> None:
        self.nav.setCurrentRow(self.keys().index(action.data()))

    @Slot()
    def _on_export_action_triggered(self) -> None:
        from explorer.ui.widgets.export import run_export_dialog

        panel = self.stack.panel(self.current_key())
        targets = self._ask(panel.export_targets) if panel is not None else None
        if not targets:
            self.statusBar().showMessage(self.tr("This panel has no plot to export."), 5000)
            return
        written = run_export_dialog(targets, self.current_key(), self.settings, self)
        if written is not None:
            self.statusBar().showMessage(self.tr("Exported {path}").format(path=written), 10_000)

    @Slot()
    def show_about(self) -> None:
        """Help → About."""
        dialog = self.about_dialog()
        dialog.exec()
        dialog.deleteLater()

    def about_dialog(self) -> AboutDialog:
        """The About box (not shown); its device row follows the probe until it answers."""
        from explorer.ui.about_dialog import AboutDialog

        self.device_label.maybe_start(force=True)
        dialog = AboutDialog(self.device_name, self)
        self.device_label.detected.connect(dialog.set_device)
        return dialog

    # ------------------------------------------------------------------ theme and explanation
    def set_theme_mode(self, mode: str) -> None:
        """Switch to ``system``/``light``/``dark``, restyling every built panel."""
        self.settings.theme = mode
        self.menu_actions.check_theme(mode)
        self._apply_dark(theme.resolve_dark(mode))

    def _apply_dark(self, dark: bool) -> None:
        self.dark = dark
        theme.apply_app_theme(dark)
        for panel in self.loaded_panels():
            self._apply_theme_to(panel)

    def _apply_theme_to(self, panel: BasePanel) -> None:
        try:
            theme.restyle_plots(panel, self.dark)
            panel.apply_theme(self.dark)
        except Exception:  # a panel's theme hook failing is cosmetic
            log.exception("applying the theme to %s failed", panel.key)
        self.restyle_panel(panel)

    def restyle_panel(self, panel: BasePanel) -> None:
        """Give ``panel`` the palette and presenter scale in force (after the theme, which may reset them)."""
        try:
            self.classroom.restyle(panel)
        except Exception:  # cosmetic, like the theme
            log.exception("applying the palette or presenter scale to %s failed", panel.key)

    @Slot(QAction)
    def _on_theme_group_triggered(self, action: QAction) -> None:
        self.set_theme_mode(action.data())

    # ------------------------------------------------------------------ language
    def set_language(self, choice: str) -> None:
        """Show the app in ``choice`` (``system``, ``en`` or ``zh_CN``) from now on, remembered; the texts on
        screen change at once (``changeEvent``)."""
        self.settings.language = choice
        self.menu_actions.check_language(choice)
        language_manager().apply(choice)

    @Slot(QAction)
    def _on_language_group_triggered(self, action: QAction) -> None:
        self.set_language(action.data())

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange and not self._shut_down:  # (a closing window stays as it is)
            try:
                self.retranslate()
            except Exception:  # an exception out of a virtual called by Qt takes PySide down: log it instead
                log.exception("re-setting the texts in the new language failed")
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Re-set every text of the window, its panels, menus and dialogs in the language in force."""
        from explorer.ui.retranslate import converter_for, own_popups, retranslate_tree

        new = language_manager().language
        if new == self.shown_language:
            return
        old, self.shown_language = self.shown_language, new
        self._set_navigation_texts()
        self.setWindowTitle(self.tr("{panel} — Attention Explorer").format(
            panel=panel_title(self.specs[max(self.nav.currentRow(), 0)])))
        for action, spec in zip(self._panel_actions, self.specs):
            action.setText(panel_title(spec))
        retranslate_tree([self, *own_popups(self)], old, new)
        convert = converter_for(old, new).convert  # the status bar draws its message itself: not a widget's text
        self._status = {key: (convert(text) or text, expiry) for key, (text, expiry) in self._status.items()}
        message = self.statusBar().currentMessage()
        if message:
            self.statusBar().showMessage(convert(message) or message, STATUS_MESSAGE_MS)

    def _set_navigation_texts(self) -> None:
        for row, spec in enumerate(self.specs):
            item = self.nav.item(row)
            item.setText(f"{row + 1}. {panel_title(spec)}")
            item.setToolTip(panel_section(spec))

    @Slot(Qt.ColorScheme)
    def _on_style_hints_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self.settings.theme == "system":
            self._apply_dark(scheme == Qt.ColorScheme.Dark)

    @Slot(bool)
    def _on_explanation_action_toggled(self, visible: bool) -> None:
        self.settings.set("view/explanation_visible", visible)
        for panel in self.loaded_panels():
            panel.set_explanation_visible(visible)

    @Slot(bool)
    def _on_explanation_box_toggled(self, visible: bool) -> None:
        self.explanation_action.setChecked(visible)  # all panels follow the one the user folded

    @property
    def device_name(self) -> str:
        """The device shown in the status bar ("detecting…" until the probe answers)."""
        return self.device_label.name

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
            reasons = [r for p in self.loaded_panels() if (r := self._ask(p.busy_reason))]
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
            self._ask(panel.shutdown, SHUTDOWN_TIMEOUT_MS)
        self.device_label.shutdown(3 * SHUTDOWN_TIMEOUT_MS)
        if save:
            self.save_settings()

    @staticmethod
    def _ask(method: Callable, *args: object) -> object:
        try:
            return method(*args)
        except Exception:  # closing, saving or theming never fails because one panel hook did
            log.exception("%s failed", getattr(method, "__qualname__", method))
            return None

    # ------------------------------------------------------------------ settings
    def save_settings(self) -> None:
        """Store geometry, splitter, last panel and every built panel's settings, and sync."""
        self.settings.set("window/geometry", bytes(self.saveGeometry().data()))
        self.settings.set("window/splitter", bytes(self.splitter.saveState().data()))
        self.settings.last_panel = self.current_key()
        for panel in self.loaded_panels():
            self._ask(panel.save_settings, self.settings.qsettings)
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
