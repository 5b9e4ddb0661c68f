"""Higgins (2012) linear approximation: implied cube-life tables, printed formulas, limits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cube import CubeInputError, JanowskiModel, JumpLinearModel, implied_cube_life
from cube.jump_linear import STATISTICAL_SCALE, cash_point, evaluate, linear_pieces, take_point
from cube.report import implied_indices

VALUES = (1.0, 1.25, 1.5, 1.75, 2.0)

# Implied cube-life indices x1/x2 for alpha = 10%; rows L, columns W.
IMPLIED_TABLE = [
    ["0.69/0.69", "0.75/0.66", "0.78/0.64", "0.79/0.62", "0.80/0.59"],
    ["0.66/0.75", "0.73/0.73", "0.77/0.72", "0.78/0.70", "0.79/0.69"],
    ["0.64/0.78", "0.72/0.77", "0.76/0.76", "0.78/0.74", "0.79/0.73"],
    ["0.62/0.79", "0.70/0.78", "0.74/0.78", "0.77/0.77", "0.78/0.76"],
    ["0.59/0.80", "0.69/0.79", "0.73/0.79", "0.76/0.78", "0.78/0.78"],
]

# Implied index for W = L, by alpha (rows) and W = L (columns).
W_EQ_L_TABLE = {
    0.05: [0.84, 0.87, 0.88, 0.88, 0.89],
    0.10: [0.69, 0.73, 0.76, 0.77, 0.78],
    0.15: [0.53, 0.60, 0.63, 0.65, 0.66],
    0.20: [0.38, 0.47, 0.51, 0.53, 0.55],
}


@pytest.mark.parametrize(
    ("W", "L", "cell"),
    [(VALUES[j], VALUES[i], IMPLIED_TABLE[i][j]) for i in range(5) for j in range(5)],
)
def test_implied_cube_life_table(W: float, L: float, cell: str) -> None:
    x1p, x2p = (float(v) for v in cell.split("/"))
    x1, x2 = implied_cube_life(W, L, 0.10)
    assert abs(float(x1) - x1p) <= 0.005 + 1e-9
    assert abs(float(x2) - x2p) <= 0.005 + 1e-9


@pytest.mark.parametrize(
    ("alpha", "WL", "printed"),
    [(a, VALUES[j], row[j]) for a, row in W_EQ_L_TABLE.items() for j in range(5)],
)
def test_implied_cube_life_w_equals_l(alpha: float, WL: float, printed: float) -> None:
    x1, x2 = implied_cube_life(WL, WL, alpha)
    assert float(x1) == pytest.approx(float(x2))
    assert abs(float(x1) - printed) <= 0.005 + 1e-9


def test_implied_cube_life_alpha_zero_row_and_self_play_value() -> None:
    for WL in VALUES:
        x1, _ = implied_cube_life(WL, WL, 1e-12)
        assert float(x1) == pytest.approx(1.0)
    # "alpha = 11.3% and W = L = 1.27 ... implied x = 0.70"
    assert round(float(implied_cube_life(1.27, 1.27, 0.113)[0]), 2) == 0.70


def _printed_appendix_take_point(W: float, L: float, a: float) -> float:
    """Appendix 1's printed TP, with the factor 1/4 missing."""
    S = W + L + 0.5
    return (L - 0.5) * (L + 1) / (S * (L + 1 - a * S / (W - 0.5)))


def _section1_take_point(W: float, L: float, a: float) -> float:
    S = W + L + 0.5
    return (L - 0.5) * (L + 1) / (S * (L + 1 - a / 4 * S / (W - 0.5)))


@given(W=st.floats(1, 3), L=st.floats(1, 3), a=st.floats(0.01, 0.25))
def test_take_point_is_section1_form(W: float, L: float, a: float) -> None:
    tp = float(take_point(W, L, a))
    assert tp == pytest.approx(_section1_take_point(W, L, a), rel=1e-12)
    # consistent with the implied x1 (section 3) and with E_O(TP) = -1/2 on the O1 line
    x1, _ = implied_cube_life(W, L, a)
    assert tp == pytest.approx((L - 0.5) / (W + L + 0.5 * float(x1)), rel=1e-12)
    pcs = linear_pieces(W, L, a)
    assert float(pcs.A_Or1 + pcs.B_Or1 * tp) == pytest.approx(-0.5)


