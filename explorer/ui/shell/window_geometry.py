"""Window sizes that fit the screen the app opens on (a laptop, a 1024×768 or 1280×720 classroom projector)."""
from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

PREFERRED_SIZE = QSize(1280, 820)
#: Room left for the window manager's frame and title bar, which ``resize`` does not include.
FRAME_ALLOWANCE = QSize(16, 40)


def available_geometry(widget: QWidget) -> QRect | None:
    """The usable area (without task bars) of the screen ``widget`` is on, or of the primary screen."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else None


def fitting_size(available: QRect, preferred: QSize = PREFERRED_SIZE) -> QSize:
    """``preferred``, shrunk where needed so the window and its frame fit inside ``available``."""
    room = available.size() - FRAME_ALLOWANCE
    return QSize(max(1, min(preferred.width(), room.width())), max(1, min(preferred.height(), room.height())))


def open_fitted(window: QWidget, preferred: QSize = PREFERRED_SIZE) -> None:
    """Give ``window`` the preferred size, or the screen's available size if smaller, centred on it."""
    available = available_geometry(window)
    if available is None:
        window.resize(preferred)
        return
    window.resize(fitting_size(available, preferred))
    frame = window.frameGeometry()
    frame.moveCenter(available.center())
    window.move(frame.topLeft())


def clamp_to_screen(window: QWidget) -> None:
    """Shrink and move a restored ``window`` so it lies within the available screen area."""
    available = available_geometry(window)
    if available is None or window.isMaximized() or window.isFullScreen():
        return
    size = fitting_size(available, window.size())
    if size != window.size():
        window.resize(size)
    geometry = window.frameGeometry()
    if not available.contains(geometry):
        left = min(max(geometry.left(), available.left()), max(available.left(), available.right() - geometry.width()))
        top = min(max(geometry.top(), available.top()), max(available.top(), available.bottom() - geometry.height()))
        window.move(left, top)
