"""analysis.deep: n-ply values of many boards, each distinct board evaluated once, equal to nets.lookahead's."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.deep import best_plays, distinct_boards, evaluate_boards, plies_probabilities, segment_best
from engine.batch import children_batch
from engine.position import Position
from nets import load_evaluator
from nets.evaluator import Evaluator
from nets.lookahead import best_children, evaluate_plies, segment_argmax


@pytest.fixture(scope="module")
def ev() -> Evaluator:
    return load_evaluator(None)


def _boards() -> np.ndarray:
    """Positions of a few plies from the start, a bear-off and a finished game, some of them twice."""
    start = Position.initial()
    openings = [child for _, child in start.plays((3, 1))] + [child for _, child in start.plays((6, 5))]
    replies = [child for p in openings[:4] for _, child in p.plays((4, 2))]
    bearoff = Position.from_id("CwAAsAAAAAAAAA")  # three checkers a side, all home
    over = Position.from_id("AQAAAAAAAAAAAA")  # the side on roll has borne off
    assert over.is_over() and not bearoff.is_over()
    rows = [p.array for p in [*openings, *replies, bearoff, over]]
    return np.stack([*rows, *rows[:5]]).astype(np.int8)


def test_distinct_boards_keeps_first_appearances() -> None:
    rng = np.random.default_rng(3)
    boards = rng.integers(-2, 3, (500, 26)).astype(np.int8)
    boards[:, 4:] = 0  # many repeats
    distinct, first, inverse = distinct_boards(boards)
    assert np.array_equal(distinct[inverse], boards) and np.array_equal(boards[first], distinct)
    assert len(distinct) == len(np.unique(boards, axis=0)) and (np.diff(first) > 0).all()
    empty, f0, i0 = distinct_boards(np.zeros((0, 26), np.int8))
    assert empty.shape == (0, 26) and len(f0) == len(i0) == 0


def test_segment_best_breaks_ties_as_lookahead_does() -> None:
    rng = np.random.default_rng(4)
    for _ in range(100):
        sizes = rng.integers(1, 6, rng.integers(1, 30))
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        values = rng.integers(0, 3, offsets[-1]).astype(np.float64)  # many ties
        assert np.array_equal(segment_best(values, offsets), segment_argmax(values, offsets))


def test_best_plays_are_lookaheads_best_children_with_their_values(ev: Evaluator) -> None:
    boards = _boards()
    dice = np.array([(a, b) for a, b in [(3, 1), (6, 6), (2, 1), (5, 4)] * len(boards)][: len(boards)])
    kids, probs = best_plays(ev, boards, dice)
    assert np.array_equal(kids, best_children(ev, boards, dice))
    assert np.array_equal(probs, ev.evaluate_boards(kids))


@pytest.mark.parametrize("plies", [0, 1, pytest.param(2, marks=pytest.mark.slow)])
def test_values_equal_evaluate_plies_bit_for_bit(ev: Evaluator, plies: int) -> None:
    boards = _boards()
    found = plies_probabilities(ev, boards, plies)
    assert np.array_equal(found, evaluate_plies(ev, boards, plies))
    steps: list[int] = []
    plies_probabilities(ev, boards, plies, progress=steps.append)
    assert sum(steps) == len(boards)


def test_zero_ply_batch_evaluates_each_board_once(ev: Evaluator) -> None:
    boards = _boards()
    kids, _ = children_batch(boards, np.tile([[4, 3]], (len(boards), 1)))
    assert np.array_equal(evaluate_boards(ev, kids), ev.evaluate_boards(kids))
