"""Rollouts: stratified dice, reproducibility, luck adjustment, cube handling, and exact bear-off values."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena.rollout import (
    ORDERED_ROLLS,
    RolloutConfig,
    RolloutKind,
    RolloutStart,
    SavedRollout,
    TrialDice,
    build_player,
    roll_out_block,
    run_rollouts,
    stratification_warning,
    stratified_rolls,
)
from arena.rollout_cube import run_cube_decisions
from cube.states import CubeAction, CubeResponse, CubeState
from engine import MatchState, Position
from engine.errors import InvalidPositionId, InvalidSpec, NotSupported
from nets.bearoff import load_two_sided
from nets.evaluator import Evaluator, load_evaluator
from nets.mlp import cubeless_equity
from players.base import CubeContext, Player
from players.random_player import RandomPlayer

OPENING = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return load_evaluator()


class Spy(Player):
    """Plays like ``inner`` and records every (board, dice) it is asked about; scripted cube answers."""

    def __init__(self, inner: Player, doubles: bool = False, answer: CubeResponse = CubeResponse.TAKE) -> None:
        super().__init__("spy")
        self.inner = inner
        self.doubles = doubles
        self.answer = answer
        self.seen: list[tuple[np.ndarray, np.ndarray]] = []

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        self.seen.append((boards.copy(), dice.copy()))
        return self.inner.choose_moves(boards, dice)

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        return np.full(len(boards), CubeAction.DOUBLE if self.doubles else CubeAction.NO_DOUBLE)

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        return np.full(len(boards), self.answer)


def board_of(own: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A board seen by the side on roll: ``own`` checkers per point, ``theirs`` per point of theirs (1: their ace)."""
    b = np.zeros(26, np.int8)
    for point, count in own.items():
        b[point] += count
    for point, count in theirs.items():
        b[25 - point] -= count
    return b


def two_sided_sample(count: int, seed: int) -> list[Position]:
    """Seeded positions of the two-sided bear-off database whose exact winning chance lies in (0.1, 0.9)."""
    db = load_two_sided()
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    while len(out) < count:
        own = Counter(rng.integers(1, 7, size=rng.integers(1, 7)).tolist())
        theirs = Counter(rng.integers(1, 7, size=rng.integers(1, 7)).tolist())
        board = board_of(dict(own), dict(theirs))
        if 0.1 < db.win_probability(board[None])[0] < 0.9:
            out.append(Position(board))
    return out


# --- dice ------------------------------------------------------------------------------------------


def test_the_first_two_rolls_are_stratified() -> None:
    """Every 36 trials meet each first and each second roll once; every 1,296 each ordered pair once."""
    t = np.arange(2 * 1296)
    rolls = stratified_rolls(t)
    codes = 6 * (rolls[:, :, 0] - 1) + (rolls[:, :, 1] - 1)
    assert Counter(codes[:, 0].tolist()) == dict.fromkeys(range(36), 72)
    assert Counter(codes[:, 1].tolist()) == dict.fromkeys(range(36), 72)
    assert Counter(map(tuple, codes.tolist())) == {(a, b): 2 for a in range(36) for b in range(36)}
    for start in range(0, len(t), 36):
        block = codes[start : start + 36]
        assert sorted(block[:, 0]) == list(range(36)) and sorted(block[:, 1]) == list(range(36))
    assert {tuple(r) for r in ORDERED_ROLLS} == {(a, b) for a in range(1, 7) for b in range(1, 7)}


def test_later_rolls_come_from_each_trials_own_generator() -> None:
    trials = np.array([5, 700, 3])
    dice = TrialDice(seed=9, trials=trials)
    got = dice.at(np.repeat(np.arange(3), 3), np.tile([0, 2, 130], 3))  # 130: beyond the first chunk
    for k, t in enumerate(trials):
        expected = np.random.default_rng([9, int(t)]).integers(1, 7, size=(64, 2))
        more = np.random.default_rng([9, int(t)])
        more.integers(1, 7, size=(64, 2))
        more.integers(1, 7, size=(64, 2))
        later = more.integers(1, 7, size=(64, 2))
        assert got[3 * k].tolist() == stratified_rolls(np.array([t]))[0, 0].tolist()
        assert got[3 * k + 1].tolist() == expected[0].tolist()
        assert got[3 * k + 2].tolist() == later[130 - 2 - 128].tolist()


