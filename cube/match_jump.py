"""Higgins' jump model at a match score: take points, cubeful MWC and cube decisions in MWC space.

Everything is seen from the side on roll ("the player"), before it rolls; the state variable is
its cubeless winning chance ``p``, the results' MWCs come from a match equity table as in
:mod:`cube.match`, and each side's gammon and backgammon shares of its wins stay fixed as ``p``
moves (Janowski's W and L assumption, seed 003; gnubg's live cube, seed 004).

**Assumptions.**

1. *Jumps.* From one cube decision of the player to its next, ``p`` jumps by ``J`` with zero mean,
   a distribution symmetric about 0, and ``E|J| = alpha`` small against the doubling window
   (Higgins, seed 000, Appendix 1). ``alpha = 0`` is Keeler and Spencer's diffusion, the live cube.
2. *MWC as the equity.* The integral equations of the paper hold with the equity replaced by
   the MWC, since MWC is what both sides maximise: ``M(p) = E[M_hat(p + J)]`` with ``M_hat`` the
   MWC after the optimal cube action. Away from decision points ``M`` is linear in ``p`` whatever
   the distribution (a linear function of a zero-mean jump keeps its mean).
3. *Piecewise-linear MWC.* As in the paper's linear approximation, each cube state's MWC is taken
   piecewise linear with breaks at the take and cash points only. One smearing of the live-cube
   MWC by one jump gives the MWC at a live break: for a break at ``k`` with left and right
   slopes ``B_-`` and ``B_+``,

       ``E[M_live(k + J)] = M_live(k) + B_- E[J; J < 0] + B_+ E[J; J > 0] = M_live(k) + (alpha / 2) (B_+ - B_-)``,

   using ``E[J; J > 0] = -E[J; J < 0] = alpha / 2``. At the cash point of the side holding the
   cube the live MWC is concave (``B_+ < B_-``): the break is cut by ``(alpha/2)(B_- - B_+)``, the
   MWC lost to jumps past the cash point (overshoot). At the take point of an unavailable cube it is
   convex and raised by the same rule (the opponent overshoots its own cash point). In money
   play the cash-point break is always concave (``B_- - B_+ = S / (2 (W - 1/2)) > 0``); at a match
   score it can be convex: where a gammon after taking wins the match (3-away against 5-away
   taking a 2-cube in a gammonish position) the MWC climbs faster above the cash point than below,
   jumps past it gain, and the jump take point falls *below* the live one.
4. *The live ladder.* The live (``alpha = 0``) MWC functions are gnubg's (seed 004,
   :mod:`cube.match`): take points level by level down from the first cube that ends the match
   for a side on any win, ``TP(live, n) = TP(dead, n) (1 - TP_opponent(live, 2n))``. The jump model
   smears this ladder *once* at each level (Higgins' linear approximation is one step of the
   iteration from the live solution): the break is placed at the live cash point of the level
   above and the slopes are the live ones; the jump take points are not fed back up the ladder.

**Take point at level n** (the taker holds ``2n`` after taking, taker's MWC, its winning chance
``q``). The taker's live owned MWC runs from ``(0, Lose)`` to ``(C, Cash)`` to ``(1, Win)`` where
``C = 1 - TP_doubler(live, 2n)`` is its live cash point with cube ``2n``, ``Cash`` the MWC of
winning ``2n``, ``Lose`` and ``Win`` losing and winning ``2n`` weighted by gammon and backgammon
shares. With ``B_1 = (Cash - Lose) / C`` and ``B_2 = (Win - Cash) / (1 - C)``::

    M_O(C) = Cash - (alpha_r / 2) (B_1 - B_2)
    TP(jump, n) = C (Pass - Lose) / (M_O(C) - Lose)

with ``Pass`` the MWC of passing (losing ``n``). At ``alpha_r = 0`` this is gnubg's rule: seed 004's
``TP(live, n) = TP(dead, n) (1 - TP_doubler(live, 2n))`` holds with ``TP(dead, n) = (Pass - Lose) /
(Cash - Lose)``, the dead take point against a taker who cashes ``2n`` (not the gammon-weighted
``Win``, which the printed formula's "dead" could suggest; :func:`cube.match.take_point_ladder`
uses the cash too). The top level is dead (no redouble after the take), its owned MWC a straight
line, so it has no overshoot: its take point is the dead one, with gnubg's automatic redouble of a
side that the doubled cube already wins the match.

**Money limit.** Where the MET is locally linear in the score (long matches, far from their end)
the results are ``M0 + k D`` for winning ``k`` points; in units of ``2 n D`` about ``M0``:
``Pass = -1/2``, ``Lose = -L``, ``Cash = 1``, ``Win = W`` and the infinite live ladder gives
``C = (L + 1) / (W + L + 1/2)``. Then ``B_1 - B_2 = S / (2 (W - 1/2))`` with ``S = W + L + 1/2``
and ``M_O(C) = 1 - (alpha_r / 4) S / (W - 1/2)``, ``TP = (L - 1/2)(L + 1) / (S (L + 1 - (alpha_r / 4)
S / (W - 1/2)))``: Higgins' take point with the factor ``1/4`` that the paper's printed take point
and the line before it (``A_O1 + B_O1 CP_L = 1 - alpha_r S / (W - 1/2)``) drop; derived again here
as above, the factor is there, as in the paper's own ``E_O(CP_L)``, ``B_O1`` and implied cube-life
index (see :mod:`cube.jump_linear`). The cash point is the mirror image (the opponent's take point).

**Why not a self-consistent ladder.** Feeding the jump take points back (break at the *jump*
cash point of the level above) sounds more faithful but over-corrects: for money, no gammons,
``alpha = 0.1``, its fixed point is ``TP = 21.07%`` against the exact numerical solution's 21.37%
(double-exponential jumps, :mod:`cube.jump_numerical`) and the one-step value 21.33%.

**MWC at the current cube** (cube ``v``; ``lose``/``win``: losing/winning ``v`` weighted by the
shares, ``l1``/``w1``: losing/winning ``v`` singly; ``TP_L, CP_L`` live and ``TP, CP`` jump take and
cash points of the level ``v``), following the paper's three curves:

* owned: the line from ``(0, lose)`` through ``(CP_L, w1 - (alpha_l/2)(B_- - B_+))`` up to ``CP``,
  then straight to ``(1, win)``;
* unavailable: the line from ``(1, win)`` through ``(TP_L, l1 + (alpha_r/2)(B_+ - B_-))`` down to
  ``TP``, then straight to ``(0, lose)``;
* centred: the line through ``(TP_L, l1 + (alpha_r/2)(B_2 - B_1))`` and ``(CP_L, w1 - (alpha_l/2)
  (B_2 - B_3))`` between ``TP`` and ``CP``, joined to ``(0, lose)`` and ``(1, win)``
  (``B_1, B_2, B_3`` the live centred slopes; the paper's ``E_C(CP_L) = 1 - (alpha_l/6) S (W + 1)
  / (W - 1/2)`` in the money limit, where ``B_2 - B_3 = S (W + 1) / (3 (W - 1/2))``).

``alpha_l``, the local volatility, enters only where the player's own doubling happens (the
break at its cash point); everything that depends on the game turning round (take points, the
unavailable cube, the MWC after a double) uses the remote ``alpha_r`` (the paper's split). With
``alpha_l = alpha_r`` the model has constant volatility. As in :mod:`cube.match` the cube is left
out (cubeful = cubeless) in the Crawford game, when it already covers both sides' needs, and at
2-away against 2-away. Cube decisions compare no double (the current MWC), double/take (the
unavailable MWC at twice the cube) and double/pass, with gnubg's rules
(:func:`cube.match.decision_from_mwcs`), so the result is a :class:`cube.match.MatchCubeDecision`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from cube.errors import CubeInputError, FloatArray, as_float_array
from cube.gamestate import _check_probabilities
from cube.match import (
    MatchCube,
    MatchCubeDecision,
    TakePointLevel,
    _dead_cash_point,
    _ladder_levels,
    _ladder_sides,
    _rates,
    _results,
    _weighted,
    cubeless_mwc,
    decision_from_mwcs,
    game_result_mwc,
    outcome_mwcs,
)
from cube.met import MatchEquityTable
from cube.states import CubeState
from cube.two_roll import SEARCH_CELLS, LeafMwcs, two_roll_mwcs, uncertain_cells, wins_gammons

__all__ = [
    "MAX_MATCH_VOLATILITY",
    "JumpLadder",
    "check_match_volatility",
    "jump_cube_decision",
    "jump_ladder",
    "jump_mwc",
    "smeared_break",
]

#: Jumps must stay small against the doubling window (the paper's approximation; cube.errors' bound).
MAX_MATCH_VOLATILITY = 0.5


def check_match_volatility(value: ArrayLike, name: str = "alpha") -> FloatArray:
    """A jump volatility as an array after checking ``0 <= alpha < 0.5`` (0: the live cube)."""
    arr = as_float_array(value, name)
    bad = (arr < 0.0) | (arr >= MAX_MATCH_VOLATILITY)
    if np.any(bad):
        first = float(arr[bad].flat[0]) if arr.ndim else float(arr)
        raise CubeInputError(f"jump volatility {name} = {first!r} is outside [0, {MAX_MATCH_VOLATILITY:g})")
    return arr


def smeared_break(value: ArrayLike, left_slope: ArrayLike, right_slope: ArrayLike, alpha: ArrayLike) -> FloatArray:
    """The mean of a piecewise-linear function one jump after its break: ``value + (alpha/2)(right - left)``."""
    v, b_left, b_right = (np.asarray(a, dtype=np.float64) for a in (value, left_slope, right_slope))
    return np.asarray(v + 0.5 * np.asarray(alpha, dtype=np.float64) * (b_right - b_left))


_END = 1e-12


def _smeared_inside(
    value: ArrayLike, left_slope: ArrayLike, right_slope: ArrayLike, alpha: ArrayLike, at: ArrayLike
) -> FloatArray:
    """:func:`smeared_break` where the break ``at`` lies inside (0, 1), else ``value``: a break at an end of
    [0, 1] (a side that can never use the cube) is no kink, and smearing it would move the curve's end off the
    game's result (post-Crawford, a 2-away trailer's no double came out above its cubeless chance).

    The volatility is capped at ``2 k (1 - k)`` for a break at ``k``: ``p`` is a martingale in [0, 1], and no
    zero-mean step from ``k`` that stays in [0, 1] has ``E|J|`` above that (the two-point step to 0 and 1
    reaches it). Near an end the uncapped smear left [lose, win] (a 10-away leader holding a 4-cube at a
    cash point of 0.988 had a no-double MWC of 1.029); at the cap a two-piece curve's break rises at most
    to the chord ``k win + (1 - k) lose``.
    """
    where = np.asarray(at, dtype=np.float64)
    reachable = np.minimum(np.asarray(alpha, dtype=np.float64), 2.0 * where * (1.0 - where))
    smeared = smeared_break(value, left_slope, right_slope, reachable)
    inside = (where > _END) & (where < 1.0 - _END)  # take points come out of MET sums: 2e-16 stands for 0
    return np.asarray(np.where(inside, smeared, value), dtype=np.float64)


def _ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    """``num / den`` where ``den > 0``, else 0 (a break at an end of [0, 1] has no slope on one side)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0.0, num / np.where(den > 0.0, den, 1.0), 0.0)


