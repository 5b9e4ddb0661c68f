"""Exact cube decisions where the two-roll lookahead shows the game decided, and the search where it is nearly
decided (cube.two_roll).

Hand-computed trees (a last roll; a miss that leaves the opponent a last roll of his own), the
Jacoby rule, a match score, every decided position of the exact two-sided bear-off database
against its cubeful money equities, and GNU Backgammon's 2-ply cube evaluation of decided bear-offs
in money games and at match scores (tests/fixtures/gnubg_two_roll.json); the search's tree against the same
tree written out roll by roll, and its equities against the database's where a few lines are open; late races
outside the two-sided database against gnubg's 2-ply (tests/fixtures/gnubg_late_race.json).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cube import JumpMatchCube, MatchCube, MatchScore, jump_local
from cube.errors import CubeInputError
from cube.jump_linear import STATISTICAL_SCALE
from cube.match_jump import jump_cube_decision
from cube.match_strategy import LINEAR_ALPHA
from cube.met import DEFAULT_MET, published_met
from cube.states import CubeState
from cube.strategy import JumpApproximation
from cube.two_roll import (
    SEARCH_CELLS,
    decided,
    decided_leaf_values,
    two_roll_money_equities,
    two_roll_mwcs,
    uncertain_cells,
    win_chances,
)
from cube.volatility import ROLLS, VolatilityMeasure, local_volatility
from engine import Position
from nets import load_evaluator
from nets.bearoff import N_TWO_SIDED, games_on, load_two_sided
from nets.volatility import two_roll_outcomes_batch

ROLL_P = np.array([1.0 / 36.0 if a == b else 1.0 / 18.0 for a, b in ROLLS])
# a set of rolls that win 26 times in 36, as the last roll of AwAAMAAAAAAAAA does: doubles, and 10 of the 15 others
BIG = [k for k, (a, b) in enumerate(ROLLS) if a == b or (a + b >= 6 and (a, b) != (1, 5))]
BIG_P = float(ROLL_P[BIG].sum())


def last_roll(win_rolls: list[int]) -> np.ndarray:
    """(21, 21) win chances: the side on roll wins on ``win_rolls`` and else loses on the opponent's roll."""
    p = np.zeros((21, 21))
    p[win_rolls, :] = 1.0
    return p


def return_shot(win_rolls: list[int], his_rolls: list[int]) -> np.ndarray:
    """(21, 21): the side on roll wins on ``win_rolls``; after a miss the opponent wins on ``his_rolls``, else the
    side on roll wins for sure."""
    p = np.ones((21, 21))
    misses = [k for k in range(21) if k not in win_rolls]
    for r1 in misses:
        p[r1, his_rolls] = 0.0
    return p


def test_roll_sets_have_the_probabilities_the_cases_assume() -> None:
    assert pytest.approx(26 / 36) == BIG_P
    assert ROLL_P.sum() == pytest.approx(1.0)


def test_last_roll_is_the_dead_cube_after_this_roll() -> None:
    """A last roll: no double is 2P - 1 whatever the cube, double/take twice it (the opponent has nothing to do)."""
    eq = two_roll_money_equities(last_roll(BIG)[None])
    nd = 2 * BIG_P - 1
    for state in CubeState:
        assert eq[state][0] == pytest.approx(nd, abs=1e-12)
    assert 2 * eq["unavailable_doubled"][0] == pytest.approx(2 * nd, abs=1e-12)


@pytest.mark.parametrize("his_share", [4 / 36, 11 / 36, 20 / 36, 27 / 36, 32 / 36])
def test_return_shot_opponent_doubles_only_where_it_pays(his_share: float) -> None:
    """After a miss the opponent holds a last roll winning ``his_share``: with access he doubles above 50% and the
    side on roll takes below 75% (money), which the tree must reproduce."""
    his = [k for k in range(21) if ROLL_P[: k + 1].sum() <= his_share + 1e-12]
    b = float(ROLL_P[his].sum())
    mine = BIG
    a = BIG_P
    no_access = 1 - 2 * b  # after a miss, per unit cube, the opponent has no cube
    with_access = min(no_access, max(2 * no_access, -1.0))
    eq = two_roll_money_equities(return_shot(mine, his)[None])
    assert eq[CubeState.OWNED][0] == pytest.approx(a + (1 - a) * no_access, abs=1e-12)
    assert eq[CubeState.CENTERED][0] == pytest.approx(a + (1 - a) * with_access, abs=1e-12)
    assert eq[CubeState.UNAVAILABLE][0] == pytest.approx(a + (1 - a) * with_access, abs=1e-12)
    assert eq["unavailable_doubled"][0] == pytest.approx(eq[CubeState.UNAVAILABLE][0], abs=1e-12)


