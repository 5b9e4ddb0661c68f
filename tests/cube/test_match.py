"""Match play MWC and cube decisions: the sources' worked examples, properties, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cube.efficiency import CubeEfficiency, PositionClass, effective_cube_life
from cube.errors import CubeInputError
from cube.gamestate import flip_probabilities, outcome_equity
from cube.match import (
    MatchCube,
    MatchScore,
    cube_decision,
    cubeful_mwc,
    cubeless_mwc,
    dead_take_point,
    equity_to_mwc,
    game_result_mwc,
    gammon_prices,
    live_cash_points,
    live_mwc,
    mwc_to_equity,
    outcome_mwcs,
    take_point_ladder,
)
from cube.met import MatchEquityTable, keith_met, published_met
from cube.states import CubeAction, CubeResponse, CubeState

# Seed 004 (gnubg's manual, live cube equities): 3-0 to 7 with Woolsey's table; the side on roll
# (X) has 0 points, the opponent (O) 3; gnubg's evaluation of X's position.
EXAMPLE_PROBS = np.array([0.454, 0.103, 0.001, 0.106, 0.003])
EXAMPLE_SCORE = MatchScore.from_scores(7, 0, 3)


@pytest.fixture(scope="module")
def woolsey() -> MatchEquityTable:
    return published_met("Woolsey")


def with_win(p: float) -> np.ndarray:
    """The example's gammon and backgammon rates at winning chance ``p``."""
    wins, losses = EXAMPLE_PROBS[1:3] / EXAMPLE_PROBS[0], EXAMPLE_PROBS[3:] / (1 - EXAMPLE_PROBS[0])
    return np.array([p, *(wins * p), *(losses * (1 - p))])


# --------------------------------------------------------------------------- seed 004


def test_worked_example_take_points(woolsey: MatchEquityTable) -> None:
    """Printed: cube 4: X 0%, O 41%; cube 2: 15%, 38.5%; cube 1: 24.5%, 27.3%."""
    ladder = take_point_ladder(EXAMPLE_PROBS, woolsey, MatchCube(EXAMPLE_SCORE))
    assert [level.cube for level in ladder] == [2, 1]
    two, one = ladder
    assert two.dead and not one.dead
    assert round(100 * float(two.take_point), 1) == 15.0 and round(100 * float(two.opp_take_point), 1) == 38.5
    assert round(100 * float(one.take_point), 1) == 24.5 and round(100 * float(one.opp_take_point), 1) == 27.3
    # the 4-cube row: doubled to 8 both sides play for the match, no redouble (dead take points)
    x_four = dead_take_point(EXAMPLE_PROBS, woolsey, MatchCube(EXAMPLE_SCORE, 4, CubeState.UNAVAILABLE))
    o_four = dead_take_point(
        flip_probabilities(EXAMPLE_PROBS), woolsey, MatchCube(EXAMPLE_SCORE.flipped(), 4, CubeState.UNAVAILABLE)
    )
    assert float(x_four) == 0.0 and float(o_four) == pytest.approx(0.41)
    # TP(live, n) = TP(dead, n) (1 - TP_opponent(live, 2n)) for X on the 2-cube: pass 15%, lose 0%, cash 59%
    assert float(two.take_point) == pytest.approx((0.15 - 0.0) / (0.59 - 0.0) * (1 - float(o_four)))


def test_worked_example_live_cube_knots_and_cubeful_mwc(woolsey: MatchEquityTable) -> None:
    cube = MatchCube(EXAMPLE_SCORE)
    tp, cp = (
        float(take_point_ladder(EXAMPLE_PROBS, woolsey, cube)[-1].take_point),
        float(live_cash_points(EXAMPLE_PROBS, woolsey, cube)[0]),
    )
    assert round(100 * cp, 1) == 72.7
    knots = {0.0: 22, tp: 24, cp: 36}
    for p, printed in knots.items():
        assert round(100 * float(live_mwc(with_win(p), woolsey, cube))) == printed
    # printed 41% at p = 1: 78% x 36% + 22% x 58% uses O's 58% at 4-away against 5-away for X's gammon;
    # X at 5-away against 4-away has 42%, so the knot is 37.4% (37.3% without backgammons)
    assert woolsey.mwc(4, 5) == 0.58 and woolsey.mwc(5, 4) == pytest.approx(0.42)
    assert round(0.78 * 0.36 + 0.22 * woolsey.mwc(4, 5), 2) == 0.41
    assert round(100 * float(live_mwc(with_win(1.0), woolsey, cube)), 1) == 37.4
    assert round(100 * (0.78 * 0.36 + 0.22 * woolsey.mwc(5, 4)), 1) == 37.3
    # printed: cubeless 29.1%, live 29.2%, cubeful 29.17% with x = 0.68
    assert round(100 * float(cubeless_mwc(EXAMPLE_PROBS, woolsey, cube)), 1) == 29.1
    assert round(100 * float(live_mwc(EXAMPLE_PROBS, woolsey, cube)), 1) == 29.2
    assert round(100 * float(cubeful_mwc(EXAMPLE_PROBS, woolsey, cube, 0.68)), 2) == 29.17