@dataclass(frozen=True)
class JumpLadder:
    """Live and jump take points, top level first, and the volatility they were computed with.

    ``live[i]`` and ``jump[i]`` are the :class:`cube.match.TakePointLevel` of the same cube level
    (``live`` is gnubg's ladder, :func:`cube.match.take_point_ladder`).
    """

    live: list[TakePointLevel]
    jump: list[TakePointLevel]


def _ladder(arr: FloatArray, met: MatchEquityTable, cube: MatchCube, alpha_r: FloatArray) -> JumpLadder:
    """Cash points of each side at each level (live and jump), as take points; module notes."""
    sides = _ladder_sides(arr, cube.score)
    live_cash: list[dict[int, FloatArray]] = [{}, {}]
    jump_cash: list[dict[int, FloatArray]] = [{}, {}]
    live: list[TakePointLevel] = []
    jump: list[TakePointLevel] = []
    for level, dead in _ladder_levels(cube):
        for k, side in enumerate(sides):
            # side k doubles from ``level``; its cash point is one minus the taker's take point
            if dead:
                live_cash[k][level] = jump_cash[k][level] = _dead_cash_point(met, side, level)
                continue
            sc, (gk, bgk), (go, bgo) = side
            pass_value = game_result_mwc(met, sc, won=level)
            # the taker's MWC is one minus side k's: its losses are side k's wins at 2 level, ...
            taker_lose = 1.0 - _weighted(_results(met, sc, 2 * level, True), gk, bgk)
            taker_cash = 1.0 - game_result_mwc(met, sc, lost=2 * level)
            taker_win = 1.0 - _weighted(_results(met, sc, 2 * level, False), go, bgo)
            taker_pass = 1.0 - pass_value
            c = live_cash[1 - k][2 * level]  # the taker's live cash point with the cube 2 level
            b1 = _ratio(taker_cash - taker_lose, c)
            b2 = _ratio(taker_win - taker_cash, 1.0 - c)
            kink = _smeared_inside(taker_cash, b1, b2, alpha_r, c)
            live_cash[k][level] = 1.0 - c * _ratio(taker_pass - taker_lose, taker_cash - taker_lose)
            jump_tp = c * _ratio(taker_pass - taker_lose, kink - taker_lose)
            jump_cash[k][level] = 1.0 - np.clip(jump_tp, 0.0, 1.0)
        for out, cash in ((live, live_cash), (jump, jump_cash)):
            out.append(TakePointLevel(level, 1.0 - cash[1][level], 1.0 - cash[0][level], dead))
    return JumpLadder(live, jump)


