"""gnubg position IDs/keys and match IDs: known values, bad input, round trips."""

from __future__ import annotations

import contextlib
import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import InvalidMatchId, InvalidMatchState, InvalidPosition, InvalidPositionId, MatchState, Position
from engine.batch import parse_id_pair
from tests.engine.strategies import boards

# gnubg.board() for 4HPMwQCMz+AIIQ, read from GNU Backgammon 1.07: (side not on roll, on roll).
GNUBG_BOARD_4HPM = (
    (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 2, 0, 3, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0),
    (0, 0, 2, 0, 0, 5, 0, 2, 0, 0, 0, 0, 3, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0),
)


def test_initial_position_id_and_key_match_the_manual() -> None:
    p = Position.initial()
    assert p.id == "4HPwATDgc/ABMA"
    assert p.key.hex(" ").upper() == "E0 73 F0 01 30 E0 73 F0 01 30"
    assert Position.from_id("4HPwATDgc/ABMA") == p


def test_side_not_on_roll_is_written_first_as_gnubg_does() -> None:
    p = Position.from_id("4HPMwQCMz+AIIQ")
    assert p.to_gnubg_board() == GNUBG_BOARD_4HPM
    assert Position.from_gnubg_board(GNUBG_BOARD_4HPM).id == "4HPMwQCMz+AIIQ"
    # The side on roll has 2 checkers on its 3 point, the opponent none there.
    assert p.array[3] == 2


BAD_POSITION_IDS = [
    ("", "0 characters"),
    ("4HPwATDgc/ABM", "13 characters"),
    ("4HPwATDgc/ABMAA", "15 characters"),
    ("4HPwATDgc/AB!A", "base64"),
    ("4HPwATDgc/AB A", "base64"),
    ("4HPwATDgc/ABMB", "padding"),  # the last 4 bits of the 14th character must be zero
    ("/////////////w", "80 bits"),
    ("//8AAAAAAAAAAA", "16 checkers"),
    ("AQAAAAAAAgAAAA", "both sides"),
    ("t20DAGDbtgMAYA", "neither side can ever move"),  # both on the bar against closed boards: a game never ends
]


@pytest.mark.parametrize(("bad", "why"), BAD_POSITION_IDS)
def test_bad_position_ids_raise_naming_the_input(bad: str, why: str) -> None:
    with pytest.raises(InvalidPositionId) as info:
        Position.from_id(bad)
    assert repr(bad) in str(info.value)
    assert why in str(info.value)
    assert isinstance(info.value, ValueError)


@given(boards(min_checkers=0))
def test_position_id_round_trip(board: np.ndarray) -> None:
    p = Position.from_board(board)
    q = Position.from_id(p.id)
    assert q == p
    assert Position.from_key(p.key) == p
    assert len(p.id) == 14


@given(boards(min_checkers=0))
def test_flip_twice_is_identity_and_swaps_sides(board: np.ndarray) -> None:
    p = Position.from_board(board)
    assert p.flip().flip() == p
    assert p.flip().pips == p.pips[::-1]
    assert p.flip().off == p.off[::-1]
    assert p.flip().bar == p.bar[::-1]


ID_ALPHABET = string.ascii_letters + string.digits + "+/"


@st.composite
def id_like_texts(draw: st.DrawFn) -> str:
    """Random 14-character texts, real position IDs, and real IDs with one character changed."""
    kind = draw(st.sampled_from(["random", "valid", "mutated"]))
    if kind == "random":
        return draw(st.text(alphabet=ID_ALPHABET, min_size=14, max_size=14))
    text = Position.from_board(draw(boards(min_checkers=0))).id
    if kind == "mutated":
        at = draw(st.integers(0, 13))
        text = text[:at] + draw(st.sampled_from(ID_ALPHABET)) + text[at + 1 :]
    return text


@settings(max_examples=300)
@given(id_like_texts())
def test_position_id_fuzz_never_crashes(text: str) -> None:
    try:
        p = Position.from_id(text)
    except InvalidPositionId as exc:
        assert "\n" not in str(exc)
        return
    assert p.id == text  # what is read writes back to the same text (unused bits must be zero to be read)


@settings(max_examples=200)
@given(st.text(max_size=20))
def test_position_id_fuzz_any_text(text: str) -> None:
    with contextlib.suppress(InvalidPositionId):
        Position.from_id(text)


def test_manual_match_id_example() -> None:
    m = MatchState.from_id("QYkqASAAIAAA")
    assert (m.cube, m.cube_owner, m.on_roll, m.turn) == (2, 0, 1, 1)
    assert (m.dice, m.match_length, m.score) == ((5, 2), 9, (2, 4))
    assert not m.crawford and not m.doubled and m.resigned == 0 and m.game_state == 1
    assert m.key.hex(" ").upper() == "41 89 2A 01 20 00 20 00 00"
    assert m.id == "QYkqASAAIAAA"


def test_match_id_extra_bit_set_by_gnubg_107_round_trips() -> None:
    # gnubg 1.07, money game with the Jacoby rule off, before the first roll.
    m = MatchState.from_id("cAkAAAAAAAAE")
    assert m.extra_bits == 1 and not m.jacoby
    assert m.id == "cAkAAAAAAAAE"
    assert MatchState.from_id("cIkOAAAAAAAA").jacoby