def test_jacoby_leaves_gammons_out_on_a_centred_cube_only() -> None:
    """Every cell a gammon won: 2 a unit cube played out, but 1 under Jacoby with the cube centred (the sure winner
    doubles and the loser passes); an owned cube counts the gammon."""
    cells = np.zeros((1, 441, 5))
    cells[..., 0] = cells[..., 1] = 1.0
    plain = two_roll_money_equities(cells)
    jacoby = two_roll_money_equities(cells, jacoby=True)
    assert plain[CubeState.CENTERED][0] == pytest.approx(2.0)
    assert jacoby[CubeState.CENTERED][0] == pytest.approx(1.0)
    assert jacoby[CubeState.OWNED][0] == pytest.approx(2.0)


def test_win_chances_with_root_w_and_l() -> None:
    """Win chances alone take the root's W and L: a last roll with W = 2, L = 1.5."""
    eq = two_roll_money_equities(last_roll(BIG).reshape(1, 441), W=np.array([2.0]), L=np.array([1.5]))
    assert eq[CubeState.OWNED][0] == pytest.approx(BIG_P * 2.0 - (1 - BIG_P) * 1.5)


def test_decided_needs_every_cell_sure() -> None:
    p = np.stack([last_roll(BIG), last_roll(BIG)]).reshape(2, 441)
    p[1, 7] = 0.5
    assert decided(p).tolist() == [True, False]
    outcomes = np.zeros((2, 441, 5))
    outcomes[..., 0] = p
    assert decided(outcomes).tolist() == [True, False]
    assert np.array_equal(win_chances(outcomes), p)


@pytest.mark.parametrize("shape", [(440,), (2, 441, 4), (3, 3)])
def test_bad_lookahead_shape_is_refused(shape: tuple[int, ...]) -> None:
    with pytest.raises(CubeInputError, match="lookahead must end in 441"):
        decided(np.zeros(shape))


def test_jump_local_takes_the_exact_figures_where_decided() -> None:
    """jump_local on a last roll: the exact 2P - 1 and twice it, not the jump model's +0.377 and +0.700."""
    probs = np.array([BIG_P, 0, 0, 0, 0])
    lookahead = last_roll(BIG).reshape(441)
    model = jump_local(0.1, JumpApproximation.NUMERICAL)
    d = model.decision(probs, CubeState.CENTERED, lookahead=lookahead)
    assert d.no_double == pytest.approx(2 * BIG_P - 1)
    assert d.double_take == pytest.approx(2 * (2 * BIG_P - 1))
    jump_only = model.decision(probs, CubeState.CENTERED, local_alpha=float(local_volatility(lookahead)))
    assert jump_only.no_double < d.no_double - 0.05  # the artefact the rule mends


def test_match_last_roll_two_away_four_away() -> None:
    """2-away against 4-away, a last roll: double/take wins the match on a hit, else 2-away all; no double is the
    cubeless MWC (the cube is dead after this roll): a pass, where the jump models took."""
    cells = np.zeros((441, 5))
    cells[:, 0] = last_roll(BIG).reshape(441)
    cube = MatchCube(MatchScore(2, 4))
    met = published_met(DEFAULT_MET)
    nd, dt = two_roll_mwcs(cells, met, cube)
    win_one, lose_one = met.mwc(1, 4, crawford=True), met.mwc(2, 3)
    assert float(nd) == pytest.approx(BIG_P * win_one + (1 - BIG_P) * lose_one)
    assert dt is not None
    assert float(dt) == pytest.approx(BIG_P + (1 - BIG_P) * met.mwc(2, 2))
    assert float(dt) > win_one  # above double/pass: a pass


