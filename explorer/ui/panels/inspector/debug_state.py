"""The inspector's debugging tools as state (book §11.5 heads, §10.8 beam search): head ablation and its sweep,
explain-a-cell, decoding steps, beam trees, a model diff and head summaries for the model of the Inspect tab,
computed off the GUI thread. Part of :class:`InspectorState`; views subscribe and call its methods."""
from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Signal, Slot

from explorer.ui.panels.inspector.inspect_state import InspectState
from explorer.ui.i18n.words import Words
from explorer.ui.worker import LatestOnlyRunner, generator_worker

Head = tuple[str, int, int]
PAIR_SOURCES = ("data", "probe", "file")
NO_MODEL = QT_TRANSLATE_NOOP("DebugState", "no model: open one in the Inspect tab (or train one in the studio) first")
#: One lock for every job on a model: they use the model's own modules (ablation hooks, recorded inputs).
_MODEL_LOCK = threading.Lock()


def _no_model() -> Words:
    """Why a tool cannot run yet, worded again when the language changes."""
    return Words(lambda: QCoreApplication.translate("DebugState", NO_MODEL))


def _locked(fn: Any, *args: Any) -> Any:
    with _MODEL_LOCK:
        return fn(*args)


def _evaluate_job(model: Any, pairs: list, heads: list[Head]) -> tuple[Any, Any]:
    from explorer.core.debug.ablation import evaluate

    baseline = evaluate(model, pairs) if heads else None
    chosen = evaluate(model, pairs, heads)
    return (baseline or chosen), chosen


def _sweep_job(model: Any, pairs: list, also_off: list[Head]) -> Any:
    """The baseline, then one evaluation per head off (as ``core.ablation.iter_sweep``), each under the model's
    lock: no ablation hook stays registered while the generator waits between heads."""
    from explorer.core.debug.ablation import evaluate
    from explorer.core.debug.head_ablation import all_heads

    with _MODEL_LOCK:
        heads = [h for h in all_heads(model.describe()) if h not in set(also_off)]
        baseline = evaluate(model, pairs, also_off)
    yield None, baseline
    for head in heads:
        with _MODEL_LOCK:
            ev = evaluate(model, pairs, [*also_off, head])
        yield head, ev


def _explain_job(model: Any, source: str, target: str | None, kind: str, layer: int, head: int, query: int,
                 key: int) -> Any:
    from explorer.core.debug.explain_cell import explain_cell

    return explain_cell(model, source, target, kind, layer, head, query, key)


def _decode_job(model: Any, source: str, choice: Any, top: int) -> Any:
    from explorer.core.debug.sampling import decode_steps
    from explorer.core.inspect.opening import step_model

    return decode_steps(step_model(model), source, choice.validate(), top=top)


def _beam_job(model: Any, source: str, width: int, length_penalty: float) -> Any:
    from explorer.core.debug.beam_tree import beam_tree
    from explorer.core.inspect.opening import step_model

    return beam_tree(step_model(model), source, beam_width=width, length_penalty=length_penalty)


def _open_job(path: str) -> Any:
    from explorer.core.inspect.opening import open_model

    return open_model(path)


def _diff_job(a: Any, b: Any, source: str, target: str | None, reference: str | None) -> Any:
    from explorer.core.debug.model_diff import diff_models

    return diff_models(a, b, source, target, reference)


