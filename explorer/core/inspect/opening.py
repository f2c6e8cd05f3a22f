"""Opening any inspectable model from a path (our checkpoint, a run directory, a Hugging Face folder), and its
next-token view: the one place that knows every kind of model, above the kinds themselves."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.core.inspect.interface import InspectableModel, ModelError

if TYPE_CHECKING:
    from explorer.core.inspect.step_model import StepModel


def open_model(path: str | os.PathLike[str], device: str = "cpu") -> InspectableModel:
    """Open a checkpoint file, a run directory (its last checkpoint) or a Hugging Face model folder.

    Raises a ``ValueError`` with a user-fit message (:class:`ModelError`,
    :class:`~explorer.core.training.checkpoint.CheckpointError`) for anything that is not such a model.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise ModelError(f"no such file or folder: {p}")
    if p.is_dir():
        if (p / "config.json").is_file():
            from explorer.core.inspect.hf.models import HFModel

            return HFModel.open(p, device=device)
        from explorer.core.runs.run_dir import is_run_dir, resolve_model_path

        if not is_run_dir(p):
            raise ModelError(f"{p} is not a model folder: a Hugging Face model folder holds config.json "
                             "(and weights and a tokenizer), a run directory holds run.json; an Attention "
                             "Explorer model is a .safetensors file")
        p = resolve_model_path(p)  # the run's last checkpoint (CheckpointError before its first one)
    # imported here: a Hugging Face folder needs none of the book's model, checkpoint and training code
    from explorer.core.inspect.checkpoint_model import CheckpointModel

    return CheckpointModel.open(p, device=device)


def step_model(model: InspectableModel) -> StepModel:
    """The step adapter of an opened model; :class:`ModelError` for an encoder-only model."""
    from explorer.core.inspect.checkpoint_model import CheckpointModel
    from explorer.core.inspect.step_model import CheckpointSteps

    if isinstance(model, CheckpointModel):
        return CheckpointSteps(model)
    info = model.describe()
    if info.family == "encoder-only":
        raise ModelError(f"{info.architecture} is an encoder-only model: it does not generate text, so it has "
                         "no next-token probabilities, translations or loss to measure")
    from explorer.core.inspect.hf.steps import HFSteps

    return HFSteps(model)
