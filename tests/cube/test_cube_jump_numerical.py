"""Jump model: numerical solution (Appendix 2) and nonlinear approximation (Appendix 1)."""

from __future__ import annotations

import numpy as np
import pytest

from cube import CubeInputError, JanowskiModel, JumpDistribution, JumpLinearModel, solve_cached
from cube.jump_nonlinear import JumpNonlinearModel, nonlinear_equities
from cube.jump_numerical import one_step

DOUBLING = ("tp", "rd_u", "id_u", "id_o", "rd_o", "cp")


def _pts(sol_or_model: object, W: float, L: float) -> dict[str, float]:
    if hasattr(sol_or_model, "grid"):
        return sol_or_model.points().defined()  # type: ignore[attr-defined]
    return sol_or_model.points(W, L).defined()  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["gaussian", "double-exponential"])
def test_distribution_F_G(kind: str) -> None:  # noqa: N802
    d = JumpDistribution(kind, 0.08)
    J = np.linspace(-1, 1, 40001)
    f = d.pdf(J)
    assert np.trapezoid(np.abs(J) * f, J) == pytest.approx(0.08, rel=1e-4)  # alpha = E|J|
    cum = np.concatenate(([0.0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(J))))
    assert np.allclose(d.cdf(J), cum + d.cdf(J[0]), atol=1e-6)
    gm = np.concatenate(([0.0], np.cumsum(((J * f)[1:] + (J * f)[:-1]) / 2 * np.diff(J))))
    assert np.allclose(d.partial_mean(J), gm + d.partial_mean(J[0]), atol=1e-6)
    assert float(d.partial_mean(0.0)) == pytest.approx(-0.04)
    ratio = {"gaussian": np.sqrt(2 / np.pi), "double-exponential": 1 / np.sqrt(2)}[kind]
    assert 0.08 / float(d.std) == pytest.approx(ratio)  # 80% and 71% of the std (paper)


def test_boundaries_and_symmetry() -> None:
    W, L, a = 1.4, 1.1, 0.1
    s = solve_cached(W, L, a, "double-exponential", 200)
    t = solve_cached(L, W, a, "double-exponential", 200)
    assert s.owned[0] == -L and s.owned[-1] == W and s.centered_jacoby[-1] == 1.0
    # the opponent's owned equity is minus the player's unavailable equity, mirrored
    assert np.allclose(s.owned, -t.unavailable[::-1], atol=1e-9)
    assert np.allclose(s.centered, -t.centered[::-1], atol=1e-9)
    ps, pt = s.points(), t.points()
    assert ps.tp == pytest.approx(1 - pt.cp, abs=1e-9)  # type: ignore[operator]
    assert ps.id_o == pytest.approx(1 - pt.id_u, abs=1e-9)  # type: ignore[operator]
    for arr in (s.owned, s.unavailable, s.centered, s.centered_jacoby):
        assert np.all(np.diff(arr) > -1e-12)
    assert np.all(s.owned >= s.centered - 1e-12) and np.all(s.centered >= s.unavailable - 1e-12)
    assert max(s.iterations[:2]) <= 6  # "converges very quickly, in 2-4 iterations"


@pytest.mark.parametrize(
    ("W", "L", "kind"), [(1.2, 1.1, "double-exponential"), (1.4, 1.0, "gaussian"), (1.0, 1.0, "gaussian")]
)
def test_solution_satisfies_integral_equations(W: float, L: float, kind: str) -> None:
    """Re-apply one jump to the post-jump equities: the solution is a fixed point."""
    s = solve_cached(W, L, 0.08, kind, 200)
    P = s.grid[1:-1]
    for hat, val in (
        (s.hat_owned, s.owned),
        (s.hat_unavailable, s.unavailable),
        (s.hat_centered, s.centered),
        (s.hat_centered_jacoby, s.centered_jacoby),
    ):
        assert np.allclose(one_step(hat, s.grid, P, kind, 0.08, val), val[1:-1], atol=1e-9)
    # and independently of F and G: direct quadrature of the density (interior points)
    d = JumpDistribution(kind, 0.08)
    J = np.linspace(-1.2, 1.2, 240001)
    f = d.pdf(J)
    h = s.grid[1]
    for p in (0.2, 0.5, 0.8):
        x = p + J
        y = np.interp(x, s.grid, s.hat_owned)
        y = np.where(x < 0, s.owned[0] + (s.owned[1] - s.owned[0]) * x / h, y)
        y = np.where(x > 1, s.owned[-1] + (s.owned[-1] - s.owned[-2]) * (x - 1) / h, y)
        assert np.trapezoid(f * y, J) == pytest.approx(float(np.interp(p, s.grid, s.owned)), abs=1e-6)


