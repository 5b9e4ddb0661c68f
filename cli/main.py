"""Entry point of the ``jumpgammon`` console script.

Each subcommand lives in its own module ``cli/<name>.py`` exposing ``register(subparsers)``
(adds its parser, sets ``func``). Every error, argparse's included, is one line and exit
code 2; with ``--json`` it is ``{"error": ...}`` on stdout, which then holds only JSON.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

# Subcommand modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = (
    "show",
    "eval",
    "hint",
    "cube",
    "met",
    "bench",
    "train",
    "supervised",
    "label",
    "weights",
    "tournament",
    "rollout",
    "experiment",
)


class UsageError(Exception):
    """A command line argparse refused; carries its one-line message."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises :class:`UsageError` instead of printing usage and exiting.

    Abbreviated options are refused, so ``--json`` is always spelled out and the error format
    (decided before parsing) matches the output format.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every subcommand registered."""
    parser = Parser(prog="jumpgammon", description="Backgammon engine, neural evaluator and doubling-cube theory.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        importlib.import_module(f"cli.{name}").register(sub)
    return parser


def _fail(message: str, as_json: bool) -> int:
    """Report one error in one line (JSON on stdout, else text on stderr); returns exit status 2."""
    one_line = " ".join(message.split())
    if as_json:
        print(json.dumps({"error": one_line}))
    else:
        print(one_line, file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status (0 done, 2 bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        return _fail(str(exc), as_json)
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as exc:  # every bad-input error of the library subclasses ValueError
        return _fail(f"jumpgammon {args.command}: error: {exc}", as_json)
    except KeyboardInterrupt:
        return _fail(f"jumpgammon {args.command}: interrupted", as_json) + 128


if __name__ == "__main__":
    sys.exit(main())
