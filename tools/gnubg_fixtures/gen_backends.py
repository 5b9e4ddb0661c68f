"""Generate tests/fixtures/gnubg_backends.json: the two gnubg backends' 0-ply answers on the same positions.

The backends: the ``gnubg`` Python package in process (``players.gnubg_player``) and GNU
Backgammon 1.07 in its external mode (``players.gnubg_client.GnubgExternal``). Like
``gen_fibs_external.py`` this runs in ordinary Python and starts gnubg itself (127.0.0.1, a free
port, terminated at the end). From the repository root, with the package installed
(``pip install -e ".[gnubg]"``) and ``/usr/games/gnubg``:

    python tools/gnubg_fixtures/gen_backends.py

Positions come from seeded games of the in-process gnubg@0 against itself, with a quarter of the
plays random so that lopsided positions (doubles, passes, too good) turn up too. Each case is a
turn of those games (a position and the roll thrown there, with at least two distinct plays),
drawn by category: bar (a checker of the side on roll on the bar), bear-off (every checker of
the side on roll home; the opponent may still be behind it), race, contact. Both backends are
asked, at 0-ply, money play, Jacoby and beavers off: the play for the roll (cubeless, since the
in-process player's checker play has no cube; external mode runs with cubeful evaluation off,
which at 0-ply changes its chequer play only: its cube answers here were the same with it on),
whether the side on roll doubles (cube centred at 1, or, for a quarter of the cases, a
2-cube it owns), and whether the opponent takes that double. Their cubeless probabilities, for a
centred cube the cubeful no-double equity, and the package's 0-ply equity of both backends' plays
are recorded as well, to explain disagreements. The generator checks that every play is legal
and every cube word known (``parse_external_reply``, ``GnubgExternal``), and fails otherwise.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Any

import numpy as np

REPO_ROOT = os.getcwd()
sys.path.insert(0, REPO_ROOT)

from fixture_json import write_fixture  # noqa: E402

from cube.states import CubeAction, CubeState  # noqa: E402
from engine.batch import children_batch, flip_boards  # noqa: E402
from engine.fibs import parse_external_reply  # noqa: E402
from engine.position import GamePhase, Position  # noqa: E402
from players.base import CubeContext  # noqa: E402
from players.cube import parse_cube_spec  # noqa: E402
from players.gnubg_binding import CubeDecisionCode  # noqa: E402
from players.gnubg_client import GNUBG_RESPONSES, GnubgExternal  # noqa: E402
from players.gnubg_player import GnubgPlayer, make_gnubg_player  # noqa: E402

SEED = 20260311
OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "gnubg_backends.json")
GAMES = 60
RANDOM_PLAY = 0.25  # share of plays chosen at random in the source games
OWNED_SHARE = 0.25  # share of cases asked with a 2-cube owned by the side on roll
QUOTAS = {"contact": 35, "race": 20, "bearoff": 20, "bar": 25}


def category_of(position: Position) -> str:
    """The case category of a position (side on roll's view): bar, bearoff, race or contact."""
    b = position.array
    if b[25] > 0:
        return "bar"
    if not (b[7:26] > 0).any():
        return "bearoff"
    return "race" if position.phase == GamePhase.RACE else "contact"


def pool_of_turns(player: GnubgPlayer, rng: np.random.Generator) -> list[tuple[Position, tuple[int, int]]]:
    """(position, roll) of every turn with two or more distinct plays in seeded games, side on roll's view."""
    turns = []
    for _ in range(GAMES):
        position = Position.initial()
        while not position.is_over():
            roll = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            kids, _ = children_batch(position.array[None], np.array([roll]))
            if len(kids) >= 2:
                turns.append((position, roll))
            if rng.random() < RANDOM_PLAY:
                child = kids[rng.integers(len(kids))]
            else:
                child = player.choose_moves(position.array[None], np.array([roll]))[0]
            position = Position(child)
    return turns


def in_process_answers(player: GnubgPlayer, position: Position, roll: tuple[int, int], owned: bool) -> dict[str, Any]:
    """The package's play, probabilities and cube answers for one case."""
    board = position.array[None]
    state = np.array([CubeState.OWNED if owned else CubeState.CENTERED])
    evaluated_before = player.evaluated_moves
    child = player.choose_moves(board, np.array([roll]))[0]
    codes, equities, _ = player.cube_analysis(board, state, False, False)
    action = str(player.double_actions(board, CubeContext.money(state))[0])
    response = str(player.double_responses(flip_boards(board), CubeContext.money(state))[0])
    return {
        "move": Position(child).id,
        "move_from": "evaluation" if player.evaluated_moves > evaluated_before else "tuple",
        "probabilities": [round(float(x), 6) for x in player.probabilities(board)[0]],
        "cube_code": CubeDecisionCode(int(codes[0])).name,
        "cube_equities": [round(float(x), 6) for x in equities[0]],
        "action": action,
        "double": action == CubeAction.DOUBLE,
        "response": response,
    }


def external_answers(gnubg: GnubgExternal, position: Position, roll: tuple[int, int], owned: bool) -> dict[str, Any]:
    """gnubg 1.07's play, evaluation and cube answers for one case (its raw replies kept)."""
    cube = 2 if owned else 1
    reply = gnubg.move_reply(position, roll)
    child = parse_external_reply(reply, position, roll)  # raises IllegalMove
    evaluation = gnubg.evaluate(position, plies=0, cubeful=False)
    doubles = gnubg.double_decision(position, cube=cube, owner="player" if owned else "centre")
    take_reply = gnubg.take_decision(position, cube=cube, redouble=owned)  # raises unless take, drop or beaver
    out: dict[str, Any] = {
        "move_reply": reply,
        "move": child.id,
        "probabilities": [round(x, 6) for x in evaluation[:5]],
        "double_reply": "double" if doubles else "roll",
        "double": doubles,
        "take_reply": take_reply,
        "response": str(GNUBG_RESPONSES[take_reply]),
    }
    if not owned:
        out["cubeful_equity"] = round(gnubg.evaluate(position, plies=0, cubeful=True)[5], 6)
    return out


def main() -> None:
    rng = np.random.default_rng(SEED)
    player = make_gnubg_player(0, parse_cube_spec("gnubg"))
    turns = pool_of_turns(player, rng)
    by_category: dict[str, list[tuple[Position, tuple[int, int]]]] = {}
    seen: set[tuple[str, tuple[int, int]]] = set()
    for position, roll in turns:
        if (position.id, roll) not in seen:
            seen.add((position.id, roll))
            by_category.setdefault(category_of(position), []).append((position, roll))
    cases: list[dict[str, Any]] = []
    with GnubgExternal(plies=0, cube_plies=0, cubeful=False, jacoby=False, beavers=False) as gnubg:
        version = gnubg.version()
        settings = list(gnubg.commands)
        for category, quota in QUOTAS.items():
            pool = by_category[category]
            for k in sorted(rng.choice(len(pool), size=min(quota, len(pool)), replace=False)):
                position, roll = pool[int(k)]
                owned = bool(rng.random() < OWNED_SHARE)
                mine = in_process_answers(player, position, roll, owned)
                theirs = external_answers(gnubg, position, roll, owned)
                plays = np.array([Position.from_id(mine["move"]).array, Position.from_id(theirs["move"]).array])
                cases.append(
                    {
                        "category": category,
                        "position_id": position.id,
                        "dice": list(roll),
                        "plays": len(position.children(roll)),
                        "cube": {"value": 2, "owner": "on roll"} if owned else {"value": 1, "owner": "centre"},
                        "in_process": mine,
                        "external": theirs,
                        # The package's 0-ply equity (mover's view) of each backend's play: how close a disagreement is.
                        "move_equities": [round(float(x), 6) for x in player.mover_equities(plays)],
                    }
                )
    agreement = {
        what: [sum(c["in_process"][key] == c["external"][key] for c in cases), len(cases)]
        for what, key in (("moves", "move"), ("double", "double"), ("take", "response"))
    }
    gaps = [
        max(abs(a - b) for a, b in zip(c["in_process"]["probabilities"], c["external"]["probabilities"], strict=True))
        for c in cases
    ]
    import gnubg as gnubg_package

    out: dict[str, Any] = {
        "generator": "tools/gnubg_fixtures/gen_backends.py",
        "gnubg_package_version": gnubg_package.__version__,
        "gnubg_external_version": version.get("Software"),
        "external_settings": settings,
        "rules": {"money": True, "jacoby": False, "beavers": False, "plies": 0},
        "seed": SEED,
        "category_counts": dict(sorted(Counter(c["category"] for c in cases).items())),
        "agreement": agreement,
        "max_probability_gap": round(max(gaps), 6),
        "cases": cases,
    }
    write_fixture(OUT, out, ("cases",))
    print(
        f"wrote {OUT}: {len(cases)} cases, agreement {agreement}, max probability gap {max(gaps):.2e}", file=sys.stderr
    )


if __name__ == "__main__":
    main()
