"""``jumpgammon hint ID --dice A B``: every legal play ranked, like gnubg's hint."""

from __future__ import annotations

import argparse
import json

from cli.common import add_evaluation_arguments, add_met_argument, check_met_is_read, int_range
from cube.met import met_by_name
from cube.states import CubeState
from engine import InvalidDice, check_dice, parse_id_pair
from nets import load_evaluator
from nets.analysis import cube_state_of, format_moves, match_cube_of, moves_json, moves_mwc_json

EPILOG = """\
examples:
  jumpgammon hint 4HPwATDgc/ABMA --dice 3 1
  jumpgammon hint 4HPwATDgc/ABMA:cAkZAAAAAAAA --plies 1
  jumpgammon hint 4HPwATDgc/ABMA:cAmgAAAAAAAA --dice 6 5

Each play: its rank, depth, the play, its equity (at a match score: MWC) and the difference to the best,
then the five chances after it (win, gammon, backgammon - and the same for a loss)."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``hint`` subcommand."""
    p = sub.add_parser("hint", epilog=EPILOG)
    p.add_argument(
        "--dice",
        type=int_range(1, 6),
        nargs=2,
        metavar=("A", "B"),
        default=None,
        help="the roll (default: the match ID's dice)",
    )
    add_evaluation_arguments(p)
    add_met_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Rank the moves and print them; returns 0."""
    position, match = parse_id_pair(args.id)
    dice = tuple(args.dice) if args.dice else (match.dice if match else (0, 0))
    if dice == (0, 0):
        raise InvalidDice(f"{args.id!r} has no dice rolled: give --dice A B")
    d1, d2 = check_dice(dice)
    check_met_is_read(args, match)
    met = met_by_name(args.met)
    cube = match_cube_of(match, met) if match is not None and match.match_length > 0 else None
    ev = load_evaluator(args.weights)
    out: dict[str, object] = {"position_id": position.id, "dice": [d1, d2], "plies": args.plies}
    if match is not None and cube is not None:
        out.update(match_id=match.id, met=met.name, away=cube.score.away, opp_away=cube.score.opp_away)
        moves = moves_mwc_json(ev, position, (d1, d2), args.plies, met, cube)
    else:
        state, jacoby = (cube_state_of(match), bool(match.jacoby)) if match is not None else (CubeState.CENTERED, True)
        moves = moves_json(ev, position, (d1, d2), args.plies, state, jacoby)
    out["moves"] = moves
    if args.json:
        print(json.dumps(out))
    else:
        if "met" in out:
            print(f"{out['away']}-away against {out['opp_away']}-away, table {met.name}: ranked by MWC")
        print(format_moves(moves))
    return 0