def test_appendix_take_point_is_misprinted() -> None:
    """The printed Appendix 1 TP disagrees with its own B_O1 and implied x1 (factor 1/4)."""
    W, L, a = 1.4, 1.0, 0.1
    printed = _printed_appendix_take_point(W, L, a)
    derived = float(take_point(W, L, a))
    assert abs(printed - derived) > 0.01
    # live-cube one-jump smearing: E_O(CP_L) = 1 - (alpha/2)(B_1L - B_2L)
    S = W + L + 0.5
    cpl = (L + 1) / S
    b1, b2 = S, (W - 1) / (1 - cpl)
    e_cpl = 1 - a / 2 * (b1 - b2)
    assert e_cpl == pytest.approx(1 - a / 4 * S / (W - 0.5))
    pcs = linear_pieces(W, L, a)
    assert float(pcs.A_Or1 + pcs.B_Or1 * cpl) == pytest.approx(e_cpl)


@given(W=st.floats(1, 3), L=st.floats(1, 3), a=st.floats(0.01, 0.25))
def test_printed_cash_point_is_consistent(W: float, L: float, a: float) -> None:
    cp = float(cash_point(W, L, a))
    pcs = linear_pieces(W, L, a)
    assert float(pcs.cp) == pytest.approx(cp, rel=1e-12)
    assert float(pcs.A_U2 + pcs.B_U2 * cp) == pytest.approx(0.5)
    # symmetric with the take point: the opponent's take point is 1 - CP
    assert 1 - cp == pytest.approx(float(take_point(L, W, a)), rel=1e-12)
    _, x2 = implied_cube_life(W, L, a)
    assert cp == pytest.approx(float(JanowskiModel(1.0, float(np.clip(x2, 0, 1))).cash_point(W, L))) or not 0 <= x2 <= 1


@given(W=st.floats(1, 3), L=st.floats(1, 3), a=st.floats(0.01, 0.2))
def test_janowski_with_implied_indices_matches(W: float, L: float, a: float) -> None:
    """With the implied x1, x2, Janowski's TP, CP and redouble points equal the jump model's."""
    x1, x2 = (float(v) for v in implied_cube_life(W, L, a))
    if not (0 <= x1 <= 1 and 0 <= x2 <= 1):
        return
    jp = JanowskiModel(x1, x2).points(W, L)
    lp = JumpLinearModel(a).points(W, L)
    for k in ("tp", "cp", "rd_o", "rd_u"):
        assert getattr(jp, k) == pytest.approx(getattr(lp, k), abs=1e-9), k
    ix1, ix2 = implied_indices(lp, W, L)
    assert ix1 == pytest.approx(x1) and ix2 == pytest.approx(x2)


@pytest.mark.parametrize(("W", "L"), [(1.0, 1.0), (1.4, 1.0), (1.2, 1.1), (2.0, 1.6)])
def test_zero_volatility_is_live_cube(W: float, L: float) -> None:
    lin = JumpLinearModel(1e-9).points(W, L)
    live = JanowskiModel(1.0).points(W, L)
    for k in ("tp", "cp", "rd_o", "rd_u", "id_o", "id_u"):
        assert getattr(lin, k) == pytest.approx(getattr(live, k), abs=1e-6), k


@given(W=st.floats(1, 3), L=st.floats(1, 3), a=st.floats(0.01, 0.2), al=st.floats(0.01, 0.2), jac=st.booleans())
def test_pieces_continuous_and_monotone(W: float, L: float, a: float, al: float, jac: bool) -> None:
    pcs = linear_pieces(W, L, a, al, jacoby=jac)
    tp, cp = float(pcs.tp), float(pcs.cp)
    assert 0 < tp < cp < 1
    eps = 1e-9
    for brk, key in ((cp, "owned"), (tp, "unavailable"), (tp, "centered"), (cp, "centered")):
        lo = float(evaluate(pcs, brk - eps)[key])
        hi = float(evaluate(pcs, brk + eps)[key])
        assert lo == pytest.approx(hi, abs=1e-6), key
    P = np.linspace(0, 1, 201)
    eq = evaluate(pcs, P)
    for key in ("owned", "unavailable", "centered"):
        assert np.all(np.diff(eq[key]) >= -1e-12), key
    assert float(eq["owned"][0]) == pytest.approx(-L) and float(eq["owned"][-1]) == pytest.approx(W)
    assert np.all(eq["owned"] >= eq["unavailable"] - 1e-12)