def test_combined_id_is_accepted() -> None:
    m = MatchState.from_id("4HPwATDgc/ABMA:cAkZAAAAAAAA")
    assert m.dice == (2, 6)
    assert Position.from_id("4HPwATDgc/ABMA:cAkZAAAAAAAA") == Position.initial()


@pytest.mark.parametrize(
    "bad",
    ["cAkZAAAAAAA", "cAkZAAAAAAAAA", "cAkZAAAAAA#A", "cAkZAAAA AAA", "YAkZAAAAAAAA"],
)
def test_bad_match_ids_raise_naming_the_input(bad: str) -> None:
    with pytest.raises(InvalidMatchId) as info:
        MatchState.from_id(bad)
    assert repr(bad) in str(info.value)


def test_match_id_with_impossible_dice_or_state_is_rejected() -> None:
    good = MatchState.from_id("cAkZAAAAAAAA")
    value = int.from_bytes(good.key, "little")
    die7 = (value & ~(7 << 15)) | (7 << 15)
    with pytest.raises(InvalidMatchId, match="dice"):
        MatchState.from_key(die7.to_bytes(9, "little"))
    state7 = value | (7 << 8)
    with pytest.raises(InvalidMatchId, match="game state"):
        MatchState.from_key(state7.to_bytes(9, "little"))


match_states = st.builds(
    MatchState,
    cube=st.sampled_from([1 << k for k in range(16)]),
    cube_owner=st.sampled_from([None, 0, 1]),
    on_roll=st.integers(0, 1),
    crawford=st.booleans(),
    game_state=st.integers(0, 4),
    turn=st.integers(0, 1),
    doubled=st.booleans(),
    resigned=st.integers(0, 3),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    match_length=st.integers(0, 32767),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
    extra_bits=st.integers(0, 63),
)


@given(match_states)
def test_match_id_round_trip(m: MatchState) -> None:
    assert MatchState.from_id(m.id) == m
    assert len(m.id) == 12


@settings(max_examples=300)
@given(st.text(alphabet=string.ascii_letters + string.digits + "+/", min_size=12, max_size=12))
def test_match_id_fuzz_never_crashes(text: str) -> None:
    try:
        m = MatchState.from_id(text)
    except InvalidMatchId:
        return
    assert m.id == text


def test_a_board_no_game_can_leave_is_refused() -> None:
    """Both sides on the bar against the other's closed board: neither can ever move, so a game never ends."""
    board = np.zeros(26, np.int64)
    board[1:7], board[25] = 2, 1
    board[19:25], board[0] = -2, -1
    with pytest.raises(InvalidPosition, match="neither side can ever move"):
        Position(board)
    board[6] = 1  # the opponent can enter on the 6 point: a position like any other
    assert Position(board).board[25] == 1


@pytest.mark.parametrize(
    ("match_id", "words"),
    [("cAoAAAAAAAAA", "the game is over"), ("cEkAAAAAAAAA", "a resignation is pending")],
)
def test_a_game_no_longer_played_is_refused_for_evaluation(match_id: str, words: str) -> None:
    """gnubg's match ID can say the game is over, dropped or resigned: nothing to evaluate (rollouts refused it
    already; eval and hint answered as if play went on)."""
    with pytest.raises(InvalidMatchState, match=words):
        parse_id_pair(f"4HPwATDgc/ABMA:{match_id}")
    assert parse_id_pair(f"4HPwATDgc/ABMA:{match_id}", playable=False)[1] is not None


@pytest.mark.parametrize(
    ("match_id", "words"),
    [
        ("cAkgCAAAAAAA", "match length 65 is above 64"),  # gnubg 1.07: "Illegal match ID"
        ("XBEAAAAAAAAE", "a double of the cube 4096"),  # gnubg doubles no further than 4096
    ],
)
def test_states_gnubg_will_not_play_are_refused_for_evaluation(match_id: str, words: str) -> None:
    with pytest.raises(InvalidMatchState, match=words):
        parse_id_pair(f"4HPwATDgc/ABMA:{match_id}")
    assert parse_id_pair(f"4HPwATDgc/ABMA:{match_id}", playable=False)[1] is not None  # `jumpgammon id` shows them


def test_a_deadlocked_xgid_is_refused_naming_the_xgid() -> None:
    text = "XGID=aBBBBBB---B-b------bbbbbbA:0:0:1:00:0:0:0:0:10"
    with pytest.raises(InvalidPositionId, match="XGID 'XGID=aBBB.*neither side can ever move"):
        parse_id_pair(text)


@pytest.mark.parametrize(
    "call",
    [
        lambda: Position.from_key("abcdefghij"),  # type: ignore[arg-type]
        lambda: Position.from_key(None),  # type: ignore[arg-type]
        lambda: MatchState.from_key("x"),  # type: ignore[arg-type]
        lambda: Position(None),  # type: ignore[arg-type]
        lambda: Position.from_gnubg_board(None),  # type: ignore[arg-type]
        lambda: MatchState(score=(1,)),  # type: ignore[arg-type]
        lambda: MatchState(match_length=None),  # type: ignore[arg-type]
        lambda: Position.initial().children((2.5, 3)),  # type: ignore[arg-type]  # a 2-3 was played
        lambda: Position.initial().children((1.9, 2)),  # type: ignore[arg-type]  # a 1-2 was played
    ],
)
def test_inputs_of_the_wrong_type_are_value_errors(call: object) -> None:
    """Wrong types are refused as the bad values are (a ValueError naming them), not an AttributeError later."""
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]
