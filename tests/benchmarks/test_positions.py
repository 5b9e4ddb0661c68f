"""The fixed benchmark positions: seeded random legal play, by the rules of the opening roll."""

from __future__ import annotations

import numpy as np

from benchmarks.positions import random_game_positions
from engine.position import Position


def test_positions_are_seeded_and_no_game_opens_with_a_double() -> None:
    boards, dice = random_game_positions(25, seed=5)
    again, dice_again = random_game_positions(25, seed=5)
    assert np.array_equal(boards, again) and np.array_equal(dice, dice_again)
    opening = (boards == Position.initial().array).all(axis=1)
    assert boards.dtype == np.int8 and dice.dtype == np.int64 and len(boards) == len(dice)
    first_rows = np.flatnonzero(opening)[:25]
    assert (first_rows == np.arange(25)).all()  # the 25 games start together
    assert not (dice[:25, 0] == dice[:25, 1]).any()
