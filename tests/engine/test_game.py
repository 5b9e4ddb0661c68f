"""Reproducible dice, the score of a finished game; FIBS boards. (Games with the cube: tests/arena.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from engine import Dice, FibsBoard, InvalidFibsBoard, Position, result_multiplier
from tests.engine.strategies import boards


def test_dice_are_reproducible_and_opening_never_doubles() -> None:
    a, b = Dice(7), Dice(7)
    assert [a.roll() for _ in range(50)] == [b.roll() for _ in range(50)]
    d = Dice(1)
    for _ in range(200):
        who, (x, y) = d.opening()
        assert x != y and who == (0 if x > y else 1)


def _finished(loser: dict[int, int]) -> Position:
    """The loser's view after the winner bore off its last checker."""
    b = np.zeros(26, np.int64)
    for p, n in loser.items():
        b[p] = n
    return Position.from_board(b)


@pytest.mark.parametrize(
    ("loser", "points"),
    [({6: 10}, 1), ({6: 15}, 2), ({6: 14, 19: 1}, 3), ({6: 14, 25: 1}, 3), ({13: 15}, 2)],
)
def test_result_multiplier(loser: dict[int, int], points: int) -> None:
    b = _finished(loser)
    assert result_multiplier(b) == points


FIBS_INITIAL = (
    "board:You:gnubg:1:0:0:"
    "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
)


def test_fibs_initial_board_from_x_view() -> None:
    fb = FibsBoard.parse(FIBS_INITIAL)
    assert fb.player_dice == (6, 2) and fb.color == 1 and fb.direction == -1
    assert fb.position() == Position.initial()
    assert str(fb) == FIBS_INITIAL


@settings(max_examples=100)
@given(boards(min_checkers=0))
def test_fibs_round_trip(board: np.ndarray) -> None:
    p = Position.from_board(board)
    for color in (-1, 1):
        for direction in (-1, 1):
            fb = FibsBoard.from_position(p, dice=(3, 4), color=color, direction=direction)
            again = FibsBoard.parse(str(fb))
            assert again == fb
            assert again.position() == p


@pytest.mark.parametrize(
    "bad",
    [
        "board:a:b:1",
        FIBS_INITIAL.replace(":5:0:3:", ":x:0:3:", 1),
        FIBS_INITIAL.replace("board:", "bored:"),
        FIBS_INITIAL.replace(":0:0:0:0:5:0:3:0", ":0:0:0:0:15:0:3:0", 1),
    ],
)
def test_bad_fibs_boards_raise(bad: str) -> None:
    with pytest.raises(InvalidFibsBoard) as info:
        FibsBoard.parse(bad)
    assert repr(bad) in str(info.value)
