"""The jump model at match scores: its live-cube limit (gnubg, x = 1), its money limit, its properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st

from cube.errors import CubeInputError
from cube.jump_linear import JumpLinearModel, cash_point, take_point
from cube.jump_numerical import solve
from cube.match import (
    MatchCube,
    MatchCubeDecision,
    MatchScore,
    cube_decision,
    cubeless_mwc,
    game_result_mwc,
    live_mwc,
    take_point_ladder,
)
from cube.match_jump import jump_cube_decision, jump_ladder, jump_mwc, smeared_break
from cube.met import MatchEquityTable, keith_met, published_met
from cube.states import CubeAction, CubeState

OWNED, UNAVAILABLE, CENTERED = CubeState.OWNED, CubeState.UNAVAILABLE, CubeState.CENTERED

# positions (side on roll's five probabilities): gammonish contact, a race, a backgammon-heavy blitz
POSITIONS = {
    "seed004": [0.454, 0.103, 0.001, 0.106, 0.003],
    "race": [0.71, 0.0, 0.0, 0.0, 0.0],
    "blitz": [0.78, 0.41, 0.06, 0.05, 0.004],
    "underdog": [0.24, 0.05, 0.0, 0.22, 0.02],
}
# (away, opp_away, crawford, cube, state)
CUBES = [
    (7, 4, False, 1, CENTERED),
    (7, 4, False, 2, OWNED),
    (7, 4, False, 2, UNAVAILABLE),
    (4, 7, False, 4, UNAVAILABLE),
    (9, 9, False, 1, CENTERED),
    (9, 9, False, 8, OWNED),
    (3, 5, False, 1, CENTERED),
    (2, 5, False, 2, UNAVAILABLE),
    (5, 2, False, 1, CENTERED),
    (1, 4, True, 1, CENTERED),
    (1, 4, False, 1, CENTERED),
    (4, 1, False, 1, CENTERED),
    (2, 2, False, 1, CENTERED),
    (3, 3, False, 4, OWNED),
    (15, 11, False, 2, OWNED),
]
METS = ["Kazaross-XG2", "Woolsey"]


def match_cube(away: int, opp_away: int, crawford: bool, value: int, state: CubeState) -> MatchCube:
    return MatchCube(MatchScore(away, opp_away, crawford), value, state)


@pytest.fixture(scope="module", params=METS)
def met(request: pytest.FixtureRequest) -> MatchEquityTable:
    return published_met(request.param)


# --------------------------------------------------------------------------- live-cube limit


@pytest.mark.parametrize("cube_args", CUBES)
@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_zero_volatility_is_gnubgs_live_cube(met: MatchEquityTable, cube_args: tuple, name: str) -> None:
    """alpha = 0: the live ladder, the live MWC and gnubg's decision at x = 1, to rounding."""
    probs = np.array(POSITIONS[name])
    cube = match_cube(*cube_args)
    live = live_mwc(probs, met, cube) if cube.cubeful else cubeless_mwc(probs, met, cube)
    assert float(jump_mwc(probs, met, cube, 0.0)) == pytest.approx(float(live), abs=1e-12)
    ladder = jump_ladder(probs, met, cube, 0.0)
    for ours, gnubgs in zip(ladder.jump, take_point_ladder(probs, met, cube), strict=True):
        assert ours.cube == gnubgs.cube and ours.dead == gnubgs.dead
        assert float(ours.take_point) == pytest.approx(float(gnubgs.take_point), abs=1e-12)
        assert float(ours.opp_take_point) == pytest.approx(float(gnubgs.opp_take_point), abs=1e-12)
    ours_d, gnubg_d = jump_cube_decision(probs, met, cube, 0.0), cube_decision(probs, met, cube, 1.0)
    assert isinstance(ours_d, MatchCubeDecision)
    assert (ours_d.action, ours_d.response, ours_d.available) == (gnubg_d.action, gnubg_d.response, gnubg_d.available)
    np.testing.assert_allclose(
        [ours_d.mwc.no_double, ours_d.mwc.double_take, ours_d.mwc.double_pass],
        [gnubg_d.mwc.no_double, gnubg_d.mwc.double_take, gnubg_d.mwc.double_pass],
        atol=1e-12,
    )


