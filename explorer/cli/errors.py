"""The CLI's exit codes, its user-facing error type and the one ``error:`` line every failure becomes."""
from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_FAILED = 1  # the work itself failed (e.g. the loss became NaN)
EXIT_USAGE = 2  # bad input: arguments, files, datasets, checkpoints, configurations
EXIT_INTERRUPTED = 130  # stopped with Ctrl-C (a checkpoint is still written when --out was given)


class CliError(Exception):
    """A user-facing failure of a command, with the exit code to return."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def user_errors() -> tuple[type[BaseException], ...]:
    """The core's documented error types, whose messages are written for users (all bad input: exit 2)."""
    from explorer.core.data.readers import DatasetError
    from explorer.core.inspect.interface import ModelError
    from explorer.core.model.decoding import DecodingError
    from explorer.core.model.transformer import ConfigError
    from explorer.core.runs.run_dir import RunDirError
    from explorer.core.training.checkpoint_read import CheckpointError

    return (CheckpointError, DatasetError, ConfigError, DecodingError, RunDirError, ModelError)


def fail(message: str, code: int = EXIT_USAGE) -> int:
    """Print one ``error:`` line on stderr and return ``code``."""
    line = " ".join(message.split())  # exactly one line, whatever the message held
    print(f"error: {line}", file=sys.stderr)
    return code
