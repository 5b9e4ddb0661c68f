"""Cube actions for play: strategies, vectorised path, local volatility, game state."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cube
from cube import CubeInputError, GameState, JanowskiModel, win_loss_values
from cube.volatility import local_volatility, two_roll_weights


def _probs(P: float, W: float, L: float) -> np.ndarray:
    """Five probabilities with the given P, W, L (gammons, then backgammons)."""
    return np.array([P, P * min(W - 1, 1), P * max(W - 2, 0), (1 - P) * min(L - 1, 1), (1 - P) * max(L - 2, 0)])


@given(P=st.floats(0.01, 0.99), W=st.floats(1, 2), L=st.floats(1, 2))
def test_win_loss_round_trip(P: float, W: float, L: float) -> None:
    p, w, l_ = win_loss_values(_probs(P, W, L))
    assert (float(p), float(w), float(l_)) == pytest.approx((P, W, L))
    s = GameState(P, W, L)
    assert s.cubeless_equity == pytest.approx(float(cube.cubeless_equity(_probs(P, W, L))))
    assert GameState.gammon_free(P).W == 1.0


def test_gamestate_edges_and_errors() -> None:
    assert win_loss_values([0.0, 0.0, 0.0, 0.2, 0.0])[1] == 1.0  # W undefined -> 1
    with pytest.raises(CubeInputError, match="shape"):
        win_loss_values([0.5, 0.1])
    with pytest.raises(CubeInputError, match="P\\(win gammon\\) > P\\(win\\)"):
        win_loss_values([0.3, 0.4, 0.0, 0.0, 0.0])
    with pytest.raises(CubeInputError, match="1.5"):
        win_loss_values([1.5, 0.0, 0.0, 0.0, 0.0])


STRATEGIES = [
    cube.dead(),
    cube.live(),
    cube.janowski(0.68),
    cube.janowski_refined(0.6, 0.8),
    cube.jump(0.1),
    cube.jump(0.1, "nonlinear"),
    cube.jump(0.1, "numerical"),
]


@pytest.mark.parametrize("strategy", STRATEGIES, ids=str)
def test_decisions_follow_decision_points(strategy: cube.CubeStrategy) -> None:
    W, L = 1.3, 1.2
    if isinstance(strategy, cube.JanowskiStrategy):
        pts = strategy.model.points(W, L)
    elif strategy.approximation == "linear":  # type: ignore[attr-defined]
        pts = cube.JumpLinearModel(0.1).points(W, L)
    elif strategy.approximation == "nonlinear":  # type: ignore[attr-defined]
        pts = cube.JumpNonlinearModel(0.1).points(W, L)
    else:
        pts = strategy.table.corner(6, 4).points()  # type: ignore[attr-defined]
    assert pts.tp is not None and pts.cp is not None and pts.id_o is not None
    P = np.linspace(0.02, 0.98, 49)
    d = strategy.decide(np.stack([_probs(p, W, L) for p in P]), "centered")
    eps = 1e-6
    for k, p in enumerate(P):
        take = p < pts.cp - eps
        if abs(p - pts.cp) > eps:
            assert bool(d.take[k]) == take, (p, d[k])
        if pts.id_o + eps < p < pts.cp - eps:
            assert d.action[k] == "double"
        if p < pts.id_o - eps:
            assert d.action[k] == "no double"
        if pts.tg_oc is not None and p > pts.tg_oc + eps:
            assert d.action[k] == "too good"
        elif pts.cp + eps < p and pts.tg_oc is not None and p < pts.tg_oc - eps:
            assert d[k].label == "Double, pass"
    owned = strategy.decide(np.stack([_probs(p, W, L) for p in P]), "owned")
    for k, p in enumerate(P):
        if pts.rd_o is not None and pts.rd_o + eps < p < pts.cp - eps:
            assert owned[k].redouble and owned[k].label == "Redouble, take"
        if pts.rd_o is not None and p < pts.rd_o - eps:
            assert not owned[k].double


@pytest.mark.parametrize("strategy", STRATEGIES, ids=str)
def test_vectorised_equals_scalar(strategy: cube.CubeStrategy) -> None:
    rng = np.random.default_rng(1)
    n = 40
    P = rng.uniform(0, 1, n)
    g = rng.uniform(0, 0.4, n)
    probs = np.stack([P, P * g, P * g * 0.1, (1 - P) * g[::-1], np.zeros(n)], axis=1)
    states = rng.choice(["centered", "owned", "unavailable"], n)
    many = strategy.decide(probs, states, beavers=True, jacoby=True)
    for i in range(0, n, 7):
        one = strategy.decision(probs[i], str(states[i]), beavers=True, jacoby=True)
        assert one == many[i]
    eq = strategy.equities(probs)
    assert eq["centered"].shape == (n,)
    assert np.all(eq["owned"] >= eq["unavailable"] - 1e-9)
    assert np.all(many.equity >= many.no_double - 1e-12)
    unav = states == "unavailable"
    assert np.all(many.action[unav] == "no double")


def test_beavers_and_jacoby() -> None:
    s = cube.janowski(0.68)
    # a weak position: doubling into a beaver costs 4 E_u
    d = s.decision(_probs(0.35, 1.3, 1.3), beavers=True)
    assert d.response == "beaver" and d.beaver and d.take
    assert d.double_beaver == pytest.approx(2 * d.double_take)
    assert s.decision(_probs(0.35, 1.3, 1.3)).response == "take"
    # Jacoby: a gammonish position is never too good with a centred cube
    strong = _probs(0.9, 2.0, 1.0)
    assert s.decision(strong).too_good
    j = s.decision(strong, jacoby=True)
    assert not j.too_good and j.double and j.response == "pass"
    # Jacoby makes a gammonish player double earlier
    mid = _probs(0.50, 1.8, 1.1)  # ID 0.482 with Jacoby, 0.524 without
    assert s.decision(mid, jacoby=True).double and not s.decision(mid).double


def test_numerical_table_interpolation_is_accurate() -> None:
    s = cube.jump(0.1, "numerical")
    rng = np.random.default_rng(2)
    for _ in range(4):
        W, L = rng.uniform(1.0, 1.6, 2)
        sol = cube.solve_cached(float(W), float(L), 0.1)
        P = np.linspace(0.05, 0.95, 19)
        eq = s.equities(np.stack([_probs(p, W, L) for p in P]))
        for key in ("centered", "owned", "unavailable"):
            assert np.abs(eq[key] - sol.equity(P, key)).max() < 5e-3


def test_jump_local() -> None:
    s = cube.jump_local(0.1, "numerical")
    p = _probs(0.62, 1.3, 1.2)
    with pytest.raises(CubeInputError, match="local_alpha"):
        s.decision(p)
    # local = remote reproduces the constant-volatility numerical equities
    const = cube.jump(0.1, "numerical")
    a = s.equities(p, local_alpha=0.1)
    b = const.equities(p)
    for key in ("centered", "owned", "unavailable"):
        assert float(a[key]) == pytest.approx(float(b[key]), abs=1e-9)
    # a volatile position is doubled earlier than a quiet one
    assert s.decision(p, local_alpha=0.25).double
    assert not s.decision(p, local_alpha=0.02).double
    for approx in ("linear", "nonlinear"):
        sl = cube.jump_local(0.1, approx)
        c = cube.jump(0.1, approx)
        assert float(sl.equities(p, local_alpha=0.1)["owned"]) == pytest.approx(float(c.equities(p)["owned"]))
    # from a 441-roll lookahead
    rng = np.random.default_rng(3)
    look = np.clip(0.62 + rng.normal(0, 0.2, 441), 0, 1)
    d1 = s.decision(p, lookahead=look)
    d2 = s.decision(p, local_alpha=float(local_volatility(look)))
    assert d1 == d2


def test_local_volatility() -> None:
    w = two_roll_weights()
    assert w.shape == (21, 21) and w.sum() == pytest.approx(1.0)
    assert w[0, 0] == pytest.approx(1 / 36**2) and w[1, 2] == pytest.approx(1 / 18**2)
    assert w[0, 1] == pytest.approx(1 / (18 * 36))
    assert float(local_volatility(np.full(441, 0.4))) == 0.0
    # a +-0.1 jump on the first die's parity: std 0.1 around the weighted mean
    p = np.where(np.arange(441) % 2 == 0, 0.5, 0.3)
    m = (w.ravel() * p).sum()
    sd = np.sqrt((w.ravel() * (p - m) ** 2).sum())
    assert float(local_volatility(p)) == pytest.approx(sd)
    assert float(local_volatility(p.reshape(21, 21))) == pytest.approx(sd)
    assert float(local_volatility(p, measure="mean_abs")) <= sd + 1e-12
    assert local_volatility(np.stack([p, p])).shape == (2,)


@settings(max_examples=30, deadline=None)
@given(P=st.floats(0.01, 0.99), W=st.floats(1, 2.5), L=st.floats(1, 2.5), x=st.floats(0, 1))
def test_cubeful_equity_between_models(P: float, W: float, L: float, x: float) -> None:
    """Owning the cube is worth at least a centred cube, which beats an unavailable one."""
    s = cube.janowski(x)
    e = s.equities(_probs(P, W, L))
    pts = JanowskiModel(x).points(W, L)
    assert pts.tg_o is not None and pts.tg_u is not None
    assert e["owned"] >= e["centered"] - 1e-9 or pts.tg_o < P
    assert e["centered"] >= e["unavailable"] - 1e-9 or pts.tg_u > P


def test_bad_strategy_inputs() -> None:
    with pytest.raises(CubeInputError, match="approximation = 'exact'"):
        cube.jump(0.1, "exact")
    with pytest.raises(CubeInputError, match="alpha = -0.1"):
        cube.jump(-0.1)
    with pytest.raises(CubeInputError, match="x1 = 2"):
        cube.janowski(2)
    with pytest.raises(CubeInputError, match="sideways"):
        cube.janowski(0.5).decide(_probs(0.5, 1, 1)[None, :], "sideways")
    with pytest.raises(CubeInputError, match="3 entries for 1"):
        cube.janowski(0.5).decide(_probs(0.5, 1, 1)[None, :], ["owned"] * 3)


@pytest.mark.parametrize("x", [0.5, 0.68, 1.0])
def test_capped_janowski_never_too_good_without_gammons(x: float) -> None:
    """Without gammons playing on is worth at most the +1 of a cash: capped never says too good."""
    P = np.linspace(0.0, 1.0, 401)
    probs = np.zeros((P.size, 5))
    probs[:, 0] = P
    plain = cube.janowski(x).decide(probs, "centered")
    capped = cube.janowski(x, capped=True).decide(probs, "centered")
    assert plain.too_good.any()  # the article's straight lines do call some of them too good
    assert not capped.too_good.any()
    for state in ("centered", "owned", "unavailable"):
        e = cube.janowski(x, capped=True).equities(probs)
        assert np.all(np.abs(e[state]) <= 1.0 + 1e-12), state
    assert np.all(capped.double[P > 0.9])


@settings(max_examples=60, deadline=None)
@given(P=st.floats(0.0, 1.0), W=st.floats(1, 2.5), L=st.floats(1, 2.5), x1=st.floats(0, 1), x2=st.floats(0, 1))
def test_capped_janowski_agrees_in_window_and_is_ordered(P: float, W: float, L: float, x1: float, x2: float) -> None:
    """Between the live take and cash points capping changes nothing; everywhere U <= C <= O."""
    probs = _probs(P, W, L)
    plain = cube.janowski_refined(x1, x2).equities(probs)
    capped = cube.janowski_refined(x1, x2, capped=True).equities(probs)
    S = W + L + 0.5
    if (L - 0.5) / S <= P <= (L + 1.0) / S:
        assert capped["owned"] == pytest.approx(plain["owned"])
        assert capped["unavailable"] == pytest.approx(plain["unavailable"])
    assert capped["owned"] <= plain["owned"] + 1e-12
    assert capped["unavailable"] >= plain["unavailable"] - 1e-12
    assert capped["unavailable"] - 1e-12 <= capped["centered"] <= capped["owned"] + 1e-12
    # at the ends the capped live part meets the game's value: -L at P = 0, W at P = 1
    ends = cube.janowski_refined(x1, x2, capped=True).equities(np.stack([_probs(0.0, W, L), _probs(1.0, W, L)]))
    assert ends["owned"][1] == pytest.approx(W) and ends["unavailable"][0] == pytest.approx(-L)
