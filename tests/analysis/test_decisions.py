"""What the analysis finds in decisions whose answer is known: thrown-away gammon saves, passed takes, self-play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.analyse import analyse_file
from analysis.evaluate import _judge, analyse_checker, analyse_luck, values_after_play
from analysis.marks import (
    CubeError,
    LuckMark,
    LuckRating,
    Rating,
    Skill,
    luck_mark,
    luck_rating_of,
    rating_of,
    skill_of,
)
from analysis.records import Action
from analysis.replay import CheckerTurn, CubeContext, CubeTurn
from arena import PlayerSpec, Rules, TournamentConfig, run_tournament, save_games
from cube.actions import ProperAction
from cube.match import MatchCube, MatchScore
from cube.met import published_met
from cube.states import CubeState
from engine.position import Position
from nets.cube_advice import match_cube_advice
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import ROLL_WEIGHTS, ROLLS
from tests.analysis.test_inputs import MONEY_PASS

CENTRED = CubeContext(1, CubeState.CENTERED)


@pytest.fixture(scope="module")
def ev() -> Evaluator:
    return load_evaluator()


def _turn(position: Position, dice: tuple[int, int], child: Position, opening: bool = False) -> CheckerTurn:
    return CheckerTurn(0, 1, 1, 0, position, dice, child, CENTRED, opening, "test")


def test_throwing_away_the_gammon_save_is_very_bad(ev: Evaluator) -> None:
    """Last checker outside, none off, the opponent off next turn: 6-1 must bear one off (7/1 1/off or 7/6 6/off)."""
    board = np.zeros(26, np.int64)
    board[[7, 6, 5, 4, 3, 2, 1]] = [1, 3, 3, 2, 2, 2, 2]
    board[24] = -2  # the opponent's last two checkers on its ace point
    position = Position.from_board(board)
    thrown = position.play("7/1 6/5", (6, 1))
    (d,), _ = analyse_checker(ev, [_turn(position, (6, 1), thrown)], 0, None, 5)
    assert d.skill is Skill.VERY_BAD and d.error > 0.5
    assert "off" in d.candidates[0].move
    saved = position.play("7/1 1/off", (6, 1))
    (good,), _ = analyse_checker(ev, [_turn(position, (6, 1), saved)], 0, None, 5)
    assert good.skill is Skill.NONE


def test_passing_an_obvious_take_is_a_wrong_pass(ev: Evaluator, tmp_path: Path) -> None:
    path = tmp_path / "pass.mat"
    path.write_text(MONEY_PASS)
    result = analyse_file(path, ev, 0, published_met(), "shipped", progress=False)
    (cube,) = [c for c in result.matches[0].games[0].cube if c.doubled]
    assert cube.taker_kind is CubeError.WRONG_PASS and cube.taker_skill is Skill.VERY_BAD
    assert cube.doubler_kind is CubeError.WRONG_DOUBLE_BELOW_DP
    bob = result.matches[0].players[1]
    assert [(e.kind, e.count) for e in bob.cube_errors] == [(CubeError.WRONG_PASS, 1)]
    assert bob.cube_error == pytest.approx(cube.taker_error)


def test_a_player_analysed_at_its_own_depth_makes_no_marked_checker_error(ev: Evaluator, tmp_path: Path) -> None:
    """net@0 against net@0: its plays are best at 0 ply cubeless, the analysis ranks them cubeful; no play is marked."""
    config = TournamentConfig(PlayerSpec("net@0", "gnubg"), PlayerSpec("net@0", "gnubg"), 2, seed=5, rules=Rules(True))
    result, blocks = run_tournament(config, record=True, progress=False)
    path = tmp_path / "self.jsonl"
    save_games(path, result, blocks)
    analysis = analyse_file(path, ev, 0, published_met(), "shipped", progress=False)
    moves = [d for g in analysis.matches[0].games for d in g.checker]
    assert len(moves) > 40
    assert all(d.skill is Skill.NONE for d in moves)
    assert sum(d.played_rank == 1 for d in moves) >= 0.9 * len(moves)
    for p in analysis.totals:
        assert p.checker_rate is not None and p.checker_rate < 2.0  # supernatural by gnubg's bands


def test_luck_averages_to_zero_over_the_rolls_and_an_opening_counts_the_first_move(ev: Evaluator) -> None:
    """Each roll's luck is its value minus the average: weighted by the rolls' chances the lucks sum to zero. An
    opening roll's average also takes in the opponent's 15 openings, so winning the opening is luck."""
    position = Position.initial().play("8/5 6/5", (3, 1)).play("24/18 13/11", (6, 2))
    turns = [_turn(position, (int(a), int(b)), position.plays((int(a), int(b)))[0][1]) for a, b in ROLLS]
    luck = analyse_luck(ev, turns, None)
    assert float(np.dot(ROLL_WEIGHTS, [lk.equity for lk in luck])) == pytest.approx(0.0, abs=1e-9)
    assert np.std([lk.equity for lk in luck]) > 0.05
    opening = [_turn(Position.initial(), (int(a), int(b)), Position.initial(), opening=True) for a, b in ROLLS]
    opening = [_turn(Position.initial(), t.dice, Position.initial().plays(t.dice)[0][1], opening=True) for t in opening]
    lucks = [lk.equity for lk in analyse_luck(ev, opening, None)]
    weights = np.where(ROLLS[:, 0] == ROLLS[:, 1], 0.0, 2.0 / 30.0)
    # An opening roll is judged against the 30 ways the opening can go (gnubg's LuckFirst): in money the start
    # is symmetric, so those average 0, and the luck of winning the opening is the first mover's edge.
    edge = float(np.dot(weights, lucks))
    assert 0.01 < edge < 0.1
    others = [_turn(Position.initial(), t.dice, t.child) for t in opening if t.dice[0] != t.dice[1]]
    played = [lk.equity for lk in analyse_luck(ev, others, None)]  # the same plays judged as any roll
    shift = np.array([lk for lk, (a, b) in zip(lucks, ROLLS, strict=True) if a != b]) - np.array(played)
    assert np.allclose(shift, shift[0], atol=1e-12)  # one constant: the means differ, the plays' values do not


def _cube_turn(doubled: bool, response: Action | None) -> CubeTurn:
    return CubeTurn(0, 1, 2, 0, Position.initial(), CENTRED, doubled, response, "test")


CASES = [
    # (doubled, response, proper, nd, dt, doubler kind, doubler error, taker kind, taker error)
    (False, None, ProperAction.DOUBLE_TAKE, 0.5, 0.8, CubeError.MISSED_DOUBLE_BELOW_CP, 0.3, None, 0.0),
    (False, None, ProperAction.DOUBLE_PASS, 0.5, 1.2, CubeError.MISSED_DOUBLE_ABOVE_CP, 0.5, None, 0.0),
    (True, Action.TAKE, ProperAction.NO_DOUBLE_TAKE, 0.3, 0.2, CubeError.WRONG_DOUBLE_BELOW_DP, 0.1, None, 0.0),
    (True, Action.PASS, ProperAction.TOO_GOOD_PASS, 1.3, 1.5, CubeError.WRONG_DOUBLE_ABOVE_TG, 0.3, None, 0.0),
    (True, Action.TAKE, ProperAction.DOUBLE_PASS, 0.8, 1.2, None, 0.0, CubeError.WRONG_TAKE, 0.2),
    (True, Action.PASS, ProperAction.DOUBLE_TAKE, 0.3, 0.5, None, 0.0, CubeError.WRONG_PASS, 0.5),
    (False, None, ProperAction.NO_DOUBLE_TAKE, 0.3, 0.2, None, 0.0, None, 0.0),
    # a beaver (DT < 0) is not judged, and the doubler's error ignores it: gnubg's DT - max(ND, DT), not 2 DT
    (True, Action.BEAVER, ProperAction.NO_DOUBLE_BEAVER, -0.1, -0.15, CubeError.WRONG_DOUBLE_BELOW_DP, 0.05, None, 0.0),
]


@pytest.mark.parametrize("case", CASES)
def test_cube_errors_are_classified_as_gnubg_does(case: tuple[Any, ...]) -> None:
    doubled, response, proper, nd, dt, kind, error, taker_kind, taker_error = case
    c = _judge(_cube_turn(doubled, response), proper, nd, dt, 1.0, None)
    assert c.doubler_kind is kind and c.doubler_error == pytest.approx(error)
    assert c.taker_kind is taker_kind and c.taker_error == pytest.approx(taker_error)
    assert c.doubler_error_units == pytest.approx(error)  # money: points at cube 1


@given(st.floats(0.0, 2.0))
def test_marks_grow_with_the_error(error: float) -> None:
    order = [Skill.NONE, Skill.DOUBTFUL, Skill.BAD, Skill.VERY_BAD]
    assert order.index(skill_of(error)) <= order.index(skill_of(error + 0.01))
    assert skill_of(error) is Skill.NONE or error >= 0.03


@given(st.floats(-2.0, 2.0))
def test_luck_marks_are_symmetric(luck: float) -> None:
    flipped = {LuckMark.LUCKY: LuckMark.UNLUCKY, LuckMark.VERY_LUCKY: LuckMark.VERY_UNLUCKY}
    flipped |= {v: k for k, v in flipped.items()} | {LuckMark.NONE: LuckMark.NONE}
    if abs(abs(luck) - 0.3) > 1e-9 and abs(abs(luck) - 0.6) > 1e-9:
        assert luck_mark(-luck) is flipped[luck_mark(luck)]


def test_rating_bands_in_order() -> None:
    rates = [0.0, 3.0, 6.0, 10.0, 15.0, 20.0, 30.0, 50.0]
    assert [rating_of(r) for r in rates] == list(Rating)


WORKED_EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_analysis" / "gnubg_05pt_s09.mat"


BEAVERS = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_sgf" / "money_beavers.mat"


def test_a_money_session_counts_as_gnubg_counts_it(ev: Evaluator) -> None:
    """Results net (points won minus lost, zero-sum); a beaver neither judged nor counted as a take or decision."""
    analysis = analyse_file(BEAVERS, ev, 0, published_met(), "shipped", progress=False)
    (m,) = analysis.matches
    won = [sum(g.points for g in m.games if g.winner == k) for k in (0, 1)]
    a, b = m.players
    assert (a.result, b.result) == (won[0] - won[1], won[1] - won[0]) and a.result != 0
    assert a.luck_adjusted_result == pytest.approx(-b.luck_adjusted_result)
    (beaver,) = [c for g in m.games for c in g.cube if c.response is Action.BEAVER]
    taker = m.players[1 - beaver.player]
    assert taker.beavers == 1 and beaver.taker_error == 0.0 and beaver.taker_kind is None
    answered = [c for g in m.games for c in g.cube if c.doubled and c.player == beaver.player]
    assert taker.takes + taker.passes == len(answered) - 1
    assert beaver.doubler_error == pytest.approx(max(beaver.no_double, beaver.double_take) - beaver.double_take)
    for p in m.players:
        assert p.checker_rate_units == pytest.approx(p.checker_error_units / p.unforced_moves)
        assert p.cube_rate_units == pytest.approx(p.cube_error_units / p.cube_decisions)
        assert p.luck_rate_units == pytest.approx(p.luck_units / p.moves)


def test_a_match_won_from_the_start_gains_half_the_match_as_gnubg_counts_it(ev: Evaluator) -> None:
    """gnubg's match result is the MWC gained since the first game's score: +50% and -50% from 0-0."""
    analysis = analyse_file(WORKED_EXAMPLE, ev, 0, published_met(), "shipped", progress=False)
    winner, loser = analysis.matches[0].players
    assert (winner.result, loser.result) == (pytest.approx(0.5), pytest.approx(-0.5))
    assert winner.luck_adjusted_result == pytest.approx(0.5 - winner.luck_units + loser.luck_units)
    for p in (winner, loser):
        assert p.luck_rate == pytest.approx(1000 * p.luck / p.moves)
        assert p.luck_rating is luck_rating_of(p.luck / p.moves)
        assert p.luck_rate_units == pytest.approx(p.luck_units / p.moves)  # MWC per move
        both = p.checker_error_units + p.cube_error_units
        assert p.overall_rate_units == pytest.approx(both / (p.unforced_moves + p.cube_decisions))
        # XG's PR: 500 times the EMG lost per unforced decision (checker plays and cube decisions together)
        decisions = p.unforced_moves + p.cube_decisions
        assert decisions > 0 and p.pr is not None
        assert p.pr == pytest.approx(500 * (p.checker_error + p.cube_error) / decisions)
        assert p.overall_rate == pytest.approx(2 * p.pr)  # mEMG a decision is twice the PR


@pytest.mark.parametrize(
    ("per_move", "rating"),
    [
        (0.07, LuckRating.GO_TO_LAS_VEGAS),
        (0.04, LuckRating.GOOD_DICE),
        (0.03, LuckRating.NONE),
        (0.0, LuckRating.NONE),
        (-0.03, LuckRating.NONE),
        (-0.031, LuckRating.BAD_DICE),
        (-0.061, LuckRating.GO_TO_BED),
    ],
)
def test_luck_ratings_are_gnubgs(per_move: float, rating: LuckRating) -> None:
    assert luck_rating_of(per_move) is rating


def test_at_a_match_score_a_play_is_valued_with_the_opponents_best_cube_action(ev: Evaluator) -> None:
    """The opponent on roll after the play doubles where doubling is right, as gnubg values a position below the
    top: a post-Crawford trailer's double (every play of the leader was valued as if it never came)."""
    met = published_met()
    opening = Position.initial()
    kids = np.stack([child.array for child in opening.children((6, 2))])
    probs = ev.evaluate_boards(kids)
    leader = MatchCube(MatchScore(1, 4), 1, CubeState.CENTERED)  # post-Crawford: the trailer may double
    mover = CubeContext(1, CubeState.CENTERED, leader)
    _, mwc = values_after_play(met, kids, probs, np.zeros(len(kids), np.int64), [mover])
    trailer = leader.flipped()
    for k in range(len(kids)):
        advice = match_cube_advice(kids[k], probs[k], met, trailer)
        assert advice.mwc is not None and advice.cubeful_mwc is not None
        no_double, double_take, _ = advice.mwc
        assert double_take is not None and advice.cubeful_mwc > no_double  # the trailer doubles
        assert mwc[k] == pytest.approx(1.0 - advice.cubeful_mwc, abs=1e-9)
