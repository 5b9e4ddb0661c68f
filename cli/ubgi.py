"""``jumpgammon ubgi``: this engine on stdin and stdout, speaking the Universal Backgammon Interface."""

from __future__ import annotations

import argparse

from cli.common import PLIES, existing_file
from cube.met import DEFAULT_MET, met_by_name
from nets.evaluator import load_evaluator
from service.ubgi_engine import CubeModel, EngineOptions, main

EPILOG = """\
A user interface starts the engine and writes 'ubgi'; the engine answers with its id, its options and
'readyok'. Each position line (an XGID or a FIBS board:) is then answered with the best action: a move
(8/5 6/5), a blank line when no play is legal, double or roll before the dice, take or drop to a double;
'sorry' for anything it cannot do (the reason goes to stderr). 'quit' ends it. See docs/interop.md.

example:
  printf 'ubgi\\nXGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10\\nquit\\n' | jumpgammon ubgi
"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ubgi`` subcommand."""
    p = sub.add_parser(
        "ubgi",
        help="run as a UBGI engine on stdin/stdout (Universal Backgammon Interface)",
        description="Run as an engine speaking the Universal Backgammon Interface on stdin and stdout.",
        epilog=EPILOG,
    )
    p.add_argument("--plies", type=PLIES, default=0, help="lookahead depth, 0-2 (option Plies)")
    p.add_argument("--cube-model", choices=list(CubeModel), default=CubeModel.GNUBG, help="option CubeModel")
    p.add_argument("--weights", type=existing_file, default=None, help="weights file (default: the shipped net)")
    p.add_argument("--met", default=DEFAULT_MET, help=f"match equity table at a match score (default {DEFAULT_MET})")
    p.add_argument("--json", action="store_true", help="accepted for uniformity: the protocol is line-based text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve the protocol until quit or the end of input; returns 0 (2 with one line for a bad --weights or --met)."""
    load_evaluator(args.weights, bearoff=False)  # refused here, before the handshake, not "sorry" line by line
    met_by_name(args.met)
    options = EngineOptions(plies=args.plies, cube_model=CubeModel(args.cube_model), weights=args.weights, met=args.met)
    return main(options)
