"""What the studio says about a run (book §11.7 training), built from its events and state: refused, started,
translated, paused, finished, followed, replayed, or a model opened. The texts keep the catalogue context
``StudioState``, where they are translated (a ``%n`` plural stays a ``tr()`` call: lupdate reads plurals only there);
each is :class:`~explorer.ui.i18n.words.Words`, worded again when the language changes."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

from explorer.ui.i18n.words import Words, again
from explorer.ui.panels.studio.data_loading import source_label

if TYPE_CHECKING:
    from explorer.ui.panels.studio.data_state import DataState


def refused_start_text(data: DataState) -> str:
    """Why Start is refused: the data is still loading, there is none, or the studio is busy with a run."""
    if data.is_loading():
        spec = data.loading.spec
        return Words(lambda: QCoreApplication.translate(
            "StudioState", "Still loading {source}; start when it is ready.").format(source=source_label(spec)))
    if data.source is None:
        return Words(lambda: QCoreApplication.translate("StudioState", "Choose a data source first."))
    return Words(lambda: QCoreApplication.translate("StudioState", "Training is running."))


def started_text(event: Any, run_dir: Path | None) -> str:
    """A ``StartedEvent`` of a run trained here, recorded in ``run_dir`` (None: not recorded)."""
    return Words(lambda: _started(event, run_dir))


def _started(event: Any, run_dir: Path | None) -> str:
    text = (QCoreApplication.translate("StudioState", "Training on {device}: {pairs:,} pairs, {steps:,} steps, "
                                       "{parameters:,} parameters. Recording the run in {folder}.")
            if run_dir is not None else
            QCoreApplication.translate("StudioState", "Training on {device}: {pairs:,} pairs, {steps:,} steps, "
                                       "{parameters:,} parameters."))
    return text.format(device=event.device, pairs=event.num_pairs, steps=event.total_steps,
                       parameters=event.num_parameters, folder=run_dir)


def translations_text(event: Any) -> str:
    """A ``TranslationsEvent``: the first two probe translations and the mean BLEU."""
    shown = " · ".join(f"{t['src']} → {t['translation']}" for t in event.translations[:2])
    return Words(lambda: QCoreApplication.translate("StudioState", "Epoch {epoch}: {shown} (mean BLEU {bleu:.3f})"
                                                    ).format(epoch=event.epoch, shown=shown, bleu=event.bleu))


def finished_text(event: Any, loss: float, label: str) -> str:
    """A ``FinishedEvent`` (stopped or finished) with the loss shown everywhere and its label."""
    return Words(lambda: _finished(event, loss, label))


def _finished(event: Any, loss: float, label: str) -> str:
    text = (QCoreApplication.translate("StudioState", "Stopped at epoch {epoch}, step {step}: loss {loss:.4f} "
                                       "({label}), {rate:,.0f} tokens/s on {device}.") if event.stopped else
            QCoreApplication.translate("StudioState", "Finished at epoch {epoch}, step {step}: loss {loss:.4f} "
                                       "({label}), {rate:,.0f} tokens/s on {device}."))
    return text.format(epoch=event.epoch, step=event.step, loss=loss, label=again(label), rate=event.tokens_per_s,
                       device=event.device)


def stopped_text(error: str) -> str:
    """A run stopped by ``error`` (the trainer's ``ErrorEvent`` or the worker's exception)."""
    return Words(lambda: QCoreApplication.translate("StudioState", "Training stopped: {error}").format(
        error=again(error)))


def paused_text(event: Any) -> str:
    """A paused run's ``ModelStateEvent``: what the user may do with its model."""
    return Words(lambda: QCoreApplication.translate(
        "StudioState", "Paused at step {step}: translate or save the model as it is.").format(step=event.step))


def trained_origin(event: Any, failed: bool) -> str:
    """Where the model of a ``ModelStateEvent`` comes from (``failed``: the run was stopped by an error)."""
    if event.reason == "paused":
        return Words(lambda: QCoreApplication.translate("StudioState", "paused at step {step} (epoch {epoch})"
                                                        ).format(step=event.step, epoch=event.epoch))
    return Words(lambda: (
        QCoreApplication.translate("StudioState", "trained here ({steps} steps, stopped by an error)") if failed
        else QCoreApplication.translate("StudioState", "trained here ({steps} steps)")).format(steps=event.step))


def following_text(name: str) -> str:
    return Words(lambda: QCoreApplication.translate(
        "StudioState", "Following the run {name}: new steps appear as they are written.").format(name=name))


def replaying_text(name: str, speed: float) -> str:
    return Words(lambda: QCoreApplication.translate(
        "StudioState", "Replaying the run {name} at {speed}× as it was recorded: Pause, Step and Stop work as in "
        "training; a pause translates with the model the run kept before it, if any.").format(
            name=name, speed=f"{speed:g}"))


def replay_stopped_text(latest_step: Any) -> str:
    """A replay stopped by the user after ``latest_step`` (a ``StepEvent``, or None before the first)."""
    step = latest_step.step if latest_step is not None else 0
    return Words(lambda: QCoreApplication.translate("StudioState", "Replay stopped at step {step}.").format(step=step))


def opened_text(opened: Any) -> tuple[str, str]:
    """The text and level for an ``OpenedModel`` made the current model."""
    if opened.snapshot is None:
        return Words(lambda: QCoreApplication.translate(
            "StudioState", "The probe pair cannot be shown with this model: {error}").format(
                error=again(opened.probe_error))), "error"
    return Words(lambda: QCoreApplication.translate(
        "StudioState", "Model: {origin}. Translate with it in the Translate tab.").format(
            origin=again(opened.record.origin))), "info"


def replay_paused_text(step: int, kept: tuple[int, Path] | None) -> str:
    """A replay paused at ``step``: the kept model it translates with (``(epoch, path)``), or why there is none."""
    if kept is None:
        return Words(lambda: QCoreApplication.translate(
            "StudioState", "Replay paused at step {step}. This run kept no model before this step: its model "
            "arrives at the end.").format(step=step))
    return Words(lambda: QCoreApplication.translate(
        "StudioState", "Replay paused at step {step}: translate with the model as it was after epoch {epoch}."
    ).format(step=step, epoch=kept[0]))
