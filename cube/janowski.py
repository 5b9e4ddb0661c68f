"""Janowski's dead, live and general cube models (R. Janowski, *Take-Points in Money Games*).

All functions broadcast over numpy arrays.  ``p`` is the cubeless win probability and W, L
the average cubeless values of games won and lost, all for the player making the cube
decision; equities are from that player's perspective, multiplied by ``cube_value`` (1 gives
equities normalised to the cube).  The cube-life index x is 0 for a dead cube and 1 for a
live one.

Equations of the article::

    TP_dead    = (L - 1/2) / (W + L)                        (1)
    TP_live    = (L - 1/2) / (W + L + 1/2)                  (2)
    TP_general = (L - 1/2) / (W + L + x/2)                  (3)
    E_take     = TP (W + L) - L                             (4)
    E_o = Cv [p (W + L + x/2) - L]                          (5)  player owns the cube
    E_u = Cv [p (W + L + x/2) - L - x/2]                    (6)  opponent owns the cube
    E_c = 4 Cv / (4 - x) [p (W + L + x/2) - L - x/4]        (7)  centred cube

The decision points below are derived from (5)-(7) (the article's table of cube-action
formulae is not in the source text):  cash point ``E_u = 1/2``, redouble point
``E_o = 2 E_u``, initial double point ``E_c = 2 E_u``, too-good points ``E_o = 1`` and
``E_c = 1``.  For example ``RD = (L + x) / (W + L + x/2)`` and
``ID = (L + x(3-x) / (2(2-x))) / (W + L + x/2)``, so that after the double the doubled
unavailable-cube equity is ``x`` at RD and ``x / (2 - x)`` at ID (0.667 and 0.500 for
x = 2/3, as the article states).

Refined general model (two indices, Appendix 2 of the article, whose text is cut off in our
source): x1 is the cube life of the player making the decision, x2 that of his opponent.
The owned equity uses the player's index and the unavailable equity the opponent's::

    E_o = Cv [p S1 - L],          S1 = W + L + x1/2
    E_u = Cv [p S2 - L - x2/2],   S2 = W + L + x2/2

so TP depends on x1 only and CP on x2 only (as Higgins states).  The centred equity is our
own derivation, documented here.  Equation (7) can be rewritten as
``E_c = 4/(4-x) (E_o - x/4) = 4/(4-x) (E_u + x/4)``, i.e. E_c is the straight line that
equals +1 exactly where E_o = +1 (the player's too-good point, where the opponent's access
to the cube has lost all value, so centred and owned coincide) and -1 exactly where
E_u = -1 (the opponent's too-good point).  Using that characterisation with E_o(x1) and
E_u(x2) gives the line through (TG_o, +1) and (TG_u, -1)::

    E_c = Cv [2 S1 S2 p - S1 (L - 1 + x2/2) - S2 (L + 1)] / D,
    D   = S2 (L + 1) - S1 (L - 1 + x2/2),

which reduces to (7) when x1 = x2 = x (then D = (4 - x) S / 2).

Jacoby rule (the article's Jacoby factors k1, k2 are in the missing table; this is our
derivation): while the cube is centred gammons do not count.  With a dead cube (x = 0) the
game always ends with the cube centred, so E_c = 2p - 1; with a live cube (x = 1) it never
does (a double always comes first), so E_c is unchanged.  We interpolate the lost gammon
value with each side's deadness::

    E_c(Jacoby) = E_c - (1 - x1) p (W - 1) + (1 - x2) (1 - p) (L - 1),

capped at +-1 (no game with a centred cube can be worth more than one point under Jacoby,
so there is no too-good point).  For W = L = 1 the rule changes nothing.

Caveat of the article's model: the linear equities (5)-(7) are meant for the doubling
window; beyond the cash point E_o keeps rising with slope W + L + x/2, so even without
gammons (W = 1) the too-good point ``(L + 1)/(W + L + x/2)`` is below 100% for x < 1.
:func:`gnubg_equity` gives gnubg's piecewise variant, which has no such artefact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from cube.errors import (
    FloatArray,
    check_cube_life,
    check_cube_state,
    check_probability,
    check_win_value,
)
from cube.points import DecisionPoints, EquityCurves, find_decision_points
from cube.states import CubeState

__all__ = [
    "CUBE_STATES",
    "JanowskiModel",
    "cash_point",
    "centered_equity",
    "gnubg_equity",
    "initial_double_point",
    "live_equity",
    "owned_equity",
    "redouble_point",
    "take_equity",
    "take_point",
    "too_good_point",
    "unavailable_equity",
]

#: The three cube states in their usual order (centred, owned, unavailable).
CUBE_STATES: tuple[CubeState, ...] = tuple(CubeState)


def _wl(W: ArrayLike, L: ArrayLike) -> tuple[FloatArray, FloatArray]:
    return check_win_value(W, "W"), check_win_value(L, "L")


# --------------------------------------------------------------------------- points


def take_point(W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0) -> FloatArray:
    """Return the take point (L - 1/2)/(W + L + x/2) of the player being doubled (eq. 1-3)."""
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    return (L_ - 0.5) / (W_ + L_ + 0.5 * x_)


def take_equity(W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0) -> FloatArray:
    """Return the cubeless equity TP(W + L) - L at the take point, taker's view (eq. 4)."""
    W_, L_ = _wl(W, L)
    return take_point(W_, L_, x) * (W_ + L_) - L_