@pytest.mark.parametrize("cube_args", CUBES)
def test_small_volatility_is_close_to_live(cube_args: tuple) -> None:
    """The MWC is continuous at alpha = 0: alpha = 1e-4 moves it by less than 1e-3 (slopes are O(1))."""
    met = published_met("Kazaross-XG2")
    probs = np.array([POSITIONS[k] for k in sorted(POSITIONS)])
    cube = match_cube(*cube_args)
    diff = np.abs(jump_mwc(probs, met, cube, 1e-4) - jump_mwc(probs, met, cube, 0.0))
    assert diff.max() < 1e-3


# --------------------------------------------------------------------------- money limit

# (gammon share of wins, of losses): W = 1 + wins', L = 1 + losses'
RATES = [(0.0, 0.0), (0.25, 0.25), (0.4, 0.15), (0.15, 0.4)]
MONEY_ALPHA = 0.1


def rated(p: np.ndarray, win_g: float, lose_g: float) -> np.ndarray:
    return np.stack([p, p * win_g, 0.0 * p, (1.0 - p) * lose_g, 0.0 * p], axis=-1)


@pytest.fixture(scope="module")
def long_mets() -> dict[int, MatchEquityTable]:
    # gammon rate of seed 002's note, the rate Keith's algorithm builds the table with
    return {n: keith_met(0.276, 0.011, n) for n in (15, 25, 50)}


def _points(met: MatchEquityTable, n: int, win_g: float, lose_g: float) -> tuple[float, float, float, float]:
    """(take point, cash point) with the jump model and with alpha = 0, level 1 at n-away against n-away."""
    ladder = jump_ladder(rated(np.array(0.5), win_g, lose_g), met, MatchCube(MatchScore(n, n)), MONEY_ALPHA)
    jump, live = ladder.jump[-1], ladder.live[-1]
    jump_points = (float(jump.take_point), 1.0 - float(jump.opp_take_point))
    return (*jump_points, float(live.take_point), 1.0 - float(live.opp_take_point))


@pytest.mark.parametrize(("win_g", "lose_g"), RATES)
def test_long_match_take_and_cash_points_approach_money(
    long_mets: dict[int, MatchEquityTable], win_g: float, lose_g: float
) -> None:
    """25-away against 25-away: within 0.003 of the money jump model (Higgins' corrected linear points);
    the jump's shift from the live points within 0.0005 of money's; the gap shrinks from 15 to 50 points."""
    W, L = 1.0 + win_g, 1.0 + lose_g
    money_tp, money_cp = float(take_point(W, L, MONEY_ALPHA)), float(cash_point(W, L, MONEY_ALPHA))
    S = W + L + 0.5
    live_tp, live_cp = (L - 0.5) / S, (L + 1.0) / S
    tp, cp, tp_l, cp_l = _points(long_mets[25], 25, win_g, lose_g)
    assert abs(tp - money_tp) < 0.003 and abs(cp - money_cp) < 0.003
    assert abs((tp - tp_l) - (money_tp - live_tp)) < 0.0005
    assert abs((cp - cp_l) - (money_cp - live_cp)) < 0.0005
    gaps = [abs(_points(long_mets[n], n, win_g, lose_g)[0] - money_tp) for n in (15, 25, 50)]
    assert gaps[2] < gaps[0]


def _doubling_points(met: MatchEquityTable, n: int, win_g: float, lose_g: float) -> list[float]:
    """The smallest P at which the side on roll doubles (centred cube) and redoubles (owning the 2-cube)."""
    p = np.linspace(0.4, 0.999, 6000)
    probs = rated(p, win_g, lose_g)
    out = []
    for cube in (MatchCube(MatchScore(n, n)), MatchCube(MatchScore(n, n), 2, OWNED)):
        nd = jump_mwc(probs, met, cube, MONEY_ALPHA)
        dt = jump_mwc(probs, met, cube.doubled(), MONEY_ALPHA)
        doubles = np.minimum(dt, game_result_mwc(met, cube.score, won=cube.value)) >= nd
        assert doubles.any()
        out.append(float(p[np.argmax(doubles)]))
    return out


