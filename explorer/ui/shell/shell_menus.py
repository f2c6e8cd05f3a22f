"""File → Export current plot, Help → About, and the current panel's menu shown before Help (the menus are built
by :mod:`explorer.ui.shell.main_menus`; ``Classroom``, ``Appearance`` and ``WindowLanguage`` connect the others)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot

from explorer.ui.shell.panel_stack import ask_panel

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenuBar, QStatusBar, QWidget

    from explorer.ui.settings import AppSettings
    from explorer.ui.shell.about_dialog import AboutDialog, DeviceStatus
    from explorer.ui.shell.main_menus import MenuActions
    from explorer.ui.shell.panel_access import PanelAccess


class ShellMenus(QObject):
    """The shell's menu entries of one main window, connected; :meth:`update_panel_menu` follows the current panel.

    Parameters
    ----------
    actions : MenuActions
    menu_bar, status_bar :
        The window's bars: panel menus go into the first, what an export wrote into the second.
    settings : AppSettings
        The export dialog remembers its folder and sizes there.
    device : DeviceStatus
        The status bar's device label; the About box follows its probe.
    panels : PanelAccess
        The current panel, asked for its menu and its plots.
    dialog_parent : QWidget
        Parent of the About box and the export dialog.
    """

    def __init__(self, actions: MenuActions, menu_bar: QMenuBar, status_bar: QStatusBar, settings: AppSettings,
                 device: DeviceStatus, panels: PanelAccess, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self._actions = actions
        self._menu_bar = menu_bar
        self._status_bar = status_bar
        self._settings = settings
        self._device = device
        self._panels = panels
        self._dialog_parent = dialog_parent
        actions.export.triggered.connect(self._on_export_triggered)
        actions.about.triggered.connect(self.show_about)

    def update_panel_menu(self) -> None:
        """Show the current panel's menu (asked of the panel once it is built) and hide the others'."""
        key = self._panels.current_key()
        panel = self._panels.panel(key)
        fresh = panel is not None and key not in self._actions.panel_menus
        self._actions.show_panel_menu(self._menu_bar, key, ask_panel(panel.panel_menu) if fresh else None)

    def panel_menu_titles(self) -> list[str]:
        """Titles of the menu-bar menus visible now."""
        return [a.text() for a in self._menu_bar.actions() if a.isVisible()]

    @Slot()
    def show_about(self) -> None:
        """Help → About."""
        dialog = self.about_dialog()
        dialog.exec()
        dialog.deleteLater()

    def about_dialog(self) -> AboutDialog:
        """The About box (not shown); its device row follows the probe until it answers."""
        from explorer.ui.shell.about_dialog import AboutDialog

        device = self._device
        device.maybe_start(force=True)
        dialog = AboutDialog(device.name, self._dialog_parent)
        device.detected.connect(dialog.set_device)
        return dialog

    @Slot()
    def _on_export_triggered(self) -> None:
        from explorer.ui.widgets.export import run_export_dialog

        key = self._panels.current_key()
        panel = self._panels.panel(key)
        targets = ask_panel(panel.export_targets) if panel is not None else None
        if not targets:
            self._status_bar.showMessage(self.tr("This panel has no plot to export."), 5000)
            return
        written = run_export_dialog(targets, key, self._settings, self._dialog_parent)
        if written is not None:
            self._status_bar.showMessage(self.tr("Exported {path}").format(path=written), 10_000)
