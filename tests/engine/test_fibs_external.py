"""FIBS boards against GNU Backgammon 1.07's external mode (fixture from tools/gnubg_fixtures/gen_fibs_external.py).

gnubg is not needed: its replies and its own reading of each board (position and match IDs from
its debug output) are in tests/fixtures/gnubg_fibs_external.json.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import FibsBoard, IllegalMove, InvalidFibsBoard, InvalidMoveText, MatchState, Position
from engine.fibs import EXTERNAL_CUBE_REPLIES, MONEY, parse_external_reply
from engine.position import GamePhase

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DATA: dict[str, Any] = json.loads((FIXTURES / "gnubg_fibs_external.json").read_text())
RECORDS: list[dict[str, Any]] = DATA["records"]
SCORE_ORDER: list[dict[str, Any]] = DATA["score_order"]
MOVES = [r for r in RECORDS if r["kind"] in ("move", "opponent_turn")]
BUILT = [r for r in RECORDS if r["context"] is not None]
IDS = [f"{r['category']}-{i}" for i, r in enumerate(RECORDS)]


def _ids(records: list[dict[str, Any]]) -> list[str]:
    return [f"{r['category']}-{RECORDS.index(r)}" for r in records]


def _from_context(position: Position, dice: tuple[int, int], ctx: dict[str, Any]) -> FibsBoard:
    kw = dict(ctx)
    kw["score"] = tuple(kw.get("score", (0, 0)))
    return FibsBoard.from_position(position, dice=dice, **kw)


def _dice(record: dict[str, Any]) -> tuple[int, int]:
    return int(record["dice"][0]), int(record["dice"][1])


def test_fixture_covers_what_was_asked() -> None:
    counts = DATA["category_counts"]
    assert len(RECORDS) >= 300 and DATA["gnubg_version"].startswith("1.07")
    for cat in (
        "opening",
        "game",
        "bar",
        "opponent_bar",
        "bearoff",
        "doubles",
        "one_play",
        "no_play",
        "double",
        "take",
    ):
        assert counts[cat] >= 10, cat
    contexts = [r["context"] for r in BUILT]
    assert {(c["color"], c["direction"]) for c in contexts} == {(-1, -1), (-1, 1), (1, -1), (1, 1)}
    assert any(c.get("crawford") for c in contexts)  # the Crawford game
    assert any(c["match_length"] not in (0, MONEY) and c["match_length"] - 1 in c["score"] and not c.get("crawford")
               for c in contexts)  # fmt: skip
    assert {c["cube"] for c in contexts} >= {1, 2, 4, 8}
    assert {(c["player_may_double"], c["opponent_may_double"]) for c in contexts} == {
        (True, True),
        (True, False),
        (False, True),
    }
    replies = {r["reply"] for r in RECORDS if r["kind"] in ("cube", "take")}
    assert replies == {"double", "roll", "take", "drop"}


@pytest.mark.parametrize("record", BUILT, ids=_ids(BUILT))
def test_our_board_is_the_one_gnubg_answered(record: dict[str, Any]) -> None:
    """What from_position writes today is byte for byte the board gnubg was sent."""
    p = Position.from_id(record["position_id"])
    assert str(_from_context(p, _dice(record), record["context"])) == record["board"]


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_board_parses_back_to_the_same_position(record: dict[str, Any]) -> None:
    fb = FibsBoard.parse(record["board"])
    assert str(fb) == record["board"]
    assert fb.position() == Position.from_id(record["position_id"])


@pytest.mark.parametrize("record", RECORDS, ids=IDS)
def test_gnubg_read_the_position_and_match_we_meant(record: dict[str, Any]) -> None:
    """gnubg's debug IDs: its side on roll ("X") and its match state match every board field."""
    fb = FibsBoard.parse(record["board"])
    p = Position.from_id(record["position_id"])
    # A pending double is shown with the side being doubled on roll (gnubg swaps back to decide).
    assert record["gnubg_position_id"] == (p.flip().id if fb.was_doubled else p.id)
    x_is_player = fb.turn == fb.color or fb.was_doubled
    x_score, o_score = (fb.player_score, fb.opponent_score) if x_is_player else (fb.opponent_score, fb.player_score)
    x_may, o_may = (
        (fb.player_may_double, fb.opponent_may_double)
        if x_is_player
        else (fb.opponent_may_double, fb.player_may_double)
    )
    m = MatchState.from_id(record["gnubg_match_id"])
    match_play = fb.match_length not in (0, MONEY)
    assert m.match_length == (fb.match_length if match_play else 0)
    assert m.score == (o_score, x_score) and m.on_roll == 1 and m.turn == 1
    assert m.cube == fb.cube and m.doubled == fb.was_doubled
    assert m.cube_owner == (None if x_may == o_may else (1 if x_may else 0))
    one_away = match_play and fb.match_length - 1 in (fb.player_score, fb.opponent_score)
    assert m.crawford == (one_away and not fb.did_crawford and not fb.redoubles)
    if record["context"] is not None and match_play:
        assert m.crawford == bool(record["context"].get("crawford"))
    dice = fb.player_dice if fb.player_dice[0] else fb.opponent_dice
    assert sorted(m.dice) == sorted(dice)