def test_trials_not_a_multiple_of_36_get_a_warning() -> None:
    assert stratification_warning(1296) is None and stratification_warning(2592) is None
    assert "not a multiple of 36" in (stratification_warning(100) or "")
    assert "not a multiple of 1,296" in (stratification_warning(324) or "")  # single rolls balanced, pairs not


def test_every_36_trials_balance_each_roll_and_1296_every_pair() -> None:
    for start in (0, 36 * 7, 1296 * 3):
        rolls = stratified_rolls(np.arange(start, start + 36))
        for k in (0, 1):  # each of the 36 ordered rolls once, first and second alike
            assert len({tuple(r) for r in rolls[:, k].tolist()}) == 36
    pairs = {tuple(p) for p in stratified_rolls(np.arange(1296, 2 * 1296)).reshape(1296, 4).tolist()}
    assert len(pairs) == 1296  # every ordered pair of first two rolls once
    first, second = stratified_rolls(np.arange(324))[:, 0], stratified_rolls(np.arange(324))[:, 1]
    for roll in {tuple(r) for r in first.tolist()}:  # a round of 324: each first roll meets 9 second rolls of 36
        assert len({tuple(r) for r in second[(first == roll).all(axis=1)].tolist()}) == 9


def test_each_trial_starts_with_its_stratified_roll_or_the_match_ids_dice(evaluator: Evaluator) -> None:
    spy = Spy(RandomPlayer(1))
    config = RolloutConfig(trials=72, truncate=3, variance_reduction=False)
    plain = RolloutStart.parse(OPENING)
    rolled = RolloutStart.parse(f"{OPENING}:{MatchState(on_roll=0, dice=(6, 2)).id}")
    assert rolled.dice == (6, 2) and plain.dice is None
    roll_out_block(spy, evaluator, [plain, rolled], config, np.arange(72))
    first, second, third = (dice for _, dice in spy.seen[:3])
    strat = stratified_rolls(np.arange(72))
    assert first[:72].tolist() == strat[:, 0].tolist()  # rows of the first start, in trial order
    assert first[72:].tolist() == [[6, 2]] * 72  # the given dice come first ...
    assert second[72:].tolist() == strat[:, 0].tolist()  # ... and the stratified rolls after them
    assert third[72:].tolist() == strat[:, 1].tolist()
    assert second[:72].tolist() == strat[:, 1].tolist()


# --- reproducibility ---------------------------------------------------------------------------------


def test_same_seed_same_rollout_another_seed_another() -> None:
    starts = [RolloutStart.parse(OPENING)]
    config = RolloutConfig(trials=36, truncate=4, seed=3)
    a, b = (run_rollouts(starts, config, progress=False)[0] for _ in range(2))
    c = run_rollouts(starts, RolloutConfig(trials=36, truncate=4, seed=4), progress=False)[0]
    assert np.array_equal(a.outcomes.outcome, b.outcomes.outcome) and np.array_equal(a.outcomes.luck, b.outcomes.luck)
    assert not np.array_equal(a.outcomes.outcome, c.outcomes.outcome)


@pytest.mark.slow
def test_two_workers_give_the_result_of_one() -> None:
    # Both match IDs mark the Jacoby rule in force (a cubeful rollout's positions must agree on it).
    starts = [RolloutStart.parse(f"{OPENING}:cAkAAAAAAAAA"), RolloutStart.parse(f"{OPENING}:cAkZAAAAAAAA")]
    config = RolloutConfig(trials=72, truncate=4, cubeful=True, block_rows=48)
    one = run_rollouts(starts, config, workers=1, progress=False)
    two = run_rollouts(starts, config, workers=2, progress=False)
    # Same games (the integer records are equal); the float values may differ in the last bits of float32,
    # because a worker multiplies its matrices on one BLAS thread and the parent on several.
    for a, b in zip(one, two, strict=True):
        for name in ("trial", "plies", "doubles", "passes"):
            assert np.array_equal(getattr(a.outcomes, name), getattr(b.outcomes, name)), name
        for name in ("outcome", "luck", "cubeful", "cubeful_luck"):
            assert np.allclose(getattr(a.outcomes, name), getattr(b.outcomes, name), rtol=0, atol=1e-6), name
        assert a.estimate.equity == pytest.approx(b.estimate.equity, abs=1e-6)
        assert a.estimate.cubeful_equity == pytest.approx(b.estimate.cubeful_equity, abs=1e-6)


