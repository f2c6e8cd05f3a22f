"""Presenter mode: the window full screen, with fonts and line widths scaled for a projector (1.25×–2×).

The application font is scaled (widgets and plot axes follow it); widgets with a font of their own, plot
labels and curve pens are scaled from the sizes they had, remembered per item, so leaving restores them. On a
small screen the formula boxes fold first and the navigation list shows only numbers; no plot gets smaller than
:data:`MIN_PLOT` (the panel scrolls).
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractSlider, QApplication, QGraphicsTextItem, QGraphicsView, QTabBar, QWidget

from explorer.ui.settings import PRESENTER_SCALES
from explorer.ui.theme import repolish_style_sheets

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

SCALES = PRESENTER_SCALES
_BASE_PT = "explorer_presenter_base_pt"  # dynamic property: a widget's own point size before scaling
_BASE_MIN_W = "explorer_presenter_base_min_width"  # its minimum width before scaling, and as last scaled
_APPLIED_MIN_W = "explorer_presenter_applied_min_width"
_BASE_MIN_PLOT = "explorer_presenter_base_min_plot"  # a plot's minimum size (w, h) before presenter mode
_SCALED = "explorer_presenter_scaled"  # dynamic property: apply_to has scaled this root at a factor other than 1
MIN_PLOT = QSize(300, 200)  # the smallest plot still readable on a projector
FOLD_BELOW_PX = 720  # the formula boxes fold while the window, measured in unscaled pixels, is lower than this
NARROW_BELOW_PX = 1000  # the navigation list shows only numbers while the window, so measured, is narrower
_FOLLOWS_APP = 0x5E4  # QGraphicsItem data key: whether a text item follows the application font


def clamp_scale(value: float) -> float:
    """``value`` limited to the presenter range [1.25, 2]."""
    return min(max(float(value), SCALES[0]), SCALES[-1])


class Presenter(QObject):
    """Full screen and scaling for one main window; :meth:`apply_to` scales panels built later.

    Signals
    -------
    fold_wanted(bool): the formula boxes should fold (True: presenting on a screen too low for them and the
    plots) or go back to how the user left them (False).
    narrow_wanted(bool): the navigation list should show only the panel numbers (True: presenting on a screen
    too narrow for it beside the panels) or its titles in the width it had (False).
    """

    fold_wanted = Signal(bool)
    narrow_wanted = Signal(bool)

    def __init__(self, window: QMainWindow, scale: float = 1.5) -> None:
        super().__init__(window)
        self._window = window
        self.active = False
        self.scale = clamp_scale(scale)
        self._app_font: QFont | None = None
        self._left_state = Qt.WindowState.WindowNoState
        self._left_geometry: QRect | None = None
        self._pens: weakref.WeakKeyDictionary[Any, tuple[float, float]] = weakref.WeakKeyDictionary()
        self._labels: weakref.WeakKeyDictionary[Any, tuple[float, float]] = weakref.WeakKeyDictionary()
        self.folding = False
        self.narrowing = False
        window.installEventFilter(self)

    @property
    def factor(self) -> float:
        """The scale in force now: :attr:`scale` while active, else 1."""
        return self.scale if self.active else 1.0

    def enter(self) -> None:
        """Go full screen and scale everything."""
        if self.active:
            return
        self.active = True
        self._left_state = self._window.windowState() & ~Qt.WindowState.WindowFullScreen
        self._left_geometry = self._window.geometry()
        self._apply_app_font()
        self.apply_to(self._window)
        self._window.showFullScreen()
        self._update_fold()

    def leave(self) -> None:
        """Restore the window state and the sizes from before :meth:`enter`."""
        if not self.active:
            return
        self.active = False
        self._update_fold()
        self._apply_app_font()
        self.apply_to(self._window)
        self._window.setWindowState(self._left_state)
        if self._left_state == Qt.WindowState.WindowNoState:
            self._window.showNormal()
            if self._left_geometry is not None:  # the scaled fonts may have grown it meanwhile
                self._window.setGeometry(self._left_geometry)

    def set_scale(self, scale: float) -> None:
        """Use ``scale`` (clamped to 1.25–2); applied at once while active."""
        self.scale = clamp_scale(scale)
        if self.active:
            self._apply_app_font()
            self.apply_to(self._window)
            self._update_fold()

    def normal_font(self) -> QFont | None:
        """The application font without the presenter scale while active (panels are built with it), else None."""
        return QFont(self._app_font) if self.active and self._app_font is not None else None

    def apply_to(self, root: QWidget) -> None:
        """Scale the own fonts of ``root``'s widgets and its plots' labels and pens to :attr:`factor`.

        A root never scaled (a panel built and kept outside presenter mode, as every panel at start-up) is already at
        the normal size: at factor 1 only its tab bars are set. Once scaled, it is walked at every factor.
        """
        for bar in root.findChildren(QTabBar):
            if bar.usesScrollButtons():
                # every tab stays in sight, whole: a bar too narrow for them widens its page (which scrolls)
                # instead of hiding the last tabs behind scroll arrows
                bar.setUsesScrollButtons(False)
                bar.setElideMode(Qt.TextElideMode.ElideNone)
        if self.factor == 1.0 and not root.property(_SCALED):
            return
        root.setProperty(_SCALED, True)
        for widget in [root, *root.findChildren(QWidget)]:
            self._scale_widget_font(widget)
            self._scale_minimum_width(widget)
        for view in root.findChildren(QGraphicsView):
            self._scale_plot_items(view)
            self._plot_minimum(view)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        # getattr: Qt may deliver a last event while the window and this object are being torn down
        if event.type() == QEvent.Type.Resize and getattr(self, "active", False) and watched is self._window:
            self._update_fold()
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ internals
    def _update_fold(self) -> None:
        """Fold the formula boxes while presenting in a window too low for them beside readable plots, and narrow
        the navigation list while it is too narrow for the list beside the panels."""
        fold = self.active and self._window.height() / self.scale < FOLD_BELOW_PX
        if fold != self.folding:
            self.folding = fold
            self.fold_wanted.emit(fold)
        narrow = self.active and self._window.width() / self.scale < NARROW_BELOW_PX
        if narrow != self.narrowing:
            self.narrowing = narrow
            self.narrow_wanted.emit(narrow)

    def _plot_minimum(self, view: QGraphicsView) -> None:
        """While presenting, a plot keeps at least :data:`MIN_PLOT` (the panel scrolls instead of squashing it);
        a deliberately small inset (its height fixed) keeps its size."""
        import pyqtgraph as pg

        if not isinstance(view, pg.GraphicsView):
            return
        base = view.property(_BASE_MIN_PLOT)
        if base is None:
            if not self.active or view.minimumHeight() == view.maximumHeight():
                return
            base = (view.minimumWidth(), view.minimumHeight())
            view.setProperty(_BASE_MIN_PLOT, base)
        width, height = (int(v) for v in base)
        if self.active:
            view.setMinimumSize(max(width, MIN_PLOT.width()), max(height, MIN_PLOT.height()))
        else:
            view.setMinimumSize(width, height)
            view.setProperty(_BASE_MIN_PLOT, None)

    def _apply_app_font(self) -> None:
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        if self._app_font is None:
            self._app_font = QFont(app.font())
        font = QFont(self._app_font)
        if font.pointSizeF() > 0:
            font.setPointSizeF(self._app_font.pointSizeF() * self.factor)
        else:
            font.setPixelSize(round(self._app_font.pixelSize() * self.factor))
        app.setFont(font)
        repolish_style_sheets(self._window)  # a style sheet fixes the font it was polished with
        if not self.active:
            self._app_font = None  # the next enter starts from the font in force then

    def _scale_widget_font(self, widget: QWidget) -> None:
        font = widget.font()
        explicit = widget.testAttribute(Qt.WidgetAttribute.WA_SetFont)  # else it follows its parent or the app
        base = widget.property(_BASE_PT)
        if base is None:
            if not explicit or font.pointSizeF() <= 0 or self.factor == 1.0:
                return  # follows the application font
            base = font.pointSizeF()
            widget.setProperty(_BASE_PT, base)
        font.setPointSizeF(float(base) * self.factor)
        widget.setFont(font)

    def _scale_minimum_width(self, widget: QWidget) -> None:
        """A minimum width set for text of the normal size (a column, a label) grows with the text."""
        if isinstance(widget, (QGraphicsView, QAbstractSlider)):
            return  # a plot's minimum is `_plot_minimum`'s; a slider holds no text (its track only gets longer)
        now = widget.minimumWidth()
        base, applied = widget.property(_BASE_MIN_W), widget.property(_APPLIED_MIN_W)
        if base is None or now != applied:  # first seen, or its owner set a new minimum since
            if now <= 0 or self.factor == 1.0:
                return
            base = now
        target = round(int(base) * self.factor)
        widget.setProperty(_BASE_MIN_W, int(base))
        widget.setProperty(_APPLIED_MIN_W, target)
        if target != now:
            widget.setMinimumWidth(target)

    def _scale_plot_items(self, view: QGraphicsView) -> None:
        import pyqtgraph as pg

        items = view.scene().items()
        refonted = [self._follow_app_font(item) for item in items if isinstance(item, QGraphicsTextItem)]
        # Texts are measured again in the font they follow only when one changed: a plot built in the font in force
        # (every panel built outside presenter mode) is not laid out twice
        for item in items if any(refonted) else ():
            if isinstance(item, pg.AxisItem) and item.label is not None:
                item.label.setHtml(item.labelString())
                item.resizeEvent()
            elif isinstance(item, pg.LabelItem) and not item.opts.get("size") and item.text:
                item.setText(item.text)
        for item in items:
            if isinstance(item, pg.LabelItem):
                self._scale_label(item)
            elif isinstance(item, (pg.PlotDataItem, pg.InfiniteLine)) or (
                    isinstance(item, pg.PlotCurveItem) and not isinstance(item.parentItem(), pg.PlotDataItem)):
                self._scale_pen(item)
        for item in items:
            if isinstance(item, pg.LegendItem):
                _fit_legend(item)

    def _follow_app_font(self, item: QGraphicsTextItem) -> bool:
        """A plot's text item (an axis caption, a label's text) takes the application font when it is made and
        keeps it; one made with the normal or the scaled application font gets the one in force now. Returns whether
        it changed the item's font."""
        app = QApplication.instance()
        normal = self._app_font if self._app_font is not None else app.font() if isinstance(app, QApplication) else None
        font = item.font()
        if normal is None or normal.pointSizeF() <= 0 or font.pointSizeF() <= 0:
            return False
        follows = item.data(_FOLLOWS_APP)
        if follows is None:
            sizes = (normal.pointSizeF(), normal.pointSizeF() * self.scale)
            follows = any(abs(font.pointSizeF() - pt) < 0.01 for pt in sizes)
            item.setData(_FOLLOWS_APP, follows)
        wanted = normal.pointSizeF() * self.factor
        if follows and abs(font.pointSizeF() - wanted) > 0.01:
            font.setPointSizeF(wanted)
            item.setFont(font)
            return True
        return False

    def _scale_label(self, item: Any) -> None:
        size = str(item.opts.get("size") or "")
        wanted = getattr(item, "_wanted_pt", None)  # a FittingTitle shows less than it wants when it is narrow
        if isinstance(wanted, (int, float)):
            now = float(wanted)
        elif size.endswith("pt"):
            try:
                now = float(size[:-2])
            except ValueError:
                return
        else:
            return  # no size of its own: it follows the application font
        base, applied = self._labels.get(item, (now, now))
        if abs(now - applied) > 1e-6:
            base = now  # its owner set a new size since: that is the size to scale
        target = base * self.factor
        self._labels[item] = (base, target)
        if abs(target - now) > 1e-6:
            item.setText(item.text, size=f"{target:g}pt")

    def _scale_pen(self, item: Any) -> None:
        opts = getattr(item, "opts", None)
        pen = opts.get("pen") if isinstance(opts, dict) else getattr(item, "pen", None)
        if pen is None or not hasattr(pen, "widthF") or pen.style() == Qt.PenStyle.NoPen:
            return
        now = pen.widthF()
        base, applied = self._pens.get(item, (now, now))
        if abs(now - applied) > 1e-6:
            base = now
        target = max(base, 1.0) * self.factor if self.factor != 1.0 else base
        self._pens[item] = (base, target)
        if abs(target - now) > 1e-6:
            scaled = type(pen)(pen)
            scaled.setWidthF(target)
            item.setPen(scaled)


def _fit_legend(legend: Any) -> None:
    """Shrink (or grow) a legend to its labels as they are now: pyqtgraph sizes it from the geometry its rows
    had, so a legend whose labels got smaller again (leaving presenter mode) would keep its presenter size."""
    legend.layout.invalidate()
    legend.resize(legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize))
    legend.layout.activate()
    legend.updateSize()
