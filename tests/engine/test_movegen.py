"""Move generation: the rules case by case, then properties over random boards."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.reference_movegen import python_children
from engine import AmbiguousMove, IllegalMove, InvalidDice, InvalidMoveText, Position, children_batch
from engine.position import validate_board
from tests.engine.strategies import boards, dice


def make(own: dict[int, int], opp: dict[int, int] | None = None, opp_bar: int = 0) -> Position:
    """Board from the side on roll: ``own``/``opp`` map its point numbers (25 = own bar)."""
    b = np.zeros(26, np.int64)
    for point, n in own.items():
        b[point] = n
    for point, n in (opp or {}).items():
        b[point] = -n
    b[0] = -opp_bar
    return Position.from_board(b)


RULE_CASES = [
    # (description, position, dice, expected moves in gnubg notation)
    ("enter from the bar first", make({25: 1, 6: 14}, {24: 2, 19: 2}), (3, 1), {"bar/21", "bar/22 6/5"}),
    ("closed board: no move", make({25: 1, 6: 14}, {p: 2 for p in range(19, 25)}), (6, 5), {""}),
    ("one die only: the larger", make({13: 1}, {2: 2}), (6, 5), {"13/7"}),
    ("only the smaller can be played", make({13: 1}, {7: 2, 2: 2}), (6, 5), {"13/8"}),
    ("bear off from the highest point", make({4: 2, 3: 1}), (6, 5), {"4/off(2)"}),
    ("doubles: as many as possible", make({24: 1}, {15: 2}), (3, 3), {"24/18"}),
    ("no bearing off with a checker outside", make({7: 1, 2: 1}), (6, 1), {"7/1 2/1", "7/off"}),
    ("hit a blot", make({8: 1, 6: 1}, {5: 1, 2: 2}), (3, 2), {"8/5*/3", "8/5* 6/4", "8/3", "6/1"}),
]


@pytest.mark.parametrize(("why", "position", "roll", "expected"), RULE_CASES, ids=[c[0] for c in RULE_CASES])
def test_rules(why: str, position: Position, roll: tuple[int, int], expected: set[str]) -> None:
    got = {str(m) for m, _ in position.plays(roll)}
    assert got == expected, why


def test_no_legal_play_returns_the_unmoved_position_flipped() -> None:
    p = make({25: 1, 6: 14}, {q: 2 for q in range(19, 25)})
    assert p.children((6, 5)) == [p.flip()]


def test_initial_position_counts() -> None:
    p = Position.initial()
    assert len(p.children((6, 2))) == 14  # gnubg 1.07 lists 14 plays too (tests/fixtures/gnubg_movegen.json)
    assert len(p.children((1, 1))) > len(p.children((6, 6)))


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        ("24/18 13/11", "24/18 13/11"),
        ("13/11 24/18", "24/18 13/11"),
        ("13/5", "13/5"),
        ("13/7/5", "13/5"),
        ("24/16", "24/16"),
    ],
)
def test_parse_move_strings(move: str, expected: str) -> None:
    p = Position.initial()
    child = p.play(move, (6, 2))
    names = {c: str(m) for m, c in p.plays((6, 2))}
    assert names[child] == expected


@pytest.mark.parametrize(
    ("move", "error", "message"),
    [
        ("24/18", IllegalMove, "not a legal play"),  # uses one die only
        ("24/17 13/12", IllegalMove, "held by the opponent"),
        ("7/1 13/11", IllegalMove, "no checker"),
        ("13/11 6/0 ", IllegalMove, "not a legal play"),
        ("24/18 12/10", IllegalMove, "no checker"),
        ("25/19 13/11", IllegalMove, "no checker"),
        ("13-11", InvalidMoveText, "cannot read"),
        ("", InvalidMoveText, "empty"),
        ("11/13", InvalidMoveText, "toward home"),
        ("24/18(9)", IllegalMove, "no checker"),
        ("13/27", InvalidMoveText, "not between 0 and 25"),
    ],
)
def test_bad_move_strings_raise(move: str, error: type[ValueError], message: str) -> None:
    with pytest.raises(error, match=message) as info:
        Position.initial().play(move, (6, 2))
    assert repr(move) in str(info.value)


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (1,), ("a", 2), (2, 2, 2)])
def test_bad_dice_raise(dice: tuple) -> None:
    with pytest.raises(InvalidDice, match="dice") as info:
        Position.initial().children(dice)
    assert repr(dice) in str(info.value)


def _own_total(p: Position) -> int:
    return int(p.array[p.array > 0].sum())


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(boards(), dice)
def test_children_properties(board: np.ndarray, roll: tuple[int, int]) -> None:
    p = Position.from_board(board)
    plays = p.plays(roll)
    kids = [c for _, c in plays]
    assert len(kids) >= 1
    assert len(set(kids)) == len(kids)
    opp_checkers = int(-p.array[p.array < 0].sum())
    n_dice_max = max(len(m.hops) for m, _ in plays)
    for move, child in plays:
        validate_board(child.array)
        mover = child.flip()  # back to the mover's view
        # The opponent's checkers are conserved (hits go to the bar); the mover's only leave by bearing off.
        assert int(-mover.array[mover.array < 0].sum()) == opp_checkers
        born_off = sum(1 for _, dst in move.hops if dst == 0)
        assert _own_total(mover) == _own_total(p) - born_off
        assert len(move.hops) == n_dice_max  # every play uses as many dice as possible
        if move.hops:
            assert p.play(str(move), roll) == child
        # children of children are legal too
        for grandchild in child.children((roll[1], roll[0]))[:3]:
            validate_board(grandchild.array)


@settings(max_examples=200, deadline=None)
@given(boards(), dice)
def test_batch_matches_single(board: np.ndarray, roll: tuple[int, int]) -> None:
    p = Position.from_board(board)
    kids, offsets = children_batch(np.stack([p.array, p.flip().array]), np.array([roll, roll]))
    assert offsets[0] == 0 and offsets[-1] == len(kids)
    first = {Position(k) for k in kids[offsets[0] : offsets[1]]}
    second = {Position(k) for k in kids[offsets[1] : offsets[2]]}
    assert first == set(p.children(roll))
    assert second == set(p.flip().children(roll))


MOVE_ALPHABET = "0123456789/*() barofBARF"


@st.composite
def move_like_texts(draw: st.DrawFn) -> tuple[str, tuple[int, int]]:
    """A roll and a text: random, a legal play of it written out, or that play with one character changed."""
    roll = draw(dice)
    kind = draw(st.sampled_from(["random", "legal", "changed"]))
    if kind == "random":
        return draw(st.text(alphabet=MOVE_ALPHABET, max_size=24)), roll
    move, _ = draw(st.sampled_from(Position.initial().plays(roll)))
    text = str(move)
    if kind == "changed":
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + draw(st.sampled_from(MOVE_ALPHABET)) + text[at + 1 :]
    return text, roll


@settings(max_examples=300, deadline=None)
@given(move_like_texts())
def test_move_parser_fuzz_never_crashes(case: tuple[str, tuple[int, int]]) -> None:
    text, roll = case
    p = Position.initial()
    try:
        child = p.play(text, roll)
    except (InvalidMoveText, IllegalMove, AmbiguousMove) as exc:
        assert repr(text) in str(exc)
        return
    assert child in p.children(roll)


@settings(max_examples=300, deadline=None)
@given(boards(), dice)
def test_compiled_generator_agrees_with_the_plain_python_one(board: np.ndarray, roll: tuple[int, int]) -> None:
    ours = {tuple(int(v) for v in child.flip().array) for child in Position(board).children(roll)}
    assert ours == python_children(board.tolist(), roll[0], roll[1])


def test_children_and_plays_agree_in_order() -> None:
    p = Position.initial()
    for roll in [(6, 2), (1, 1), (5, 5), (4, 3)]:
        assert p.children(roll) == [child for _, child in p.plays(roll)]
