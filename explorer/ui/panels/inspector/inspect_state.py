"""The inspector's model as state (book §11.7 maps of models trained elsewhere): a Hugging Face folder (or any model
``core.inspect.opening.open_model`` opens) or the studio's model on offer, and the forward passes, generations and
full-resolution heads computed for it off the GUI thread. Part of :class:`InspectorState`."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot

from explorer.core.inspect.inspection import FULL_MAPS_BUDGET
from explorer.ui.process_settings import making_lasting_objects
from explorer.ui.i18n.words import Words
from explorer.ui.worker import LatestOnlyRunner

DEFAULT_SOURCE = "The cat sat on the mat."
CHOICES = ("opened", "offer")


@dataclass
class HeadMap:
    """One head (``head`` None: the mean over heads) of an inspection at full resolution."""

    inspection: Any
    name: str
    layer: int
    head: int | None
    matrix: np.ndarray  # (queries, keys) float32


def _open_job(path: str) -> tuple[Any, Any]:
    from explorer.core.inspect.opening import open_model

    with making_lasting_objects():  # importing transformers makes ~230k objects: walked neither now nor later
        model = open_model(path)
    return model, model.describe()


def _inspect_job(model: Any, source: str, target: str | None, budget: int) -> Any:
    from explorer.core.inspect.inspection import inspect_text

    return inspect_text(model, source, target, budget=budget)


def _generate_job(model: Any, source: str, method: str, beam_width: int) -> Any:
    from explorer.core.inspect.inspection import generate_text

    return generate_text(model, source, method, beam_width)


def _head_job(model: Any, inspection: Any, name: str, layer: int, head: int | None,
              stop: threading.Event) -> HeadMap:
    from explorer.core.inspect.inspection import full_head

    return HeadMap(inspection, name, layer, head, full_head(model, inspection, name, layer, head, stop.is_set))


def checkpoint_model(record: Any) -> Any:
    """The studio's model on offer (a ``ModelRecord``) behind the inspect interface (``CheckpointModel``)."""
    from explorer.core.training.checkpoint import LoadedModel
    from explorer.core.inspect.checkpoint_model import CheckpointModel

    loaded = LoadedModel(record.model, record.model.config, record.train_config, record.src_vocab,
                         record.tgt_vocab, record.history)
    model = CheckpointModel(loaded, QCoreApplication.translate("InspectState", "the studio's model"))
    model.num_steps = int(record.num_steps)
    return model