def test_worked_example_results_as_printed(woolsey: MatchEquityTable) -> None:
    """O wins: 81% x MWC(-3,-7) + 19% x MWC(-2,-7) = 78%; cashes: 76% (O) and 36% (X)."""
    o_view = MatchCube(EXAMPLE_SCORE.flipped())
    o_win, o_gammon = outcome_mwcs(woolsey, o_view)[:2]
    assert o_win == 0.76 and round(0.81 * o_win + 0.19 * o_gammon, 2) == 0.78
    assert game_result_mwc(woolsey, EXAMPLE_SCORE, won=1) == 0.36


# --------------------------------------------------------------------------- seed 001


def test_manual_cubeless_mwc_example() -> None:
    """1-3 to 5, cube on 2, distribution 0 30 60 - 40 10 0: 45% (any table with 2-away/2-away at 50%)."""
    met = published_met()
    cube = MatchCube(MatchScore.from_scores(5, 1, 3), 2, CubeState.OWNED)
    assert float(cubeless_mwc([0.6, 0.3, 0.0, 0.1, 0.0], met, cube)) == pytest.approx(0.45)


@pytest.mark.parametrize(("mwc", "nemg"), [(0.0, -1.0), (0.25, 0.0), (0.5, 1.0), (0.75, 2.0), (1.0, 3.0)])
def test_manual_normalised_equity_example(mwc: float, nemg: float) -> None:
    """3-1 to 5 with the cube on 2, the side with 1 point: MWC(l) = 0%, MWC(w) = 50%."""
    met = published_met()
    cube = MatchCube(MatchScore.from_scores(5, 1, 3), 2, CubeState.OWNED)
    assert float(mwc_to_equity(mwc, met, cube)) == pytest.approx(nemg)
    assert float(equity_to_mwc(nemg, met, cube)) == pytest.approx(mwc)


# --------------------------------------------------------------------------- Crawford, dead cubes, gammons

# (length, score, opponent's score, crawford, cube, state) -> (win gammon counts?, lose gammon counts?)
GAMMON_CASES = [
    ((7, 6, 3, True, 1, CubeState.CENTERED), (False, True)),  # Crawford leader: any win wins the match
    ((7, 3, 6, True, 1, CubeState.CENTERED), (True, False)),  # Crawford trailer, 4-away: gammon helps, losing ends it
    ((7, 5, 6, False, 2, CubeState.UNAVAILABLE), (False, False)),  # post-Crawford 2-away doubled: all decided
    ((7, 6, 6, False, 1, CubeState.CENTERED), (False, False)),  # double match point
    ((9, 5, 6, False, 4, CubeState.OWNED), (False, False)),  # dead cube: 4 covers both sides
    ((9, 7, 5, False, 2, CubeState.OWNED), (False, True)),  # 2-away owning a 2-cube: a single win is enough
    ((17, 0, 0, False, 1, CubeState.CENTERED), (True, True)),  # far from the end: money-like
]


@pytest.mark.parametrize(("case", "counts"), GAMMON_CASES)
def test_gammons_count_only_where_the_table_says(
    case: tuple[int, int, int, bool, int, CubeState], counts: tuple[bool, bool]
) -> None:
    n, mine, theirs, crawford, value, state = case
    prices = gammon_prices(published_met(), MatchCube(MatchScore.from_scores(n, mine, theirs, crawford), value, state))
    assert (prices.win_gammon > 1e-9, prices.lose_gammon > 1e-9) == counts


