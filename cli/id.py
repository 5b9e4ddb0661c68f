"""``jumpgammon id``: write gnubg position and match IDs from readable fields, and read IDs back into them."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.common import add_json_argument, int_range
from cube.states import CubeState
from engine import FibsBoard, GameState, MatchState, Position, board_text, parse_id_pair
from engine.match import BARE_ID_STATE, JACOBY_OFF_BIT, MAX_CUBE

# The state of a bare position ID, as gnubg's ``show board`` draws it: a money game, player 1 (X) on roll.
RESIGNATIONS = ("none", "single", "gammon", "backgammon")
# Nobody owns the cube: spelled as the cube state everywhere else ("centered"); gnubg's "centre" is read too.
CENTERED = CubeState.CENTERED.value
OWNERS = (CENTERED, "0", "1")
OWNER_ALIASES = {"centre": CENTERED}

# The opening position, player "You" to play 21: a FIBS board for the examples.
FIBS_EXAMPLE = (
    "board:You:Opponent:9999:0:0:0:2:0:0:0:0:-5:0:-3:0:0:0:5:-5:0:0:0:3:0:5:0:0:0:0:-2:0"
    ":1:2:1:0:0:1:1:1:0:1:1:25:0:0:0:0:0:2:0:0:0"
)
EPILOG = f"""\
The position ID is the board as the side on roll sees it; --on-roll says which player that side is
(0 = O at the top, 1 = X at the bottom, as 'jumpgammon show' draws them). Options change the fields of
the given ID (or of a bare position: a money game, cube 1 centred, player 1 on roll, no dice, Jacoby
rule on; --match-length N turns the Jacoby flag off, as gnubg writes it in matches; dice are kept high
first, as gnubg's 'set dice' keeps them); the output ends with the options that rebuild the same IDs.

examples:
  jumpgammon id 4HPwATDgc/ABMA:QYkqASAAIAAA                read an ID pair into its fields
  jumpgammon id --match-length 7 --score 2-4 --dice 5 2    the starting position at 2-4 to 7, 52 rolled
  jumpgammon id 4HPwATDgc/ABMA --cube-value 2 --cube-owner 0  a money game, player 0 owning a 2-cube
  jumpgammon id --match-length 5 --score 4-2 --crawford    the Crawford game

the IDs of a FIBS board (its side on roll is player 1), here the opening with 21 to play:
  jumpgammon id --fibs {FIBS_EXAMPLE}
"""


def score(text: str) -> tuple[int, int]:
    """An argparse type for a score ``S0-S1``: player 0's points, then player 1's."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected S0-S1 (player 0's points, then player 1's), got {text!r}")
    return int(parts[0]), int(parts[1])


