"""The large attention view on a lazy page (the studio's and the inspector's "Attention detail" tab): what it would
have been shown is kept until the page makes it, then handed over, and every later snapshot and choice goes straight
through."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from explorer.ui.widgets.attention_detail_widget import AttentionDetail
    from explorer.ui.widgets.lazy_page import LazyPage


class LazyDetail(QObject):
    """Feeds the :class:`AttentionDetail` of ``page``: connect a snapshot signal to :meth:`show_snapshot` and a head
    choice to :meth:`select`. Until the page is made it keeps the newest snapshot and the map chosen since (a cleared
    snapshot forgets the choice, as the view does); the view made gets both, in that order.

    Create it after connecting any other handler of ``page.built`` that the view needs first (the model's info).
    """

    def __init__(self, page: LazyPage, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._page = page
        self._snapshot: Any = None
        self._head: tuple[str, int, int] | None = None
        page.built.connect(self._on_page_built)

    @Slot(object)
    def show_snapshot(self, snapshot: Any) -> None:
        """Draw ``snapshot`` in the view, or keep it for the view not made yet; None clears."""
        self._snapshot = snapshot
        if snapshot is None:
            self._head = None
        if self._page.is_built():
            self._view().show_snapshot(snapshot)

    @Slot(str, int, int)
    def select(self, kind: str, layer: int, head: int) -> None:
        """Choose the map shown, or keep the choice for the view not made yet."""
        self._head = (kind, layer, head)
        if self._page.is_built():
            self._view().select(kind, layer, head)

    def apply_theme(self, dark: bool) -> None:
        """Restyle the view if it is made (one made later takes the theme then, from its panel)."""
        if self._page.is_built():
            self._view().apply_theme(dark)

    def shutdown(self, timeout_ms: int) -> None:
        """Stop the view's workers if it is made."""
        if self._page.is_built():
            self._view().shutdown(timeout_ms)

    def _view(self) -> AttentionDetail:
        return self._page.content()  # type: ignore[return-value]

    @Slot(QWidget)
    def _on_page_built(self, view: QWidget) -> None:
        if self._snapshot is not None:  # in the order they came: the snapshot, then the map chosen in it
            view.show_snapshot(self._snapshot)  # type: ignore[attr-defined]
        if self._head is not None:
            view.select(*self._head)  # type: ignore[attr-defined]