def test_crawford_and_post_crawford_cube_access() -> None:
    met = published_met()
    crawford = MatchCube(MatchScore.from_scores(7, 3, 6, crawford=True))
    assert not crawford.can_double and not crawford.cubeful
    probs = np.array([0.7, 0.2, 0.01, 0.05, 0.0])
    d = cube_decision(probs, met, crawford, 0.68)
    assert d.action is CubeAction.NO_DOUBLE and not d.available and d.response is None
    assert math.isnan(d.mwc.double_take) and d.mwc.no_double == pytest.approx(float(cubeless_mwc(probs, met, crawford)))
    trailer = MatchCube(MatchScore.from_scores(7, 3, 6))
    assert trailer.score.post_crawford and trailer.can_double and trailer.cubeful
    leader = trailer.flipped()
    assert not leader.can_double  # the leader's cube already wins it the match
    # the trailer's double at 2-away against 1-away: the leader's free drop leaves double match point
    free_drop = MatchCube(MatchScore.from_scores(7, 5, 6))
    dp = cube_decision([0.6, 0.1, 0.0, 0.1, 0.0], met, free_drop, 0.68).mwc.double_pass
    assert dp == 0.5


def test_dead_cube_is_cubeless() -> None:
    met = published_met()
    cube = MatchCube(MatchScore.from_scores(9, 6, 5), 4, CubeState.OWNED)  # 3-away and 4-away on a 4-cube
    probs = np.array([0.55, 0.2, 0.01, 0.1, 0.0])
    assert not cube.cubeful and not cube.can_double
    assert float(cubeful_mwc(probs, met, cube, 0.9)) == pytest.approx(float(cubeless_mwc(probs, met, cube)))
    two_two = MatchCube(MatchScore.from_scores(5, 3, 3))
    assert not two_two.cubeful and two_two.can_double  # gnubg: 2-away/2-away is played cubeless, doubling allowed


# --------------------------------------------------------------------------- properties

probabilities = st.tuples(
    st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0)
).map(
    lambda t: np.array([t[0], t[0] * t[1], t[0] * t[1] * t[2] * 0.2, (1 - t[0]) * t[3], (1 - t[0]) * t[3] * t[4] * 0.2])
)


