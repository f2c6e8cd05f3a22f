"""What the main window's helpers may do with its panels: list them, find a built one, make one current. The
window makes one from its stack and navigation for the helpers that need panels (lessons, Export all, the walker)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject

from explorer.ui.shell.panel_registry import panel_title

if TYPE_CHECKING:
    from explorer.ui.panels.base_panel import BasePanel
    from explorer.ui.shell.panel_stack import PanelStack


class PanelAccess(QObject):
    """The panels of one window: the stack's built panels and errors, and the window's navigation.

    Parameters
    ----------
    stack : PanelStack
        Holds the pages, built panels and build errors.
    current_key : callable returning str
        The key of the panel selected in the navigation.
    show_panel : callable taking a key
        Makes that panel current and builds it now if needed.
    select_panel : callable taking a key
        Makes that panel current; before the window is on screen it is not built yet.
    is_visible : callable returning bool
        Whether the window is on screen.
    """

    def __init__(self, stack: PanelStack, current_key: Callable[[], str], show_panel: Callable[[str], None],
                 select_panel: Callable[[str], None], is_visible: Callable[[], bool],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._stack = stack
        self.current_key = current_key
        self.show_panel = show_panel
        self.select_panel = select_panel
        self.is_visible = is_visible

    def keys(self) -> list[str]:
        """Panel keys in navigation order."""
        return self._stack.keys()

    def panel(self, key: str) -> BasePanel | None:
        """The built panel for ``key`` (None if not built yet or if it failed)."""
        return self._stack.panel(key)

    def panel_error(self, key: str) -> str | None:
        """Why ``key`` could not be built, or None."""
        return self._stack.error(key)

    def loaded_panels(self) -> list[BasePanel]:
        """Panels built so far, in navigation order."""
        return self._stack.loaded_panels()

    def title(self, key: str) -> str:
        """The title of ``key`` in the language in force."""
        return next(panel_title(spec) for spec in self._stack.specs if spec.key == key)

    def go_to(self, key: str) -> None:
        """Make ``key`` current: built now if the window is on screen, else once it is painted."""
        if self.is_visible():
            self.show_panel(key)
        else:
            self.select_panel(key)