@pytest.mark.parametrize("record", MOVES, ids=_ids(MOVES))
def test_gnubg_move_is_legal_for_our_position(record: dict[str, Any]) -> None:
    """The core check: gnubg's chosen play, read back on our position, is one of its legal plays."""
    p, dice = Position.from_id(record["position_id"]), _dice(record)
    children = p.children(dice)
    child = parse_external_reply(record["reply"], p, dice)
    assert child in children
    assert p.play(record["reply"].strip(), dice) == child  # the engine's own parser agrees
    plays = p.plays(dice)
    if record["category"] == "no_play":
        assert record["reply"] == "" and child == p.flip()
    elif record["category"] == "one_play":
        assert child == plays[0][1]
    else:
        # One hop per die used, so as many hops as the legal plays have.
        assert len(record["reply"].split()) == len(plays[0][0].hops)


@pytest.mark.parametrize("record", [r for r in RECORDS if r["kind"] in ("cube", "take")])
def test_cube_replies(record: dict[str, Any]) -> None:
    fb = FibsBoard.parse(record["board"])
    assert record["reply"] in EXTERNAL_CUBE_REPLIES
    if record["kind"] == "take":
        assert record["reply"] in ("take", "drop") and fb.was_doubled and fb.turn == -fb.color
        return
    assert record["reply"] in ("double", "roll") and fb.player_dice == (0, 0)
    if record["context"].get("crawford"):
        assert record["reply"] == "roll"  # no doubling in the Crawford game


def test_gnubg_answers_cube_questions_it_may_not_double() -> None:
    """gnubg 1.07 does not check cube access: with the cube on the opponent's side (its match ID
    says so) it still answers "double" where it would like to. Callers must not ask then."""
    owned_by_opponent = [r for r in RECORDS if r["kind"] == "cube" and not r["context"]["player_may_double"]]
    assert owned_by_opponent
    for r in owned_by_opponent:
        assert MatchState.from_id(r["gnubg_match_id"]).cube_owner == 0
    assert {r["reply"] for r in owned_by_opponent} == {"double"}


OPENING_BEST = {(3, 1): "8/5 6/5", (4, 2): "8/4 6/4", (6, 1): "13/7 8/7", (5, 3): "8/3 6/3", (6, 5): "24/13"}


def test_gnubg_plays_the_book_openings_whatever_the_colour_and_direction() -> None:
    """A board read the wrong way round would give nonsense here; gnubg finds the standard plays."""
    seen = set()
    for r in RECORDS:
        dice = tuple(sorted(_dice(r), reverse=True))
        if r["category"] == "opening" and dice in OPENING_BEST:
            p = Position.initial()
            assert parse_external_reply(r["reply"], p, _dice(r)) == p.play(OPENING_BEST[dice], dice)
            seen.add(dice)
    assert seen == set(OPENING_BEST)


def test_gnubg_takes_and_drops_sensibly_in_races() -> None:
    """In races, the doubles gnubg drops come from bigger leads than the ones it takes."""

    def lead(record: dict[str, Any]) -> float:
        own, theirs = Position.from_id(record["position_id"]).pips  # the doubler on roll
        return (theirs - own) / max(own, 1)

    races = [
        r for r in RECORDS if r["kind"] == "take" and Position.from_id(r["position_id"]).phase != GamePhase.CONTACT
    ]
    drops = [lead(r) for r in races if r["reply"] == "drop"]
    takes = [lead(r) for r in races if r["reply"] == "take"]
    assert drops and takes and min(drops) > 0 and np.mean(drops) > np.mean(takes)