def test_the_block_size_does_not_change_a_bearoff_rollout() -> None:
    """Blocks of 12 or of all trials, several positions sharing a block or not: the same trials."""
    starts = [RolloutStart(p) for p in two_sided_sample(3, seed=5)]
    small = run_rollouts(starts, RolloutConfig(trials=72, block_rows=12), progress=False)
    large = run_rollouts(starts, RolloutConfig(trials=72, block_rows=1000), progress=False)
    alone = [run_rollouts([s], RolloutConfig(trials=72), progress=False)[0] for s in starts]
    for a, b, c in zip(small, large, alone, strict=True):
        assert np.array_equal(a.outcomes.outcome, b.outcomes.outcome)
        assert np.array_equal(a.outcomes.outcome, c.outcomes.outcome)


# --- exact values --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_bearoff_rollouts_agree_with_the_exact_two_sided_values() -> None:
    """40 positions, 1,296 trials each at 0-ply, against the two-sided database's exact winning chances.

    Raw means: with normal errors an exact value lies outside 2 standard errors 4.55% of the time,
    1.8 of 40 expected (stratified dice make it rarer: the usual SE overstates their error). 8 or
    more misses would have probability about 0.001 under Binomial(40, 0.0455), so the test allows 7.
    With luck adjustment every trial equals the exact value: the database is the 0-ply evaluator
    there and both sides play its best move, so the luck terms telescope to exact minus outcome.
    """
    positions = two_sided_sample(40, seed=11)
    exact = load_two_sided().win_probability(np.stack([p.array for p in positions]))
    results = run_rollouts([RolloutStart(p) for p in positions], RolloutConfig(trials=1296), progress=False)
    misses = 0
    for r, w in zip(results, exact, strict=True):
        assert r.raw.standard_errors is not None
        assert r.raw.standard_errors[0] > 0.005  # a real spread: the check has teeth
        misses += abs(r.raw.probabilities[0] - w) > 2 * r.raw.standard_errors[0]
        assert np.allclose(r.outcomes.adjusted()[:, 0], w, atol=1e-9)  # every trial, luck-adjusted
        assert np.allclose(r.outcomes.outcome[:, 1:], 0.0)  # no gammons in the two-sided database
        assert r.estimate.equity == pytest.approx(2 * w - 1, abs=1e-9)
    assert misses <= 7


# --- luck adjustment -----------------------------------------------------------------------------------

RACE = Position(board_of({6: 3, 5: 3, 4: 2, 8: 3, 10: 2, 11: 2}, {6: 4, 5: 2, 3: 2, 7: 3, 9: 2, 12: 2}))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("start", "truncate"),
    [(Position.from_id(OPENING), 8), (RACE, None)],
    ids=["opening, truncated after 8 plies", "race to the end"],
)
def test_luck_adjustment_is_unbiased_and_reduces_the_standard_error(start: Position, truncate: int | None) -> None:
    """The summed luck of the trials averages zero within 3.5 of its standard errors, component by component;
    the adjusted equity's standard error is less than half the raw one."""
    r = run_rollouts([RolloutStart(start)], RolloutConfig(trials=216, truncate=truncate, seed=2), progress=False)[0]
    luck = r.outcomes.luck
    mean, se = luck.mean(axis=0), luck.std(axis=0, ddof=1) / math.sqrt(len(luck))
    for m, s in zip(mean, se, strict=True):
        assert abs(m) <= 3.5 * s or (s == 0 and m == 0)
    assert np.allclose(r.estimate.probabilities, r.raw.probabilities - mean)
    assert r.estimate.equity_se is not None and r.raw.equity_se is not None
    assert r.estimate.equity_se < 0.5 * r.raw.equity_se
    assert abs(r.estimate.equity - r.raw.equity) < 3.5 * math.hypot(r.estimate.equity_se, r.raw.equity_se)


def test_without_variance_reduction_the_estimate_is_the_raw_one() -> None:
    config = RolloutConfig(trials=36, truncate=3, variance_reduction=False)
    r = run_rollouts([RolloutStart.parse(OPENING)], config, progress=False)[0]
    assert not r.outcomes.luck.any()
    assert r.estimate.to_json() == r.raw.to_json()


# --- finished games, cube -------------------------------------------------------------------------------

FINISHED = [
    # (board, cube, owner seat, expected probabilities, expected cubeful points per unit initial cube)
    (board_of({}, {3: 2}), 1, None, [1, 0, 0, 0, 0], 1.0),  # the side on roll has borne off: a single win
    (board_of({}, {15: 15}), 2, 1, [1, 1, 0, 0, 0], 2.0),  # a gammon, cube 2 owned by the opponent
    (board_of({}, {24: 1, 3: 14}), 4, 0, [1, 1, 1, 0, 0], 3.0),  # a backgammon
    (board_of({5: 15}, {}), 1, None, [0, 0, 0, 1, 0], -2.0),  # the opponent has borne off and gammoned us
]