def cash_point(W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0) -> FloatArray:
    """Return the player's cash point (L + 1/2 + x/2)/(W + L + x/2), where E_u = 1/2."""
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    return (L_ + 0.5 + 0.5 * x_) / (W_ + L_ + 0.5 * x_)


def redouble_point(W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0) -> FloatArray:
    """Return the player's redouble point (L + x)/(W + L + x/2), where E_o = 2 E_u."""
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    return (L_ + x_) / (W_ + L_ + 0.5 * x_)


def initial_double_point(W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0) -> FloatArray:
    """Return the initial double point without Jacoby, where E_c = 2 E_u (player's P)."""
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    return (L_ + x_ * (3.0 - x_) / (2.0 * (2.0 - x_))) / (W_ + L_ + 0.5 * x_)


def too_good_point(W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0) -> FloatArray:
    """Return the too-good point (L + 1)/(W + L + x/2), where E_o = E_c = 1 (no Jacoby)."""
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    return (L_ + 1.0) / (W_ + L_ + 0.5 * x_)


# --------------------------------------------------------------------------- equities


def owned_equity(p: ArrayLike, W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0, cube_value: float = 1.0) -> FloatArray:
    """Return E_o = Cv [p(W + L + x/2) - L] (eq. 5), player owning the cube, player's view."""
    p_ = check_probability(p, "P")
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    return cube_value * (p_ * (W_ + L_ + 0.5 * x_) - L_)


def unavailable_equity(
    p: ArrayLike, W: ArrayLike, L: ArrayLike, x: ArrayLike = 1.0, cube_value: float = 1.0
) -> FloatArray:
    """Return E_u = Cv [p(W + L + x/2) - L - x/2] (eq. 6), opponent owning the cube."""
    p_ = check_probability(p, "P")
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    return cube_value * (p_ * (W_ + L_ + 0.5 * x_) - L_ - 0.5 * x_)


def centered_equity(
    p: ArrayLike,
    W: ArrayLike,
    L: ArrayLike,
    x: ArrayLike = 1.0,
    cube_value: float = 1.0,
    *,
    jacoby: bool = False,
) -> FloatArray:
    """Return the centred-cube equity, eq. 7 (or its Jacoby variant), player's view."""
    x_ = check_cube_life(x, "x")
    return cube_value * _centered(p, W, L, x_, x_, jacoby)


