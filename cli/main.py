"""Entry point of the ``jumpgammon`` console script.

Each subcommand lives in its own module ``cli/<name>.py`` exposing
``register(subparsers)`` (adds its parser, sets ``func``) and nothing else is required.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

# Subcommand modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("show", "eval", "hint", "cube", "bench", "train", "tournament")


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="jumpgammon",
        description="Backgammon engine, neural evaluator and doubling-cube theory.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:  # every bad-input error of the library subclasses ValueError
        if getattr(args, "json", False):
            print(json.dumps({"error": str(exc)}))
        else:
            print(f"jumpgammon {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
