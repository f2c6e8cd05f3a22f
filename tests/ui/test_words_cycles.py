"""A widget that keeps the :class:`Words` it shows (a ``self.tr`` call worded again later) makes no reference cycle
with itself: it is freed as soon as it is dropped, never later by the cyclic collector on whatever thread runs it."""
from __future__ import annotations

import gc
import weakref

from PySide6.QtWidgets import QLabel

from explorer.ui.i18n.words import Words, again


class Speaking(QLabel):
    def say(self, n: int) -> None:
        self.said = Words(lambda: self.tr("Opening {name}…").format(name=n))
        self.both = Words.formatted(lambda: self.tr("{a} and {a}"), a=self.said)
        self.setText(self.both)


def test_a_widget_keeping_its_own_words_is_freed_without_the_cyclic_collector(qapp) -> None:  # type: ignore[no-untyped-def]
    label = Speaking()
    label.say(3)
    said = label.said
    assert again(label.both) == "Opening 3… and Opening 3…"
    ref = weakref.ref(label)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        del label
        assert ref() is None  # freed by its reference count: no cycle through the Words it kept
    finally:
        if was_enabled:
            gc.enable()
    assert again(said) == "Opening 3…"  # its owner gone, a text stays as it was last worded
