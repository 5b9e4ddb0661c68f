"""Agreement with GNU Backgammon 1.07 on fixtures it wrote (tools/gnubg_fixtures)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine import MatchState, Position, board_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


MOVEGEN = _load("gnubg_movegen.json")["cases"]
MATCHIDS = _load("gnubg_matchids.json")["cases"]
BOARDS = _load("gnubg_boards.json")["cases"]


def test_fixture_sizes() -> None:
    assert len(MOVEGEN) >= 600 and len(MATCHIDS) >= 300 and len(BOARDS) >= 30


@pytest.mark.parametrize("case", MOVEGEN, ids=[f"{c['category']}-{i}" for i, c in enumerate(MOVEGEN)])
def test_children_and_notation_match_gnubg(case: dict[str, Any]) -> None:
    p = Position.from_id(case["position_id"])
    assert p.to_gnubg_board() == tuple(tuple(side) for side in case["board"])
    dice = tuple(case["dice"])
    plays = p.plays(dice)
    if not case["moves"]:  # gnubg lists nothing; we return the unmoved position
        assert len(plays) == 1 and not plays[0][0].hops and plays[0][1] == p.flip()
        return
    ours = {child.id: str(move) for move, child in plays}
    theirs = {m["child_id"]: m["move"] for m in case["moves"]}
    assert ours == theirs
    for m in case["moves"]:
        assert p.play(m["move"], dice).id == m["child_id"]


@pytest.mark.parametrize("case", MATCHIDS, ids=[c["match_id"] for c in MATCHIDS])
def test_match_ids_decode_to_gnubg_fields_and_round_trip(case: dict[str, Any]) -> None:
    m = MatchState.from_id(case["match_id"])
    assert m.id == case["match_id"]
    f = case["fields"]
    assert (m.cube, m.cube_owner, m.on_roll, m.crawford) == (f["cube"], f["cube_owner"], f["on_roll"], f["crawford"])
    assert (m.game_state, m.turn, m.doubled, m.resigned) == (f["game_state"], f["turn"], f["doubled"], f["resigned"])
    assert (m.match_length, m.score) == (f["match_length"], tuple(f["score"]))
    # gnubg 1.07 writes the higher die first whatever order its position record holds.
    assert m.dice == tuple(sorted(f["dice"], reverse=True))
    if f["jacoby"] is not None:
        assert m.jacoby == f["jacoby"]
    assert m.extra_bits in (0, 1)  # gnubg 1.07 writes only bit 66 (Jacoby off)
    assert MatchState.from_id(f"{case['position_id']}:{case['match_id']}") == m


def _dice_high_first(line: str) -> str:
    """gnubg prints the dice in rolled order, which the match ID does not keep (it stores the higher first)."""
    return re.sub(r"Rolled (\d)(\d)", lambda g: "Rolled " + "".join(sorted(g.groups(), reverse=True)), line)


@pytest.mark.parametrize("case", BOARDS, ids=[c["note"] for c in BOARDS])
def test_board_text_matches_gnubg_show_board(case: dict[str, Any]) -> None:
    p = Position.from_id(case["position_id"])
    m = MatchState.from_id(case["match_id"])
    ours = board_text(p, m, tuple(case["names"])).splitlines()
    theirs = [_dice_high_first(line.rstrip()) for line in case["show_board"].strip("\n").splitlines()]
    assert ours[: len(theirs)] == theirs
