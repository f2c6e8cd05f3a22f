"""Light and dark themes: the Qt palette and pyqtgraph's colours, following the system by default.

pyqtgraph is imported only by the functions that restyle plots, so the shell can paint without it.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsView, QWidget

PLOT_COLOURS: dict[bool, tuple[str, str]] = {  # dark -> (background, foreground)
    False: ("#ffffff", "#202020"),
    True: ("#000000", "#d4d4d4"),
}


def system_prefers_dark() -> bool:
    """True if the platform reports a dark colour scheme (unknown counts as light)."""
    app = QGuiApplication.instance()
    if app is None:
        return False
    return app.styleHints().colorScheme() == Qt.ColorScheme.Dark


def resolve_dark(mode: str) -> bool:
    """Whether theme ``mode`` (``system``/``light``/``dark``) means dark right now."""
    if mode == "dark":
        return True
    if mode == "light":
        return False
    return system_prefers_dark()


def dark_palette() -> QPalette:
    """A dark palette for the Fusion style."""
    palette = QPalette()
    window, base, text = QColor("#2b2d30"), QColor("#1e1f22"), QColor("#dfe1e5")
    disabled = QColor("#7f8287")
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor("#313335"),
        QPalette.ColorRole.ToolTipBase: QColor("#3c3f41"),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: disabled,
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor("#3c3f41"),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff6b6b"),
        QPalette.ColorRole.Light: QColor("#4a4d50"),
        QPalette.ColorRole.Midlight: QColor("#3f4245"),
        QPalette.ColorRole.Mid: QColor("#2f3134"),
        QPalette.ColorRole.Dark: QColor("#1b1c1e"),
        QPalette.ColorRole.Shadow: QColor("#000000"),
        QPalette.ColorRole.Highlight: QColor("#3574f0"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"),
        QPalette.ColorRole.Link: QColor("#6ea6ff"),
        QPalette.ColorRole.LinkVisited: QColor("#b589ff"),
    }
    for role, colour in roles.items():
        palette.setColor(role, colour)
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


def apply_app_theme(dark: bool, root: QWidget | None = None) -> None:
    """Give the running QApplication the Fusion style and a light or dark palette (and re-polish ``root``'s)."""
    app = QApplication.instance()
    if app is None:
        return
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
    if root is not None:
        repolish_style_sheets(root)


def repolish_style_sheets(root: QWidget) -> None:
    """Polish again every widget of ``root`` (itself, its children, its dialogs) that has a style sheet: a style
    sheet keeps the palette and font it was polished with.

    Only ``root``'s own tree is walked, never ``QApplication.allWidgets()``: that list also holds widgets of
    other windows in the middle of their destruction, and wrapping one of those for Python crashed the process.
    """
    for widget in (root, *root.findChildren(QWidget)):
        if widget.styleSheet():
            widget.setStyleSheet(widget.styleSheet())


def configure_pyqtgraph(dark: bool) -> None:
    """Set pyqtgraph's default colours for plots created from now on (imports pyqtgraph, and numpy with it, with
    Python's own import: ``qt_compat.plain_imports``)."""
    from explorer.ui.qt_compat import plain_imports

    with plain_imports():
        import pyqtgraph as pg

        from explorer.ui.pyqtgraph_compat import apply_work_arounds

        apply_work_arounds()  # before the first plot

    background, foreground = PLOT_COLOURS[dark]
    pg.setConfigOptions(background=background, foreground=foreground)


def restyle_plots(root: QWidget, dark: bool) -> None:
    """Recolour the backgrounds, axes and labels of every pyqtgraph view inside ``root``."""
    import pyqtgraph as pg

    background, foreground = PLOT_COLOURS[dark]
    for view in root.findChildren(QGraphicsView):
        if not isinstance(view, pg.GraphicsView):
            continue
        view.setBackground(background)
        for item in view.scene().items():
            if isinstance(item, pg.AxisItem):
                item.setPen(foreground)
                item.setTextPen(foreground)
            elif isinstance(item, pg.LabelItem) and item.text:
                item.setText(item.text, color=foreground)