def test_match_needs_outcomes() -> None:
    with pytest.raises(CubeInputError, match="five probabilities"):
        two_roll_mwcs(last_roll(BIG).reshape(441), published_met(DEFAULT_MET), MatchCube(MatchScore(2, 4)))


def test_every_decided_database_position_matches_its_exact_cubeful_equities() -> None:
    """The tree against the two-sided database's exact money equities (no double, three cube states) at every
    position it holds whose lookahead is decided (both sides with checkers left)."""
    db = load_two_sided(progress=False)
    checked = 0
    worst = 0.0
    for start in range(0, N_TWO_SIDED, 50_000):
        idx = games_on(np.arange(start, min(start + 50_000, N_TWO_SIDED)))
        chances = db.two_roll_win_chances(idx)
        sure = decided(chances)
        eq = two_roll_money_equities(chances[sure])
        exact = db.no_double[:, idx[sure]]
        for k, state in enumerate((CubeState.CENTERED, CubeState.OWNED, CubeState.UNAVAILABLE)):
            worst = max(worst, float(np.abs(eq[state] - exact[k]).max(initial=0.0)))
        checked += int(sure.sum())
    assert checked > 20_000
    assert worst < 1e-12


def test_jacoby_with_beavers_lets_the_side_on_roll_beaver_the_opponents_double() -> None:
    """Under Jacoby the opponent's no double on a centred cube leaves gammons out, so he may double a position that
    is the side on roll's with gammons counted: with beavers on it beavers (four times the value, its cube)."""
    losing = [k for k, (a, b) in enumerate(ROLLS) if a + b <= 5]  # the opponent's replies that win, 90% gammons
    cells = np.zeros((1, 21, 21, 5))
    cells[..., 0] = 1.0
    cells[:, :, losing, 0] = 0.0
    cells[:, :, losing, 3] = 0.9
    p_lose = float(ROLL_P[losing].sum())
    single, full = 1 - 2 * p_lose, (1 - p_lose) - p_lose * 1.9
    assert 2 * full < single and full > 0  # he would double; a take leaves 2 full, a beaver 4 full
    plain = two_roll_money_equities(cells, jacoby=True)[CubeState.CENTERED][0]
    beaver = two_roll_money_equities(cells, jacoby=True, beavers=True)[CubeState.CENTERED][0]
    assert plain == pytest.approx(min(single, max(2 * full, -1.0)))
    assert beaver == pytest.approx(min(single, max(4 * full, -1.0)))
    assert beaver > plain


def test_a_sure_win_is_exactly_one_whatever_the_batch() -> None:
    """Whole throw counts keep sure results exact: a sure single win's no double is 1.0 alone and in any batch, so a
    tie with double/pass does not turn into "too good" by rounding."""
    sure = np.ones((441,))
    mixed = last_roll(BIG).reshape(441)
    for batch in ([sure], [sure, mixed], [mixed, sure, mixed, sure, mixed]):
        eq = two_roll_money_equities(np.stack(batch))
        for state in CubeState:
            assert np.all(eq[state][[k for k, b in enumerate(batch) if b is sure]] == 1.0)
    model = jump_local(0.1, JumpApproximation.NUMERICAL)
    probs = np.array([[1.0, 0, 0, 0, 0]] * 3)
    d = model.decide(probs, CubeState.OWNED, lookahead=np.stack([sure] * 3))
    assert list(d.action) == ["double"] * 3  # double/pass ties with playing on at +1: ties go to doubling


GNUBG_TWO_ROLL = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_two_roll.json"


