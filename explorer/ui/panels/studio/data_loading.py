"""The studio's data loading (book §10.5 data): small built-in and task sources at once, dataset files (and
big requests) on a worker thread through ``LatestOnlyRunner``, so reading a 235k-line corpus never freezes
the GUI; the data in use stays until the new one is ready, and a newer request supersedes an older one."""
from __future__ import annotations

from PySide6.QtCore import Slot

from explorer.core.text import DatasetError
from explorer.ui.panels.studio.data_box_widget import LoadedData, LoadRequest, load_data


class StudioLoading:
    """Mixin of :class:`StudioPanel` for choosing and loading data. Uses the panel's ``data`` box, ``form``,
    ``_loader`` (a ``LatestOnlyRunner`` connected to the two ``_on_loader_*`` slots), ``_loading``,
    ``_loaded_spec``, ``_unconfirmed_files``, ``_previous_info``, ``dataset_load_finished`` and
    ``_report``/``_update_can_start``."""

    _loading: LoadRequest | None = None

    def is_loading(self) -> bool:
        """True while a dataset is read in the background (the previous one stays until it is ready)."""
        return self._loading is not None

    def _load_source(self, new_file: str | None = None) -> bool | None:
        """Load the chosen source: at once when small (True/False), else in the background (None;
        :attr:`dataset_load_finished` follows). ``new_file``: a file just added by :meth:`open_dataset`."""
        v = self.form.values()
        self._loaded_min_freq = v["min_freq"]
        request = self.data.request(v["num_steps"], v["min_freq"], v["seed"])
        if new_file is not None:
            self._unconfirmed_files.add(new_file)
        if self.data.loads_quickly():
            self._loader.cancel()  # a newer choice supersedes a file still loading
            self._loading = request
            try:
                loaded = load_data(request)
            except (DatasetError, ValueError) as exc:
                self._finish_load(None, str(exc))
                return False
            self._finish_load(loaded, None)
            return True
        self._loading = request
        self._loader.submit(load_data, request)
        self._previous_info = self._previous_info if self._previous_info is not None else self.data.info.text()
        self.data.show_loading()
        self.status_message.emit(self.data.info.text())
        self._update_can_start()
        return None

    def _finish_load(self, loaded: LoadedData | None, error: str | None) -> None:
        request, self._loading = self._loading, None
        previous_info, self._previous_info = self._previous_info, None
        refused = self._unconfirmed_files if request is None else self._unconfirmed_files - {request.spec}
        if loaded is not None:
            self.data.forget_files(refused, request.spec if request else None)
            self._unconfirmed_files = set()
            self.data.apply(loaded)
            self._loaded_spec = loaded.request.spec
            self.clear_inline_message()
            if request is not None and request.spec not in ("builtin",) and not request.spec.startswith("task:"):
                self._report(f"Loaded {loaded.source.name}.")
        elif request is not None and request.spec in self._unconfirmed_files and request.spec != self._loaded_spec:
            # a file just opened was refused: the data in use stays, and so does its description
            self.data.forget_files(self._unconfirmed_files, self._loaded_spec)
            self._unconfirmed_files = set()
            if previous_info is not None:
                self.data.show_source(previous_info)
            self._report(f"Could not load the data: {error}", error=True)
        else:
            self.data.forget_files(refused, request.spec if request else None)
            self._unconfirmed_files = set()
            self.data.apply_error(str(error))
            self._loaded_spec = None
            self._report(f"Could not load the data: {error}", error=True)
        self._update_can_start()
        self.dataset_load_finished.emit(loaded is not None)

    @Slot(object)
    def _on_loader_result_ready(self, loaded: LoadedData) -> None:
        self._finish_load(loaded, None)

    @Slot(str)
    def _on_loader_failed(self, message: str) -> None:
        self._finish_load(None, message)

    def open_dataset(self, path: str) -> bool:
        """Use a Tatoeba-style file (or zip) as the data source: read in the background; False if refused
        at once (while training). :attr:`dataset_load_finished` tells whether the file was loaded."""
        if self.is_training():
            self._report("Stop training before choosing another dataset.", error=True)
            return False
        self.data.choose_file(path)
        return self._load_source(new_file=path) is not False
