"""``jumpgammon analyse FILE``: every checker play, cube decision and roll of a match or session judged, as gnubg does.

FILE is a Jellyfish ``.mat`` file (gnubg's ``export match mat``, ``tournament --mat``, the servers'),
gnubg's own ``.sgf`` match file, or the JSON lines of ``tournament --save``. Output: a text report,
``--json`` (every decision with its ranked alternatives), ``--html FILE`` (one self-contained page
with a graph per game).
"""

from __future__ import annotations

import argparse
import json

from analysis.analyse import analyse_file
from analysis.cubemodel import money_cube_model
from analysis.html import render_html, require_plotting
from analysis.report import format_text, to_json
from cli.common import PLIES, add_json_argument, add_met_argument, check_output_file, existing_file, int_range, path_arg
from cube.met import met_by_name
from nets import load_evaluator
from nets.weights import write_atomic


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``analyse`` subcommand."""
    p = sub.add_parser(
        "analyse",
        help="analyse a match or session file (.mat, gnubg .sgf, tournament --save lines): errors, luck, ratings",
        description=(
            "Judge every checker play and cube decision of a match or money session, and the luck of every roll, "
            "as GNU Backgammon's 'analyse match' does: errors marked doubtful, bad or very bad, cube errors by "
            "gnubg's classes, each player's error rate, PR and rating band. Reads Jellyfish .mat files, gnubg's "
            ".sgf match files and the JSON lines of 'tournament --save'."
        ),
    )
    p.add_argument("file", type=existing_file, metavar="FILE", help="a .mat, .sgf or tournament --save file")
    p.add_argument("--plies", type=PLIES, default=0, help="depth of checker and cube analysis, 0-2 (default 0)")
    p.add_argument("--weights", type=existing_file, default=None, help="weights file (default: the shipped net)")
    p.add_argument(
        "--alternatives",
        type=int_range(1, 100),
        default=5,
        metavar="N",
        help="ranked plays kept per move in --json and --html (default 5, plus the play made)",
    )
    p.add_argument(
        "--cube",
        default="gnubg",
        metavar="MODEL",
        help=(
            "money cube model for cubeful equities and cube decisions: gnubg (default), dead, live, janowski:X, "
            "janowski:X1,X2, jump:ALPHA[:APPROXIMATION]; at a match score only gnubg"
        ),
    )
    p.add_argument(
        "--workers",
        type=int_range(1, 256),
        default=1,
        metavar="N",
        help=(
            "processes sharing the evaluations beyond 0 ply (default 1; --workers 2 uses two cores); "
            "the report is the same"
        ),
    )
    p.add_argument("--html", type=path_arg, default=None, metavar="FILE", help="also write a self-contained HTML page")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_met_argument(p)
    add_json_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Analyse the file and print the report; returns 0."""
    check_output_file(args.html, "--html")
    if args.html is not None:
        require_plotting()  # before the analysis, which takes minutes on a long file
    cube = money_cube_model(args.cube)
    met = met_by_name(args.met)
    ev = load_evaluator(args.weights)
    weights = args.weights.name if args.weights is not None else "shipped"
    result = analyse_file(
        args.file,
        ev,
        args.plies,
        met,
        weights,
        args.alternatives,
        progress=not args.no_progress,
        cube=cube,
        workers=args.workers,
    )
    if args.html is not None:
        write_atomic(args.html, render_html(result).encode("utf-8"))
    if args.json:
        print(json.dumps(to_json(result)))
    else:
        print(format_text(result), end="")
    return 0