def test_gnubg_at_two_plies_agrees_where_the_game_is_decided() -> None:
    """GNU Backgammon 1.07's 2-ply cubeful evaluation (its cube decisions at each node, its bear-off database at the
    leaves) against the tree on every fixture case whose lookahead (this project's exact database) is decided:
    money no double and double/take, and MWCs at match scores (pre-Crawford, Crawford, post-Crawford, cubes of 1 to
    4 held by either side). gnubg's database keeps about five digits, hence the tolerance."""
    fixture = json.loads(GNUBG_TWO_ROLL.read_text())
    met = published_met()
    gnubg_met = np.array(fixture["met"]["pre_crawford"])  # the table gnubg used: the default one here too
    assert np.allclose(gnubg_met, met.pre_crawford[: len(gnubg_met), : len(gnubg_met)], atol=1e-6)
    cases = fixture["cases"]
    boards = np.stack([Position.from_id(c["position_id"]).array for c in cases])
    outcomes = load_two_sided(progress=False).two_roll_probabilities(boards)
    sure = decided(outcomes)
    checked = {"money": 0, "match": 0}
    for case, cells, is_decided in zip(cases, outcomes, sure, strict=True):
        if not is_decided:
            continue
        state = CubeState(case["owner"])
        if case["kind"] == "money":
            eq = two_roll_money_equities(cells[None])
            gnubg_nd, gnubg_dt = case["equities"][1:3]
            assert eq[state][0] == pytest.approx(gnubg_nd, abs=2e-4), case["position_id"]
            if state is not CubeState.UNAVAILABLE:
                assert 2 * eq["unavailable_doubled"][0] == pytest.approx(gnubg_dt, abs=2e-4), case["position_id"]
        else:
            score = MatchScore.from_scores(case["length"], case["score"][0], case["score"][1], case["crawford"])
            nd, dt = two_roll_mwcs(cells, met, MatchCube(score, case["cube"], state))
            assert float(nd) == pytest.approx(case["mwc"][1], abs=2e-4), case
            if dt is not None:
                assert float(dt) == pytest.approx(case["mwc"][2], abs=2e-4), case
        checked[case["kind"]] += 1
    assert checked["money"] >= 30 and checked["match"] >= 80


def test_a_strategy_takes_one_positions_lookahead_without_its_batch_axis_and_refuses_a_wrong_size() -> None:
    model = jump_local(0.1, JumpApproximation.NUMERICAL)
    probs = np.array([BIG_P, 0, 0, 0, 0])
    outcomes = np.zeros((441, 5))
    outcomes[:, 0] = last_roll(BIG).reshape(441)
    assert model.decide(probs, CubeState.CENTERED, lookahead=outcomes).no_double[0] == pytest.approx(2 * BIG_P - 1)
    with pytest.raises(CubeInputError, match="not 441 win chances"):
        model.decide(np.stack([probs, probs]), CubeState.CENTERED, lookahead=outcomes)


def test_the_exact_figures_refuse_a_lookahead_that_is_not_decided() -> None:
    undecided = np.full((2, 441), 0.5)
    undecided[0] = 1.0
    with pytest.raises(CubeInputError, match="lookahead 1 is not decided"):
        two_roll_money_equities(undecided)
    cells = np.zeros((441, 5))
    cells[:, 0] = 0.5
    with pytest.raises(CubeInputError, match="not decided"):
        two_roll_mwcs(cells, published_met(), MatchCube(MatchScore(2, 4)))


def test_a_local_match_model_checks_its_lookahead_against_the_batch() -> None:
    model = JumpMatchCube(published_met(), local=True)
    probs = np.array([[BIG_P, 0, 0, 0, 0]] * 2)
    cube = MatchCube(MatchScore(2, 4))
    one = np.zeros((441, 5))
    one[:, 0] = last_roll(BIG).reshape(441)
    with pytest.raises(CubeInputError, match="not 441 win chances"):
        model.decide(probs, cube, [0.1, 0.1], one)
    with pytest.raises(CubeInputError, match="five probabilities"):
        model.decide(probs, cube, [0.1, 0.1], np.zeros((2, 441)))
    both = np.stack([one, one])
    acts = model.decide(probs, cube, [0.1, 0.1], both)
    assert acts.double.tolist() == [True, True] and acts.take.tolist() == [False, False]  # double, pass (exact)


