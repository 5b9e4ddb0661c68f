"""``jumpgammon show ID``: print a position as GNU Backgammon's ``show board`` does, or its XGID."""

from __future__ import annotations

import argparse
import json

from cli.common import ID_METAVAR
from engine import board_text, parse_id_pair
from engine.errors import InvalidMatchState
from engine.match import BARE_ID_STATE

# The state of a bare position ID, as ``show`` draws it: a money game, player 1 (X) on roll, Jacoby rule on.


EPILOG = """\
examples:
  jumpgammon show 4HPwATDgc/ABMA
  jumpgammon show 4HPwATDgc/ABMA:cAkZAAAAAAAA
  jumpgammon show 4HPwATDgc/ABMA --xgid

'jumpgammon id' writes the IDs of a score, a cube and dice."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``show`` subcommand."""
    p = sub.add_parser("show", epilog=EPILOG)
    p.add_argument("id", metavar=ID_METAVAR)
    p.add_argument("--xgid", action="store_true", help="print the position's XGID instead of the board")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the board, its XGID (``--xgid``) or its JSON description; returns 0."""
    position, match = parse_id_pair(args.id)
    try:
        xgid: str | None = position.to_xgid(match if match is not None else BARE_ID_STATE)
    except InvalidMatchState:  # a valid gnubg state XG cannot write (e.g. turn and roller differ)
        if args.xgid:  # asked for: the error names the state
            raise
        xgid = None
    if args.json:
        own, opp = position.pips
        print(
            json.dumps(
                {
                    "position_id": position.id,
                    "match_id": (match or BARE_ID_STATE).id,  # the match ID the board shows
                    "xgid": xgid,
                    "board": list(position.board),
                    "pips": {"on_roll": own, "opponent": opp},
                    "off": {"on_roll": position.off[0], "opponent": position.off[1]},
                    "phase": position.phase.name.lower(),
                }
            )
        )
    elif args.xgid:
        print(xgid)
    else:
        print(board_text(position, match))
    return 0
