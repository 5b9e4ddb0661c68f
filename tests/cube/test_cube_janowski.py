"""Janowski, *Take-Points in Money Games*: tables, worked example, derived points."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cube import CubeInputError, GameState, JanowskiModel, gnubg_equity, live_equity
from cube.janowski import (
    cash_point,
    centered_equity,
    initial_double_point,
    owned_equity,
    redouble_point,
    take_equity,
    take_point,
    too_good_point,
    unavailable_equity,
)
from cube.points import find_decision_points

VALUES = (1.00, 1.25, 1.50, 1.75, 2.00)

# Tables 1a, 1b, 1c: cubeless take points in %, rows L, columns W.
TABLE_1 = {
    0.0: [
        [25.0, 22.2, 20.0, 18.2, 16.7],
        [33.3, 30.0, 27.3, 25.0, 23.1],
        [40.0, 36.4, 33.3, 30.8, 28.6],
        [45.5, 41.7, 38.5, 35.7, 33.3],
        [50.0, 46.2, 42.9, 40.0, 37.5],
    ],
    1.0: [
        [20.0, 18.2, 16.7, 15.4, 14.3],
        [27.3, 25.0, 23.1, 21.4, 20.0],
        [33.3, 30.8, 28.6, 26.7, 25.0],
        [38.5, 35.7, 33.3, 31.3, 29.4],
        [42.9, 40.0, 37.5, 35.3, 33.3],
    ],
    2.0 / 3.0: [
        [21.4, 19.4, 17.6, 16.2, 15.0],
        [29.0, 26.5, 24.3, 22.5, 20.9],
        [35.3, 32.4, 30.0, 27.9, 26.1],
        [40.5, 37.5, 34.9, 32.6, 30.6],
        [45.0, 41.9, 39.1, 36.7, 34.6],
    ],
}

# Tables 2a, 2b, 2c: cubeless take equities.
TABLE_2 = {
    0.0: [[-0.500] * 5 for _ in range(5)],
    1.0: [
        [-0.600, -0.591, -0.583, -0.577, -0.571],
        [-0.636, -0.625, -0.615, -0.607, -0.600],
        [-0.667, -0.654, -0.643, -0.633, -0.625],
        [-0.692, -0.679, -0.667, -0.656, -0.647],
        [-0.714, -0.700, -0.688, -0.676, -0.667],
    ],
    2.0 / 3.0: [
        [-0.571, -0.565, -0.559, -0.554, -0.550],
        [-0.597, -0.588, -0.581, -0.575, -0.570],
        [-0.618, -0.608, -0.600, -0.593, -0.587],
        [-0.635, -0.625, -0.616, -0.609, -0.602],
        [-0.650, -0.640, -0.630, -0.622, -0.615],
    ],
}


def _cells(table: dict[float, list[list[float]]]) -> list[tuple[float, float, float, float]]:
    return [(x, VALUES[j], VALUES[i], rows[i][j]) for x, rows in table.items() for i in range(5) for j in range(5)]


@pytest.mark.parametrize(("x", "W", "L", "printed"), _cells(TABLE_1))
def test_table_1_take_points(x: float, W: float, L: float, printed: float) -> None:
    assert abs(100.0 * float(take_point(W, L, x)) - printed) <= 0.05 + 1e-9


@pytest.mark.parametrize(("x", "W", "L", "printed"), _cells(TABLE_2))
def test_table_2_take_equities(x: float, W: float, L: float, printed: float) -> None:
    assert abs(float(take_equity(W, L, x)) - printed) <= 0.0005 + 1e-9


# ---------------------------------------------------------------- worked example
# Ballard-Senkiewicz: White (the taker) wins 35% (31% single, 4% gammons); Black wins 65%
# (47% single, 17% gammons, 1% backgammons).
WHITE = np.array([0.35, 0.04, 0.0, 0.18, 0.01])


def test_example_win_loss_values() -> None:
    s = GameState.from_probabilities(WHITE)
    assert pytest.approx(39 / 35) == s.W and round(s.W, 3) == 1.114
    assert pytest.approx(84 / 65) == s.L and round(s.L, 3) == 1.292
    black = GameState.from_probabilities([0.65, 0.18, 0.01, 0.04, 0.0])
    assert black.cubeless_equity == pytest.approx(0.45)  # "Black's cubeless equity 0.450"
    assert pytest.approx(s.W) == black.flipped().W and pytest.approx(s.L) == black.flipped().L


# The article prints TP_dead = 0.392: a misprint for 0.792/2.406 = 0.3292, the value its own
# next expression (E_take = 0.3292 x 2.406 - 1.292) uses.  Its TP_live = 0.2727 is also not
# its own arithmetic, 0.792/2.906 = 0.2725 (used in its E_take line; 0.2726 unrounded).
# TP_2/3 = 0.2892 is consistent.
@pytest.mark.parametrize(
    ("x", "tp_article", "tp_printed", "e_take"),
    [(0.0, 0.3292, 0.392, -0.500), (1.0, 0.2725, 0.2727, -0.636), (2 / 3, 0.2892, 0.2892, -0.596)],
)
def test_worked_example(x: float, tp_article: float, tp_printed: float, e_take: float) -> None:
    W_r, L_r = 1.114, 1.292  # as rounded in the article
    tp_r = float(take_point(W_r, L_r, 0.666 if x == 2 / 3 else x))  # x/2 = 0.333 as printed
    assert abs(tp_r - tp_article) <= 0.00005 + 1e-9
    s = GameState.from_probabilities(WHITE)
    tp = float(take_point(s.W, s.L, x))
    assert abs(tp - tp_article) < 2e-4
    assert round(float(take_equity(s.W, s.L, x)), 3) == e_take
    if tp_printed != tp_article:  # the printed value is not the article's own arithmetic
        assert round(tp_r, 4) != tp_printed and round(tp, 4) != tp_printed
    if x == 0.0:
        assert abs(tp - tp_printed) > 0.05  # 0.392: a dropped digit, not a rounding
    assert tp < s.P  # "White ... can take for money, regardless of the cube model"


# ---------------------------------------------------------------- equations 5-7


@given(p=st.floats(0, 1), W=st.floats(1, 3), L=st.floats(1, 3), x=st.floats(0, 1))
def test_appendix_1_relationships(p: float, W: float, L: float, x: float) -> None:
    E = p * (W + L) - L
    eo = float(owned_equity(p, W, L, x))
    eu = float(unavailable_equity(p, W, L, x))
    ec = float(centered_equity(p, W, L, x))
    assert eo == pytest.approx(E + 0.5 * x * p, abs=1e-12)
    assert eu == pytest.approx(E - 0.5 * x * (1 - p), abs=1e-12)
    assert ec == pytest.approx(4 / (4 - x) * (p * (W + L + 0.5 * x) - L - 0.25 * x), abs=1e-12)
    assert ec == pytest.approx(4 / (4 - x) * (E + 0.5 * x * (p - 0.5)), abs=1e-12)
    assert ec == pytest.approx(2 / (4 - x) * (eo + eu), abs=1e-12)
    assert ec == pytest.approx(4 / (4 - x) * (eo - 0.25 * x), abs=1e-12)
    assert float(owned_equity(p, W, L, x, cube_value=4.0)) == pytest.approx(4 * eo)


@given(p=st.floats(0, 1), W=st.floats(1, 3), L=st.floats(1, 3), x=st.floats(0, 1))
def test_refined_reduces_to_general(p: float, W: float, L: float, x: float) -> None:
    m = JanowskiModel(x, x)
    assert float(m.centered(p, W, L)) == pytest.approx(float(centered_equity(p, W, L, x)), abs=1e-12)


@given(W=st.floats(1, 3), L=st.floats(1, 3), x1=st.floats(0, 1), x2=st.floats(0, 1))
def test_refined_centered_derivation(W: float, L: float, x1: float, x2: float) -> None:
    """E_c = +1 where E_o(x1) = +1 and -1 where E_u(x2) = -1; TP uses x1 only, CP x2 only."""
    m = JanowskiModel(x1, x2)
    pts = m.points(W, L)
    S1, S2 = W + L + x1 / 2, W + L + x2 / 2
    p_o = (L + 1) / S1
    p_u = (L - 1 + x2 / 2) / S2
    assert float(m.centered(np.clip(p_o, 0, 1), W, L)) == pytest.approx(1.0, abs=1e-9) or p_o > 1
    assert float(m.owned(min(p_o, 1.0), W, L)) == pytest.approx(1.0, abs=1e-9) or p_o > 1
    if 0 <= p_u <= 1:
        assert float(m.centered(p_u, W, L)) == pytest.approx(-1.0, abs=1e-9)
    assert pts.tp == pytest.approx(float(take_point(W, L, x1)))
    assert pts.cp == pytest.approx(float(cash_point(W, L, x2)))


@pytest.mark.parametrize("x", [0.0, 0.3, 2 / 3, 1.0])
@pytest.mark.parametrize(("W", "L"), [(1.0, 1.0), (1.3, 1.2), (2.0, 1.25), (1.1, 1.9)])
def test_closed_form_points_match_numeric(x: float, W: float, L: float) -> None:
    for m in (JanowskiModel(x), JanowskiModel(x, 1.0 - 0.5 * x)):
        closed = m.points(W, L).as_dict()
        numeric = find_decision_points(m.curves(W, L)).as_dict()
        for k, v in closed.items():
            assert v is not None
            nv = numeric[k]
            assert nv is not None
            if 0.0 < v < 1.0:
                assert nv == pytest.approx(v, abs=1e-9), k
    m = JanowskiModel(x)
    pts = m.points(W, L)
    assert pts.rd_o == pytest.approx(float(redouble_point(W, L, x)))
    assert pts.id_o == pytest.approx(float(initial_double_point(W, L, x)))
    assert pts.tg_o == pytest.approx(float(too_good_point(W, L, x)))


def test_required_equities_after_double() -> None:
    """Appendix 1: after doubling to 2, E_u needed is 0.667 (redouble), 0.500 (initial)."""
    x, W, L = 2 / 3, 1.37, 1.21
    rd = float(redouble_point(W, L, x))
    idp = float(initial_double_point(W, L, x))
    assert 2 * float(unavailable_equity(rd, W, L, x)) == pytest.approx(0.667, abs=5e-4)
    assert 2 * float(unavailable_equity(idp, W, L, x)) == pytest.approx(0.500, abs=5e-4)
    # "independent of W and L"
    for W2, L2 in [(1, 1), (2, 1.5)]:
        assert 2 * float(unavailable_equity(redouble_point(W2, L2, x), W2, L2, x)) == (pytest.approx(x))


def test_initial_double_below_redouble_max_divergence() -> None:
    """Max divergence RD - ID near x = 0.57, 3.75% (W = L = 1) to 2.00% (W = L = 2)."""
    xs = np.linspace(0, 1, 100001)
    for WL, expected in [(1.0, 3.75), (2.0, 2.00)]:
        gap = redouble_point(WL, WL, xs) - initial_double_point(WL, WL, xs)
        assert np.all(gap >= -1e-15)
        assert gap[0] == pytest.approx(0, abs=1e-15) and gap[-1] == pytest.approx(0, abs=1e-15)
        k = int(np.argmax(gap))
        assert 0.55 <= xs[k] <= 0.59
        assert round(100 * gap[k], 2) == expected


def test_dead_and_live_limits_without_gammons() -> None:
    assert float(take_point(1, 1, 0)) == pytest.approx(0.25)
    assert float(take_point(1, 1, 1)) == pytest.approx(0.20)
    assert float(initial_double_point(1, 1, 0)) == pytest.approx(0.50)
    assert float(initial_double_point(1, 1, 1)) == pytest.approx(0.80)
    assert float(cash_point(1, 1, 1)) == pytest.approx(0.80)


@given(W=st.floats(1.01, 3), L=st.floats(1, 3))
def test_live_cube_never_doubles_with_gammons(W: float, L: float) -> None:
    """Live model: the doubling window is empty, ID = RD = CP = TG (Janowski's remark 1)."""
    pts = JanowskiModel(1.0).points(W, L)
    assert pts.id_o == pytest.approx(pts.tg_o) and pts.rd_o == pytest.approx(pts.cp)
    assert pts.cp == pytest.approx(pts.tg_o)


@given(W=st.floats(1, 3), L=st.floats(1, 3), x1=st.floats(0, 1), x2=st.floats(0, 1))
def test_point_order(W: float, L: float, x1: float, x2: float) -> None:
    pts = JanowskiModel(x1, x2).points(W, L)
    assert pts.tp is not None and pts.cp is not None and pts.tp <= pts.cp
    if x1 == x2:
        order = [pts.tg_u, pts.tp, pts.rd_u, pts.id_u, pts.id_o, pts.rd_o, pts.cp, pts.tg_o]
        assert all(a is not None and b is not None and a <= b + 1e-12 for a, b in zip(order, order[1:], strict=False))


@given(W=st.floats(1, 3), L=st.floats(1, 3), x=st.floats(0, 1), p=st.floats(0, 1), q=st.floats(0, 1))
def test_equities_monotone_and_ordered(W: float, L: float, x: float, p: float, q: float) -> None:
    lo, hi = min(p, q), max(p, q)
    for jac in (False, True):
        m = JanowskiModel(x)
        assert float(m.centered(lo, W, L, jacoby=jac)) <= float(m.centered(hi, W, L, jacoby=jac))
    assert float(owned_equity(p, W, L, x)) >= float(unavailable_equity(p, W, L, x))


@given(W=st.floats(1, 3), L=st.floats(1, 3), x=st.floats(0, 1), p=st.floats(0, 1))
def test_jacoby_limits(W: float, L: float, x: float, p: float) -> None:
    m = JanowskiModel(x)
    # no gammons: Jacoby changes nothing (apart from the cap at +-1)
    assert float(m.centered(p, 1, 1, jacoby=True)) == pytest.approx(float(np.clip(m.centered(p, 1, 1), -1, 1)))
    # dead cube: the game ends centred, gammons do not count
    assert float(JanowskiModel(0).centered(p, W, L, jacoby=True)) == pytest.approx(
        float(np.clip(2 * p - 1, -1, 1)), abs=1e-12
    )
    # live cube: a double always comes first
    assert float(JanowskiModel(1).centered(p, W, L, jacoby=True)) == pytest.approx(
        float(np.clip(JanowskiModel(1).centered(p, W, L), -1, 1))
    )


def test_jacoby_points_have_no_centred_too_good() -> None:
    pts = JanowskiModel(2 / 3).points(1.4, 1.3, jacoby=True)
    assert pts.tg_oc is None and pts.tg_uc is None
    plain = JanowskiModel(2 / 3).points(1.4, 1.3)
    assert pts.id_o is not None and plain.id_o is not None and pts.id_o < plain.id_o


# ---------------------------------------------------------------- gnubg chapter


GNUBG = np.array([0.454, 0.103, 0.001, 0.106, 0.003])


def test_gnubg_live_cube_example() -> None:
    s = GameState.from_probabilities(GNUBG)
    assert round(s.W, 3) == 1.229
    # The manual prints L = (0.556 + 0.106 + 0.003)/0.556 = 1.196, using 0.556 for
    # 1 - 0.454 = 0.546; the correct value is 0.655/0.546 = 1.200.
    assert round(s.L, 3) == 1.200
    assert round(s.cubeless_equity, 3) == -0.097
    # with the manual's W, L: live cube equity -0.157 (read from its figure)
    assert round(float(live_equity(0.454, 1.229, 1.196)), 3) == -0.157
    assert float(take_point(1.229, 1.196, 1)) == pytest.approx(0.696 / 2.925)


def test_gnubg_zero_ply_cubeful_example() -> None:
    """Cubeless -0.097, live -0.157, x = 0.68 -> cubeful -0.138 (gnubg's interpolation)."""
    cubeless, x = -0.097, 0.68
    live = float(live_equity(0.454, 1.229, 1.196))
    assert round((1 - x) * cubeless + x * live, 3) == -0.138
    # gnubg_equity uses the cubeless equity P W - (1 - P) L of the same W, L
    s = GameState.from_probabilities(GNUBG)
    assert float(gnubg_equity(s.P, s.W, s.L, x)) == pytest.approx(
        (1 - x) * s.cubeless_equity + x * float(live_equity(s.P, s.W, s.L))
    )
    # by hand from the example's probabilities: 0.32 x (-0.0971) + 0.68 x (-0.1601) = -0.1399
    assert round(float(gnubg_equity(s.P, s.W, s.L, x)), 3) == -0.140
    # Janowski's own equation 7 gives a different centred equity here, by hand: S = W + L + x/2 = 2.765,
    # (2 S^2 P - S (L - 1 + x/2) - S (L + 1)) / (S (L + 1) - S (L - 1 + x/2)) = -0.6121 / 4.5899 = -0.1334
    assert round(float(centered_equity(0.454, 1.229, 1.196, x)), 3) == -0.133


@given(p=st.floats(0, 1), W=st.floats(1, 3), L=st.floats(1, 3))
def test_live_equity_pieces(p: float, W: float, L: float) -> None:
    tp = float(take_point(W, L, 1))
    cp = float(cash_point(W, L, 1))
    assert float(live_equity(tp, W, L)) == pytest.approx(-1.0)
    assert float(live_equity(cp, W, L)) == pytest.approx(1.0)
    if p <= cp:  # owned live equity is eq. 5 with x = 1 below the cash point
        assert float(live_equity(p, W, L, "owned")) == pytest.approx(float(owned_equity(p, W, L, 1)), abs=1e-9)
    if p >= tp:
        assert float(live_equity(p, W, L, "unavailable")) == pytest.approx(
            float(unavailable_equity(p, W, L, 1)), abs=1e-9
        )


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: take_point(0.9, 1.0, 0.5), "W = 0.9"),
        (lambda: take_point(1.0, 3.5, 0.5), "L = 3.5"),
        (lambda: take_point(1.0, 1.0, 1.5), "x = 1.5"),
        (lambda: owned_equity(1.2, 1.0, 1.0, 0.5), "P = 1.2"),
        (lambda: JanowskiModel(0.5, -0.1), "x2 = -0.1"),
        (lambda: JanowskiModel(0.5).equity(0.5, 1, 1, "middle"), "middle"),
    ],
)
def test_errors_name_the_value(call: object, needle: str) -> None:
    with pytest.raises(CubeInputError, match=needle) as info:
        call()  # type: ignore[operator]
    assert isinstance(info.value, ValueError)