class DebugState(QObject):
    """Heads switched off, sentence sets, and the debugging results for the inspected model.

    Signals
    -------
    ablated_changed(): the set of heads switched off changed (read :attr:`ablated`).
    evaluated(object): ``(baseline, with the heads off)``, two ``core.ablation.Evaluation``.
    sweep_progressed(int, int): evaluations done, total; sweep_row(object): ``(head, Evaluation)`` of the sweep (the
        first, head None, is the baseline); sweep_ended(bool): True if it ran to the end.
    explained(object): a ``CellExplanation``; decoded(object): a ``DecodeTrace``; beam_built(object): a
        ``BeamTree``; diffed(object): a ``ModelDiff``; summarized(object): ``core.head_summaries.HeadSummaries``;
        model_b_changed(str): the second model's name.
    failed(str, object): which tool (``ablation``, ``explain``, ``decode``, ``beam``, ``diff``) and why (a ``str``,
        ``Words`` when worded here).
    """

    ablated_changed = Signal()
    evaluated = Signal(object)
    sweep_progressed = Signal(int, int)
    sweep_row = Signal(object)
    sweep_ended = Signal(bool)
    explained = Signal(object)
    decoded = Signal(object)
    beam_built = Signal(object)
    diffed = Signal(object)
    summarized = Signal(object)
    model_b_changed = Signal(str)
    failed = Signal(str, object)

    def __init__(self, inspect: InspectState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.inspect = inspect
        self.data_pairs: list[tuple[str, str]] = []  # the studio's loaded pairs (set_data)
        self.task: str | None = None  # the synthetic task of those pairs, None for a corpus
        self.ablated: set[Head] = set()
        self.model_b: Any = None
        self.model_b_name = ""
        self._sweep: Any = None
        self._sweep_total = 0
        self._sweep_done = 0
        self._runners: dict[str, LatestOnlyRunner] = {}
        for tool, slot in (("ablation", self._on_ablation_result_ready), ("explain", self.explained),
                           ("decode", self.decoded), ("beam", self.beam_built), ("diff", self.diffed),
                           ("summary", self.summarized),
                           ("open", self._on_open_result_ready)):
            runner = LatestOnlyRunner(self)
            runner.result_ready.connect(slot)
            runner.failed.connect(getattr(self, f"_on_{tool}_failed"))
            self._runners[tool] = runner

    # ------------------------------------------------------------------ queries
    def set_data(self, pairs: list[tuple[str, str]], task: str | None) -> None:
        """The sentence set "data" from now on: the studio's loaded pairs and their synthetic task (or None)."""
        self.data_pairs, self.task = pairs, task

    def model(self) -> Any:
        return self.inspect.model()

    def pairs(self, source: str, count: int, path: str = "") -> list[tuple[str, str]]:
        """The sentence set: the loaded data's first ``count`` pairs, the probe pair, or a data file's.

        Raises ``ValueError`` (a message fit for users) when there is none."""
        if source == "probe":
            src, tgt = self.inspect.source.strip(), self.inspect.target.strip()
            if not src or not tgt:
                raise ValueError(Words(lambda: self.tr("the probe needs a source and a target: type both in the "
                                                       "Inspect tab")))
            return [(src, tgt)]
        if source == "file":
            from explorer.core.debug.texts import load_texts, reads_text_as_written

            if not path:
                raise ValueError(Words(lambda: self.tr("choose a data file first")))
            model = self.model()  # a model with its own tokenizer reads the file as written
            return load_texts(path, count, as_written=model is not None and reads_text_as_written(model))
        if not self.data_pairs:
            raise ValueError(Words(lambda: self.tr("no data is loaded: choose a data source in the Transformer "
                                                   "studio (or use the probe or a data file)")))
        return list(self.data_pairs[:count])

    # ------------------------------------------------------------------ requests
    def set_ablated(self, heads: set[Head]) -> None:
        if set(heads) != self.ablated:
            self.ablated = set(heads)
            self.ablated_changed.emit()

    def _submit(self, tool: str, fn: Any, *args: Any) -> bool:
        model = self.model()
        if model is None:
            self.failed.emit(tool, _no_model())
            return False
        self._runners[tool].submit(_locked, fn, model, *args)
        return True

    def evaluate(self, pairs: list[tuple[str, str]]) -> bool:
        """BLEU and loss with :attr:`ablated` off, and without (``evaluated`` follows)."""
        return self._submit("ablation", _evaluate_job, pairs, sorted(self.ablated))

    def start_sweep(self, pairs: list[tuple[str, str]]) -> bool:
        """Switch off each head in turn (with :attr:`ablated` off throughout); rows arrive as ``sweep_row``."""
        model, info = self.model(), self.inspect.info()
        if model is None or info is None:
            self.failed.emit("ablation", _no_model())
            return False
        self.cancel_sweep()
        self._sweep_total = 1 + sum(info.layers[k] * info.heads[k] for k in info.kinds) - len(self.ablated)
        self._sweep_done = 0
        worker = generator_worker(_sweep_job, model, pairs, sorted(self.ablated))
        worker.yielded.connect(self._on_sweep_yielded)
        worker.errored.connect(self._on_sweep_errored)
        worker.finished.connect(self._on_sweep_finished)
        self._sweep = worker
        worker.start()
        return True

    def cancel_sweep(self) -> None:
        if self._sweep is not None:
            self._sweep.quit()

    def explain(self, name: str, layer: int, head: int, query: int, key: int) -> bool:
        """Explain a cell of the inspection shown (``name`` as the grid's: ``encoder``, ``cross``, …)."""
        shown = self.inspect.last
        if shown is None:
            self.failed.emit("explain", Words(lambda: self.tr(
                "explaining a cell needs an inspected text: use Inspect or Generate first")))
            return False
        target = shown.target if shown.target else (shown.output if shown.method else None)
        return self._submit("explain", _explain_job, shown.source, target, name, layer, head,
                            query, key)

    def decode(self, source: str, choice: Any, top: int = 5) -> bool:
        return self._submit("decode", _decode_job, source, choice, top)

    def build_beam(self, source: str, width: int, length_penalty: float = 0.75) -> bool:
        return self._submit("beam", _beam_job, source, width, length_penalty)

    def open_model_b(self, path: str) -> None:
        """Open the second model of the diff in the background (``model_b_changed`` follows)."""
        self._runners["open"].submit(_open_job, path)

    def diff(self, source: str, target: str | None = None, reference: str | None = None) -> bool:
        if self.model_b is None:
            self.failed.emit("diff", Words(lambda: self.tr("choose the second model first")))
            return False
        return self._submit("diff", _diff_job, self.model_b, source, target or None, reference or None)

    def summarize(self, pairs: list[tuple[str, str]]) -> bool:
        """Every head's scores over ``pairs`` (``summarized`` follows); with the loaded synthetic task's alignment."""
        from explorer.core.debug.head_summaries import summarize_heads

        return self._submit("summary", summarize_heads, pairs, self.task)

    def shutdown(self, timeout_ms: int) -> None:
        self.cancel_sweep()
        for runner in self._runners.values():
            runner.shutdown(min(timeout_ms, 1000))

    # ------------------------------------------------------------------ slots
    @Slot(object)
    def _on_ablation_result_ready(self, result: Any) -> None:
        self.evaluated.emit(result)

    @Slot(object)
    def _on_open_result_ready(self, model: Any) -> None:
        self.model_b = model
        self.model_b_name = model.describe().name
        self.model_b_changed.emit(self.model_b_name)

    @Slot(object)
    def _on_sweep_yielded(self, evaluation: Any) -> None:
        self._sweep_done += 1
        self.sweep_row.emit(evaluation)
        self.sweep_progressed.emit(self._sweep_done, self._sweep_total)

    @Slot(object)
    def _on_sweep_errored(self, exc: object) -> None:
        self.failed.emit("ablation", str(exc) or type(exc).__name__)

    @Slot()
    def _on_sweep_finished(self) -> None:
        self._sweep = None
        self.sweep_ended.emit(self._sweep_done >= self._sweep_total)

    @Slot(str)
    def _on_ablation_failed(self, message: str) -> None:
        self.failed.emit("ablation", message)

    @Slot(str)
    def _on_explain_failed(self, message: str) -> None:
        self.failed.emit("explain", message)

    @Slot(str)
    def _on_decode_failed(self, message: str) -> None:
        self.failed.emit("decode", message)

    @Slot(str)
    def _on_beam_failed(self, message: str) -> None:
        self.failed.emit("beam", message)

    @Slot(str)
    def _on_diff_failed(self, message: str) -> None:
        self.failed.emit("diff", message)

    @Slot(str)
    def _on_summary_failed(self, message: str) -> None:
        self.failed.emit("summary", message)

    @Slot(str)
    def _on_open_failed(self, message: str) -> None:
        self.failed.emit("diff", Words(lambda: self.tr("could not open the second model: {error}").format(
            error=message)))
