"""Entry point of the ``jumpgammon`` console script.

Each subcommand lives in its own module ``cli/<name>.py`` exposing ``register(subparsers)``
(adds its parser, sets ``func``). Every error, argparse's included, is one line and exit
code 2; with ``--json`` it is ``{"error": ...}`` on stdout, which then holds only JSON. Ctrl-C
ends any command with one "interrupted" line and exit code 130 (:mod:`cli.interrupts`).

Only the module of the command asked for is imported (the others bring numba, scipy and the
nets, seconds of loading): ``jumpgammon --help`` lists the commands from ``COMMANDS`` alone.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import importlib.metadata
import json
import os
import sys
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from cli import interrupts

# Subcommand modules with their one-line summaries, in the order ``--help`` lists them.
COMMANDS: dict[str, str] = {
    "show": "print the board of a POSITIONID[:MATCHID] or an XGID",
    "id": "write position and match IDs from readable fields; read IDs back into them",
    "eval": "evaluate a POSITIONID[:MATCHID] or an XGID for the side on roll",
    "hint": "rank every legal play of a roll",
    "cube": "cube decision points and cubeful equities (Janowski / jump model)",
    "met": "print a match equity table (published, or Keith's algorithm)",
    "bench": "speed benchmarks",
    "train": "self-play TD training into a run file (resumed when it exists)",
    "supervised": "refine the nets on their own lookahead values (self-play data, then a supervised fit)",
    "label": "rollout labels: self-play positions chosen where they teach most, rolled out, in resumable shards",
    "weights": "inspect weights files; promote a training run to the shipped net",
    "tournament": "bot-vs-bot money games or matches: points per game (or match wins) with standard error",
    "rollout": "roll out a POSITIONID[:MATCHID]: equities, a cube decision or candidate plays, with standard errors",
    "experiment": "the jump-model paper's self-play experiments (resumable; JSON result and PNG plot)",
    "analyse": "analyse a match or session file (.mat, or tournament --save lines): errors, luck, ratings",
    "ubgi": "run as a UBGI engine on stdin/stdout (Universal Backgammon Interface)",
    "serve": "HTTP API (evaluate, hint, cube, rollout) and a web board at /",
}
EPILOG = """\
examples:
  jumpgammon show 4HPwATDgc/ABMA
  jumpgammon show 4HPwATDgc/ABMA:cAkZAAAAAAAA --xgid
  jumpgammon id --match-length 7 --score 2-4 --dice 5 2
  jumpgammon eval 4HPwATDgc/ABMA:cAkZAAAAAAAA --plies 1
  jumpgammon tournament --a net@0 --b pubeval --games 2000

'jumpgammon COMMAND --help' describes a command, its options and their defaults."""


class UsageError(Exception):
    """A command line argparse refused; carries its one-line message."""


class HelpFormatter(argparse.HelpFormatter):
    """Every command's help: prose wrapped, indented lines (examples) kept as written, defaults shown.

    An option's default is added as "(default: X)" unless its help already names one, or it has
    none to show (None, False: an unset value or a switch).
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out: list[str] = []
        prose: list[str] = []
        for line in [*text.splitlines(), ""]:
            if line.strip() and not line.startswith(" "):
                prose.append(line.strip())
                continue
            if prose:
                out.append(textwrap.fill(" ".join(prose), width, initial_indent=indent, subsequent_indent=indent))
                prose = []
            out.append(indent + line if line.strip() else "")
        return "\n".join(out).rstrip("\n")

    def _format_action(self, action: argparse.Action) -> str:
        if not action.help and self._shows_default(action):  # argparse writes no help line at all for these
            action = copy.copy(action)
            action.help = "(default: %(default)s)"
        return super()._format_action(action)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        return f"{text} (default: %(default)s)" if self._shows_default(action) and "default" not in text else text

    @staticmethod
    def _shows_default(action: argparse.Action) -> bool:
        """Whether an option has a default worth showing (not None, False or suppressed)."""
        return bool(action.option_strings) and not any(action.default is v for v in (None, False, argparse.SUPPRESS))


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises :class:`UsageError` instead of printing usage and exiting.

    Abbreviated options are refused, so ``--json`` is always spelled out and the error format
    (decided before parsing) matches the output format. Help uses :class:`HelpFormatter`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        option, _, problem = message.partition(": ")
        if problem == "expected one argument" and option.startswith("argument -"):
            # argparse reads a value that starts with '-' (and is not a plain number) as the next option
            name = option.removeprefix("argument ").split("/")[0]
            message += f" (if the value starts with '-', write {name}=VALUE)"
        raise UsageError(f"{self.prog}: error: {message}")


class _Commands(argparse._SubParsersAction):
    """The subcommands: each listed with its summary from ``COMMANDS``, the one place that holds it."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        kwargs["help"] = COMMANDS[name]
        return super().add_parser(name, **kwargs)


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The top-level parser: the subcommands in ``commands`` (default all) with their full parsers.

    The others get only their summary line, so their modules are not imported.
    """
    full = set(COMMANDS if commands is None else commands)
    parser = Parser(
        prog="jumpgammon",
        description="Backgammon engine, neural evaluator and doubling-cube theory.",
        epilog=EPILOG,
    )
    parser.register("action", "parsers", _Commands)
    parser.add_argument("--version", action="version", version=f"jumpgammon {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        if name in full:
            importlib.import_module(f"cli.{name}").register(sub)
        else:
            sub.add_parser(name, add_help=False)
    return parser


def _version() -> str:
    """The installed package's version ("unknown" when run from a tree that was never installed)."""
    try:
        return importlib.metadata.version("jumpgammon")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand a command line names: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def _fail(message: str, as_json: bool) -> int:
    """Report one error in one line (JSON on stdout, else text on stderr); returns exit status 2."""
    one_line = " ".join(message.split())
    if as_json:
        print(json.dumps({"error": one_line}))
    else:
        print(one_line, file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status (0 done, 2 bad input, 130 interrupted, 141 when
    stdout's reader left)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    command = _command_of(argv)
    name = command if command in COMMANDS else None
    with interrupts.guarded(name or ""):  # from the start: loading a command's modules takes seconds
        try:
            return _run(argv, name, as_json)
        except KeyboardInterrupt as exc:
            return _interrupted(name or "", str(exc), as_json)
        except Exception as exc:  # e.g. numba's SystemError around an interrupt in its unpickling
            if interrupts.caused_by_interrupt(exc):
                return _interrupted(name or "", "", as_json)
            raise


BROKEN_PIPE_STATUS = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


def _run(argv: list[str], command: str | None, as_json: bool) -> int:
    """Parse and run the command line (only ``command``'s module loaded); returns its exit status."""
    try:
        args = build_parser([command] if command is not None else []).parse_args(argv)
    except UsageError as exc:
        return _fail(str(exc), as_json)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # the reader of stdout left (``| head``): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush cannot fail again
        return BROKEN_PIPE_STATUS
    except (ValueError, OSError) as exc:  # every bad-input error of the library subclasses ValueError
        if interrupts.caused_by_interrupt(exc):
            raise
        return _fail(f"jumpgammon {args.command}: error: {exc}", as_json)


def _interrupted(command: str, detail: str, as_json: bool) -> int:
    """Report a Ctrl-C in one line (with ``detail``: what became of the work); returns exit status 130."""
    line = interrupts.interrupted_line(command, detail)
    if as_json:
        print(json.dumps({"error": line}))
    else:
        print(f"\n{line}", file=sys.stderr)
    return interrupts.INTERRUPTED_STATUS


if __name__ == "__main__":
    sys.exit(main())
