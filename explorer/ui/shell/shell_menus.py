"""What the main window's own menu entries do: File → Export current plot and Quit, View → a panel, Help → About,
and the current panel's menu shown before Help.

The menus are built by :mod:`explorer.ui.shell.main_menus`; the teaching entries are connected by ``Classroom``, the
theme and explanation entries by ``Appearance``, the language entries by ``WindowLanguage``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction

from explorer.ui.shell.panel_stack import ask_panel

if TYPE_CHECKING:
    from explorer.ui.shell.about_dialog import AboutDialog
    from explorer.ui.shell.main_window import MainWindow


class ShellMenus(QObject):
    """The shell's menu entries of one main window, connected; :meth:`update_panel_menu` follows the current panel."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._actions = actions = window.menu_actions
        actions.export.triggered.connect(self._on_export_triggered)
        actions.quit.triggered.connect(window.close)
        actions.panel_group.triggered.connect(self._on_panel_group_triggered)
        actions.about.triggered.connect(self.show_about)

    def update_panel_menu(self) -> None:
        """Show the current panel's menu (asked of the panel once it is built) and hide the others'."""
        window = self._window
        key = window.current_key()
        panel = window.panel(key)
        fresh = panel is not None and key not in self._actions.panel_menus
        self._actions.show_panel_menu(window.menuBar(), key, ask_panel(panel.panel_menu) if fresh else None)

    def panel_menu_titles(self) -> list[str]:
        """Titles of the menu-bar menus visible now."""
        return [a.text() for a in self._window.menuBar().actions() if a.isVisible()]

    @Slot()
    def show_about(self) -> None:
        """Help → About."""
        dialog = self.about_dialog()
        dialog.exec()
        dialog.deleteLater()

    def about_dialog(self) -> AboutDialog:
        """The About box (not shown); its device row follows the probe until it answers."""
        from explorer.ui.shell.about_dialog import AboutDialog

        device = self._window.device_label
        device.maybe_start(force=True)
        dialog = AboutDialog(device.name, self._window)
        device.detected.connect(dialog.set_device)
        return dialog

    @Slot(QAction)
    def _on_panel_group_triggered(self, action: QAction) -> None:
        self._window.nav.setCurrentRow(self._window.keys().index(action.data()))

    @Slot()
    def _on_export_triggered(self) -> None:
        from explorer.ui.widgets.export import run_export_dialog

        window = self._window
        key = window.current_key()
        panel = window.panel(key)
        targets = ask_panel(panel.export_targets) if panel is not None else None
        if not targets:
            window.statusBar().showMessage(self.tr("This panel has no plot to export."), 5000)
            return
        written = run_export_dialog(targets, key, window.settings, window)
        if written is not None:
            window.statusBar().showMessage(self.tr("Exported {path}").format(path=written), 10_000)
