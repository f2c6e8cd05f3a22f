"""How every CLI command opens its ``--model``: :func:`explorer.core.inspect.opening.open_model`, with the
commands that run our own Transformer (book §11.7) refusing, in one line, a model they cannot use."""
from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.cli.errors import CliError

if TYPE_CHECKING:
    from explorer.core.inspect.checkpoint_model import CheckpointModel
    from explorer.core.inspect.interface import InspectableModel


def open_cli_model(path: str, device: str = "cpu") -> InspectableModel:
    """Our checkpoint, a run directory (its last checkpoint) or a Hugging Face model folder, on ``device``.

    Raises the core's user-fit errors (``ModelError``, ``CheckpointError``, ...): the entry point prints them.
    """
    from explorer.core.inspect.opening import open_model

    return open_model(path, device=device)


def open_transformer(path: str, device: str, command: str) -> CheckpointModel:
    """Like :func:`open_cli_model`, for a command that needs the app's own Transformer (its vocabularies,
    weights and saved history); a Hugging Face model is refused with a :class:`CliError` naming ``command``."""
    from explorer.core.inspect.checkpoint_model import CheckpointModel

    model = open_cli_model(path, device)
    if not isinstance(model, CheckpointModel):
        info = model.describe()
        raise CliError(f"{command} works with an Attention Explorer model (a .safetensors file or a run directory); "
                       f"{path} is a Hugging Face {info.architecture} model: use the attention, explain, ablate or "
                       f"diff commands for it")
    return model
