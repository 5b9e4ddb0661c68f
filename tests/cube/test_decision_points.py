"""cube.points: too-good points, where a model's curve only ties the cash (no gammons, a thin jump tail)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cube import JumpLinearModel
from cube.jump_nonlinear import JumpNonlinearModel
from cube.jump_numerical import solve

TINY_ALPHAS = [1e-4, 1e-3, 3e-3]


@pytest.mark.parametrize("alpha_l", TINY_ALPHAS)
@pytest.mark.parametrize("L", [1.0, 1.3])
def test_nonlinear_without_gammons_to_win_is_never_too_good(alpha_l: float, L: float) -> None:
    # the curves round to exactly 1.0 above the cash point; a tie is a cash, not too good (it read 0.79 to 0.91)
    p = JumpNonlinearModel(0.1, alpha_l).points(1.0, L)
    assert p.tg_o == 1.0 and p.tg_oc == 1.0


@pytest.mark.parametrize("alpha", [0.002, 0.005])
def test_numerical_without_gammons_to_win_is_never_too_good(alpha: float) -> None:
    p = solve(1.0, 1.3, alpha).points()
    assert p.tg_o == 1.0 and p.tg_oc == 1.0  # it read 0.855 and 0.968
    q = solve(1.3, 1.0, alpha).points()  # the mirror: the opponent has no gammons to win
    assert q.tg_u == 0.0 and q.tg_uc == 0.0


@settings(max_examples=40, deadline=None)
@given(
    W=st.floats(1.0, 2.0),
    L=st.floats(1.0, 2.0),
    alpha=st.floats(0.02, 0.2),
    alpha_l=st.sampled_from(TINY_ALPHAS + [0.01, 0.05]),
)
def test_nonlinear_too_good_points_lie_past_the_cash_and_take_points(
    W: float, L: float, alpha: float, alpha_l: float
) -> None:
    p = JumpNonlinearModel(alpha, alpha_l).points(W, L)
    assert p.cp is not None and p.tg_o is not None and p.tp is not None and p.tg_u is not None
    assert p.tg_o >= p.cp - 1e-9 and p.tg_u <= p.tp + 1e-9


def test_a_curve_past_the_cash_is_still_too_good() -> None:
    # gammons to win: the linear model's too-good point is where its owned curve crosses 1, tie or not
    p = JumpLinearModel(0.1).points(1.5, 1.0)
    assert p.cp is not None and p.tg_o is not None and p.cp < p.tg_o < 1.0