def test_grid_convergence() -> None:
    a = _pts(solve_cached(1.4, 1.0, 0.1, "double-exponential", 100), 1.4, 1.0)
    b = _pts(solve_cached(1.4, 1.0, 0.1, "double-exponential", 400), 1.4, 1.0)
    for k in a:
        assert a[k] == pytest.approx(b[k], abs=2e-3), k


def test_alpha_to_zero_gives_live_cube() -> None:
    W, L = 1.4, 1.2
    live = JanowskiModel(1.0).points(W, L).defined()
    errs = []
    for a in (0.04, 0.02, 0.01):
        n = _pts(solve_cached(W, L, a, "double-exponential", 600), W, L)
        errs.append(max(abs(n[k] - live[k]) for k in (*DOUBLING, "tg_o", "tg_oc")))
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 0.015
    for model in (JumpLinearModel(1e-6), JumpNonlinearModel(1e-4)):
        m = _pts(model, W, L)
        for k in DOUBLING:
            assert m[k] == pytest.approx(live[k], abs=2e-3), k


@pytest.mark.parametrize(("W", "L"), [(1.4, 1.0), (1.2, 1.1), (1.8, 1.5)])
def test_approximations_approach_numerical(W: float, L: float) -> None:
    def err(model: object, a: float) -> float:
        n = _pts(solve_cached(W, L, a, "double-exponential", 300), W, L)
        m = _pts(model, W, L)
        return max(abs(n[k] - m[k]) for k in DOUBLING)

    for cls in (JumpLinearModel, JumpNonlinearModel):
        big, small = err(cls(0.1), 0.1), err(cls(0.025), 0.025)
        assert small < big, cls.__name__
        assert small < 0.01, cls.__name__


def test_nonlinear_beats_linear_in_the_papers_stress_case() -> None:
    """W = 1.4, L = 1, alpha = 20% (Figures 5-7): the nonlinear approximation is closer."""
    W, L, a = 1.4, 1.0, 0.2
    n = _pts(solve_cached(W, L, a, "double-exponential", 300), W, L)
    nl = _pts(JumpNonlinearModel(a), W, L)
    li = _pts(JumpLinearModel(a), W, L)
    e_nl = max(abs(n[k] - nl[k]) for k in n)
    e_li = max(abs(n[k] - li[k]) for k in n)
    assert e_nl < 0.5 * e_li
    P = np.linspace(0.02, 0.98, 97)
    sol = solve_cached(W, L, a, "double-exponential", 300)
    eq_nl = nonlinear_equities(P, W, L, a)
    eq_li = JumpLinearModel(a).equities(P, W, L)
    for key in ("owned", "unavailable", "centered"):
        exact = sol.equity(P, key)
        assert np.abs(eq_nl[key] - exact).max() < np.abs(eq_li[key] - exact).max(), key


@pytest.mark.parametrize("a", [0.05, 0.1, 0.15])
@pytest.mark.parametrize(("W", "L"), [(1.0, 1.0), (1.4, 1.0), (1.2, 1.1), (1.8, 1.5)])
def test_gaussian_and_double_exponential_agree(a: float, W: float, L: float) -> None:
    """Only the jump volatility matters much: every point within about 0.02."""
    g = _pts(solve_cached(W, L, a, "gaussian", 200), W, L)
    d = _pts(solve_cached(W, L, a, "double-exponential", 200), W, L)
    for k in g:
        assert abs(g[k] - d[k]) < 0.025, k
    gs = solve_cached(W, L, a, "gaussian", 200)
    ds = solve_cached(W, L, a, "double-exponential", 200)
    # equities differ a little more than the points, near the kinks
    assert np.abs(gs.centered - ds.centered).max() < 0.025 + 0.25 * a


def test_jacoby_numerical() -> None:
    plain = solve_cached(1.0, 1.0, 0.1, "double-exponential", 200)
    assert np.allclose(plain.centered, plain.centered_jacoby, atol=1e-9)  # no gammons
    s = solve_cached(1.6, 1.3, 0.1, "double-exponential", 200)
    assert np.all(s.centered_jacoby <= 1.0 + 1e-12)
    pj, pn = s.points(jacoby=True), s.points()
    assert pj.tg_oc is None and pj.id_o < pn.id_o  # type: ignore[operator]


def test_bad_inputs() -> None:
    with pytest.raises(CubeInputError, match="alpha = 0.0"):
        solve_cached(1.2, 1.2, 0.0)
    with pytest.raises(CubeInputError, match="cauchy"):
        solve_cached(1.2, 1.2, 0.1, "cauchy")
    with pytest.raises(CubeInputError, match="N = 5"):
        solve_cached(1.2, 1.2, 0.1, "gaussian", 5)
