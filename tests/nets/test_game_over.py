"""nets.evaluator.game_over_probabilities: finished games scored by the rules, hand cases from both sides."""

from __future__ import annotations

import numpy as np
import pytest

from engine.batch import flip_boards
from nets.evaluator import game_over_probabilities
from nets.mlp import flip_probabilities


def _board(points: dict[int, int]) -> np.ndarray:
    """A board seen by the side on roll: its checkers positive on 1..24 (25 its bar), the opponent's negative
    (0 the opponent's bar); whatever is missing has been borne off."""
    board = np.zeros(26, np.int8)
    for point, count in points.items():
        board[point] = count
    return board


# The side on roll has borne off all 15 (so won), against the opponent's checkers where given.
WINS = [
    ("plain win: the opponent bore one off", {12: -14}, [1, 0, 0, 0, 0]),
    ("gammon: the opponent bore none off", {12: -15}, [1, 1, 0, 0, 0]),
    ("gammon, not backgammon: point 7 is outside the winner's home", {7: -15}, [1, 1, 0, 0, 0]),
    ("backgammon: a checker in the winner's home board", {12: -14, 3: -1}, [1, 1, 1, 0, 0]),
    ("backgammon: a checker on the bar", {12: -14, 0: -1}, [1, 1, 1, 0, 0]),
    ("backgammon on the winner's 6 point", {13: -14, 6: -1}, [1, 1, 1, 0, 0]),
]


@pytest.mark.parametrize(("why", "opponent", "expected"), WINS, ids=[w[0] for w in WINS])
def test_a_finished_game_from_the_winners_side(why: str, opponent: dict[int, int], expected: list[int]) -> None:
    board = _board(opponent)
    assert game_over_probabilities(board[None])[0].tolist() == expected
    # the same game seen by the loser: its losses mirror the winner's wins
    assert (
        game_over_probabilities(flip_boards(board[None]))[0].tolist()
        == flip_probabilities(np.array([expected], float))[0].tolist()
    )


def test_a_game_in_play_scores_nothing() -> None:
    assert game_over_probabilities(_board({6: 5, 8: 3, 13: 5, 24: 2, 1: -2, 12: -5, 17: -3, 19: -5})[None]).sum() == 0