def jump_ladder(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube, alpha: ArrayLike) -> JumpLadder:
    """Both sides' live and jump take points from the top of the ladder down to ``cube`` (remote ``alpha``)."""
    arr = _check_probabilities(probs)
    return _ladder(arr, met, cube, check_match_volatility(alpha, "alpha"))


def _jump_curve(
    arr: FloatArray, met: MatchEquityTable, cube: MatchCube, alpha_r: FloatArray, alpha_l: FloatArray
) -> FloatArray:
    p = arr[..., 0]
    g0, bg0, g1, bg1 = _rates(arr)
    w1, w2, w3, l1, l2, l3 = outcome_mwcs(met, cube)
    win, lose = _weighted((w1, w2, w3), g0, bg0), _weighted((l1, l2, l3), g1, bg1)
    ladder = _ladder(arr, met, cube, alpha_r)
    live, jump = ladder.live[-1], ladder.jump[-1]
    tp_l, cp_l = live.take_point, 1.0 - live.opp_take_point
    tp, cp = jump.take_point, 1.0 - jump.opp_take_point
    zero = np.zeros_like(p)
    if cube.state is CubeState.OWNED:
        kink = _smeared_inside(w1, _ratio(w1 - lose, cp_l), _ratio(win - w1, 1.0 - cp_l), alpha_l, cp_l)
        slope = _ratio(kink - lose, cp_l)
        at_cp = lose + slope * cp
        out = np.where(p <= cp, lose + slope * p, at_cp + _ratio(win - at_cp, 1.0 - cp) * (p - cp))
    elif cube.state is CubeState.UNAVAILABLE:
        kink = _smeared_inside(l1, _ratio(l1 - lose, tp_l), _ratio(win - l1, 1.0 - tp_l), alpha_r, tp_l)
        slope = _ratio(win - kink, 1.0 - tp_l)
        at_tp = win - slope * (1.0 - tp)
        out = np.where(p >= tp, win - slope * (1.0 - p), lose + _ratio(at_tp - lose, tp) * p)
    else:
        b1 = _ratio(l1 - lose, tp_l)
        b2 = _ratio(w1 - l1 + zero, cp_l - tp_l)
        b3 = _ratio(win - w1, 1.0 - cp_l)
        low = _smeared_inside(l1, b1, b2, alpha_r, tp_l)
        high = _smeared_inside(w1, b2, b3, alpha_l, cp_l)
        mid = _ratio(high - low, cp_l - tp_l)
        at_tp = low + mid * (tp - tp_l)
        at_cp = low + mid * (cp - tp_l)
        out = np.where(
            p < tp,
            lose + _ratio(at_tp - lose, tp) * p,
            np.where(p <= cp, low + mid * (p - tp_l), at_cp + _ratio(win - at_cp, 1.0 - cp) * (p - cp)),
        )
    # No cube play is worth more than the better of cashing now (w1) and winning at this cube with the side's
    # gammon rates (win): a double is only ever taken when taking is no worse for the taker than passing. With
    # a local alpha below the remote one the centred line, knotted unsmeared at the live cash point, ran on to a
    # jump cash point above it and past the cash (3-away all, no gammons to win: 0.604 against a cash of 0.599).
    return np.asarray(np.clip(out, np.minimum(l1, lose), np.maximum(w1, win)), dtype=np.float64)