@pytest.mark.parametrize(("board", "cube", "owner", "probabilities", "points"), FINISHED)
def test_a_finished_game_rolls_out_to_its_result(
    board: np.ndarray, cube: int, owner: int | None, probabilities: list[int], points: float
) -> None:
    start = RolloutStart(Position(board), cube=cube, owner=owner)
    config = RolloutConfig(trials=36, cubeful=True, cube="none")
    r = run_rollouts([start], config, progress=False)[0]
    assert r.estimate.probabilities.tolist() == probabilities
    assert r.estimate.standard_errors is not None and not r.estimate.standard_errors.any()
    assert r.estimate.cubeful_equity == points and r.estimate.cubeful_equity_se == 0
    assert not r.outcomes.plies.any()


def test_the_side_on_roll_doubles_before_its_first_roll_unless_the_dice_are_rolled(evaluator: Evaluator) -> None:
    """Both sides always double and always pass: the side on roll wins 1 at once, or with dice rolled it may not
    double, so its opponent doubles next turn and it passes (-1). The checkers play on after a pass."""
    player = Spy(RandomPlayer(2), doubles=True, answer=CubeResponse.PASS)
    config = RolloutConfig(trials=36, cubeful=True, cube="none", truncate=5, variance_reduction=False)
    rolled = f"{OPENING}:{MatchState(on_roll=0, dice=(3, 1)).id}"
    starts = [RolloutStart.parse(f"{OPENING}:{MatchState(on_roll=0).id}"), RolloutStart.parse(rolled)]
    out = roll_out_block(player, evaluator, starts, config, np.arange(36))
    assert out.cubeful[:36].tolist() == [1.0] * 36 and out.cubeful[36:].tolist() == [-1.0] * 36
    assert out.doubles[:36, 0].tolist() == [1] * 36 and out.passes[:36, 1].tolist() == [1] * 36
    assert out.doubles[36:, 1].tolist() == [1] * 36 and out.passes[36:, 0].tolist() == [1] * 36
    assert (out.plies == 5).all() and out.truncated.all()  # played on to the truncation


@pytest.mark.slow
def test_a_cubeful_rollout_plays_the_same_checkers_as_a_cubeless_one() -> None:
    """Moves do not depend on the cube, and passes are played out: the cubeless outcomes are identical."""
    start = [RolloutStart.parse(OPENING)]
    cubeless = run_rollouts(start, RolloutConfig(trials=72, truncate=10, seed=1), progress=False)[0]
    cubeful = run_rollouts(start, RolloutConfig(trials=72, truncate=10, seed=1, cubeful=True), progress=False)[0]
    assert np.array_equal(cubeless.outcomes.outcome, cubeful.outcomes.outcome)
    assert np.array_equal(cubeless.outcomes.luck, cubeful.outcomes.luck)
    assert cubeful.to_json()["cube_actions"]["doubles"] > 0  # the cube was in play


def test_a_truncated_cubeful_trial_takes_the_strategys_equity(evaluator: Evaluator) -> None:
    """After one ply the opponent is on roll: the trial is worth minus its strategy's cubeful equity, times the cube."""
    config = RolloutConfig(trials=36, truncate=1, cubeful=True, cube="janowski:0.68")
    owned = MatchState(cube=2, cube_owner=0, on_roll=0).id
    start = RolloutStart.parse(f"{OPENING}:{owned}")  # the side on roll owns a cube of 2
    r = run_rollouts([start], config, progress=False)[0]
    assert r.cube_actions()["doubles"] == 0  # nobody redoubles the opening
    player, _ = build_player(config)
    rolls = stratified_rolls(np.arange(36))[:, 0]
    after = player.choose_moves(np.repeat(start.position.array[None], 36, axis=0), rolls)
    states = np.full(36, CubeState.UNAVAILABLE)  # the opponent, on roll, does not own the cube
    expected = -player.cube_equities(after, CubeContext.money(states))  # type: ignore[operator]
    assert np.allclose(r.outcomes.cubeful, expected)
    assert not np.allclose(expected, -cubeless_equity(evaluator.evaluate_boards(after)))  # not the cubeless value


# --- bad input ------------------------------------------------------------------------------------------