@pytest.mark.parametrize(("win_g", "lose_g"), RATES)
def test_long_match_doubling_points_approach_money(
    long_mets: dict[int, MatchEquityTable], win_g: float, lose_g: float
) -> None:
    """25-away against 25-away: the initial double point within 0.003 of money's, the redouble point
    (two nearly parallel lines crossing) within 0.01; the redouble gap shrinks from 15 to 50 points."""
    money = JumpLinearModel(MONEY_ALPHA).points(1.0 + win_g, 1.0 + lose_g)
    assert money.id_o is not None and money.rd_o is not None
    expected = (money.id_o, money.rd_o)
    gaps = {n: np.abs(np.subtract(_doubling_points(long_mets[n], n, win_g, lose_g), expected)) for n in (15, 25, 50)}
    assert gaps[25][0] < 0.003 and gaps[25][1] < 0.01
    assert gaps[50][1] <= gaps[15][1] + 1e-3  # the 6000-point scan's resolution


def test_one_step_ladder_beats_a_self_consistent_one() -> None:
    """The module's claim: money, no gammons, alpha 0.1: feeding jump take points back up the ladder
    (break at the jump cash point: TP = CP^2 / (2 (2 CP - alpha)), CP = 1 - TP) lands further from the
    exact numerical solution than the one-step rule the module uses."""
    alpha = 0.1
    tp = 0.2
    for _ in range(200):
        cp = 1.0 - tp
        tp = cp * cp / (2.0 * (2.0 * cp - alpha))
    exact_tp = solve(1.0, 1.0, alpha).points().tp
    assert exact_tp is not None
    exact = float(exact_tp)
    one_step = float(take_point(1.0, 1.0, alpha))
    assert abs(one_step - exact) < abs(tp - exact)
    assert round(tp, 4) == 0.2107


# --------------------------------------------------------------------------- properties


def test_smeared_break_of_a_kink() -> None:
    """A |x| kink (slopes -1, +1) averaged over jumps of E|J| = alpha is alpha (E|J| itself)."""
    assert float(smeared_break(0.0, -1.0, 1.0, 0.08)) == pytest.approx(0.08)
    assert float(smeared_break(1.0, 2.0, 2.0, 0.3)) == 1.0  # no kink, no change


@pytest.mark.parametrize("cube_args", CUBES)
@pytest.mark.parametrize("p", [0.15, 0.5, 0.71, 0.93])
def test_jumps_narrow_the_window_without_gammons(cube_args: tuple, p: float) -> None:
    """No gammons: every live break is concave, overshoot makes holding the cube worth less, so take
    points rise and cash points fall (never past each other), and the owned MWC falls."""
    met = published_met("Kazaross-XG2")
    probs = rated(np.array(p), 0.0, 0.0)
    cube = match_cube(*cube_args)
    ladder = jump_ladder(probs, met, cube, 0.12)
    for live, jump in zip(ladder.live, ladder.jump, strict=True):
        assert float(jump.take_point) >= float(live.take_point) - 1e-12
        assert float(jump.opp_take_point) >= float(live.opp_take_point) - 1e-12
        if not live.dead:
            assert float(jump.take_point) + float(jump.opp_take_point) < 1.0
    if cube.state is OWNED and cube.cubeful:
        assert float(jump_mwc(probs, met, cube, 0.12)) <= float(jump_mwc(probs, met, cube, 0.0)) + 1e-12


def test_gammons_past_the_cash_point_make_the_break_convex() -> None:
    """A match effect money lacks: 3-away against 5-away, a gammonish blitz. Taking the 2-cube, the side
    on roll would win the match with a gammon, so its owned MWC climbs faster above its cash point than
    below; the break is convex, jumps past it gain, and the jump take point falls below the live one."""
    met = published_met("Kazaross-XG2")
    ladder = jump_ladder(np.array(POSITIONS["blitz"]), met, match_cube(3, 5, False, 1, CENTERED), 0.12)
    assert float(ladder.jump[-1].take_point) < float(ladder.live[-1].take_point)


