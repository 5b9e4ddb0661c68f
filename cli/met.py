"""``jumpgammon met``: print a match equity table, published or from Tom Keith's algorithm."""

from __future__ import annotations

import argparse
import json

import numpy as np

from cli.common import add_json_argument, int_range
from cube.met import DEFAULT_MET, GNUBG_MAX_LENGTH, PUBLISHED_METS, MatchEquityTable, keith_met, met_by_name

MAX_LENGTH = GNUBG_MAX_LENGTH  # every table is extended to gnubg's longest match


def gammon_rates(text: str) -> tuple[float, float]:
    """An argparse type for ``G,B``: gammon and backgammon rates, 0 <= B <= G < 1."""
    parts = text.split(",")
    try:
        g, b = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two numbers G,B (e.g. 0.276,0.011), got {text!r}") from None
    if not (0.0 <= b <= g < 1.0):
        raise argparse.ArgumentTypeError(f"expected 0 <= B <= G < 1, got {text!r}")
    return g, b


EPILOG = """\
examples:
  jumpgammon met --length 7
  jumpgammon met --met Woolsey --length 11 --equity
  jumpgammon met --keith 0.276,0.011 --length 9"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``met`` subcommand to the top-level parser."""
    p = sub.add_parser(
        "met",
        description=(
            "Print the match-winning chances (percent) before a game: the pre-Crawford table (row: the player's "
            "points to go; column: the opponent's; the 1-away row is the Crawford game) and the post-Crawford "
            f"row (the trailer's chances against a 1-away leader). Published tables: {', '.join(PUBLISHED_METS)} "
            "(or a GNU Backgammon .xml file); --keith G,B builds Tom Keith's table from a gammon and a "
            "backgammon rate."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--length", type=int_range(1, MAX_LENGTH), default=11, help=f"match length, 1-{MAX_LENGTH}")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--met", metavar="NAME", help=f"published table or .xml file (default {DEFAULT_MET})")
    source.add_argument(
        "--keith", metavar="G,B", type=gammon_rates, help="gammon and backgammon rates, e.g. 0.276,0.011"
    )
    p.add_argument("--equity", action="store_true", help="print equities 2 MWC - 1 instead of percentages")
    add_json_argument(p)
    p.set_defaults(func=run)


def table_for(args: argparse.Namespace) -> MatchEquityTable:
    """The table the options ask for, cut to ``--length`` (errors name the option's value)."""
    if args.keith is not None:
        gammons, backgammons = args.keith
        return keith_met(gammons, backgammons, args.length)
    return met_by_name(DEFAULT_MET if args.met is None else args.met).truncated(args.length)  # '' is refused


def run(args: argparse.Namespace) -> int:
    """Run ``jumpgammon met``; returns the exit status."""
    table = table_for(args)
    if args.json:
        out = table.as_dict()
        js = {k: out[k] for k in ("name", "source", "length", "pre_crawford", "post_crawford")}
        js["given_length"] = table.given_length or table.length  # beyond it, gnubg's extension
        js["unit"] = "equity" if args.equity else "mwc"  # equity: 2 MWC - 1, as the text prints it
        if args.equity:
            js["pre_crawford"] = (2.0 * np.asarray(js["pre_crawford"]) - 1.0).tolist()
            js["post_crawford"] = (2.0 * np.asarray(js["post_crawford"]) - 1.0).tolist()
        print(json.dumps(js))
        return 0

    def cell(mwc: float) -> str:
        return f"{2.0 * mwc - 1.0:7.3f}" if args.equity else f"{100.0 * mwc:7.2f}"

    n = table.length
    unit = "equity 2 MWC - 1" if args.equity else "MWC %"
    print(f"{table.name}: {table.source}")
    print(f"pre-Crawford ({unit}; row: player's points to go, column: the opponent's; 1-away row: Crawford game)")
    print("       " + "".join(f"{j + 1:>6d}a " for j in range(n)))
    for i in range(n):
        print(f"{i + 1:>5d}a " + "".join(cell(float(v)) + " " for v in table.pre_crawford[i]))
    print(f"post-Crawford ({unit} of the trailer against a 1-away leader)")
    print("       " + "".join(f"{j + 1:>6d}a " for j in range(n)))
    print("       " + "".join(cell(float(v)) + " " for v in table.post_crawford))
    given = table.given_length or n
    if given < n:  # the rest is gnubg's extension, not the source's numbers
        print(
            f"scores beyond {given}-away are GNU Backgammon's extension of the {given}-point source (post-Crawford "
            f"from {given}-away on, by its recursion; pre-Crawford by its normal approximation)"
        )
    return 0