BAD_STARTS = [
    ("nonsense", InvalidPositionId),
    (f"{OPENING}:{MatchState(cube=2, doubled=True).id}", NotSupported),
]


def test_a_match_id_gives_the_score_seen_by_the_side_on_roll() -> None:
    """Player 1 on roll at 2-3 in a 7-point match: 4-away against 5-away; the Jacoby rule is money's only."""
    start = RolloutStart.parse(f"{OPENING}:{MatchState(match_length=7, score=(2, 3), on_roll=1).id}")
    assert start.score is not None and (start.score.away, start.score.opp_away, start.score.crawford) == (4, 5, False)
    assert not start.jacoby


@pytest.mark.parametrize(("text", "error"), BAD_STARTS)
def test_bad_starts_are_refused(text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        RolloutStart.parse(text)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"trials": 0},
        {"trials": -5},
        {"truncate": 0},
        {"truncate": -1},
        {"plies": 3},
        {"cube": "janowski:0.7"},
        {"luck_screen": 0},
        {"luck_screen": True},
    ],
)
def test_bad_configs_are_refused(kwargs: dict[str, int | str]) -> None:
    with pytest.raises(InvalidSpec):
        RolloutConfig(**kwargs)  # type: ignore[arg-type]


# --- cubeful luck adjustment: properties that must hold ----------------------------------------------

CUBEFUL_STARTS = [
    pytest.param("4HPwATDgc/ABMA", 8, id="opening, truncated after 8 plies"),
    pytest.param("u9uGAAC23VkAAA", None, id="race (76 against 57 pips) to the end"),
    pytest.param("4HPkQSDgc/ABMA", 10, id="reply to 24/18 13/11, truncated after 10"),
]


@pytest.mark.parametrize(("position_id", "truncate"), CUBEFUL_STARTS)
def test_with_the_cube_out_of_play_the_cubeful_rollout_is_cubeless(position_id: str, truncate: int | None) -> None:
    """``--cube none``: nobody doubles, so the cubeful equity equals the cubeless one, raw and luck-adjusted alike.

    A regression: the cubeful luck once took the equity of a *difference* of probabilities with
    the equity's constant -1 in it, adding one point per roll (+56 for the opening).
    """
    config = RolloutConfig(trials=72, truncate=truncate, cubeful=True, cube="none", seed=3)
    r = run_rollouts([RolloutStart(Position.from_id(position_id))], config, progress=False)[0]
    assert r.estimate.cubeful_equity == pytest.approx(r.estimate.equity, abs=1e-9)
    assert r.raw.cubeful_equity == pytest.approx(r.raw.equity, abs=1e-9)
    assert r.estimate.cubeful_equity_se == pytest.approx(r.estimate.equity_se, abs=1e-9)
    o = r.outcomes
    assert np.allclose(o.cubeful_luck, cubeless_equity(o.outcome) - cubeless_equity(o.adjusted()))


@pytest.mark.slow
@pytest.mark.parametrize("cube", ["janowski:0.68", "janowski:0.3", "live", "jump:0.2"])
@pytest.mark.parametrize(("position_id", "truncate"), CUBEFUL_STARTS)
def test_luck_adjusted_and_raw_cubeful_equities_agree_within_their_errors(
    position_id: str, truncate: int | None, cube: str
) -> None:
    """The cubeful luck averages zero within 3.5 SE, and the adjusted and raw cubeful equities differ by less
    than 3.5 of their combined SEs; the adjustment reduces the SE."""
    config = RolloutConfig(trials=144, truncate=truncate, cubeful=True, cube=cube, seed=5)
    r = run_rollouts([RolloutStart(Position.from_id(position_id))], config, progress=False)[0]
    luck = r.outcomes.cubeful_luck
    luck_se = luck.std(ddof=1) / math.sqrt(len(luck))
    assert abs(luck.mean()) <= 3.5 * luck_se
    assert r.estimate.cubeful_equity is not None and r.raw.cubeful_equity is not None
    assert r.estimate.cubeful_equity_se is not None and r.raw.cubeful_equity_se is not None
    combined = math.hypot(r.estimate.cubeful_equity_se, r.raw.cubeful_equity_se)
    assert abs(r.estimate.cubeful_equity - r.raw.cubeful_equity) < 3.5 * combined
    assert r.estimate.cubeful_equity_se < r.raw.cubeful_equity_se