def _alphas(alpha: ArrayLike, alpha_local: ArrayLike | None) -> tuple[FloatArray, FloatArray]:
    a_r = check_match_volatility(alpha, "alpha")
    a_l = a_r if alpha_local is None else check_match_volatility(alpha_local, "alpha_local")
    return a_r, a_l


def jump_mwc(
    probs: ArrayLike,
    met: MatchEquityTable,
    cube: MatchCube,
    alpha: ArrayLike,
    alpha_local: ArrayLike | None = None,
) -> FloatArray:
    """The side on roll's cubeful MWC under the jump model (remote ``alpha``, local ``alpha_local``).

    ``alpha_local`` defaults to ``alpha`` (constant volatility); either may be one per position.
    Cubeless where the cube no longer matters (module notes).
    """
    arr = _check_probabilities(probs)
    a_r, a_l = _alphas(alpha, alpha_local)
    if not cube.cubeful:
        return cubeless_mwc(arr, met, cube)
    return _jump_curve(arr, met, cube, a_r, a_l)


def jump_leaf_mwcs(met: MatchEquityTable, alpha: float) -> LeafMwcs:
    """The jump model's MWC at a leaf of the two-roll search (remote ``alpha`` only: the leaf's own volatility is
    unknown): the side on roll's, its own cube action included, from (m, 5) probabilities at a leaf's cube."""

    def leaf(probs: FloatArray, cube: MatchCube) -> FloatArray:
        no_double = jump_mwc(probs, met, cube, alpha)
        if not cube.can_double:
            return no_double
        double_take = jump_mwc(probs, met, cube.doubled(), alpha)
        double_pass = game_result_mwc(met, cube.score, won=cube.value)
        return np.maximum(no_double, np.minimum(double_take, double_pass))

    return leaf