@pytest.mark.parametrize("record", SCORE_ORDER, ids=[r["what"] for r in SCORE_ORDER])
def test_gnubg_107_swaps_match_scores_except_for_takes(record: dict[str, Any]) -> None:
    """gnubg 1.07 reads our (FIBS-order) scores correctly in its debug view and take decisions, swapped elsewhere."""
    ctx = record["context"]
    p = Position.from_id(record["position_id"])
    assert str(_from_context(p, (0, 0), ctx)) == record["board"]
    # gnubg's debug view ("X" = the player: its turn, or it is being doubled) has the scores right.
    assert MatchState.from_id(record["gnubg_match_id"]).score == (ctx["score"][1], ctx["score"][0])
    if record["request"] == "take":
        assert record["fibs_order_correct"] and not record["swapped_correct"]
    else:
        assert not record["fibs_order_correct"] and record["swapped_correct"]


# --- parse_external_reply ---------------------------------------------------------------------


def _board(own: dict[int, int], opp: dict[int, int]) -> Position:
    b = np.zeros(26, np.int64)
    for i, n in own.items():
        b[i] = n
    for i, n in opp.items():
        b[i] = -n
    return Position.from_board(b)


@pytest.mark.parametrize(
    "text",
    ["8/5 6/5 ", "8/5 6/5", "6/5 8/5", "move 8-5 6-5", "8-5, 6-5", "  8/5   6/5\n"],
)
def test_reply_notations_for_the_opening_31(text: str) -> None:
    p = Position.initial()
    assert parse_external_reply(text, p, (3, 1)) == p.play("8/5 6/5", (3, 1))


def test_reply_chains_repeats_bar_and_off() -> None:
    p = Position.initial()
    assert parse_external_reply("13/7/5", p, (6, 2)) == p.play("13/5", (6, 2))
    blot = _board({13: 5, 8: 3, 6: 5, 24: 2}, {7: 1, 12: 5, 17: 3, 19: 6})
    assert parse_external_reply("13/7*/5", blot, (6, 2)) == blot.play("13/7*/5", (6, 2))
    assert parse_external_reply("8/5(2) 6/3(2)", p, (3, 3)) == p.play("8/5(2) 6/3(2)", (3, 3))
    bar = _board({25: 1, 6: 5, 13: 9}, {19: 2, 12: 13})
    for text in ("25/22 13/8", "bar/22 13/8", "move bar-22 13-8", "13/8 25/22"):
        assert parse_external_reply(text, bar, (3, 5)) == bar.play("bar/22 13/8", (3, 5))
    home = _board({1: 2, 2: 3, 5: 1}, {24: 3})
    for text in ("5/0 2/0 ", "5/off 2/off", "move 5-off 2-off"):
        assert parse_external_reply(text, home, (6, 2)) == home.play("5/off 2/off", (6, 2))


def test_reply_hops_in_any_order_and_hits_checked() -> None:
    p = _board({13: 5, 8: 3, 6: 5, 24: 2}, {7: 1, 4: 1, 2: 1, 12: 5, 17: 3, 19: 4})
    want = p.play("8/7* 7/6 6/5(2)", (1, 1))
    assert parse_external_reply("8/7* 7/6 6/5 6/5", p, (1, 1)) == want
    assert parse_external_reply("6/5 7/6 6/5 8/7*", p, (1, 1)) == want  # replayed in an order that works
    with pytest.raises(IllegalMove, match="not a legal play"):  # the hit is marked on the wrong hop
        parse_external_reply("8/7 7/6* 6/5 6/5", p, (1, 1))


@pytest.mark.parametrize(
    ("text", "dice", "error", "message"),
    [
        ("", (3, 1), IllegalMove, "plays nothing"),
        ("8/4 6/5", (3, 1), IllegalMove, "does not fit the dice"),
        ("8/5 6/5 6/5", (3, 1), IllegalMove, "does not fit the dice"),
        ("24/21 24/23 6/5", (3, 1), IllegalMove, "does not fit the dice"),
        ("5/8 6/5", (3, 1), InvalidMoveText, "toward home"),
        ("8/5 hello", (3, 1), InvalidMoveText, "cannot read"),
        ("27/24 6/5", (3, 1), InvalidMoveText, "not between 0 and 25"),
        ("7/4 6/5", (3, 1), IllegalMove, "not a legal play"),
        ("double", (3, 1), InvalidMoveText, "cannot read"),
    ],
)
def test_bad_replies_raise(text: str, dice: tuple[int, int], error: type[ValueError], message: str) -> None:
    with pytest.raises(error, match=message):
        parse_external_reply(text, Position.initial(), dice)


