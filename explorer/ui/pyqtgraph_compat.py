"""Work-arounds for costs and traps of pyqtgraph, each leaving what it draws unchanged.

``apply_work_arounds`` (``quicken_axis_labels``, ``defer_view_box_menus``, ``defer_plot_option_groups``,
``guard_legend_anchors``) is meant to be called before the first plot is built;
``view_closed`` guards a view's own event handlers.
"""
from __future__ import annotations

from typing import Any


def apply_work_arounds() -> None:
    """Every patch below, each once (the app's plots and the tests' are made with all of them in force)."""
    quicken_axis_labels()  # axes stop re-laying out labels that did not change
    defer_view_box_menus()  # view boxes build their context menu on the first right click
    defer_plot_option_groups()  # plots gather their options' widgets for saveState when it is first called
    guard_legend_anchors()  # a legend laid out while its plot is destroyed does not read the deleted view box


def quicken_axis_labels() -> bool:
    """Let pyqtgraph's axes skip setting their label's HTML again when it would not change; returns whether it
    patched.

    ``AxisItem`` re-sets the label's HTML (a parse and a layout of a text document) on every range change of
    every axis, through its automatic SI prefix, also for hidden labels whose text stays the same: ~5,000 calls
    while the app builds its panels. The patched method sets it only when the text differs from what it set
    last, or when anyone touched the label's document since (its revision moved); the size, picture and
    repaint still follow every call as before.
    """
    from pyqtgraph import AxisItem

    original = AxisItem._updateLabel
    if getattr(original, "quickened", False):
        return False

    def _update_label(self: Any) -> None:
        label = self.label
        if label is None:
            original(self)
            return
        html = self.labelString()
        document = label.document()
        if getattr(self, "_set_label", None) != (html, document.revision()):
            label.setHtml(html)
            self._set_label = (html, document.revision())
        self._adjustSize()
        self.picture = None
        self.update()

    _update_label.quickened = True  # type: ignore[attr-defined]
    AxisItem._updateLabel = _update_label
    return True


def defer_view_box_menus() -> bool:
    """Let pyqtgraph's view boxes build their context menu when it is first asked for (a right click), not when
    they are made; returns whether it patched.

    A ``ViewBox`` whose menu is enabled builds a ``ViewBoxMenu`` (two axis forms, ~40 widgets) in ``__init__``:
    ~2 ms for each of the ~40 plots and colour bars made at start-up, and a ``ColorBarItem`` builds one only to drop
    it at once (it turns its menu off). Patched, ``menu`` stays None until ``getMenu`` or ``getContextMenus`` asks
    for it, which builds it then (in the language in force, with the list of named views); turning the menu off
    and on, and the view lists, behave as before.
    """
    import importlib

    module = importlib.import_module("pyqtgraph.graphicsItems.ViewBox.ViewBox")  # the module, not the class
    if getattr(module.ViewBoxMenu, "deferred", False):
        return False
    real_menu = module.ViewBoxMenu
    view_box = module.ViewBox

    def no_menu_yet(_view: Any) -> None:
        return None

    def get_menu(self: Any, _event: Any = None) -> Any:
        if self.menu is None and self.menuEnabled():
            self.menu = real_menu(self)
            self.updateViewLists()  # what a menu built in __init__ would have been told since
        return self.menu

    def get_context_menus(self: Any, event: Any) -> list:
        return get_menu(self, event).actions() if self.menuEnabled() else []

    no_menu_yet.deferred = True  # type: ignore[attr-defined]
    module.ViewBoxMenu = no_menu_yet  # what ViewBox.__init__ and setMenuEnabled(True) call
    view_box.getMenu = get_menu
    view_box.getContextMenus = get_context_menus
    return True


