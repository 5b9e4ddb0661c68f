"""Cube-decision and candidate-play rollouts: properties that hold by construction, and plays not in doubt."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from arena.rollout import (
    RolloutConfig,
    RolloutStart,
    StopRule,
    TrialOutcomes,
    build_player,
    level,
    roll_out_block,
    run_rollouts,
    stratified_rolls,
)
from arena.rollout_cube import cube_branches, run_cube_decisions
from arena.rollout_plays import filtered_candidates, named_candidates, run_play_rollout
from cube.actions import ProperAction, decide, proper_action
from cube.match import outcome_mwcs
from cube.states import CubeState
from engine import MatchState, Position
from engine.errors import IllegalMove, InvalidDice, InvalidMatchState, InvalidSpec, NotSupported
from nets.bearoff import load_two_sided
from nets.lookahead import evaluate_plies
from nets.mlp import cubeless_equity, flip_probabilities
from players.base import Player
from players.random_player import RandomPlayer
from tests.arena.test_rollout import two_sided_sample

OPENING = "4HPwATDgc/ABMA"
STARTS = [
    pytest.param("4HPwATDgc/ABMA", 8, id="opening, truncated after 8 plies"),
    pytest.param("u9uGAAC23VkAAA", None, id="race (76 against 57 pips) to the end"),
    pytest.param("4HPkQSDgc/ABMA", 10, id="reply to 24/18 13/11, truncated after 10"),
]


def rolled(position_id: str, dice: tuple[int, int]) -> RolloutStart:
    """The start ``position_id`` with ``dice`` rolled by the side on roll (money, no Jacoby)."""
    return replace(RolloutStart(Position.from_id(position_id)), dice=dice)


# --- cube decisions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("position_id", "truncate"), STARTS)
def test_with_the_cube_out_of_play_no_double_is_the_cubeless_rollout_and_double_take_twice_it(
    position_id: str, truncate: int | None
) -> None:
    """``--cube none`` without Jacoby: nobody doubles later, so ND is the cubeless rollout's equity (same dice)
    and DT exactly twice it, trial by trial."""
    start = RolloutStart(Position.from_id(position_id))
    config = RolloutConfig(trials=72, truncate=truncate, cubeful=True, cube="none", seed=4)
    decision = run_cube_decisions([start], config, progress=False)[0][0]
    cubeless = run_rollouts([start], replace(config, cubeful=False, cube=None), progress=False)[0]
    nd, dt = decision.per_trial()
    assert np.allclose(nd, cubeless_equity(cubeless.outcomes.adjusted()), atol=1e-12, rtol=0)
    assert np.allclose(dt, 2.0 * nd, atol=1e-12, rtol=0)
    no_double, double_take, double_pass = decision.figures
    assert no_double.value == pytest.approx(cubeless.estimate.equity, abs=1e-12)
    assert double_take.value == pytest.approx(2.0 * cubeless.estimate.equity, abs=1e-12)
    assert double_pass == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("cube", ["janowski:0.68", "jump:0.2"])
@pytest.mark.parametrize(("position_id", "truncate"), STARTS)
def test_each_branch_is_unbiased_and_the_branches_share_their_checker_play(
    position_id: str, truncate: int | None, cube: str
) -> None:
    """Both branches play the same moves on the same dice (the same cubeless outcomes); in each, the cubeful luck
    averages zero within 3.5 SE and the luck-adjusted and raw cubeful equities agree within 3.5 combined SE."""
    start = RolloutStart(Position.from_id(position_id))
    config = RolloutConfig(trials=144, truncate=truncate, cubeful=True, cube=cube, seed=6)
    d = run_cube_decisions([start], config, progress=False)[0][0]
    assert np.array_equal(d.no_double.outcomes.outcome, d.double_take.outcomes.outcome)
    assert np.array_equal(d.no_double.outcomes.luck, d.double_take.outcomes.luck)
    for branch in (d.no_double, d.double_take):
        luck = branch.outcomes.cubeful_luck
        assert abs(luck.mean()) <= 3.5 * luck.std(ddof=1) / math.sqrt(len(luck))
        est, raw = branch.estimate, branch.raw
        assert est.cubeful_equity is not None and raw.cubeful_equity is not None
        assert est.cubeful_equity_se is not None and raw.cubeful_equity_se is not None
        combined = math.hypot(est.cubeful_equity_se, raw.cubeful_equity_se)
        assert abs(est.cubeful_equity - raw.cubeful_equity) < 3.5 * combined
    nd, dt = d.per_trial()
    margin = d.margin
    assert margin.se is not None and margin.se > 0.0
    if d.figures[1].value < 1.0:  # the taker takes: the margin is the paired DT - ND
        assert margin.value == pytest.approx(float((dt - nd).mean()))


def test_a_taker_owned_cube_dice_rolled_or_a_finished_game_leaves_no_cube_decision() -> None:
    """The side on roll cannot double: the error names the position and says the cube is not available."""
    start = RolloutStart(Position.from_id(OPENING))
    finished = RolloutStart(Position(np.array([0, -1] + [0] * 24, np.int8)))  # the side on roll is off
    for bad, why in [
        (replace(start, cube=2, owner=1), "the opponent owns the cube"),
        (replace(start, dice=(3, 1)), "already rolled"),
        (finished, "the game is over"),
        (replace(start, cube=4096, owner=0), "largest"),
    ]:
        with pytest.raises(NotSupported, match=f"cube not available: .*{why}"):
            cube_branches(bad)
    no_double, double_take = cube_branches(replace(start, cube=2, owner=0))
    assert (no_double.cube, no_double.owner, double_take.cube, double_take.owner) == (2, 0, 4, 1)
    assert no_double.cube_decided and double_take.cube_decided


def test_a_certain_cash_is_too_good_or_double_pass() -> None:
    """A bear-off the side on roll wins whatever the dice (2 checkers on its ace, 15 of the opponent's home):
    no double and double/take both win at least the cube, so gnubg's words say double/pass or too good."""
    board = np.zeros(26, np.int8)
    board[1] = 2
    board[19:25] = -2
    board[24] = -5
    start = RolloutStart(Position(board))
    d = run_cube_decisions([start], RolloutConfig(trials=36, cubeful=True), progress=False)[0][0]
    assert d.action in (ProperAction.DOUBLE_PASS, ProperAction.TOO_GOOD_PASS)
    assert d.figures[0].value >= 1.0 - 1e-9


@pytest.mark.slow
def test_two_sided_bearoff_cube_decisions_agree_with_the_exact_database() -> None:
    """30 two-sided bear-offs (money, centred cube), 648 trials a branch, both sides playing gnubg's model (the
    database's optimal cube there): ND and DT lie within 3 SE of the database's cubeful equities, and the
    proper action is the database's wherever both margins exceed 3 SE.

    The SE is floored at 0.001: where no cube turns later the luck-adjusted trials are all equal (SE 0),
    and the database's checker play (best for the cubeful equity) can differ from the rollout's (best
    for the cubeless one) by a few ten-thousandths.
    """
    positions = two_sided_sample(30, seed=31)
    db = load_two_sided().lookup(np.stack([p.array for p in positions]))["no_double"]
    config = RolloutConfig(trials=648, cubeful=True, cube="gnubg", seed=5)
    results, _ = run_cube_decisions([RolloutStart(p) for p in positions], config, progress=False)
    compared = 0
    for d, exact in zip(results, db, strict=True):
        nd, dt, dp = d.figures
        assert nd.se is not None and dt.se is not None
        exact_nd, exact_dt = exact[0], 2.0 * exact[2]
        assert abs(nd.value - exact_nd) <= 3.0 * max(nd.se, 1e-3), (d.start.position.id, nd, exact_nd)
        assert abs(dt.value - exact_dt) <= 3.0 * max(dt.se, 1e-3), (d.start.position.id, dt, exact_dt)
        margin, take = d.margin, d.take_margin
        assert margin.se is not None and take.se is not None
        if abs(margin.value) > 3.0 * margin.se and abs(take.value) > 3.0 * max(take.se, 1e-3):
            truth = decide(exact_nd, exact_dt, dp, gammons=False)
            assert d.action == proper_action(truth.action, truth.response, CubeState.CENTERED)
            compared += 1
    assert compared >= 15  # the action check has teeth


# --- candidate plays -----------------------------------------------------------------------------------


def test_the_same_play_twice_differs_by_exactly_zero() -> None:
    start = rolled(OPENING, (3, 1))
    candidates = named_candidates(start, ["8/5 6/5", "24/23 13/10", "6/5 8/5"])
    assert candidates[0].move == candidates[2].move == "8/5 6/5"
    rollout, _ = run_play_rollout(start, candidates, RolloutConfig(trials=72, truncate=6, seed=2), progress=False)
    values = rollout.per_trial()
    assert np.array_equal(values[0], values[2]) and not np.array_equal(values[0], values[1])
    ranked = rollout.ranked()
    twins = [p for p in ranked if p.move == "8/5 6/5"]
    assert twins[0].equity == twins[1].equity and twins[0].difference.value == twins[1].difference.value
    assert {p.difference.value for p in twins} == {0.0} or ranked[0].move != "8/5 6/5"


@pytest.mark.slow
@pytest.mark.parametrize(("dice", "best"), [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4")])
def test_opening_rolls_whose_best_play_is_not_in_doubt_come_out_best(dice: tuple[int, int], best: str) -> None:
    """Of the 3 best plays by the 0-ply filter, the known best opening play wins by more than 3 paired SEs."""
    start = rolled(OPENING, dice)
    config = RolloutConfig(trials=72, truncate=10, seed=1)
    candidates = filtered_candidates(build_player(config)[1], start, 3)
    ranked = run_play_rollout(start, candidates, config, progress=False)[0].ranked()
    assert ranked[0].move == best
    runner_up = ranked[1].difference
    assert runner_up.se is not None and runner_up.value < -3.0 * runner_up.se


def test_a_play_rollout_is_the_mover_negating_its_childs() -> None:
    """A play's equity is minus the child's rollout from the opponent's view, on the same dice."""
    start = rolled(OPENING, (3, 1))
    candidates = named_candidates(start, ["8/5 6/5"])
    config = RolloutConfig(trials=36, truncate=4, seed=3)
    rollout, _ = run_play_rollout(start, candidates, config, progress=False)
    child = run_rollouts([RolloutStart(candidates[0].position)], config, progress=False)[0]
    assert rollout.ranked()[0].equity.value == pytest.approx(-child.estimate.equity, abs=1e-12)


def test_plays_need_dice_and_legal_moves() -> None:
    with pytest.raises(InvalidDice, match="no dice"):
        named_candidates(RolloutStart(Position.from_id(OPENING)), ["8/5 6/5"])
    with pytest.raises(IllegalMove):
        named_candidates(rolled(OPENING, (3, 1)), ["8/4 6/5"])


# --- asking once per distinct (board, roll) --------------------------------------------------------------


def test_asking_once_per_distinct_board_and_roll_changes_nothing() -> None:
    """The net's moves are repeatable: the rollout asks once per distinct (board, roll), with the same outcomes."""
    config = RolloutConfig(trials=72, truncate=6, cubeful=True, seed=8)
    player, evaluator = build_player(config)
    assert player.repeatable_moves
    starts = list(cube_branches(RolloutStart(Position.from_id(OPENING))))
    once = roll_out_block(player, evaluator, starts, config, np.arange(72))
    player.repeatable_moves = False  # an instance attribute: every row asked
    each = roll_out_block(player, evaluator, starts, config, np.arange(72))
    for name in ("outcome", "luck", "cubeful", "cubeful_luck", "plies"):
        assert np.array_equal(getattr(once, name), getattr(each, name)), name


def test_match_ids_with_dice_give_the_mover_its_roll() -> None:
    start = RolloutStart.parse(f"{OPENING}:{MatchState(on_roll=0, dice=(4, 2)).id}")
    assert start.dice == (4, 2)
    assert [c.move for c in named_candidates(start, ["8/4 6/4"])] == ["8/4 6/4"]


# --- levels, stopping, continuing -------------------------------------------------------------------------


class DepthSpy(Player):
    """Plays like ``inner`` and records the ply of every move it is asked for (the block's trials move together)."""

    def __init__(self, inner: Player) -> None:
        super().__init__("depth spy")
        self.inner = inner
        self.calls = 0

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        self.calls += 1
        return self.inner.choose_moves(boards, dice)


def test_the_late_player_takes_over_at_its_ply() -> None:
    """With ``late_after`` M, the early player moves plies 0 .. M-1 and the late one every ply after."""
    config = RolloutConfig(trials=36, truncate=6, late_after=2, variance_reduction=False)
    early, late = DepthSpy(RandomPlayer(1)), DepthSpy(RandomPlayer(2))
    roll_out_block(
        early, build_player(config)[1], [RolloutStart(Position.from_id(OPENING))], config, np.arange(36), late=late
    )
    assert (early.calls, late.calls) == (2, 4)


def test_truncation_is_scored_at_its_depth() -> None:
    """Truncated after one ply at 1-ply: each trial's outcome is the 1-ply evaluation after the first play."""
    config = RolloutConfig(trials=36, truncate=1, truncate_plies=1, variance_reduction=False)
    player, evaluator = build_player(config)
    start = RolloutStart(Position.from_id(OPENING))
    out = run_rollouts([start], config, progress=False)[0].outcomes
    rolls = stratified_rolls(out.trial)[:, 0]
    kids = player.choose_moves(np.repeat(start.position.array[None], 36, axis=0), rolls)
    assert np.allclose(out.outcome, flip_probabilities(evaluate_plies(evaluator, kids, 1)), atol=1e-9)


@pytest.mark.slow
def test_a_continued_rollout_is_the_rollout_of_all_its_trials() -> None:
    """Trials 0-143 then 144-287 on the same dice give exactly the 288-trial rollout, for a cube decision."""
    start = RolloutStart(Position.from_id("u9uGAAC23VkAAA"))
    config = RolloutConfig(trials=288, cubeful=True, seed=9, truncate=12)
    whole, _ = run_cube_decisions([start], config, progress=False)
    first, _ = run_cube_decisions([start], replace(config, trials=144), progress=False)
    previous = TrialOutcomes.concatenate([first[0].no_double.outcomes, first[0].double_take.outcomes])
    previous.position = np.repeat([0, 1], 144)
    more, _ = run_cube_decisions([start], config, progress=False, previous=previous)
    assert more[0].trials == 288
    assert more[0].to_json() == whole[0].to_json()


@pytest.mark.slow
def test_stopping_when_the_standard_errors_are_small_or_the_plays_settled() -> None:
    start = RolloutStart(Position.from_id("u9uGAAC23VkAAA"))
    config = RolloutConfig(trials=2592, cubeful=True, seed=1, truncate=8)
    decisions, reason = run_cube_decisions([start], config, progress=False, stop=StopRule(until_se=0.05))
    assert reason is not None and "standard error" in reason and decisions[0].trials < 2592
    assert all(f.se is not None and f.se < 0.05 for f in decisions[0].figures[:2])
    plays = rolled(OPENING, (4, 2))
    candidates = named_candidates(plays, ["8/4 6/4", "24/20 13/11"])
    rollout, reason = run_play_rollout(
        plays, candidates, RolloutConfig(trials=2592, truncate=6), progress=False, stop=StopRule(settle=4.0)
    )
    assert reason is not None and "settled" in reason and rollout.trials < 2592
    second = rollout.ranked()[1].difference
    assert second.se is not None and abs(second.value) > 4.0 * second.se


def test_bad_stop_rules_and_levels_are_refused() -> None:
    for bad in ({"until_se": 0.0}, {"settle": -1.0}, {"max_seconds": float("nan")}):
        with pytest.raises(InvalidSpec):
            StopRule(**bad)
    with pytest.raises(InvalidSpec, match="quick"):
        level("fastest")
    with pytest.raises(InvalidSpec, match="cube plies"):
        RolloutConfig(cube_plies=3)
    assert (
        level("roller").apply(RolloutConfig()).describe()
        == "1-ply, 0-ply from ply 2, truncated after 11 plies at 1-ply"
    )


# --- match scores ----------------------------------------------------------------------------------------


def test_a_last_roll_at_four_away_two_away_is_gnubgs_double_take() -> None:
    """7-point match, 4-away against 2-away, a last roll (72.2% to bear off now, the opponent surely next):
    gnubg 1.07 says Double, take with ND +0.444 (the cubeless equity) and DT +0.633; the rollout's trials
    are exact here (the two-sided database is the evaluator and no cube turns later), so they agree to 1e-3."""
    start = RolloutStart.parse("AwAAMAAAAAAAAA:MAHgADAAKAAA")
    assert start.score is not None and (start.score.away, start.score.opp_away) == (4, 2)
    decisions, _ = run_cube_decisions([start], RolloutConfig(trials=72, cubeful=True), progress=False)
    d = decisions[0]
    nd, dt, dp = d.figures
    assert nd.value == pytest.approx(0.4444, abs=1e-3) and dt.value == pytest.approx(0.633, abs=1e-3) and dp == 1.0
    assert d.action == ProperAction.DOUBLE_TAKE
    mwcs = d.mwc_figures()
    assert mwcs is not None and mwcs[0].value < mwcs[1].value < mwcs[2]


@pytest.mark.parametrize("truncate", [None, 4])
@pytest.mark.parametrize("match_id", ["cInqAAAAAAAA", "MAHgADAAMAAA", "MAGgABAAEAAA"])
def test_with_the_cube_out_of_play_a_match_rollout_is_the_cubeless_mwc(match_id: str, truncate: int | None) -> None:
    """Cube spec ``none`` at a match score: each trial's luck-adjusted MWC is the cubeless MWC of its luck-adjusted
    outcome (the MWC luck is the cubeless MWC's linear map of the probability luck), to the end of the game or,
    truncated, at the evaluation there (a cube nobody turns adds nothing to it)."""
    start = RolloutStart.parse(f"u9uGAAC23VkAAA:{match_id}")
    assert start.score is not None
    config = RolloutConfig(trials=72, cubeful=True, cube="none", seed=2, truncate=truncate)
    result = run_rollouts([start], config, progress=False)[0]
    assert truncate is None or result.outcomes.truncated.any()
    adjusted = result.outcomes.adjusted()
    w, wg, wbg, lg, lbg = (adjusted[:, k] for k in range(5))
    results = np.stack([w - wg, wg - wbg, wbg, 1.0 - w - lg, lg - lbg, lbg], axis=1)
    expected = results @ outcome_mwcs(config.match_table(), start.match_cube())
    assert np.allclose(result.trial_values(), expected, atol=1e-12, rtol=0)


def test_a_match_longer_than_gnubg_plays_is_refused_before_any_trial() -> None:
    """Every table is extended to gnubg's 64 points; a longer match is refused as the position is read."""
    with pytest.raises(InvalidMatchState, match="match length 71 is above 64"):
        RolloutStart.parse(f"{OPENING}:{MatchState(match_length=71, score=(1, 1), on_roll=0).id}")


def test_no_cube_decision_in_the_crawford_game_or_with_a_dead_cube() -> None:
    crawford = RolloutStart.parse(f"{OPENING}:sAHgAGAAGAAA")
    assert crawford.score is not None and crawford.score.crawford
    with pytest.raises(NotSupported, match="cube not available: the Crawford game"):
        cube_branches(crawford)
    leader = RolloutStart.parse(f"{OPENING}:{MatchState(match_length=7, score=(6, 3), on_roll=0).id}")
    with pytest.raises(NotSupported, match="dead cube"):
        cube_branches(leader)  # post-Crawford, 1-away: the cube already wins the match


def test_plays_at_a_match_score_rank_by_normalised_equity() -> None:
    start = RolloutStart.parse(f"{OPENING}:{MatchState(match_length=5, score=(1, 2), on_roll=0, dice=(3, 1)).id}")
    candidates = named_candidates(start, ["8/5 6/5", "24/23 13/10"])
    config = RolloutConfig(trials=72, truncate=6, cubeful=True, seed=4)
    rollout, _ = run_play_rollout(start, candidates, config, progress=False)
    ranked = rollout.ranked()
    assert ranked[0].move == "8/5 6/5" and ranked[1].difference.value < 0.0
    assert -1.5 < ranked[0].equity.value < 1.5