class InspectState(QObject):
    """Which model the Inspect tab reads, and its results (:attr:`last`, drawn by the views that subscribe).

    Signals
    -------
    model_changed(object): the ``ModelInfo`` of the model inspected now (None: none), or the choices changed
        (the studio offered a model, or took it back).
    open_finished(bool): an :meth:`open` request ended: True if the model is now inspected.
    busy_changed(bool): a forward pass or generation started or ended.
    inspected(object): a ``core.inspection.Inspection`` was computed (and shown in the grid).
    head_computed(object): a :class:`HeadMap` asked for with :meth:`request_head`.
    head_failed(object): why a head could not be computed (a ``str``, ``Words`` when worded here).
    message_posted(object, str): text (a ``str``, ``Words`` when worded here) and level (``info``, ``error`` or
        ``alert``).
    """

    model_changed = Signal(object)
    open_finished = Signal(bool)
    busy_changed = Signal(bool)
    inspected = Signal(object)
    head_computed = Signal(object)
    head_failed = Signal(object)
    message_posted = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.offered: Any = None  # the studio's model on offer (a ModelRecord), or None
        self.opened: Any = None  # the model opened from a folder or file (an InspectableModel)
        self.opened_info: Any = None
        self.opened_path: str | None = None
        self.opening: str | None = None
        self.choice = "opened"
        self.source, self.target = DEFAULT_SOURCE, ""
        self.last: Any = None  # the newest Inspection
        self.maps_budget = FULL_MAPS_BUDGET  # full maps kept up to this many bytes; beyond, pooled + heads on demand
        self._offer: tuple[Any, Any] | None = None  # (record, its CheckpointModel)
        self._opener = LatestOnlyRunner(self)
        self._opener.result_ready.connect(self._on_opener_result_ready)
        self._opener.failed.connect(self._on_opener_failed)
        self._runner = LatestOnlyRunner(self)
        self._runner.result_ready.connect(self._on_runner_result_ready)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.busy_changed.connect(self.busy_changed)
        self._head_stop = threading.Event()  # set when a newer head is asked for (a mean stops between heads)
        self._heads = LatestOnlyRunner(self)
        self._heads.result_ready.connect(self._on_heads_result_ready)
        self._heads.failed.connect(self._on_heads_failed)

    # ------------------------------------------------------------------ queries
    def choices(self) -> list[tuple[str, str]]:
        """``(choice, label)`` of the models that can be inspected now."""
        out = []
        if self.opened is not None:
            out.append(("opened", f"{self.opened_info.name} ({self.opened_info.architecture})"))
        if self.offered is not None:
            out.append(("offer", self.tr("the studio's model ({origin})").format(origin=self.offered.origin)))
        return out

    def model(self) -> Any:
        """The model inspected now (an ``InspectableModel``), or None."""
        offered = self.offered
        if self.opened is not None and (self.choice == "opened" or offered is None):
            return self.opened
        if offered is None:
            return None
        if self._offer is None or self._offer[0] is not offered:
            self._offer = (offered, checkpoint_model(offered))
        return self._offer[1]

    def info(self) -> Any:
        """The ``ModelInfo`` of :meth:`model`, or None."""
        model = self.model()
        if model is None:
            return None
        return self.opened_info if model is self.opened else model.describe()

    def is_busy(self) -> bool:
        return self._runner.is_busy() or self.opening is not None

    # ------------------------------------------------------------------ requests
    def offer(self, record: Any) -> None:
        """The studio's model on offer from now on (a ``ModelRecord``; None: it has none)."""
        if record is not self.offered:
            self.offered = record
            self.model_changed.emit(self.info())  # the model on offer is one of the choices

    def open(self, path: str) -> None:
        """Open a Hugging Face model folder (or a checkpoint / run directory) in the background; on success it
        is inspected at once with the last text. A failure leaves the models as they were (message shown)."""
        self.opening = str(path)
        self._opener.submit(_open_job, str(path))
        name = Path(path).name
        self.message_posted.emit(Words(lambda: self.tr("Opening {name}…").format(name=name)), "info")

    def choose(self, choice: str) -> None:
        """Inspect the opened model (``"opened"``) or the studio's model on offer (``"offer"``)."""
        if choice not in CHOICES:
            raise ValueError(f"choice must be one of {CHOICES}, got {choice!r}")
        if choice != self.choice:
            self.choice = choice
            self.model_changed.emit(self.info())

    def inspect(self, source: str, target: str = "") -> bool:
        """One forward pass over ``source`` (and ``target``) off the GUI thread; False if there is no model."""
        model = self._require_model()
        if model is None:
            return False
        self.source, self.target = source, target
        self._runner.submit(_inspect_job, model, source, target if target.strip() else None, self.maps_budget)
        return True

    def generate(self, source: str, method: str = "greedy", beam_width: int = 4) -> bool:
        """Translate / continue ``source`` off the GUI thread and show the output's attention."""
        model = self._require_model()
        if model is None:
            return False
        self.source = source
        self._runner.submit(_generate_job, model, source, method, int(beam_width))
        return True

    def request_head(self, name: str, layer: int, head: int | None) -> None:
        """Compute one head of the newest inspection at full resolution (``head_computed`` follows)."""
        model, inspection = self.model(), self.last
        if model is None or inspection is None:
            self.head_failed.emit(Words(lambda: self.tr("there is no inspection to take the head from")))
            return
        self._head_stop.set()
        self._head_stop = threading.Event()
        self._heads.submit(_head_job, model, inspection, name, layer, head, self._head_stop)

    def shutdown(self, timeout_ms: int) -> None:
        self.opening = None
        self._head_stop.set()
        for runner in (self._opener, self._runner, self._heads):
            runner.shutdown(min(timeout_ms, 1000))

    def _require_model(self) -> Any:
        model = self.model()
        if model is None:
            self.message_posted.emit(Words(lambda: self.tr(
                "No model to inspect: open a Hugging Face model folder (Model → Open Hugging Face model folder…), "
                "open a saved model, or train one in the Transformer studio.")), "error")
        return model

    # ------------------------------------------------------------------ slots
    @Slot(object)
    def _on_opener_result_ready(self, opened: tuple[Any, Any]) -> None:
        path, self.opening = self.opening, None
        if path is None:
            return
        previous = self.opened
        self.opened, self.opened_info = opened
        self.opened_path, self.choice = path, "opened"
        if previous is not None and hasattr(previous, "forget"):
            previous.forget()  # its recorded inputs go with it
        info = self.opened_info
        self.message_posted.emit(Words(lambda: self.tr("Inspecting {name}: {summary}").format(
            name=info.name, summary=info.summary())), "info")
        self.model_changed.emit(self.opened_info)
        self.open_finished.emit(True)
        self.inspect(self.source, self.target)

    @Slot(str)
    def _on_opener_failed(self, message: str) -> None:
        path, self.opening = self.opening, None
        name = Path(path).name if path else None
        self.message_posted.emit(Words(lambda: self.tr("Could not open {name}: {error}").format(
            name=name or self.tr("the model"), error=message)), "alert")
        self.open_finished.emit(False)

    @Slot(object)
    def _on_runner_result_ready(self, inspection: Any) -> None:
        self.last = inspection
        self.inspected.emit(inspection)
        self._warn_unknown(inspection)

    def _warn_unknown(self, inspection: Any) -> None:
        """An alert when many of the tokens the user typed fell back to the model's unknown token."""
        from explorer.core.inspect.token_roles import count_unknown

        model = self.model()
        typed = inspection.target_tokens if inspection.target and not inspection.method else []
        unknown = count_unknown(model, [*inspection.source_tokens, *typed]) if model is not None else None
        if unknown is not None and unknown.many:
            self.message_posted.emit(Words(lambda: self.tr(
                "{unknown} of {total} tokens ({share:.1f} %) are the unknown token {token}: the text is not read "
                "as the model was trained (case, script, alphabet), or the tokenizer is not the model's").format(
                    unknown=unknown.unknown, total=unknown.total, share=100 * unknown.share, token=unknown.token)),
                "alert")

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self.message_posted.emit(Words(lambda: self.tr("Could not inspect the text: {error}").format(error=message)),
                                 "error")

    @Slot(str)
    def _on_heads_failed(self, message: str) -> None:
        self.head_failed.emit(message)

    @Slot(object)
    def _on_heads_result_ready(self, head_map: HeadMap) -> None:
        if head_map.inspection is self.last:  # not a head of a text since replaced
            self.head_computed.emit(head_map)