def cube_value(text: str) -> int:
    """An argparse type for a cube value: a power of two from 1 to MAX_CUBE."""
    value = int_range(1, MAX_CUBE)(text)
    if value & (value - 1):
        raise argparse.ArgumentTypeError(f"expected a power of two from 1 to {MAX_CUBE}, got {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``id`` subcommand."""
    p = sub.add_parser(
        "id",
        description="Build gnubg position and match IDs from a position (ID or FIBS board) and readable match "
        "fields, or read an ID pair back into those fields.",
        epilog=EPILOG,
    )
    p.add_argument("id", metavar="POSITIONID[:MATCHID]", nargs="?", default=None, help="(default: the start)")
    p.add_argument("--fibs", metavar="BOARD", default=None, help="take the position and the match from a FIBS board")
    p.add_argument("--match-length", type=int_range(0, 32767), default=None, metavar="N", help="0: a money game")
    p.add_argument("--score", type=score, default=None, metavar="S0-S1", help="player 0's points, then player 1's")
    p.add_argument("--cube-value", type=cube_value, default=None, metavar="N", help="the cube's value")
    p.add_argument(
        "--cube-owner",
        type=lambda text: OWNER_ALIASES.get(text, text),
        choices=OWNERS,
        default=None,
        help="who owns the cube (gnubg's spelling centre is read as centered)",
    )
    p.add_argument("--on-roll", type=int_range(0, 1), default=None, metavar="0|1", help="the player on roll")
    p.add_argument(
        "--turn",
        type=int_range(0, 1),
        default=None,
        metavar="0|1",
        help="the player to act (default: the one on roll, or the other one when a double is offered)",
    )
    p.add_argument("--dice", type=int_range(0, 6), nargs=2, default=None, metavar=("A", "B"), help="0 0: not rolled")
    p.add_argument("--crawford", action=argparse.BooleanOptionalAction, default=None, help="the Crawford game")
    p.add_argument(
        "--jacoby", action=argparse.BooleanOptionalAction, default=None, help="the Jacoby rule (money games)"
    )
    p.add_argument("--doubled", action=argparse.BooleanOptionalAction, default=None, help="a double is offered")
    p.add_argument("--resigned", choices=RESIGNATIONS, default=None, help="a resignation offered")
    p.add_argument("--game-state", choices=[s.name.lower() for s in GameState], default=None, help="the game's state")
    add_json_argument(p)
    p.set_defaults(func=run)


def base_state(args: argparse.Namespace) -> tuple[Position, MatchState]:
    """The position and match state the options change: of the ID, the FIBS board, or the start."""
    if args.fibs is not None:
        if args.id is not None:
            raise ValueError("give a POSITIONID[:MATCHID] or --fibs BOARD, not both")
        board = FibsBoard.parse(args.fibs)
        return board.position(), board.match_state()
    if args.id is None:
        return Position.initial(), BARE_ID_STATE
    position, match = parse_id_pair(args.id, playable=False)
    return position, match if match is not None else BARE_ID_STATE


def build(args: argparse.Namespace) -> tuple[Position, MatchState]:
    """The position and the match state with every field the options give changed (InvalidMatchState if bad)."""
    position, m = base_state(args)
    changes: dict[str, Any] = {}
    if args.match_length is not None:
        changes["match_length"] = args.match_length
    if args.score is not None:
        changes["score"] = args.score
    if args.cube_value is not None:
        changes["cube"] = args.cube_value
    if args.cube_owner is not None:
        changes["cube_owner"] = None if args.cube_owner == CENTERED else int(args.cube_owner)
    if args.on_roll is not None:
        changes["on_roll"] = args.on_roll
    if args.dice is not None:
        changes["dice"] = (max(args.dice), min(args.dice))  # high first, as gnubg's ``set dice`` keeps them
    if args.crawford is not None:
        changes["crawford"] = args.crawford
    jacoby = args.jacoby if args.jacoby is not None else None if args.match_length is None else args.match_length == 0
    if jacoby is not None:  # gnubg writes the flag off in matches, where the rule does not apply
        changes["extra_bits"] = (m.extra_bits & ~JACOBY_OFF_BIT) | (0 if jacoby else JACOBY_OFF_BIT)
    if args.doubled is not None:
        changes["doubled"] = args.doubled
    if args.resigned is not None:
        changes["resigned"] = RESIGNATIONS.index(args.resigned)
    if args.game_state is not None:
        changes["game_state"] = GameState[args.game_state.upper()]
    if args.turn is not None:
        changes["turn"] = args.turn
    elif {"on_roll", "doubled"} & set(changes):
        on_roll = changes.get("on_roll", m.on_roll)
        changes["turn"] = 1 - on_roll if changes.get("doubled", m.doubled) else on_roll
    return position, m.with_(**changes) if changes else m


def fields(m: MatchState) -> dict[str, Any]:
    """The readable fields of a match state, named as the options that set them."""
    return {
        "match_length": m.match_length,
        "score": list(m.score),
        "cube_value": m.cube,
        "cube_owner": CENTERED if m.cube_owner is None else m.cube_owner,
        "on_roll": m.on_roll,
        "turn": m.turn,
        "dice": list(m.dice),
        "crawford": m.crawford,
        "jacoby": m.jacoby,
        "doubled": m.doubled,
        "resigned": RESIGNATIONS[m.resigned],
        "game_state": GameState(m.game_state).name.lower(),
    }


def rebuild_options(position: Position, m: MatchState) -> list[str]:
    """Arguments of ``jumpgammon id`` that give this position and match state again (defaults left out)."""
    f, bare = fields(m), fields(BARE_ID_STATE)
    out = [position.id]
    for name in ("match_length", "score", "cube_value", "cube_owner", "on_roll", "dice"):
        if f[name] != bare[name]:
            value = f[name]
            if name == "score":
                out += ["--score", f"{value[0]}-{value[1]}"]
            else:
                out += [f"--{name.replace('_', '-')}", *(map(str, value) if name == "dice" else [str(value)])]
    bare["jacoby"] = m.match_length == 0  # what --match-length alone gives
    for name in ("crawford", "jacoby", "doubled"):
        if f[name] != bare[name]:
            out.append(f"--{'' if f[name] else 'no-'}{name}")
    for name in ("resigned", "game_state"):
        if f[name] != bare[name]:
            out += [f"--{name.replace('_', '-')}", f[name]]
    derived = 1 - m.on_roll if m.doubled else m.on_roll
    if m.turn != derived:
        out += ["--turn", str(m.turn)]
    return out


def _playable_problem(m: MatchState) -> str | None:
    """Why no game can be in this state (see MatchState.check_playable), or None."""
    try:
        m.check_playable()
    except ValueError as exc:
        return str(exc)
    return None


def run(args: argparse.Namespace) -> int:
    """Print the IDs and their fields; returns 0."""
    position, m = build(args)
    problem = _playable_problem(m)
    options = rebuild_options(position, m)
    if args.json:
        out = {
            "position_id": position.id,
            "match_id": m.id,
            "id": f"{position.id}:{m.id}",
            "fields": fields(m),
            "not_playable": problem,
            "options": options,
        }
        print(json.dumps(out))
        return 0
    print(board_text(position, m))
    print()
    print(format_fields(position, m))
    if problem is not None:
        print(f"note: no game can be in this state ({problem})")
    print("the same IDs: jumpgammon id " + " ".join(options))
    return 0


def format_fields(position: Position, m: MatchState) -> str:
    """The IDs and the match fields, one a line."""
    players = {0: "player 0 (O)", 1: "player 1 (X)"}
    match = f"{m.match_length}-point match" if m.match_length else "money game"
    rows = [
        ("ID pair", f"{position.id}:{m.id}"),
        ("match length", f"{m.match_length} ({match})"),
        ("score", f"{m.score[0]}-{m.score[1]} (player 0, then player 1)"),
        ("cube", f"{m.cube}, " + ("centred" if m.cube_owner is None else f"owned by {players[m.cube_owner]}")),
        ("on roll", players[m.on_roll]),
        ("turn", f"{players[m.turn]} to act"),
        ("dice", f"{m.dice[0]} {m.dice[1]}" if m.dice[0] else "not rolled"),
        ("crawford", "yes" if m.crawford else "no"),
        (
            "jacoby",
            ("on" if m.jacoby else "off") + (" (a flag only: matches have no Jacoby rule)" if m.match_length else ""),
        ),
        ("doubled", "a double is offered" if m.doubled else "no"),
        ("resigned", RESIGNATIONS[m.resigned]),
        ("game state", GameState(m.game_state).name.lower()),
    ]
    return "\n".join(f"{name:<13} {value}" for name, value in rows)
