"""Encoding v2: v1's inputs kept in place, and each added feature against its definition.

Two kinds of checks: a plain-Python reference that computes every v2 feature from its one-line
definition (hits by trying every sequence of checker moves, escapes roll by roll on the board),
compared with the compiled kernel on random boards; and hand-made positions whose values are
worked out in the comments.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from benchmarks.positions import random_game_positions
from engine import Position
from nets.encoding import EXTRA_PER_SIDE, FEATURES, N_INPUTS, Encoding, encode
from tests.boards import board_from_counts
from tests.engine.strategies import boards

V2 = Encoding.V2


def _extra(board: np.ndarray, side: int = 0) -> np.ndarray:
    """The 24 v2 features of one side (0: on roll, 1: opponent) as float64."""
    x = encode(board, V2)[0]
    start = N_INPUTS + side * EXTRA_PER_SIDE
    return x[start : start + EXTRA_PER_SIDE].astype(np.float64)


def _index(name: str) -> int:
    """Position of a v2 feature within one side's block, by the start of its name."""
    matches = [
        i for i, f in enumerate(FEATURES[N_INPUTS : N_INPUTS + EXTRA_PER_SIDE]) if f.startswith(f"on roll, {name}:")
    ]
    assert len(matches) == 1, name
    return matches[0]


_board = board_from_counts


# --------------------------------------------------------------------------------------------
# A plain-Python reference from the definitions
# --------------------------------------------------------------------------------------------


def _sides(board: np.ndarray, side: int) -> tuple[list[int], list[int]]:
    """(me, them): me[p] own checkers on own point p (25 bar); them[p] the other side's on our point p (0 its bar)."""
    b = [int(v) for v in (board if side == 0 else -board[::-1])]
    me = [0] + [max(b[p], 0) for p in range(1, 26)]
    them = [max(-b[p], 0) for p in range(25)] + [0]
    return me, them


def _escapes(them: list[int], q: int) -> int:
    """Rolls of 36 on which a checker on q gets past the other side's made points among the 10 in front."""

    def blocked(dist: int) -> bool:  # points more than 12 ahead count as open
        return dist <= 12 and q - dist >= 1 and them[q - dist] >= 2

    last = max((d for d in range(1, 11) if blocked(d)), default=0)
    if last == 0:
        return 36
    count = 0
    for a, b in itertools.product(range(1, 7), repeat=2):
        steps = [a] * 4 if a == b else None
        escaped = False
        if steps:
            dist = 0
            for s in steps:
                dist += s
                if blocked(dist):
                    break
                if dist > last:
                    escaped = True
                    break
        else:
            for first, second in ((a, b), (b, a)):
                if blocked(first):
                    continue
                if first > last or (not blocked(first + second) and first + second > last):
                    escaped = True
        count += escaped
    return count


def _hit_sets(me: list[int], them: list[int], a: int, b: int) -> set[frozenset[int]]:
    """Every set of blots the other side can hit with roll (a, b), trying every sequence of its checkers' moves.

    Only checkers on the bar move while it has any there (in any order); landings on points ``me``
    made or past 24 are not allowed.
    """
    movers = [0] * them[0] if them[0] else [p for p in range(1, 25) for _ in range(them[p])]
    blots = {p for p in range(1, 25) if me[p] == 1}
    found: set[frozenset[int]] = set()

    def walk(positions: tuple[int, ...], hit: frozenset[int], left: list[int]) -> None:
        found.add(hit)
        if not left:
            return
        for i, pos in enumerate(positions):
            land = pos + left[0]
            if (pos in positions[:i]) or land > 24 or me[land] >= 2:
                continue  # checkers on one point move alike: try one of them
            nxt = positions[:i] + (land,) + positions[i + 1 :]
            walk(nxt, hit | ({land} & blots), left[1:])

    for order in [[a] * 4] if a == b else [[a, b], [b, a]]:
        walk(tuple(movers), frozenset(), order)
    return found


