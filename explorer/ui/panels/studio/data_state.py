"""The studio's training data as state (book §10.5 data): which source is loaded, which one is loading,
which files the user has opened, and why the last load failed. Small built-in and task sources load at
once; files and big requests load off the GUI thread, the data in use stays until the new one is ready,
and a newer request supersedes an older one. Views subscribe to :attr:`DataState.changed`."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal, Slot

from explorer.core.data.sources import DataSource
from explorer.core.data.readers import DatasetError, normalize_side
from explorer.core.data.text import tokenize
from explorer.ui.i18n.words import Words
from explorer.ui.panels.studio.data_loading import LoadedData, LoadRequest, load_data, source_label, source_name
from explorer.ui.worker import LatestOnlyRunner


class DataState(QObject):
    """The loaded training pairs and the loading in progress.

    Signals
    -------
    changed(): the source, the loading state, the offered files or the error changed.
    load_finished(bool): a request ended (only the newest one): True if loaded, False if refused.
    message_posted(object, str): text (``Words`` when worded here) and level (``info`` or ``error``) for the
        status bar / inline banner.
    """

    changed = Signal()
    load_finished = Signal(bool)
    message_posted = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.source: DataSource | None = None
        self.vocab_sizes: tuple[int, int] = (0, 0)
        self.loaded: LoadRequest | None = None  # the request whose data is in use
        self.loading: LoadRequest | None = None  # the request being read now
        self.failed: LoadRequest | None = None  # the last request refused with nothing kept in its place
        self.error: str | None = None
        self.files: list[str] = []  # dataset files offered as sources (loaded, or loading now)
        self._new_file: str | None = None
        self._references: dict[str, str] | None = None
        self._runner = LatestOnlyRunner(self)
        self._runner.result_ready.connect(self._on_runner_result_ready)
        self._runner.failed.connect(self._on_runner_failed)

    def is_loading(self) -> bool:
        return self.loading is not None

    def task(self) -> str | None:
        """The synthetic task of the data in use, or None for a translation corpus."""
        return self.loaded.task if self.loaded is not None else None

    def load(self, request: LoadRequest, new_file: bool = False) -> bool | None:
        """Load ``request``: at once when small (True/False), else in the background (None;
        :attr:`load_finished` follows). ``new_file``: a file the user has just opened."""
        superseded = self.loading
        if superseded is not None and superseded.spec != request.spec and superseded.spec == self._new_file:
            self.files = [f for f in self.files if f != superseded.spec]  # never loaded: no longer offered
            self._new_file = None
        if new_file and request.spec not in self.files:
            self.files.append(request.spec)
            self._new_file = request.spec
        self.loading = request
        if request.quick:
            self._runner.cancel()  # a newer choice supersedes a file still loading
            try:
                loaded = load_data(request)
            except (DatasetError, ValueError) as exc:
                self._finish(None, str(exc))
                return False
            self._finish(loaded, None)
            return True
        self._runner.submit(load_data, request)
        self.message_posted.emit(Words.formatted(
            lambda: self.tr("Loading {source}…"), source=source_label(request.spec)), "info")
        self.changed.emit()
        return None

    def reference_for(self, sentence: str) -> str | None:
        """The loaded data's target for ``sentence`` when it is one of its sources (for BLEU), else None."""
        if self.source is None:
            return None
        if self._references is None:
            self._references = {}
            for src, tgt in self.source.pairs:
                self._references.setdefault(src, tgt)
        return self._references.get(" ".join(tokenize(normalize_side(sentence))))

    def shutdown(self, timeout_ms: int) -> None:
        self.loading = None
        self._runner.shutdown(min(timeout_ms, 500))

    # ------------------------------------------------------------------ internals
    def _finish(self, loaded: LoadedData | None, error: str | None) -> None:
        request, self.loading = self.loading, None
        new_file, self._new_file = self._new_file, None
        if loaded is not None:
            self.source, self.vocab_sizes, self.loaded = loaded.source, loaded.vocab_sizes, loaded.request
            self.failed, self.error, self._references = None, None, None
            self.files = [f for f in self.files if f == loaded.request.spec or f != new_file]
            if request is not None and request.task is None and request.spec != "builtin":
                self.message_posted.emit(Words.formatted(lambda: self.tr("Loaded {source}."),
                    source=source_name(loaded.request.spec, loaded.source)), "info")
            else:
                self.message_posted.emit(Words.formatted(
                    lambda: self.tr("Loaded {source}."), source=source_label(loaded.request.spec)), "info")
        elif request is not None and request.spec == new_file and self.source is not None:
            # a file just opened was refused: the data in use stays
            self.files = [f for f in self.files if f != new_file]
            self.message_posted.emit(Words.formatted(
                lambda: self.tr("Could not load the data: {error}"), error=error), "error")
        else:
            if request is not None and request.spec == new_file:
                self.files = [f for f in self.files if f != new_file]
            self.source, self.loaded, self.failed, self.error = None, None, request, str(error)
            self.vocab_sizes, self._references = (0, 0), None
            self.message_posted.emit(Words.formatted(
                lambda: self.tr("Could not load the data: {error}"), error=error), "error")
        self.changed.emit()
        self.load_finished.emit(loaded is not None)

    @Slot(object)
    def _on_runner_result_ready(self, loaded: LoadedData) -> None:
        if self.loading is not None:
            self._finish(loaded, None)

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        if self.loading is not None:
            self._finish(None, message)