def _tree_by_loops(leaves: dict[CubeState, np.ndarray], beavers: bool) -> dict[CubeState, float]:
    """The two-roll cube tree of one position written out roll by roll: the side on roll's three cube states."""
    out = {}
    for state in CubeState:
        total = 0.0
        for r1 in range(21):
            after = {s: sum(ROLL_P[r2] * leaves[s][r1, r2] for r2 in range(21)) for s in CubeState}
            if state is CubeState.OWNED:  # the opponent has no cube to turn
                value = after[CubeState.OWNED]
            else:
                take = 2.0 * after[CubeState.OWNED]
                answer = max(take, 4.0 * after[CubeState.OWNED]) if beavers else take
                value = min(after[state], max(answer, -1.0))
            total += ROLL_P[r1] * value
        out[state] = total
    return out


@pytest.mark.parametrize("beavers", [False, True])
def test_the_search_is_the_cube_tree_over_any_leaf_values(beavers: bool) -> None:
    """Random leaf values (some cells decided, some not): the vectorised search equals the tree roll by roll."""
    rng = np.random.default_rng(7)
    cells = rng.choice([0.0, 1.0, 0.3, 0.8], size=(3, 21, 21))
    leaves = {state: rng.uniform(-1.5, 1.5, size=(3, 21, 21)) for state in CubeState}
    eq = two_roll_money_equities(cells, beavers=beavers, leaves=leaves)
    for k in range(3):
        expected = _tree_by_loops({s: v[k] for s, v in leaves.items()}, beavers)
        for state in CubeState:
            assert eq[state][k] == pytest.approx(expected[state], abs=1e-12)


def test_leaves_must_match_the_lookahead() -> None:
    leaves = {state: np.zeros((2, 21, 21)) for state in CubeState}
    with pytest.raises(CubeInputError, match="do not match the lookahead"):
        two_roll_money_equities(np.full((3, 441), 0.5), leaves=leaves)


def test_decided_leaves_are_the_exact_figures() -> None:
    """Given the decided cells' own values as leaves, the search is the exact rule (Jacoby too)."""
    p = return_shot(BIG, BIG[:5])[None]
    for jacoby in (False, True):
        exact = two_roll_money_equities(p, 1.4, 1.2, jacoby=jacoby)
        leaves = decided_leaf_values(p, 1.4, 1.2, jacoby=jacoby)
        searched = two_roll_money_equities(p, jacoby=jacoby, leaves=leaves)
        for key, values in exact.items():
            assert np.array_equal(values, searched[key])


def test_nearly_decided_database_positions_are_searched_closer_to_their_exact_equities() -> None:
    """Two-sided bear-offs with 1 to SEARCH_CELLS open lines of 441: jump_local's searched equities (the model only
    at the open lines) against the database's exact ones, and its equities without the search."""
    db = load_two_sided(progress=False)
    idx = games_on(np.arange(0, N_TWO_SIDED, 97))
    chances = db.two_roll_win_chances(idx)
    open_lines = uncertain_cells(chances)
    near = (open_lines > 0) & (open_lines <= SEARCH_CELLS)
    idx, chances = idx[near], chances[near]
    assert len(idx) > 500
    probs = np.zeros((len(idx), 5))
    probs[:, 0] = db.win[idx]
    model = jump_local(0.1, JumpApproximation.NUMERICAL)
    searched = model.equities(probs, lookahead=chances)
    alone = model.equities(probs, local_alpha=local_volatility(chances))
    for k, state in enumerate((CubeState.CENTERED, CubeState.OWNED, CubeState.UNAVAILABLE)):
        error = np.abs(searched[state] - db.no_double[k, idx]).mean()
        assert error < 0.006
        assert error < 0.4 * np.abs(alone[state] - db.no_double[k, idx]).mean()
    model.search_cells = 0  # only decided lookaheads searched: the model alone here
    unsearched = model.equities(probs, lookahead=chances)
    assert np.array_equal(unsearched[CubeState.CENTERED], alone[CubeState.CENTERED])