def _centered(p: ArrayLike, W: ArrayLike, L: ArrayLike, x1: ArrayLike, x2: ArrayLike, jacoby: bool) -> FloatArray:
    """Refined centred equity per unit cube (derivation in the module docstring)."""
    p_ = check_probability(p, "P")
    W_, L_ = _wl(W, L)
    x1_, x2_ = check_cube_life(x1, "x1"), check_cube_life(x2, "x2")
    S1 = W_ + L_ + 0.5 * x1_
    S2 = W_ + L_ + 0.5 * x2_
    low = L_ - 1.0 + 0.5 * x2_  # S2 * TG_u
    D = S2 * (L_ + 1.0) - S1 * low
    ec = (2.0 * S1 * S2 * p_ - S1 * low - S2 * (L_ + 1.0)) / D
    if jacoby:
        ec = ec - (1.0 - x1_) * p_ * (W_ - 1.0) + (1.0 - x2_) * (1.0 - p_) * (L_ - 1.0)
        ec = np.clip(ec, -1.0, 1.0)
    return np.asarray(ec, dtype=np.float64)


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True, init=False)
class JanowskiModel:
    """Janowski's (refined) general model with cube-life indices x1 (player), x2 (opponent).

    ``JanowskiModel(0)`` is the dead cube, ``JanowskiModel(1)`` the live cube and
    ``JanowskiModel(x)`` the general model; ``JanowskiModel(x1, x2)`` the refined one.
    """

    x1: float
    x2: float

    def __init__(self, x1: float, x2: float | None = None) -> None:
        x1_ = float(check_cube_life(x1, "x1"))
        x2_ = x1_ if x2 is None else float(check_cube_life(x2, "x2"))
        object.__setattr__(self, "x1", x1_)
        object.__setattr__(self, "x2", x2_)

    # equities -------------------------------------------------------------
    def owned(self, p: ArrayLike, W: ArrayLike, L: ArrayLike, cube_value: float = 1.0) -> FloatArray:
        """Return E_o = Cv [p(W + L + x1/2) - L]: player owns the cube, player's view."""
        return owned_equity(p, W, L, self.x1, cube_value)

    def unavailable(self, p: ArrayLike, W: ArrayLike, L: ArrayLike, cube_value: float = 1.0) -> FloatArray:
        """Return E_u = Cv [p(W + L + x2/2) - L - x2/2]: opponent owns the cube, player's view."""
        return unavailable_equity(p, W, L, self.x2, cube_value)

    def centered(
        self,
        p: ArrayLike,
        W: ArrayLike,
        L: ArrayLike,
        cube_value: float = 1.0,
        *,
        jacoby: bool = False,
    ) -> FloatArray:
        """Return the centred-cube equity (derived line, eq. 7 when x1 = x2), player's view."""
        return cube_value * _centered(p, W, L, self.x1, self.x2, jacoby)

    def equity(
        self,
        p: ArrayLike,
        W: ArrayLike,
        L: ArrayLike,
        cube_state: CubeState | str = CubeState.CENTERED,
        cube_value: float = 1.0,
        *,
        jacoby: bool = False,
    ) -> FloatArray:
        """Return the cubeful equity in ``cube_state``, player's view."""
        state = check_cube_state(cube_state)
        if state is CubeState.OWNED:
            return self.owned(p, W, L, cube_value)
        if state is CubeState.UNAVAILABLE:
            return self.unavailable(p, W, L, cube_value)
        return self.centered(p, W, L, cube_value, jacoby=jacoby)

    def curves(self, W: float, L: float, *, jacoby: bool = False) -> EquityCurves:
        """Return the equity curves of one game state, normalised to the cube."""

        def o(p: FloatArray) -> FloatArray:
            return self.owned(p, W, L)

        def u(p: FloatArray) -> FloatArray:
            return self.unavailable(p, W, L)

        def c(p: FloatArray) -> FloatArray:
            return self.centered(p, W, L, jacoby=jacoby)

        return EquityCurves(owned=o, unavailable=u, centered=c, owned_doubled=o, unavailable_doubled=u)

    # points ----------------------------------------------------------------
    def take_point(self, W: ArrayLike, L: ArrayLike) -> FloatArray:
        """Return the player's take point (L - 1/2)/(W + L + x1/2)."""
        return take_point(W, L, self.x1)

    def cash_point(self, W: ArrayLike, L: ArrayLike) -> FloatArray:
        """Return the player's cash point (L + 1/2 + x2/2)/(W + L + x2/2)."""
        return cash_point(W, L, self.x2)

    def points(self, W: float, L: float, *, jacoby: bool = False, beavers: bool = False) -> DecisionPoints:
        """Return the ten decision points (player's P); closed forms without Jacoby/beavers."""
        if jacoby or beavers:
            return find_decision_points(self.curves(W, L, jacoby=jacoby), jacoby=jacoby, beavers=beavers)
        W_, L_ = (float(v) for v in _wl(W, L))
        x1, x2 = self.x1, self.x2
        S1 = W_ + L_ + 0.5 * x1
        S2 = W_ + L_ + 0.5 * x2
        low = L_ - 1.0 + 0.5 * x2
        D = S2 * (L_ + 1.0) - S1 * low
        # centred line: a_c + b_c p
        b_c = 2.0 * S1 * S2 / D
        a_c = -(S1 * low + S2 * (L_ + 1.0)) / D
        # E_u = -(L + x2/2) + S2 p ; E_o = -L + S1 p
        id_o = (a_c + 2.0 * (L_ + 0.5 * x2)) / (2.0 * S2 - b_c)
        id_u = (a_c + 2.0 * L_) / (2.0 * S1 - b_c)
        tg_o = (L_ + 1.0) / S1
        tg_u = low / S2
        return DecisionPoints(
            tg_uc=tg_u,
            tg_u=tg_u,
            tp=(L_ - 0.5) / S1,
            rd_u=(L_ - 0.5 * x2) / (2.0 * S1 - S2),
            id_u=id_u,
            id_o=id_o,
            rd_o=(L_ + x2) / (2.0 * S2 - S1),
            cp=(L_ + 0.5 + 0.5 * x2) / S2,
            tg_o=tg_o,
            tg_oc=tg_o,
        )


