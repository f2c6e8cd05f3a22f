"""Running the CLI in-process in a test: its exit code and what it printed."""
from __future__ import annotations

import pytest

from explorer.cli.main import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``attention-explorer-cli ARGV``: exit code (argparse's usage errors included), stdout, stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own refusal
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
