"""The CLI's argument parser, built one way: every command module in :data:`COMMANDS` adds its own subparser
(``add_parser(subparsers)``) and does its work (``run(args) -> int``)."""
from __future__ import annotations

import argparse
from types import ModuleType
from typing import NoReturn, Sequence

from explorer.cli import ablate, attention, diff, explain, inspect, rollout, summarize, timelapse, train, translate
from explorer.cli.errors import EXIT_USAGE

#: The commands, in the order ``--help`` lists them.
COMMANDS: dict[str, ModuleType] = {"train": train, "translate": translate, "inspect": inspect,
                                   "attention": attention, "ablate": ablate, "explain": explain, "diff": diff,
                                   "rollout": rollout, "summarize": summarize,
                                   "timelapse": timelapse}
PROG = "attention-explorer-cli"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is ONE line on stderr starting ``error:`` (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {message} (see '{self.prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (defaults shown in ``--help`` are the book's); each command's own parser is kept in
    ``parser.command_parsers`` (``main`` reads which of its options were given). With ``only`` (a command's name)
    just that command's parser is built: ``train``'s reads its defaults from the core's configs, which imports
    torch, and a usage error or another command's ``--help`` should not wait for that."""
    parser = _Parser(prog=PROG, description="Train, inspect and use the Transformer of Dive into Deep Learning "
                                            "§11.7.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = {only: COMMANDS[only]} if only in COMMANDS else COMMANDS
    parser.command_parsers = {name: module.add_parser(sub)  # type: ignore[attr-defined]
                              for name, module in chosen.items()}
    return parser


def given_options(parser: argparse.ArgumentParser, tokens: Sequence[str]) -> set[str]:
    """The ``dest`` of every option of ``parser`` that ``tokens`` set explicitly (abbreviations included)."""
    options = {opt: action.dest for action in parser._actions for opt in action.option_strings}
    given = set()
    for token in tokens:
        if token == "--":
            break
        if not token.startswith("--"):
            continue
        name = token.split("=", 1)[0]
        matches = [name] if name in options else [o for o in options if o.startswith(name)]
        if len(matches) == 1:
            given.add(options[matches[0]])
    return given
