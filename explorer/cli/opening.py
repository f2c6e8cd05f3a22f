"""How every CLI command opens its ``--model``: :func:`explorer.core.inspect.opening.open_model`, with the
commands that run our own Transformer (book §11.7) refusing, in one line, a model they cannot use."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from explorer.cli.errors import CliError
from explorer.cli.options import text_of
from explorer.cli.output import warn_unknown

if TYPE_CHECKING:
    from explorer.core.inspect.checkpoint_model import CheckpointModel
    from explorer.core.inspect.interface import AttentionResult, InspectableModel


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


def npz_path(out: str) -> str:
    """``--out`` of a command that writes an ``.npz``, refused unless it ends in ``.npz`` (numpy would append the
    suffix itself, and the user would look for the wrong file)."""
    out = str(out)
    if not out.endswith(".npz"):
        raise CliError(f"--out {out}: the file name must end in .npz")
    return out


def read_maps(args: argparse.Namespace) -> tuple[InspectableModel, AttentionResult]:
    """Open ``--model`` and read every head's attention of the given text (and ``--target``); a warning line when
    many of the user's tokens fell back to the unknown token."""
    from explorer.core.inspect.token_roles import count_unknown

    model = open_cli_model(args.model, args.device)
    result = model.attention(text_of(args, model), args.target)
    typed = result.target_tokens if args.target is not None else []  # a generated output is not the user's
    warn_unknown(count_unknown(model, [*result.source_tokens, *typed]))
    return model, result