@pytest.mark.slow
def test_the_cubeful_equitys_luck_narrows_a_cube_rollout_more_than_the_cubeless_equitys() -> None:
    """Both control variates on the same trials: the estimates agree within 3.5 combined SE, and the cubeful
    equity's luck leaves the smaller SE in both branches of a cube decision and in a centred rollout."""
    start = RolloutStart(Position.from_id("4HPkQSDgc/ABMA"))
    config = RolloutConfig(trials=216, cubeful=True, cube="gnubg", seed=7, truncate=20)
    cubeful, _ = run_cube_decisions([start], config, progress=False)
    cubeless, _ = run_cube_decisions([start], replace(config, cubeful_luck=False), progress=False)
    for new, old in ((cubeful[0].no_double, cubeless[0].no_double), (cubeful[0].double_take, cubeless[0].double_take)):
        assert np.array_equal(new.outcomes.outcome, old.outcomes.outcome)  # the same games
        a, b = new.estimate, old.estimate
        assert a.cubeful_equity is not None and b.cubeful_equity is not None
        assert a.cubeful_equity_se is not None and b.cubeful_equity_se is not None
        assert abs(a.cubeful_equity - b.cubeful_equity) < 3.5 * math.hypot(a.cubeful_equity_se, b.cubeful_equity_se)
        assert a.cubeful_equity_se < b.cubeful_equity_se


def test_a_rollout_saved_before_the_cubeful_luck_and_the_screen_continues_with_the_luck_it_had(tmp_path: Path) -> None:
    config = RolloutConfig(trials=36, cubeful=True, truncate=3)
    r = run_rollouts([RolloutStart(Position.initial())], config, progress=False)[0]
    saved = SavedRollout(RolloutKind.POSITIONS, ["4HPwATDgc/ABMA"], [], config, r.outcomes)
    saved.save(tmp_path / "new.npz")
    assert SavedRollout.load(tmp_path / "new.npz").config.cubeful_luck
    with np.load(tmp_path / "new.npz") as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    del meta["config"]["cubeful_luck"], meta["config"]["luck_screen"]
    np.savez(tmp_path / "old.npz", meta=np.array(json.dumps(meta)), **arrays)
    old = SavedRollout.load(tmp_path / "old.npz").config
    assert not old.cubeful_luck and old.luck_screen is None


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda meta, arrays: (["a list"], arrays), "not a JSON object"),
        (lambda meta, arrays: (meta, {**arrays, "cubeful": np.full_like(arrays["cubeful"], np.nan)}), "not finite"),
        (lambda meta, arrays: (meta, {**arrays, "plies": arrays["plies"][:-1]}), "different numbers of trials"),
        (lambda meta, arrays: ({**meta, "config": {**meta["config"], "seed": "x"}}, arrays), "seed 'x'"),
    ],
)
def test_a_damaged_saved_rollout_is_refused_naming_the_file(tmp_path: Path, damage: Any, words: str) -> None:
    """Loading checks what a rollout would trip over later: the description's type, finite equal-length arrays."""
    config = RolloutConfig(trials=4, truncate=2)
    r = run_rollouts([RolloutStart(Position.initial())], config, progress=False)[0]
    SavedRollout(RolloutKind.POSITIONS, ["4HPwATDgc/ABMA"], [], config, r.outcomes).save(tmp_path / "good.npz")
    with np.load(tmp_path / "good.npz") as data:
        arrays = {name: data[name] for name in data.files}
    meta, arrays = damage(json.loads(str(arrays.pop("meta"))), arrays)
    np.savez(tmp_path / "bad.npz", meta=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(InvalidSpec, match=f"bad.npz' is not a saved rollout .*{words}"):
        SavedRollout.load(tmp_path / "bad.npz")


def test_cubeful_rollouts_of_two_sided_bearoffs_agree_with_the_databases_cubeful_equity() -> None:
    """With gnubg's model (exact in two-sided bear-offs) both sides play the database's optimal cube, so the
    luck-adjusted cubeful equity must match the database's (centred, money) within 3.5 SE, position by position."""
    positions = two_sided_sample(8, seed=23)
    exact = load_two_sided().lookup(np.stack([p.array for p in positions]))["optimal"][:, 0]
    config = RolloutConfig(trials=216, cubeful=True, cube="gnubg", seed=7)
    results = run_rollouts([RolloutStart(p) for p in positions], config, progress=False)
    for r, want in zip(results, exact, strict=True):
        assert r.estimate.cubeful_equity is not None and r.estimate.cubeful_equity_se is not None
        se = max(r.estimate.cubeful_equity_se, 1e-3)
        assert abs(r.estimate.cubeful_equity - want) <= 3.5 * se, (r.start.position.id, want)
