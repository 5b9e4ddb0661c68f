"""The evaluator gives no weight to a gammon or backgammon the rules rule out (nets.evaluator.possible_results)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.batch import phases
from engine.position import GamePhase
from nets.evaluator import load_evaluator, possible_results
from tests.boards import board_from_counts
from tests.selfplay_boards import positions_from_games

_board = board_from_counts


# (side on roll's checkers, opponent's, race?) -> can win gammon, win backgammon, lose gammon, lose backgammon
CASES = [
    # The opening position: everything possible.
    ({24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}, False, (True, True, True, True)),
    # Side on roll has borne off one checker (14 left): it can no longer be gammoned.
    ({24: 2, 13: 5, 8: 3, 6: 4}, {1: 2, 12: 5, 17: 3, 19: 5}, False, (True, True, False, False)),
    # The opponent has borne off: the side on roll can win no gammon.
    ({24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 4}, False, (False, False, True, True)),
    # A race, the opponent with a checker in our home board: we may backgammon it; we have none back.
    ({4: 5, 3: 5, 2: 5}, {5: 1, 19: 14}, True, (True, True, True, False)),
    # A race with nobody back: gammons only.
    ({6: 5, 5: 5, 4: 5}, {7: 1, 19: 14}, True, (True, False, True, False)),
    # Contact and nobody back yet: a hit can still send a checker back, so backgammons stay possible.
    ({10: 2, 6: 5, 5: 5, 4: 3}, {9: 1, 19: 14}, False, (True, True, True, True)),
    # Side on roll on the bar (its checker must enter in the opponent's home board).
    ({25: 1, 6: 14}, {1: 1, 19: 14}, False, (True, True, True, True)),
]


@pytest.mark.parametrize(("own", "opponent", "race", "expected"), CASES)
def test_the_rules_bound_the_results(
    own: dict[int, int], opponent: dict[int, int], race: bool, expected: tuple[bool, ...]
) -> None:
    board = _board(own, opponent)
    assert bool(phases(board[None])[0] == GamePhase.RACE) is race
    assert tuple(possible_results(board[None], np.array([race]))[0].tolist()) == expected


def test_every_evaluation_respects_the_rules() -> None:
    boards = positions_from_games(40, seed=11)
    ph = phases(boards)
    judged = ph <= GamePhase.RACE
    probs = load_evaluator().evaluate_boards(boards)[judged]
    possible = possible_results(boards[judged], ph[judged] == GamePhase.RACE)
    assert (~possible).sum() > 100  # the games reach positions where the rules exclude results
    assert (probs[:, 1:][~possible] == 0).all()
    assert (probs[:, 2] <= probs[:, 1]).all() and (probs[:, 4] <= probs[:, 3]).all()


def test_bear_offs_judged_by_a_net_respect_the_rules_too() -> None:
    """Without the databases (as a fit's checks load it) the race net judges the bear-offs: the rules still bound
    its results (a side that has borne a checker off cannot be gammoned); they were skipped there before 2026-11-27."""
    boards = positions_from_games(40, seed=11)
    ph = phases(boards)
    bearoffs = boards[(ph == GamePhase.BEAROFF_ONE_SIDED) | (ph == GamePhase.BEAROFF_TWO_SIDED)]
    probs = load_evaluator(bearoff=False).evaluate_boards(bearoffs)
    possible = possible_results(bearoffs, np.ones(len(bearoffs), bool))
    assert (~possible).sum() > 50
    assert (probs[:, 1:][~possible] == 0).all()
