"""Visit the main window's panels one per event-loop turn and wait until each has settled (screenshots, the
start-up benchmark, File → Export all)."""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Slot

SETTLE_POLL_MS = 50


def panel_busy(panel: QObject | None) -> bool:
    """Whether ``panel`` is still settling: it says so (``BasePanel.is_settling``: the studio reading a run it follows),
    one of its ``LatestOnlyRunner`` children is busy, or a single-shot ``QTimer`` child (a pending debounce, not a
    pacing rest) is running. None (not built) is not busy."""
    from explorer.ui.worker import PACING_TIMER, LatestOnlyRunner

    if panel is None:
        return False
    settling = getattr(panel, "is_settling", None)  # BasePanel's; a bare widget has none
    return bool(
        (settling is not None and settling())
        or any(r.is_busy() for r in panel.findChildren(LatestOnlyRunner))
        or any(t.isActive() and t.isSingleShot() and t.objectName() != PACING_TIMER  # debounces, not rests
               for t in panel.findChildren(QTimer))
    )


class PanelWalker(QObject):
    """Visits panels one per event-loop turn, waits for each to settle, then calls ``on_settled(key)``.

    A panel has settled when it is not :func:`panel_busy` and at least ``min_wait_ms`` have passed (so throttled
    redraws land), or after ``max_wait_ms``. ``panels`` (the main window, or the ``PanelAccess`` it
    hands out) is the walker's parent and answers ``show_panel(key)`` and ``panel(key)``. ``poll_ms`` is how
    often it looks: a panel is seen settled up to that long after it did.
    """

    def __init__(self, panels: Any, keys: list[str], on_settled: Callable[[str], None],
                 on_done: Callable[[], None], min_wait_ms: int = 300, max_wait_ms: int = 10_000,
                 poll_ms: int = SETTLE_POLL_MS) -> None:
        super().__init__(panels)
        self._panels = panels
        self._keys = list(keys)
        self._on_settled = on_settled
        self._on_done = on_done
        self._min_wait_ms = min_wait_ms
        self._max_wait_ms = max_wait_ms
        self._held = False
        self._stopped = False
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(poll_ms)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        """Begin with the first key on the next event-loop turn."""
        QTimer.singleShot(0, self._next)

    def hold(self) -> None:
        """Called from ``on_settled``: stay on this panel until :meth:`release` (e.g. to export it bit by bit)."""
        self._held = True

    def release(self) -> None:
        """Go on to the next panel (after :meth:`hold`) on the next event-loop turn."""
        if self._held:
            self._held = False
            QTimer.singleShot(0, self._next)

    def stop(self) -> None:
        """Visit no further panel; ``on_done`` is not called."""
        self._keys.clear()
        self._timer.stop()
        self._held = False
        self._stopped = True

    @Slot()
    def _next(self) -> None:
        if self._stopped:
            return
        if not self._keys:
            self._on_done()
            return
        self._panels.show_panel(self._keys[0])
        self._clock.start()
        self._timer.start()

    @Slot()
    def _on_timer_timeout(self) -> None:
        key = self._keys[0]
        busy = panel_busy(self._panels.panel(key))
        elapsed = self._clock.elapsed()
        if elapsed < self._max_wait_ms and (busy or elapsed < self._min_wait_ms):
            return
        self._timer.stop()
        self._keys.pop(0)
        self._on_settled(key)
        if not self._held:
            QTimer.singleShot(0, self._next)
