"""The two-roll lookahead: the bearoff database's exact kernel against the search over every child."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Position
from nets import bearoff as bo
from nets.bearoff import load_databases
from nets.evaluator import Evaluator
from nets.model import new_evaluator
from nets.volatility import PAIR_WEIGHTS, exact_two_sided, two_roll_outcomes_batch, two_roll_search

SAMPLE = 300
SEED = 3


@pytest.fixture(scope="module")
def exact_evaluator() -> Evaluator:
    ev = new_evaluator(hidden=(8,), seed=0)
    ev.one_sided, ev.two_sided = load_databases()
    return ev


def two_sided_boards(n: int, seed: int) -> np.ndarray:
    """int8 ``(n, 26)``: a seeded sample of two-sided positions with both sides still on (side on roll's view)."""
    rng = np.random.default_rng(seed)
    i = rng.integers(1, bo.N_TWO_SIDED_SIDE, n)
    j = rng.integers(1, bo.N_TWO_SIDED_SIDE, n)
    pts = bo.one_sided_points()
    boards = np.zeros((n, 26), np.int8)
    boards[:, 1:7] = pts[i]
    boards[:, 24:18:-1] = -pts[j]
    return boards


def test_exact_two_sided_needs_the_database(exact_evaluator: Evaluator) -> None:
    assert exact_two_sided(exact_evaluator) is bo.load_two_sided(progress=False)
    assert exact_two_sided(new_evaluator(hidden=(8,), seed=0)) is None


def test_database_lookahead_equals_the_search(exact_evaluator: Evaluator) -> None:
    boards = two_sided_boards(SAMPLE, SEED)
    fast = two_roll_outcomes_batch(exact_evaluator, boards)
    slow = two_roll_search(exact_evaluator, boards)
    assert fast.shape == slow.shape == (SAMPLE, 441, 5)
    np.testing.assert_allclose(fast, slow, rtol=0.0, atol=1e-12)
    assert not fast[:, :, 1:].any()  # no gammons in the two-sided region
    win = bo.load_two_sided(progress=False).win_probability(boards)
    np.testing.assert_allclose(fast[:, :, 0] @ PAIR_WEIGHTS, win, rtol=0.0, atol=1e-12)


def test_mixed_batch_takes_each_path(exact_evaluator: Evaluator) -> None:
    bear = two_sided_boards(4, SEED + 1)
    other = np.stack([Position.initial().array, Position.initial().flip().array]).astype(np.int8)
    boards = np.concatenate([bear[:2], other[:1], bear[2:], other[1:]])
    out = two_roll_outcomes_batch(exact_evaluator, boards)
    covered = bo.covered_by_two_sided(boards)
    assert covered.tolist() == [True, True, False, True, True, False]
    np.testing.assert_array_equal(out[covered], bo.load_two_sided(progress=False).two_roll_probabilities(bear))
    np.testing.assert_array_equal(out[~covered], two_roll_search(exact_evaluator, other))
    # Without the database every board takes the search.
    plain = new_evaluator(hidden=(8,), seed=0)
    np.testing.assert_array_equal(two_roll_outcomes_batch(plain, other), two_roll_search(plain, other))