def reference(board: np.ndarray, side: int) -> np.ndarray:
    """The 24 v2 features of one side, each straight from its definition in ``FEATURES``."""
    me, them = _sides(board, side)
    in_play = sum(me[1:26])
    off = 15 - in_play
    pips = sum(p * me[p] for p in range(1, 26))
    rear = max((p for p in range(1, 26) if me[p]), default=0)
    opp_rear = min((p for p in range(25) if them[p]), default=25)
    made = [p for p in range(1, 25) if me[p] >= 2]
    anchor = max(made, default=0)
    forward = min((p for p in made if p >= 13), default=0)
    loss = twice = 0
    for a, b in itertools.product(range(1, 7), repeat=2):
        sets = _hit_sets(me, them, a, b)
        hit = set().union(*sets)
        loss += max((25 - x for x in hit), default=0)
        twice += any(len(s) >= 2 for s in sets)
    esc = [_escapes(them, q) for q in range(26)]
    rear_cont = 1 - min((esc[q] for q in range(13, rear + 1)), default=36) / 36
    cont = 1 - min(esc[q] for q in range(13, 25)) / 36
    mobility = sum(me[p] for p in range(7, 26) for d in range(1, 7) if them[p - d] < 2)
    mean = pips / in_play if in_play else 0.0
    spread = sum(me[p] * (p - mean) ** 2 for p in range(1, 26) if p > mean) / in_play if in_play else 0.0
    timing = sum(me[p] * (p - 6) for p in range(7, 26)) + sum((me[p] - 2) * (p - 1) for p in range(1, 7) if me[p] > 2)
    backbone = sum(1 for p in made if anchor - 11 <= p < anchor) if anchor >= 13 else 0
    closed = sum(1 for p in range(19, 25) if them[p] >= 2)
    stay = 0
    if me[25]:
        for a, b in itertools.product(range(1, 7), repeat=2):
            enters = [them[25 - d] < 2 for d in ((a,) * 4 if a == b else (a, b))]
            stay += sum(enters) < me[25] if a != b else (4 if enters[0] else 0) < me[25]
    held = sum(1 for p in range(19, 25) if me[p] >= 2)
    there = sum(me[p] for p in range(19, 26))
    return np.array(
        [
            min(off, 5) / 5,
            min(max(off - 5, 0), 5) / 5,
            max(off - 10, 0) / 5,
            sum(me[p] * (p - opp_rear) for p in range(1, 26) if p > opp_rear) / 100,
            sum(me[p] * p for p in range(1, 26) if p < opp_rear) / 100,
            rear / 25,
            anchor / 24,
            (25 - forward) / 12 if forward else 0.0,
            loss / (36 * 25),
            twice / 36,
            (36 - esc[24]) / 36,
            (36 - esc[rear]) / 36 if rear else 0.0,
            rear_cont,
            rear_cont**2,
            cont,
            cont**2,
            mobility / 90,
            spread / 100,
            timing / 100,
            min(backbone, 6) / 6,
            (closed / 6) ** 2,
            stay / 36,
            1.0 if held >= 2 else 0.0,
            1.0 if held == 1 and there >= 3 else 0.0,
        ]
    )


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_v2_keeps_v1_inputs_in_place() -> None:
    games, _ = random_game_positions(60, seed=3)
    assert np.array_equal(encode(games, V2)[:, :N_INPUTS], encode(games))


@settings(max_examples=150)
@given(boards())
def test_v2_agrees_with_the_reference(board: np.ndarray) -> None:
    x = encode(board, V2)[0]
    assert np.array_equal(x[:N_INPUTS], encode(board)[0])
    for side in (0, 1):
        start = N_INPUTS + side * EXTRA_PER_SIDE
        np.testing.assert_allclose(x[start : start + EXTRA_PER_SIDE], reference(board, side), rtol=1e-6, atol=1e-7)


@pytest.mark.slow
def test_v2_agrees_with_the_reference_on_game_positions() -> None:
    games, _ = random_game_positions(4, seed=11)
    for board in games[::3]:
        for side in (0, 1):
            np.testing.assert_allclose(_extra(board, side), reference(board, side), rtol=1e-6, atol=1e-7)


@settings(max_examples=100)
@given(boards())
def test_sides_swap_under_flip(board: np.ndarray) -> None:
    assert np.array_equal(_extra(board, 0), _extra(-board[::-1], 1))


def test_opening_position_by_hand() -> None:
    x = _extra(Position.initial().array)
    expected = {
        "off 1-5": 0.0,
        # the other side's rearmost checker is on our 1-point: 2 x 23 + 5 x 12 + 3 x 7 + 5 x 5 = 152 pips
        "break contact": 1.52,
        "free pips": 0.0,
        "back checker": 24 / 25,
        "back anchor": 1.0,
        "forward anchor": 1.0,  # the 13-point is made: (25 - 13) / 12
        "pip loss": 0.0,
        "hit twice": 0.0,
        # from the 24-point the other side's 6- and 8-points (our 19 and 17) are in front, the farthest 7 away.
        # Escaping: 6-2, 5-3, 6-3, 5-4, 6-4, 6-5 (12 of 36; 5-3 plays the 3 first), 2-2, 3-3, 4-4; 6-6 lands on
        # the midpoint 12 away and 5-5 on the 6-point: 15 escape, 21 do not.
        "back trapped": 21 / 36,
        "rear trapped": 21 / 36,
        # outside home: 24-point 2 x 5 open landings, 13-point 5 x 5 (its 12 is made), 8-point 3 x 6: 53
        "mobility": 53 / 90,
        # the mean point is 167 / 15; behind it 2 on 24 and 5 on 13
        "spread": (2 * (24 - 167 / 15) ** 2 + 5 * (13 - 167 / 15) ** 2) / 15 / 100,
        # 2 x 18 + 5 x 7 + 3 x 2 beyond the 6-point, 3 spares on the 6-point x 5
        "timing": 0.92,
        "backbone": 1 / 6,  # in front of the 24-point anchor, within 11 pips: the 13-point
        "enter": 1 / 36,  # the other side's home board has one point made
        "enter all": 0.0,
        "back game": 0.0,
        "back game, one point": 0.0,
    }
    for name, value in expected.items():
        assert x[_index(name)] == pytest.approx(value, abs=1e-6), name