def test_gnubg_at_two_plies_agrees_with_the_search_where_a_few_lines_are_open() -> None:
    """The fixture's late bear-offs with 1 to SEARCH_CELLS open lines: jump_local's searched no double against GNU
    Backgammon 1.07's 2-ply one, money and match, and against the local model alone (which misses by far more)."""
    fixture = json.loads(GNUBG_TWO_ROLL.read_text())
    met = published_met()
    db = load_two_sided(progress=False)
    cases = fixture["cases"]
    boards = np.stack([Position.from_id(c["position_id"]).array for c in cases])
    roots, outcomes = db.probabilities(boards), db.two_roll_probabilities(boards)
    money = jump_local(0.1, JumpApproximation.NUMERICAL)
    misses: dict[str, list[tuple[float, float]]] = {"money": [], "match": []}
    for case, root, cells in zip(cases, roots, outcomes, strict=True):
        if not 0 < int(uncertain_cells(cells)) <= SEARCH_CELLS:
            continue
        state = CubeState(case["owner"])
        chances = cells[:, 0]
        if case["kind"] == "money":
            searched = float(money.equities(root, lookahead=cells)[state])
            alone = float(money.equities(root, local_alpha=local_volatility(chances))[state])
            gnubg = case["equities"][1]
        else:
            score = MatchScore.from_scores(case["length"], case["score"][0], case["score"][1], case["crawford"])
            cube = MatchCube(score, case["cube"], state)
            local = min(STATISTICAL_SCALE * float(local_volatility(chances, measure=VolatilityMeasure.MEAN_ABS)), 0.49)
            searched = jump_cube_decision(root, met, cube, LINEAR_ALPHA, local, lookahead=cells).mwc.no_double
            alone = jump_cube_decision(root, met, cube, LINEAR_ALPHA, local).mwc.no_double
            gnubg = case["mwc"][1]
        misses[case["kind"]].append((abs(searched - gnubg), abs(alone - gnubg)))
    for kind, worst, mean in (("money", 0.03, 0.006), ("match", 0.004, 0.0005)):
        found = np.array(misses[kind])
        assert len(found) >= 20, kind
        assert found[:, 0].max() < worst and found[:, 0].mean() < mean, kind
        assert found[:, 0].mean() < 0.1 * found[:, 1].mean(), kind


GNUBG_LATE_RACE = GNUBG_TWO_ROLL.with_name("gnubg_late_race.json")


def test_gnubg_at_two_plies_agrees_in_late_races_outside_the_two_sided_database() -> None:
    """One side with one to three checkers against seven to nine (the net's lookahead and one-sided database, not
    the two-sided one): where the lookahead shows the game decided the local model's figures are gnubg's 2-ply
    ones; where a few lines are open, the search's are close. These races are lopsided wherever the rule acts."""
    fixture = json.loads(GNUBG_LATE_RACE.read_text())
    met = published_met()
    ev = load_evaluator()
    cases = fixture["cases"]
    boards = np.stack([Position.from_id(c["position_id"]).array for c in cases])
    roots, outcomes = ev.evaluate_boards(boards), two_roll_outcomes_batch(ev, boards)
    money = jump_local(0.1, JumpApproximation.NUMERICAL)
    misses: dict[tuple[bool, str], list[float]] = {}
    for case, root, cells in zip(cases, roots, outcomes, strict=True):
        open_lines = int(uncertain_cells(cells))
        if open_lines > SEARCH_CELLS:
            continue
        state = CubeState(case["owner"])
        if case["kind"] == "money":
            ours, gnubg = float(money.equities(root, lookahead=cells)[state]), case["equities"][1]
        else:
            score = MatchScore.from_scores(case["length"], case["score"][0], case["score"][1], case["crawford"])
            cube = MatchCube(score, case["cube"], state)
            ours = jump_cube_decision(root, met, cube, LINEAR_ALPHA, 0.1, lookahead=cells).mwc.no_double
            gnubg = case["mwc"][1]
        misses.setdefault((open_lines == 0, case["kind"]), []).append(abs(ours - gnubg))
    for (exact, kind), found in misses.items():
        assert len(found) >= 20, (exact, kind)
        if exact:
            assert max(found) < 2e-4, kind
        else:
            assert max(found) < 0.005 and np.mean(found) < 0.001, kind
    assert len(misses) == 4