def jump_cube_decision(
    probs: ArrayLike,
    met: MatchEquityTable,
    cube: MatchCube,
    alpha: float,
    alpha_local: float | None = None,
    lookahead: ArrayLike | None = None,
) -> MatchCubeDecision:
    """The jump model's cube decision for one position (five probabilities of the side on roll) at ``cube``.

    No double is the MWC at ``cube`` with the local volatility at the player's cash point;
    double/take is the opponent-owned MWC at twice the cube (remote volatility only). A ``lookahead`` ((441, 5)
    two-roll outcomes, for the local model) that shows the game decided within it gives the exact MWCs
    instead, and one that shows it nearly decided (at most :data:`cube.two_roll.SEARCH_CELLS` lines open) the
    two-roll search's (:mod:`cube.two_roll`, the model with the remote volatility at the open lines).
    """
    arr = _check_probabilities(probs)
    if arr.shape != (5,):
        raise CubeInputError(f"jump_cube_decision takes one position (shape (5,)), got shape {arr.shape}")
    if lookahead is not None and int(uncertain_cells(lookahead)) <= SEARCH_CELLS:
        searched_nd, searched_dt = two_roll_mwcs(lookahead, met, cube, jump_leaf_mwcs(met, alpha))
        dt = None if searched_dt is None else float(searched_dt)
        dp = None if searched_dt is None else game_result_mwc(met, cube.score, won=cube.value)
        return decision_from_mwcs(float(searched_nd), dt, dp, bool(wins_gammons(lookahead)), met, cube)
    no_double = float(jump_mwc(arr, met, cube, alpha, alpha_local))
    if not cube.can_double:
        return decision_from_mwcs(no_double, None, None, bool(arr[1] > 0.0), met, cube)
    double_take = float(jump_mwc(arr, met, cube.doubled(), alpha))
    double_pass = game_result_mwc(met, cube.score, won=cube.value)
    return decision_from_mwcs(no_double, double_take, double_pass, bool(arr[1] > 0.0), met, cube)