# (own checkers, opponent checkers by our point, {feature: value}): each value worked out by hand.
HAND_CASES = [
    # 7 borne off: the first five and two of the next five
    ({6: 8}, {24: 15}, {"off 1-5": 1.0, "off 6-10": 0.4, "off 11-15": 0.0}),
    # 13 off: all of the first ten, three of the last five
    ({1: 2}, {24: 15}, {"off 1-5": 1.0, "off 6-10": 1.0, "off 11-15": 0.6}),
    # the other side's rearmost on our 10: 2 on 20 have 2 x 10 to go to it; 13 on 3 are past it (39 pips)
    ({20: 2, 3: 13}, {10: 1, 24: 14}, {"break contact": 0.2, "free pips": 0.39, "back checker": 0.8}),
    # one blot on 10, an enemy checker 6 away on 4 (17 shots as in the v1 test); each hit costs 25 - 10 = 15 pips
    ({10: 1, 1: 14}, {4: 1}, {"pip loss": 17 * 15 / 900, "hit twice": 0.0}),
    # blots on 10 and 12, one enemy checker on 4: 6-2 hits 10 and goes on to 12 (2 rolls), 2-2 meets 6, 8, 10, 12
    ({10: 1, 12: 1, 1: 13}, {4: 1}, {"hit twice": 3 / 36}),
    # blots on 8 and 9, two enemy checkers on 3: 6-5 hits both with one checker each, 5-1 hits 8 and goes on to 9
    # (4 rolls); with one enemy checker there 6-5 no longer hits both
    ({8: 1, 9: 1, 1: 13}, {3: 2}, {"hit twice": 4 / 36}),
    ({8: 1, 9: 1, 1: 13}, {3: 1}, {"hit twice": 2 / 36}),
    # a full prime on our 13-18 in front of our checker on 20: every landing is made or short of it
    ({20: 1, 6: 14}, {13: 2, 14: 2, 15: 2, 16: 2, 17: 2, 18: 2, 0: 3}, {"rear trapped": 1.0, "containment": 1.0}),
    # four points made in the other side's home board (our 19-22), one checker on the bar: stays out on 4 x 4
    # rolls; mobility: 2 open landings (24, 23) of 6
    ({25: 1, 6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 1: 7}, {"enter": 16 / 36, "enter all": 16 / 36, "mobility": 2 / 90}),
    # two on the bar against the same board: both enter only with 24-23, 23-24, 1-1, 2-2 (4 rolls): 32 fail
    ({25: 2, 6: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 1: 7}, {"enter all": 32 / 36}),
    # one on 1 and one on 5: mean 3, the one behind it 2 away: 4 / 2 checkers
    ({1: 1, 5: 1}, {24: 15}, {"spread": 0.02}),
    # 2 on 9 have 3 pips each to the 6-point; 4 on the 6-point have 2 spares of 5 pips
    ({6: 4, 9: 2}, {24: 15}, {"timing": 0.16}),
    # anchor on 20; 14, 12 and 9 lie within 11 pips in front, 8 does not
    ({20: 2, 14: 2, 12: 2, 9: 2, 8: 2, 6: 5}, {24: 15}, {"backbone": 0.5, "back anchor": 20 / 24}),
    # made 18 and 24: the one of 13-24 nearest home is 18
    ({18: 2, 24: 2, 6: 11}, {1: 15}, {"forward anchor": 7 / 12}),
    # two points held in the other side's home board
    ({20: 2, 22: 2, 6: 11}, {1: 15}, {"back game": 1.0, "back game, one point": 0.0}),
    # one point held there and a third checker on its 23
    ({21: 2, 23: 1, 6: 12}, {1: 15}, {"back game": 0.0, "back game, one point": 1.0}),
]


@pytest.mark.parametrize(("own", "opponent", "expected"), HAND_CASES)
def test_hand_made_positions(own: dict[int, int], opponent: dict[int, int], expected: dict[str, float]) -> None:
    x = _extra(_board(own, opponent))
    for name, value in expected.items():
        assert x[_index(name)] == pytest.approx(value, abs=1e-6), name