@st.composite
def match_cubes(draw: st.DrawFn) -> MatchCube:
    n = draw(st.integers(1, 25))
    mine, theirs = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
    score = MatchScore.from_scores(n, mine, theirs)
    crawford = 1 in (score.away, score.opp_away) and score.away != score.opp_away and draw(st.booleans())
    score = MatchScore(score.away, score.opp_away, crawford)
    if crawford:
        return MatchCube(score)
    state = draw(st.sampled_from(list(CubeState)))
    doubler = score.opp_away if state is CubeState.OWNED else score.away
    values = [v for v in (2, 4, 8, 16) if doubler > v // 2]
    if state is CubeState.CENTERED or not values:
        return MatchCube(score)
    return MatchCube(score, draw(st.sampled_from(values)), state)


@given(probabilities, match_cubes())
def test_nemg_of_cubeless_mwc_is_gnubgs_utility(probs: np.ndarray, cube: MatchCube) -> None:
    met = published_met()
    prices = gammon_prices(met, cube)
    utility = (
        2 * probs[0]
        - 1
        + probs[1] * prices.win_gammon
        - probs[3] * prices.lose_gammon
        + probs[2] * prices.win_backgammon
        - probs[4] * prices.lose_backgammon
    )
    assert float(mwc_to_equity(cubeless_mwc(probs, met, cube), met, cube)) == pytest.approx(utility, abs=1e-9)
    if cube.score.away > 16 and cube.score.opp_away > 16 and cube.value == 1:  # far from the end: money
        assert utility == pytest.approx(float(outcome_equity(probs)), abs=0.06)


@given(probabilities, match_cubes())
def test_ladder_is_the_same_from_both_sides(probs: np.ndarray, cube: MatchCube) -> None:
    met = published_met()
    mine = take_point_ladder(probs, met, cube)
    theirs = take_point_ladder(flip_probabilities(probs), met, cube.flipped())
    for a, b in zip(mine, theirs, strict=True):
        assert a.cube == b.cube and a.dead == b.dead
        assert float(a.take_point) == pytest.approx(float(b.opp_take_point), abs=1e-12)


@given(probabilities, match_cubes(), st.floats(0.0, 1.0))
def test_cubeful_mwc_is_monotone_in_winning_chance(probs: np.ndarray, cube: MatchCube, x: float) -> None:
    met = published_met()
    win = probs[0]
    rates = np.array([probs[1:3] / win if win > 0 else [0.0, 0.0], probs[3:] / (1 - win) if win < 1 else [0.0, 0.0]])
    grid = np.linspace(0.0, 1.0, 101)
    rows = np.column_stack(
        [grid, rates[0, 0] * grid, rates[0, 1] * grid, rates[1, 0] * (1 - grid), rates[1, 1] * (1 - grid)]
    )
    values = cubeful_mwc(rows, met, cube, x)
    assert np.all(np.diff(values) >= -1e-12)
    assert np.all((values >= -1e-12) & (values <= 1 + 1e-12))
    assert np.allclose(cubeful_mwc(rows, met, cube, 0.0), cubeless_mwc(rows, met, cube))


@given(probabilities, match_cubes(), st.floats(0.0, 1.0))
def test_decision_is_consistent_with_its_equities(probs: np.ndarray, cube: MatchCube, x: float) -> None:
    """The doubler doubles when the taker's better answer is worth at least no double; too good needs gammons."""
    met = published_met()
    d = cube_decision(probs, met, cube, x)
    assert d.available == cube.can_double
    assert float(equity_to_mwc(d.equity.no_double, met, cube)) == pytest.approx(d.mwc.no_double, abs=1e-12)
    if not d.available:
        assert d.action is CubeAction.NO_DOUBLE and d.equity.optimal == d.equity.no_double
        return
    assert d.mwc.double_pass == game_result_mwc(met, cube.score, won=cube.value)
    assert d.equity.double_pass == pytest.approx(1.0)
    nd, dt, dp = d.equity.no_double, d.equity.double_take, d.equity.double_pass
    if dt != dp:
        assert d.response is (CubeResponse.TAKE if dp > dt else CubeResponse.PASS)
    if min(dt, dp) >= nd:
        assert d.action is CubeAction.DOUBLE and d.equity.optimal == min(dt, dp)
    elif nd > dp and probs[1] > 0:
        assert d.action is CubeAction.TOO_GOOD and d.equity.optimal == nd
    elif nd > dp:  # no gammon to play for: gnubg calls it double, pass (or no double when the taker takes)
        assert d.action is (CubeAction.DOUBLE if dt > dp else CubeAction.NO_DOUBLE) and d.equity.optimal == nd
    else:
        assert d.action is CubeAction.NO_DOUBLE and d.equity.optimal == nd
    assert d.mwc.optimal == pytest.approx(float(equity_to_mwc(d.equity.optimal, met, cube)), abs=1e-12)


def test_keith_table_works_as_a_met() -> None:
    met = keith_met(0.276, 0.011, 11)
    cube = MatchCube(MatchScore.from_scores(11, 5, 7))
    d = cube_decision([0.72, 0.2, 0.01, 0.05, 0.0], met, cube, 0.68)
    assert d.available and d.action in (CubeAction.DOUBLE, CubeAction.TOO_GOOD)


# --------------------------------------------------------------------------- efficiency


@pytest.mark.parametrize(
    ("kind", "pips", "x"),
    [
        (PositionClass.CONTACT, None, 0.68),
        (PositionClass.CRASHED, None, 0.68),
        (PositionClass.BEAROFF_ONE_SIDED, None, 0.6),
        (PositionClass.RACE, 20, 0.6),
        (PositionClass.RACE, 40, 0.6),
        (PositionClass.RACE, 80, 0.65),
        (PositionClass.RACE, 120, 0.7),
        (PositionClass.RACE, 160, 0.7),
        (PositionClass.OVER, None, 0.0),
    ],
)
def test_cube_efficiency_by_class(kind: PositionClass, pips: int | None, x: float) -> None:
    """Seed 001: contact 0.68, one-sided bearoff 0.6, races 0.6 at 40 pips to 0.7 at 120."""
    assert CubeEfficiency().x(kind, pips) == pytest.approx(x)


def test_effective_cube_life_of_two_sided_bearoffs() -> None:
    assert effective_cube_life(0.2, 0.4, 0.3, 0.6) == pytest.approx(0.5)
    assert effective_cube_life(0.2, 0.4, 0.5, 0.6) == 0.6  # clipped to the cap
    assert effective_cube_life(0.2, 0.4, 0.1, 0.6) == 0.0
    assert effective_cube_life(0.2, 0.20005, 0.3, 0.6) == 0.6  # live and dead too close to tell


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: MatchScore.from_scores(7, 7, 3), "score 7-3 is not below the match length 7"),
        (lambda: MatchScore.from_scores(7, 2, 9), "score 2-9 is not below the match length 7"),
        (lambda: MatchScore(3, 4, crawford=True), "Crawford game at 3-away against 4-away"),
        (lambda: MatchScore(1, 1, crawford=True), "Crawford game at 1-away against 1-away"),
        (lambda: MatchScore(0, 4), "away = 0"),
        (lambda: MatchCube(MatchScore(3, 2), 8, CubeState.OWNED), "cube 8 (owned) at 3-away against 2-away"),
        (lambda: MatchCube(MatchScore(2, 5), 4, CubeState.UNAVAILABLE), "could not have doubled it from 2"),
        (lambda: MatchCube(MatchScore(5, 5), 2), "centred cube 2 in a match"),
        (lambda: MatchCube(MatchScore(5, 1, crawford=True), 2, CubeState.OWNED), "in the Crawford game"),
        (lambda: MatchCube(MatchScore(5, 5), 3, CubeState.OWNED), "cube 3 is not a power of two"),
        (lambda: MatchCube(MatchScore(5, 5), 1, "sideways"), "cube state = 'sideways'"),  # type: ignore[arg-type]
        (lambda: MatchCube(MatchScore(5, 1)).flipped().doubled(), "cannot double"),
        (
            lambda: cube_decision([[0.5, 0, 0, 0, 0]] * 2, published_met(), MatchCube(MatchScore(5, 5)), 0.7),
            "one position",
        ),
        (
            lambda: cubeful_mwc([0.5, 0.6, 0, 0, 0], published_met(), MatchCube(MatchScore(5, 5)), 0.7),
            "P(win gammon) > P(win)",
        ),
        (
            lambda: cubeful_mwc([0.5, 0, 0, 0, 0], published_met(), MatchCube(MatchScore(5, 5)), 1.5),
            "cube-life index x",
        ),
        (lambda: cubeless_mwc([0.5, 0, 0, 0, 0], published_met(), MatchCube(MatchScore(70, 5))), "beyond table"),
    ],
)
def test_bad_input_is_one_line_naming_it(call: object, words: str) -> None:
    with pytest.raises(CubeInputError) as info:
        call()  # type: ignore[operator]
    message = str(info.value)
    assert words in message and "\n" not in message


