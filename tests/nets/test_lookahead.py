"""Lookahead and jump volatility on positions that can be checked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Position
from engine.batch import children_batch
from nets.bearoff import load_databases
from nets.evaluator import Evaluator
from nets.lookahead import (
    ROLL_WEIGHTS,
    PlyEvaluator,
    choose_children,
    evaluate_plies,
    filtered_candidates,
    rank_moves,
    segment_argmax,
)
from nets.mlp import cubeless_equity
from nets.model import new_evaluator
from nets.volatility import PAIR_WEIGHTS, jump_volatility

# Side on roll: one checker on its 6 point; opponent: one checker on its ace point.
# The side on roll bears off with every roll of 6 pips or more: all but 1-1, 2-1, 3-1, 4-1,
# 3-2 (9 of 36); otherwise the opponent bears off next roll. So P(win) = 27/36 exactly.
WIN = 27 / 36


@pytest.fixture(scope="module")
def exact_evaluator() -> Evaluator:
    ev = new_evaluator(hidden=(8,), seed=0)
    ev.one_sided, ev.two_sided = load_databases()
    return ev


def race_6_vs_1() -> Position:
    b = np.zeros(26, np.int64)
    b[6] = 1
    b[24] = -1  # the opponent's ace point is our 24
    return Position.from_board(b)


def test_weights_sum_to_one() -> None:
    assert np.isclose(ROLL_WEIGHTS.sum(), 1.0)
    assert np.isclose(PAIR_WEIGHTS.sum(), 1.0) and len(PAIR_WEIGHTS) == 441


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_forced_bearoff_win_chance_at_every_ply(exact_evaluator: Evaluator, plies: int) -> None:
    p = PlyEvaluator(exact_evaluator, plies).evaluate_boards(race_6_vs_1().array[None])[0]
    assert p[0] == pytest.approx(WIN, abs=1e-6)
    assert p[1:].sum() == pytest.approx(0.0, abs=1e-9)


def test_forced_bearoff_jump_volatility(exact_evaluator: Evaluator) -> None:
    v = jump_volatility(exact_evaluator, race_6_vs_1())
    assert v.p_average == pytest.approx(WIN, abs=1e-9)
    assert v.sigma == pytest.approx(np.sqrt(WIN * (1 - WIN)), abs=1e-9)
    assert v.mean_abs_jump == pytest.approx(2 * WIN * (1 - WIN), abs=1e-9)
    assert v.equity_average == pytest.approx(2 * WIN - 1, abs=1e-9)


def test_position_with_one_outcome_has_no_volatility() -> None:
    # Both sides on the bar against closed boards: no roll changes anything. No game reaches it (Position refuses it
    # from input); built unchecked here only to see the volatility kernel give zero where nothing can happen.
    b = np.zeros(26, np.int64)
    b[25], b[0] = 1, -1
    b[1:7], b[7] = 2, 2
    b[19:25], b[18] = -2, -2
    p = Position(b, _trusted=True)
    ev = new_evaluator(hidden=(8,), seed=1)
    v = jump_volatility(ev, p)
    assert v.sigma == pytest.approx(0.0, abs=1e-12) and v.mean_abs_jump == pytest.approx(0.0, abs=1e-12)
    assert v.p_average == pytest.approx(ev.evaluate(p).win, abs=1e-6)  # float32 nets


def test_rank_moves_prefers_bearing_off(exact_evaluator: Evaluator) -> None:
    b = np.zeros(26, np.int64)
    b[6], b[1] = 1, 1
    b[19] = -3
    ranked = rank_moves(exact_evaluator, Position.from_board(b), (6, 1), plies=0)
    assert str(ranked[0].move) == "6/off 1/off"
    assert ranked[0].equity == pytest.approx(1.0)
    deep = rank_moves(exact_evaluator, Position.from_board(b), (6, 1), plies=2)
    assert deep[0].position == ranked[0].position


def test_lookahead_in_chunks_equals_one_batch() -> None:
    # Chunking only bounds memory: every board's 2-ply value is computed on its own.
    ev = new_evaluator(hidden=(8,), seed=3)
    rng = np.random.default_rng(5)
    boards = [Position.initial().array]
    for _ in range(4):
        pos = Position.initial()
        for _ in range(int(rng.integers(2, 12))):
            plays = pos.plays((int(rng.integers(1, 7)), int(rng.integers(1, 7))))
            pos = plays[int(rng.integers(len(plays)))][1]
            if pos.is_over():
                break
        boards.append(pos.array)
    stacked = np.stack(boards)
    for plies in (1, 2):
        whole = evaluate_plies(ev, stacked, plies, chunk=len(boards))
        chunked = evaluate_plies(ev, stacked, plies, chunk=2)
        # torch's float32 matrix products round by batch size, in float32's last bits only; a
        # chunking error would move values by far more
        np.testing.assert_allclose(whole, chunked, rtol=0, atol=1e-7)
        assert whole.shape == (len(boards), 5)
    with pytest.raises(ValueError, match="chunk"):
        evaluate_plies(ev, stacked, 2, chunk=0)


def test_choose_children_matches_looking_deeper_at_every_kept_play() -> None:
    # The shortcut for decisions whose filter keeps one play must not change any choice.
    ev = new_evaluator(hidden=(8,), seed=4)
    rng = np.random.default_rng(9)
    boards: list[np.ndarray] = []
    dice: list[tuple[int, int]] = []
    pos = Position.initial()
    while len(boards) < 40:
        roll = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        boards.append(pos.array)
        dice.append(roll)
        plays = pos.plays(roll)
        pos = plays[int(rng.integers(len(plays)))][1]
        if pos.is_over():
            pos = Position.initial()
    kids, offsets = children_batch(np.stack(boards), np.array(dice))
    equity0 = -cubeless_equity(ev.evaluate_boards(kids))
    keep = filtered_candidates(equity0, offsets)
    reference = np.full(len(kids), -np.inf)
    reference[keep] = -cubeless_equity(evaluate_plies(ev, kids[keep], 1))
    expected = segment_argmax(reference, offsets)
    single = np.bincount(np.searchsorted(offsets, keep, side="right") - 1, minlength=len(boards)) == 1
    assert single.any() and not single.all()  # both kinds of decision are exercised
    np.testing.assert_array_equal(choose_children(ev, kids, offsets, 1), expected)


@given(
    st.lists(st.lists(st.integers(-3, 3), min_size=1, max_size=12), min_size=1, max_size=30),
)
def test_segment_argmax_is_the_first_largest_value_of_each_segment(segments: list[list[int]]) -> None:
    """Ties (small integers make many) go to the first, as the moves' order decides between equal plays."""
    values = np.array([v for seg in segments for v in seg], np.float64)
    offsets = np.concatenate([[0], np.cumsum([len(seg) for seg in segments])])
    expected = [start + int(np.argmax(seg)) for start, seg in zip(offsets[:-1], segments, strict=True)]
    assert segment_argmax(values, offsets).tolist() == expected


def test_segment_argmax_refuses_an_empty_segment() -> None:
    with pytest.raises(ValueError, match="empty segment"):
        segment_argmax(np.array([1.0, 2.0]), np.array([0, 2, 2]))
