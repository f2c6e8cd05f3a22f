"""The ``attention-explorer-cli`` entry point: parse, run one command, and turn every failure into ONE
``error: …`` line and an exit code (0 ok, 1 failed, 2 bad input, 130 interrupted; DESIGN rule 8)."""
from __future__ import annotations

import sys
import tempfile
import traceback
from typing import Sequence

from explorer.cli.errors import EXIT_FAILED, EXIT_INTERRUPTED, CliError, fail, user_errors
from explorer.cli.parser import COMMANDS, build_parser, given_options


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 training failed, 2 bad input, 130 interrupted)."""
    _tolerant_streams()
    tokens = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(tokens[0] if tokens else None)  # one command's parser: no other command's imports
    args = parser.parse_args(tokens)
    # a resumed run must know which settings were asked for, not defaulted
    args.given = given_options(parser.command_parsers[args.command], tokens)  # type: ignore[attr-defined]
    try:
        return int(COMMANDS[args.command].run(args))
    except user_errors() as exc:
        return fail(str(exc))
    except CliError as exc:
        return fail(str(exc), exc.code)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except Exception as exc:  # a bug: one line for the user, the traceback kept in a file for a report
        return fail(f"unexpected {type(exc).__name__}: {exc} (the details are in {_traceback_file()})", EXIT_FAILED)


def _traceback_file() -> str:
    """Write the exception being handled to a new log file; its path (or why there is none)."""
    try:
        with tempfile.NamedTemporaryFile("w", prefix="attention-explorer-cli-", suffix=".log", delete=False,
                                         encoding="utf-8") as log:
            traceback.print_exc(file=log)
            return log.name
    except OSError as exc:
        return f"no log file: {exc.strerror or exc}"


def _tolerant_streams() -> None:
    """French text on a console that is not UTF-8 (e.g. a cp437 pipe) prints with '?' instead of crashing."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        reconfigure = getattr(stream, "reconfigure", None)
        if encoding != "utf8" and callable(reconfigure):
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass


if __name__ == "__main__":
    sys.exit(main())
