"""A page (a tab, a stacked page) whose widgets are made the first time it is shown or asked for, so a panel builds
only what its first view shows."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

if TYPE_CHECKING:
    from PySide6.QtGui import QShowEvent

W = TypeVar("W", bound=QWidget)


class LazyPage(QWidget, Generic[W]):
    """Holds ``factory``'s widget, made on the first ``showEvent`` or the first call of :meth:`content`.

    ``built(content)`` is emitted once, right after the content is in the page (before it is painted): the owner
    draws what it keeps for the page then, and the shell restyles the panel (theme, palette, presenter scale).
    """

    built = Signal(QWidget)

    def __init__(self, factory: Callable[[], W], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._factory: Callable[[], W] | None = factory
        self._content: W | None = None
        self._calls: list[tuple[str, tuple[Any, ...]]] = []  # forwarded before the content was made, in order
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    def content(self) -> W:
        """The page's widget, made now if it was not yet (a test, an export or a lesson reaching into it)."""
        if self._content is None:
            factory, self._factory = self._factory, None
            if factory is None:  # asked again while the factory runs: it reached for its own page
                raise RuntimeError("LazyPage.content() called while the page is being built")
            self._content = content = factory()
            self.layout().addWidget(content)
            if self.isVisible():  # made in showEvent: Qt showed the page's children before the event
                content.show()
            calls, self._calls = self._calls, []
            for name, args in calls:  # what it would have been told so far, in the order it was said
                getattr(content, name)(*args)
            self.built.emit(content)
        return self._content

    def forward(self, name: str) -> Callable[..., None]:
        """A slot that calls the content's method ``name``, a setter of some state (a run state, the model on offer).
        Before the content exists, only each setter's latest call is kept (an older one would hold an old model's
        weights for nothing), in the order of those latest calls, and made on the content when it is made."""

        def call(*args: Any) -> None:
            if self._content is None:
                self._calls = [(kept, kept_args) for kept, kept_args in self._calls if kept != name]
                self._calls.append((name, args))
            else:
                getattr(self._content, name)(*args)

        return call

    def is_built(self) -> bool:
        """Whether the content exists (without making it)."""
        return self._content is not None

    def setVisible(self, visible: bool) -> None:  # noqa: N802 (Qt override)
        # A tab or stacked page made current is shown through here: its content is made before Qt shows the
        # page's children, so it is laid out and painted with the page.
        if visible:
            self.content()
        super().setVisible(visible)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        self.content()  # shown with a parent being shown (the current tab of a panel shown), not through setVisible
        super().showEvent(event)