def test_engine_refuses_the_same_match_ids() -> None:
    """The same bad states as match IDs: ``parse_id_pair`` refuses them, naming the ID."""
    from engine import MatchState
    from engine.batch import parse_id_pair
    from engine.errors import InvalidMatchState

    cases = [
        (MatchState(match_length=7, score=(7, 3)), "not below the match length 7"),
        (MatchState(match_length=7, score=(3, 4), crawford=True), "crawford flag set with neither side 1-away"),
        (MatchState(match_length=3, score=(0, 1), cube=8, cube_owner=0), "could not have doubled to it"),
        (MatchState(match_length=7, score=(6, 6), crawford=True), "crawford flag set at double match point"),
    ]
    for state, words in cases:
        with pytest.raises(InvalidMatchState) as info:
            parse_id_pair(f"4HPwATDgc/ABMA:{state.id}")
        assert words in str(info.value) and state.id in str(info.value)
    # The scores around them are playable: the Crawford game at 6-0, post-Crawford at 6-1 and at 6-6, and 6-0
    # without the flag (gnubg writes it for a match played with "set automatic crawford off").
    for state in (
        MatchState(match_length=7, score=(6, 0), crawford=True),
        MatchState(match_length=7, score=(6, 0)),
        MatchState(match_length=7, score=(1, 6)),
        MatchState(match_length=7, score=(6, 6)),
        MatchState(match_length=1, score=(0, 0)),
    ):
        assert parse_id_pair(f"4HPwATDgc/ABMA:{state.id}")[1] == state