POINT_ORDER = ["tg_u", "tp", "rd_u", "id_u", "id_o", "rd_o", "cp", "tg_o"]


@given(W=st.floats(1, 2.25), L=st.floats(1, 2.25), a=st.floats(0.01, 0.2), al=st.floats(0.01, 0.2), jac=st.booleans())
def test_decision_points_ordered(W: float, L: float, a: float, al: float, jac: bool) -> None:
    pts = linear_pieces(W, L, a, al, jacoby=jac).points
    vals = [float(pts[k]) for k in POINT_ORDER]
    assert all(x <= y + 1e-12 for x, y in zip(vals, vals[1:], strict=False))


def test_decision_points_unordered_outside_validity_region() -> None:
    """Backgammon-heavy games with a large volatility break the linear approximation.

    At W = 3, L = 1, alpha_r = 0.195, alpha_l = 0.125 the centred line rises above the owned line,
    so the initial-double point passes the redouble point; the docstring of linear_pieces says so.
    """
    pcs = linear_pieces(3.0, 1.0, 0.1953125, 0.125)
    eq = evaluate(pcs, np.array([0.2]))
    assert float(eq["centered"][0]) > float(eq["owned"][0])
    assert float(pcs.points["id_o"]) > float(pcs.points["rd_o"])
    # with Jacoby, heavy losses do it too (found by the explore profile)
    pts = linear_pieces(1.0, 3.0, 0.1875, 0.1875, jacoby=True).points
    vals = [float(pts[k]) for k in POINT_ORDER]
    assert not all(x <= y + 1e-12 for x, y in zip(vals, vals[1:], strict=False))


def test_local_volatility_moves_doubling_points_only() -> None:
    W, L, ar = 1.3, 1.2, 0.1
    base = JumpLinearModel(ar).points(W, L)
    calm = JumpLinearModel(ar, alpha_l=0.03).points(W, L)
    wild = JumpLinearModel(ar, alpha_l=0.2).points(W, L)
    assert calm.tp == base.tp == wild.tp and calm.cp == base.cp == wild.cp
    # low local volatility: hold the cube longer; high local volatility: double earlier
    assert calm.rd_o is not None and base.rd_o is not None and wild.rd_o is not None
    assert calm.rd_o > base.rd_o > wild.rd_o
    assert calm.id_o > base.id_o > wild.id_o  # type: ignore[operator]


def test_statistical_scale() -> None:
    assert pytest.approx(11.3 / 9.1, abs=0.005) == STATISTICAL_SCALE
    scaled = JumpLinearModel(0.091, statistical=True).points(1.3, 1.3)
    direct = JumpLinearModel(0.091 * 1.24).points(1.3, 1.3)
    assert scaled == direct
    assert JumpLinearModel(0.091).points(1.3, 1.3) != direct  # off by default


def test_jacoby_without_gammons_changes_nothing() -> None:
    a = JumpLinearModel(0.1).points(1.0, 1.0)
    b = JumpLinearModel(0.1).points(1.0, 1.0, jacoby=True)
    assert a.id_o == pytest.approx(b.id_o) and a.id_u == pytest.approx(b.id_u)
    assert b.tg_oc is None
    c = JumpLinearModel(0.1).points(1.5, 1.2, jacoby=True)
    d = JumpLinearModel(0.1).points(1.5, 1.2)
    assert c.id_o < d.id_o  # type: ignore[operator]  # Jacoby: double earlier to win gammons


@pytest.mark.parametrize("bad", [0.0, -0.1, 0.6])
def test_bad_alpha(bad: float) -> None:
    with pytest.raises(CubeInputError, match=str(bad)):
        JumpLinearModel(bad)