@settings(max_examples=60, deadline=None)
@given(
    p=st.floats(0.02, 0.98),
    a1=st.floats(0.0, 0.2),
    a2=st.floats(0.0, 0.2),
    which=st.sampled_from([c for c in CUBES if c[4] is OWNED]),
)
def test_owned_cube_loses_value_with_volatility(p: float, a1: float, a2: float, which: tuple) -> None:
    """No gammons: holding the cube is worth less the larger the jumps (owned MWC non-increasing in alpha)."""
    met = published_met("Kazaross-XG2")
    cube = match_cube(*which)
    probs = rated(np.array(p), 0.0, 0.0)
    lo, hi = sorted((a1, a2))
    assert float(jump_mwc(probs, met, cube, hi)) <= float(jump_mwc(probs, met, cube, lo)) + 1e-12


def test_local_volatility_enters_only_at_the_players_cash_point() -> None:
    """alpha_local changes the centred and owned MWC near the cash point, not the unavailable one."""
    met = published_met("Kazaross-XG2")
    probs = rated(np.array([0.6, 0.7]), 0.25, 0.2)
    score = MatchScore(7, 7)
    for cube, changes in (
        (MatchCube(score), True),
        (MatchCube(score, 2, OWNED), True),
        (MatchCube(score, 2, UNAVAILABLE), False),
    ):
        base = jump_mwc(probs, met, cube, 0.1)
        quiet = jump_mwc(probs, met, cube, 0.1, alpha_local=0.02)
        assert np.all(quiet >= base - 1e-12)
        assert bool(np.any(quiet > base + 1e-4)) is changes
    # a quiet position doubles later: the no-double MWC rises, double/take does not move
    d_base = jump_cube_decision(probs[1], met, MatchCube(score), 0.1)
    d_quiet = jump_cube_decision(probs[1], met, MatchCube(score), 0.1, 0.02)
    assert d_quiet.mwc.no_double > d_base.mwc.no_double
    assert d_quiet.mwc.double_take == d_base.mwc.double_take


@pytest.mark.parametrize(
    ("cube_args", "why"),
    [
        ((1, 4, True, 1, CENTERED), "Crawford"),
        ((2, 2, False, 1, CENTERED), "2-away/2-away"),
        ((2, 2, False, 2, OWNED), "dead"),
    ],
)
def test_cube_left_out_is_cubeless(cube_args: tuple, why: str) -> None:
    met = published_met("Kazaross-XG2")
    probs = np.array(POSITIONS["seed004"])
    cube = match_cube(*cube_args)
    assert float(jump_mwc(probs, met, cube, 0.1)) == pytest.approx(float(cubeless_mwc(probs, met, cube))), why


@pytest.mark.parametrize(
    ("alpha", "alpha_local", "shape"),
    [(-0.01, None, (5,)), (0.5, None, (5,)), (0.1, 0.7, (5,)), (float("nan"), None, (5,)), (0.1, None, (2, 5))],
)
def test_bad_input(alpha: float, alpha_local: float | None, shape: tuple) -> None:
    probs = np.broadcast_to(np.array(POSITIONS["race"]), shape)
    with pytest.raises(CubeInputError):
        jump_cube_decision(probs, published_met("Kazaross-XG2"), MatchCube(MatchScore(5, 5)), alpha, alpha_local)


# --------------------------------------------------------------------------- ends and symmetry


def _opposite(state: CubeState) -> CubeState:
    return {CENTERED: CENTERED, OWNED: UNAVAILABLE, UNAVAILABLE: OWNED}[state]