# --------------------------------------------------------------------------- gnubg variant


def live_equity(
    p: ArrayLike,
    W: ArrayLike,
    L: ArrayLike,
    cube_state: CubeState | str = CubeState.CENTERED,
    *,
    jacoby: bool = False,
) -> FloatArray:
    """Return gnubg's fully-live cube equity (piecewise linear), player's view, per unit cube.

    Centred: through (0, -L), (TP, -1), (CP, +1), (1, W); owned: (0, -L), (CP, +1), (1, W);
    unavailable: (0, -L), (TP, -1), (1, W); TP and CP are the live take and cash points. Under
    the Jacoby rule a centred cube is worth -1 below the take point and +1 above the cash point.
    """
    state = check_cube_state(cube_state)
    p_ = check_probability(p, "P")
    W_, L_ = _wl(W, L)
    p_, W_, L_ = np.broadcast_arrays(p_, W_, L_)
    S = W_ + L_ + 0.5
    tp = (L_ - 0.5) / S
    cp = (L_ + 1.0) / S
    low_start = -1.0 if jacoby and state is CubeState.CENTERED else -L_
    high_end = 1.0 if jacoby and state is CubeState.CENTERED else W_
    below_tp = low_start + (-1.0 - low_start) * p_ / tp  # (0, -L) to (TP, -1)
    above_cp = 1.0 + (high_end - 1.0) * (p_ - cp) / (1.0 - cp)  # (CP, +1) to (1, W)
    if state is CubeState.CENTERED:
        out = np.where(p_ < tp, below_tp, np.where(p_ < cp, -1.0 + 2.0 * (p_ - tp) / (cp - tp), above_cp))
    elif state is CubeState.OWNED:
        out = np.where(p_ < cp, -L_ + (1.0 + L_) * p_ / cp, above_cp)
    else:
        out = np.where(p_ < tp, below_tp, -1.0 + (W_ + 1.0) * (p_ - tp) / (1.0 - tp))
    return np.asarray(out, dtype=np.float64)


def gnubg_equity(
    p: ArrayLike,
    W: ArrayLike,
    L: ArrayLike,
    x: ArrayLike,
    cube_state: CubeState | str = CubeState.CENTERED,
    *,
    jacoby: bool = False,
) -> FloatArray:
    """Return gnubg's money cubeful equity E_dead (1 - x) + E_live x, player's view, per unit cube.

    Under the Jacoby rule a centred cube's dead equity counts no gammons (2 P - 1).
    """
    p_ = check_probability(p, "P")
    W_, L_ = _wl(W, L)
    x_ = check_cube_life(x, "x")
    centred_jacoby = jacoby and check_cube_state(cube_state) is CubeState.CENTERED
    dead = 2.0 * p_ - 1.0 if centred_jacoby else p_ * W_ - (1.0 - p_) * L_
    return (1.0 - x_) * dead + x_ * live_equity(p_, W_, L_, cube_state, jacoby=jacoby)
