"""Input encoding: documented features, hand-checked values, symmetry between the sides."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from engine import Position
from nets.encoding import EXTRA_PER_SIDE, FEATURES, N_INPUTS, PER_SIDE, Encoding, encode
from tests.engine.strategies import boards


@pytest.mark.parametrize("encoding", list(Encoding))
def test_every_input_is_documented(encoding: Encoding) -> None:
    assert N_INPUTS == 2 * PER_SIDE + 2
    assert len(encoding.features) == encoding.n_inputs == encode(Position.initial().array, encoding).shape[1]
    assert len(set(encoding.features)) == encoding.n_inputs
    assert encoding.features == FEATURES[: encoding.n_inputs]
    assert len(FEATURES) == N_INPUTS + 2 * EXTRA_PER_SIDE


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


def _rolls_hitting(me: list[int], them: list[int]) -> int:
    """Shots by the feature's definition, roll by roll over the 36 ordered rolls (``me``'s view, ``them`` moving up)."""
    sources = [0] if them[0] > 0 else [p for p in range(25) if them[p] > 0]
    blots = [p for p in range(1, 25) if me[p] == 1]

    def hits(d1: int, d2: int) -> bool:
        for src in sources:
            for target in blots:
                dist = target - src
                if dist <= 0:
                    continue
                if dist in (d1, d2):
                    return True
                if d1 == d2:
                    steps = [src + d1 * s for s in range(1, 5)]
                    if target in steps[1:] and all(me[q] < 2 for q in steps[: steps.index(target)]):
                        return True
                elif dist == d1 + d2 and (me[src + d1] < 2 or me[src + d2] < 2):
                    return True
        return False

    return sum(hits(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7))


def _shot_feature(board: np.ndarray) -> int:
    shots = FEATURES.index(next(f for f in FEATURES if f.startswith("on roll, shots:")))
    return round(float(encode(board)[0][shots]) * 36)


# (own checkers by point, opponent checkers by our point with 0 its bar, shots): counted by hand.
SHOT_CASES = [
    ({10: 1, 1: 14}, {4: 1}, 17),  # 6 away: any 6 (11), 5-1, 4-2, 3-3, 2-2; 1-1 reaches 4
    ({10: 1, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 1: 4}, {4: 1}, 11),  # every way in between blocked: any 6 only
    ({3: 1, 12: 14}, {0: 1, 2: 1}, 14),  # on the bar, 3 away: any 3, 2-1, 1-1; the checker on 2 may not hit
    ({20: 1, 1: 14}, {0: 1}, 1),  # from the bar 20 away: only 5-5, in four steps
]


@pytest.mark.parametrize(("own", "opponent", "expected"), SHOT_CASES)
def test_shot_counts_by_hand(own: dict[int, int], opponent: dict[int, int], expected: int) -> None:
    board = np.zeros(26, np.int8)
    for p, n in own.items():
        board[p] = n
    for p, n in opponent.items():
        board[p] = -n
    assert _shot_feature(board) == expected


@pytest.mark.slow
@settings(max_examples=500)
@given(boards())
def test_shots_agree_with_a_roll_by_roll_count(board: np.ndarray) -> None:
    me = [max(int(board[p]), 0) for p in range(26)]
    them = [max(-int(board[0]), 0)] + [max(-int(board[p]), 0) for p in range(1, 25)] + [0]
    assert _shot_feature(board) == _rolls_hitting(me, them)
    flipped = -board[::-1]
    shots = FEATURES.index(next(f for f in FEATURES if f.startswith("opponent, shots:")))
    assert round(float(encode(flipped)[0][shots]) * 36) == _shot_feature(board)
