"""Input encoding: documented features, hand-checked values, symmetry between the sides."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from engine import Position
from nets.encoding import FEATURES, N_INPUTS, PER_SIDE, encode
from tests.engine.strategies import boards


def test_every_input_is_documented() -> None:
    assert len(FEATURES) == N_INPUTS == 2 * PER_SIDE + 2
    assert len(set(FEATURES)) == N_INPUTS


def _feature(x: np.ndarray, name: str) -> float:
    return float(x[FEATURES.index(name)])


def test_initial_position_values() -> None:
    x = encode(Position.initial().array)[0]
    assert _feature(x, "on roll, point 6: three or more checkers") == 1.0
    assert _feature(x, "on roll, point 6: (checkers - 3) / 2 beyond three") == 1.0
    assert _feature(x, "on roll, point 24: exactly two checkers") == 1.0
    assert _feature(x, "opponent, pips: pip count / 167") == 1.0
    assert _feature(x, "contact: 1 while the sides can still hit each other") == 1.0
    assert _feature(x, "race lead: (opponent pips - own pips) / 100") == 0.0
    assert _feature(x, "on roll, blots: number of blots / 5") == 0.0


def test_direct_shot_count() -> None:
    # Own blot on point 10, opponent checker on our point 4 (6 away), nothing in between made:
    # hit by any 6 (11), 5-1, 4-2 (4), 3-3, 2-2 (2) = 17 of 36... 1-1 reaches only 4 pips.
    b = np.zeros(26, np.int8)
    b[10] = 1
    b[1] = 14
    b[4] = -1
    b[24] = -14
    x = encode(b)[0]
    shots = FEATURES.index(next(f for f in FEATURES if f.startswith("on roll, shots:")))
    assert round(float(x[shots]) * 36) == 17


@settings(max_examples=200)
@given(boards())
def test_sides_swap_under_flip(board: np.ndarray) -> None:
    x = encode(board)[0]
    y = encode(-board[::-1])[0]
    assert np.allclose(x[:PER_SIDE], y[PER_SIDE : 2 * PER_SIDE])
    assert np.allclose(x[PER_SIDE : 2 * PER_SIDE], y[:PER_SIDE])
    assert np.isclose(x[-2], -y[-2])
    assert x[-1] == y[-1]
    assert np.isfinite(x).all()
