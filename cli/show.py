"""``jumpgammon show ID``: print a position as GNU Backgammon's ``show board`` does."""

from __future__ import annotations

import argparse
import json

from engine import board_text, parse_id_pair


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``show`` subcommand."""
    p = sub.add_parser("show", help="print the board of a POSITIONID[:MATCHID]")
    p.add_argument("id", metavar="POSITIONID[:MATCHID]")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the board (or its JSON description); returns 0."""
    position, match = parse_id_pair(args.id)
    if args.json:
        own, opp = position.pips
        print(
            json.dumps(
                {
                    "position_id": position.id,
                    "match_id": match.id if match else None,
                    "board": list(position.board),
                    "pips": {"on_roll": own, "opponent": opp},
                    "off": {"on_roll": position.off[0], "opponent": position.off[1]},
                    "phase": position.phase.name.lower(),
                }
            )
        )
    else:
        print(board_text(position, match))
    return 0