def test_empty_reply_is_the_no_play() -> None:
    closed = _board({25: 1, 6: 5, 8: 5, 13: 4}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
    assert parse_external_reply("", closed, (6, 5)) == closed.flip()
    assert parse_external_reply("\n", closed, (6, 5)) == closed.flip()


# --- from_position and position() conventions found against gnubg ------------------------------


def test_bar_counts_come_from_the_board_not_the_on_bar_fields() -> None:
    p = _board({25: 2, 6: 13}, {0: 3, 19: 12})  # 2 of ours and 3 of theirs on the bar
    for color in (-1, 1):
        for direction in (-1, 1):
            fb = FibsBoard.from_position(p, dice=(3, 4), color=color, direction=direction)
            bar, home = (25, 0) if direction == -1 else (0, 25)
            assert fb.board[bar] == 2 * color and fb.board[home] == -3 * color
            assert (fb.player_on_bar, fb.opponent_on_bar) == (2, 3)
            # gnubg's own FIBS writer leaves the on-bar fields 0; it reads the board, and so do we.
            gnubg_style = FibsBoard.parse(str(replace(fb, player_on_bar=0, opponent_on_bar=0)))
            assert gnubg_style.position() == p


def test_position_is_seen_by_the_side_on_turn() -> None:
    p = _board({1: 2}, {19: 5, 20: 5, 21: 5})
    fb = FibsBoard.from_position(p, doubled=True)
    assert fb.turn == -fb.color and fb.was_doubled and fb.position() == p
    assert FibsBoard.parse(str(fb)).position() == p


def test_from_position_fields() -> None:
    p = Position.initial()
    assert FibsBoard.from_position(p, dice=(3, 1)).can_move == 2
    assert FibsBoard.from_position(p, dice=(3, 3)).can_move == 4
    assert FibsBoard.from_position(p).can_move == 0
    closed = _board({25: 1, 6: 5, 8: 5, 13: 4}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
    assert FibsBoard.from_position(closed, dice=(6, 5)).can_move == 0
    one = _board({25: 2, 6: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 12: 5})
    assert FibsBoard.from_position(one, dice=(6, 1)).can_move == 1
    # 1-away: the Crawford game only when said; otherwise gnubg is told it is post-Crawford.
    assert not FibsBoard.from_position(p, match_length=5, score=(4, 2), crawford=True).did_crawford
    assert FibsBoard.from_position(p, match_length=5, score=(4, 2)).did_crawford
    assert not FibsBoard.from_position(p, match_length=5, score=(3, 2)).did_crawford
    assert not FibsBoard.from_position(p, score=(4, 2)).did_crawford  # money


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"player_may_double": False, "opponent_may_double": False}, "double just offered"),
        ({"crawford": True, "match_length": 5, "score": (2, 2)}, "1-away"),
        ({"crawford": True}, "1-away"),
        ({"match_length": 5, "score": (5, 2)}, "below the match length"),
        ({"player": "a:b"}, "name"),
        ({"opponent": "two words"}, "name"),
        ({"dice": (7, 1)}, "dice"),
        ({"dice": (3, 1), "doubled": True}, "no dice"),
        ({"cube": 3}, "power of two"),
        ({"color": 0}, "colour"),
    ],
)
def test_from_position_refuses_what_gnubg_would_misread(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidFibsBoard, match=message):
        FibsBoard.from_position(Position.initial(), **kwargs)


def test_a_score_at_the_match_length_is_refused_and_a_long_match_read_at_64_points() -> None:
    """As gnubg 1.07's external mode (drawboard.c): a score at or past the length is a badly formed board; a match
    longer than its 64 points is read as a 64-point one at the same away scores (at most 64 away)."""
    fb = FibsBoard.from_position(Position.initial(), dice=(3, 1), match_length=7, score=(3, 2))
    fields = str(fb).split(":")
    fields[4] = "7"  # the player's score
    with pytest.raises(InvalidFibsBoard, match="score 7-2 is not below the match length 7"):
        FibsBoard.parse(":".join(fields))
    long = FibsBoard.from_position(Position.initial(), dice=(3, 1), match_length=99, score=(97, 10))
    state = long.match_state()
    assert state.match_length == 64 and sorted(state.score) == [0, 62]  # 2-away, and 89-away read as 64-away
    assert not state.crawford  # neither side is 1-away
    state.check_playable()