@pytest.mark.parametrize("cube_args", CUBES + [(2, 1, False, 1, CENTERED), (3, 1, False, 1, CENTERED)])
def test_the_ends_are_the_game_results_and_both_sides_sum_to_one(met: MatchEquityTable, cube_args: tuple) -> None:
    """A certain loss is worth the loss and a certain win the win, and at one volatility the MWCs of the two sides'
    views of a position sum to 1.

    A break of the curve at an end of [0, 1] (a side that can never use the cube, post-Crawford) is no kink: it
    was smeared, and a certain loss at 4-away against post-Crawford 1-away came out at 0.024, not 0.
    """
    away, opp_away, crawford, value, state = cube_args
    cube = match_cube(*cube_args)
    other = match_cube(opp_away, away, crawford, value, _opposite(state))
    for name, probs in POSITIONS.items():
        mine = np.array(probs)
        theirs = np.array([1 - mine[0], mine[3], mine[4], mine[1], mine[2]])
        total = jump_mwc(mine, met, cube, 0.1) + jump_mwc(theirs, met, other, 0.1)
        assert total == pytest.approx(1.0, abs=1e-12), name
    lose, win = jump_mwc(np.zeros(5), met, cube, 0.1), jump_mwc(np.array([1.0, 0, 0, 0, 0]), met, cube, 0.1)
    assert lose == pytest.approx(live_mwc(np.zeros(5), met, cube), abs=1e-12)
    assert win == pytest.approx(live_mwc(np.array([1.0, 0, 0, 0, 0]), met, cube), abs=1e-12)


def test_a_post_crawford_trailer_doubles_a_long_shot() -> None:
    """Post-Crawford at 2-away the trailer's no double is worth less than its chance of winning the game: it doubles."""
    met = published_met()
    decision = jump_cube_decision([0.1, 0, 0, 0, 0], met, match_cube(2, 1, False, 1, CENTERED), 0.113)
    assert decision.mwc.no_double < 0.1 and decision.mwc.double_take == pytest.approx(0.1)
    assert decision.action is CubeAction.DOUBLE


met_kx = published_met("Kazaross-XG2")


@settings(max_examples=200, deadline=None)
@given(
    away=st.integers(1, 25),
    opp_away=st.integers(1, 25),
    log_value=st.integers(0, 4),
    state=st.sampled_from([CENTERED, OWNED, UNAVAILABLE]),
    p=st.floats(0.0, 1.0),
    gammons=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
    alpha=st.floats(0.0, 0.49),
    alpha_local=st.floats(0.0, 0.49),
)
# a local alpha below the remote one: the centred curve ran past the cash (0.604 against 0.599)
@example(away=3, opp_away=3, log_value=0, state=CENTERED, p=0.875, gammons=(0, 0, 1, 0), alpha=0.25, alpha_local=0)
def test_the_mwc_stays_between_losing_and_winning_at_the_cube(
    away: int,
    opp_away: int,
    log_value: int,
    state: CubeState,
    p: float,
    gammons: tuple[float, float, float, float],
    alpha: float,
    alpha_local: float,
) -> None:
    """Whatever the volatility, the MWC lies between losing with the side's gammon rates at the cube and winning
    with them: a 10-away leader holding a 4-cube at a cash point of 0.988 had a no-double MWC of 1.029 (the
    smear of a break next to an end of [0, 1] is capped by the largest E|J| a step from it can have)."""
    value = 1 << log_value
    crawford = (away == 1) != (opp_away == 1) and state is CENTERED and value == 1
    try:
        cube = match_cube(away, opp_away, crawford, value, CENTERED if value == 1 else state)
    except CubeInputError:
        reject()  # a cube no match reaches (larger than both sides need, or held at the Crawford game)
    g, bg_share, lg, lbg_share = gammons
    probs = np.array([p, p * g, p * g * bg_share, (1 - p) * lg, (1 - p) * lg * lbg_share])
    mwc = float(jump_mwc(probs, met_kx, cube, alpha, alpha_local))
    lower = float(jump_mwc(np.array([0.0, 0.0, 0.0, lg, lg * lbg_share]), met_kx, cube, alpha, alpha_local))
    upper = float(jump_mwc(np.array([1.0, g, g * bg_share, 0.0, 0.0]), met_kx, cube, alpha, alpha_local))
    assert -1e-12 <= lower <= mwc + 1e-12 and mwc <= upper + 1e-12 and upper <= 1.0 + 1e-12