class _DeferredWidgetGroup:
    """Stands in for the ``WidgetGroup`` a ``PlotItem`` makes of its options menu: ``autoAdd`` only notes what to
    add; the real group is made, and given it, when anything else is asked of it."""

    deferred = True
    real: Any = None  # pyqtgraph's WidgetGroup, set by defer_plot_option_groups

    def __init__(self) -> None:
        self._pending: list[Any] = []
        self._group: Any = None

    def autoAdd(self, obj: Any) -> None:  # noqa: N802 (pyqtgraph's name)
        if self._group is None:
            self._pending.append(obj)
        else:
            self._group.autoAdd(obj)

    def group(self) -> Any:
        """The real ``WidgetGroup``, made now if it was not yet, with every widget noted so far."""
        if self._group is None:
            self._group = type(self).real()
            for obj in self._pending:
                self._group.autoAdd(obj)
            self._pending.clear()
        return self._group

    def __getattr__(self, name: str) -> Any:  # state, setState, sigChanged, widgetList…
        if "_group" not in self.__dict__:  # not set up yet (a copy made without __init__): no such attribute
            raise AttributeError(name)
        return getattr(self.group(), name)


def defer_plot_option_groups() -> bool:
    """Let pyqtgraph's plots gather their options menu's widgets into a ``WidgetGroup`` when the group is first
    used, not when they are made; returns whether it patched.

    ``PlotItem.__init__`` hands the ~40 widgets of its "Plot options" menu to a ``WidgetGroup``, which walks them,
    reads each one's value and connects its change signal: ~0.3-0.8 ms for each of the ~36 plots and colour bars made at
    start-up. The group serves only ``saveState`` and ``restoreState`` (nothing listens to its ``sigChanged``).
    Patched, the plot's ``stateGroup`` notes the widgets and builds the real group on first use; its state is read
    from the widgets then, so it is the same as a group built at once would hold.
    """
    import importlib

    module = importlib.import_module("pyqtgraph.graphicsItems.PlotItem.PlotItem")  # the module, not the class
    if getattr(module.WidgetGroup, "deferred", False):
        return False
    _DeferredWidgetGroup.real = module.WidgetGroup
    module.WidgetGroup = _DeferredWidgetGroup  # what PlotItem.__init__ makes its stateGroup from
    return True


def guard_legend_anchors() -> bool:
    """Let an anchored item (a plot's legend) ignore a geometry change that comes once the item it is anchored to
    has been deleted; returns whether it patched.

    A legend follows its ``ViewBox`` through ``GraphicsWidgetAnchor``, which reads the box's bounding rectangle on
    every geometry change of either. While Qt destroys a plot, the box goes first and the legend, still alive, may
    lay itself out once more (seen after a language change renamed its entries): the read raised "Internal C++
    object (ViewBox) already deleted" in a slot, once per legend. The anchor's position is moot then.
    """
    from pyqtgraph.graphicsItems.GraphicsWidgetAnchor import GraphicsWidgetAnchor
    from shiboken6 import isValid

    slot_name = "_GraphicsWidgetAnchor__geometryChanged"  # the private slot anchor() connects
    original = getattr(GraphicsWidgetAnchor, slot_name)
    if getattr(original, "guarded", False):
        return False

    def geometry_changed(self: Any) -> None:
        parent = getattr(self, "_GraphicsWidgetAnchor__parent", None)
        if parent is not None and not (isValid(parent) and isValid(self)):
            return
        original(self)

    geometry_changed.guarded = True  # type: ignore[attr-defined]
    setattr(GraphicsWidgetAnchor, slot_name, geometry_changed)
    return True


def view_closed(view: Any) -> bool:
    """True once pyqtgraph's ``GraphicsView.close()`` has run on ``view``: it clears the scene, so every item it
    held (axes, labels, plots) is deleted, and a handler that still words or draws them raises. Qt may deliver a
    posted event (a language change) to such a view before it is destroyed; an exception there is fatal in
    PySide6 6.11 (its error path crashes), so the view's handlers skip their work instead."""
    return bool(getattr(view, "closed", False))
