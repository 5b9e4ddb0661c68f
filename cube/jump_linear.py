"""Linear approximation to Higgins' jump model (Higgins 2012, Appendix 1).

Equities are normalised to the cube and seen by the player (side on roll).  The model
replaces each equity by a piecewise-linear function, starting from the live-cube equities
and smearing them by one jump of volatility alpha (alpha = E|J|).  With S = W + L + 1/2 and
the live take and cash points TP_L = (L - 1/2)/S, CP_L = (L + 1)/S::

    E_O(CP_L) = 1 - (alpha/4) S / (W - 1/2)
    B_O1      = S - (alpha/4) S^2 / ((W - 1/2)(L + 1))      slope of E_O below CP, E_O(0) = -L
    B_U2      = S - (alpha/4) S^2 / ((L - 1/2)(W + 1))      slope of E_U above TP, E_U(1) = W
    TP        = (L - 1/2) / B_O1(alpha_r)
    CP        = 1 - (W - 1/2) / B_U2(alpha_r)
              = (L+1)/S - alpha_r (W - 1/2) / (2(2LW + 2L - W - 1) - alpha_r S)

**Misprint in the paper.**  Appendix 1 prints the take point as
``TP = (L-1/2)(L+1) / (S (L + 1 - alpha_r S/(W - 1/2)))`` and the line before it as
``A_O1 + B_O1 CP_L = 1 - alpha_r S/(W - 1/2)``: both drop the factor 1/4.  Re-deriving
E_O(CP_L) = 1 - (alpha/2)(B_1L - B_2L) with the live slopes B_1L = S and
B_2L = (W - 1)S/(W - 1/2) gives ``1 - (alpha/4) S/(W - 1/2)``, which is also what the
paper's own section 1, its formula for B_O1 and its implied cube-life index x1 use.  So
``TP = (L-1/2)(L+1) / (S (L + 1 - (alpha_r/4) S/(W - 1/2)))``.  The printed cash point is
consistent with the derivation (and is symmetric to the corrected take point).

The owned equity uses the local volatility alpha_l in its first piece (doubling happens
near the cash point) and is continued linearly from (CP, E_O1(CP)) to (1, W); the
unavailable equity uses the remote volatility only, continued from (TP, E_U2(TP)) down to
(0, -L).  The centred equity is the line through the live points

    E_C(CP_L) = 1 - (alpha_l/6) S (W + 1)/(W - 1/2)
    E_C(TP_L) = -1 + (alpha_r/6) S (L + 1)/(L - 1/2)

between TP and CP, joined to (0, -L) and (1, W).  Under the Jacoby rule (our extension) the
live centred equity is flat at -1 below TP_L and +1 above CP_L (a player doubles out rather
than play on for an uncounted gammon), so E_C(CP_L) = 1 - (2/3) alpha_l S,
E_C(TP_L) = -1 + (2/3) alpha_r S, and the outer pieces join (0, -1) and (1, +1).

Statistically estimated volatilities should be scaled by 11.3/9.1 = 1.24 before use in this
approximation (Higgins, section 2); pass ``statistical=True`` to do that (off by default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from cube.errors import FloatArray, check_probability, check_volatility, check_win_value
from cube.points import Curve, DecisionPoints, EquityCurves, find_decision_points
from cube.states import CubeState

__all__ = [
    "STATISTICAL_SCALE",
    "JumpLinearModel",
    "LinearPieces",
    "cash_point",
    "implied_cube_life",
    "linear_pieces",
    "take_point",
]

#: Factor by which statistically estimated jump volatilities are scaled up before use in
#: the linear approximation (11.3% / 9.1%, Higgins 2012, section 2).
STATISTICAL_SCALE = 1.24


def _slope_owned(W: FloatArray, L: FloatArray, alpha: FloatArray) -> FloatArray:
    S = W + L + 0.5
    return S - 0.25 * alpha * S**2 / ((W - 0.5) * (L + 1.0))


def _slope_unavailable(W: FloatArray, L: FloatArray, alpha: FloatArray) -> FloatArray:
    S = W + L + 0.5
    return S - 0.25 * alpha * S**2 / ((L - 0.5) * (W + 1.0))


def take_point(W: ArrayLike, L: ArrayLike, alpha_r: ArrayLike) -> FloatArray:
    """Return the player's take point (L - 1/2)/B_O1(alpha_r), corrected form (see module doc)."""
    W_, L_ = check_win_value(W, "W"), check_win_value(L, "L")
    a = check_volatility(alpha_r, "alpha_r")
    return (L_ - 0.5) / _slope_owned(W_, L_, a)


def cash_point(W: ArrayLike, L: ArrayLike, alpha_r: ArrayLike) -> FloatArray:
    """Return the player's cash point as printed by Higgins (consistent with B_U2)."""
    W_, L_ = check_win_value(W, "W"), check_win_value(L, "L")
    a = check_volatility(alpha_r, "alpha_r")
    S = W_ + L_ + 0.5
    return (L_ + 1.0) / S - a * (W_ - 0.5) / (2.0 * (2.0 * L_ * W_ + 2.0 * L_ - W_ - 1.0) - a * S)


def implied_cube_life(W: ArrayLike, L: ArrayLike, alpha: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Return Janowski's (x1, x2) implied by a constant jump volatility (Higgins, section 3).

    x1 = 1 - alpha S^2 / (2 (L+1)(W-1/2)),  x2 = 1 - alpha S^2 / (2 (W+1)(L-1/2)),
    S = W + L + 1/2: the refined-model indices whose take and cash points equal the linear
    approximation's.  They may fall below 0 for large alpha (no Janowski equivalent).
    """
    W_, L_ = check_win_value(W, "W"), check_win_value(L, "L")
    a = check_volatility(alpha, "alpha")
    S = W_ + L_ + 0.5
    x1 = 1.0 - a * S**2 / (2.0 * (L_ + 1.0) * (W_ - 0.5))
    x2 = 1.0 - a * S**2 / (2.0 * (W_ + 1.0) * (L_ - 0.5))
    return x1, x2


class LinearPieces(NamedTuple):
    """Coefficients and points of the linear approximation (arrays, broadcast shape).

    Every equity piece is ``A + B P``; names follow the paper (O1/O2 owned below/above CP,
    U1/U2 unavailable below/above TP, C1/C2/C3 centred below TP / between / above CP).
    ``Or`` is the owned first piece with the remote volatility (the equity after a take).
    """

    W: FloatArray
    L: FloatArray
    tp: FloatArray
    cp: FloatArray
    A_O1: FloatArray
    B_O1: FloatArray
    A_O2: FloatArray
    B_O2: FloatArray
    A_Or1: FloatArray
    B_Or1: FloatArray
    A_Or2: FloatArray
    B_Or2: FloatArray
    A_U1: FloatArray
    B_U1: FloatArray
    A_U2: FloatArray
    B_U2: FloatArray
    A_C1: FloatArray
    B_C1: FloatArray
    A_C2: FloatArray
    B_C2: FloatArray
    A_C3: FloatArray
    B_C3: FloatArray
    points: dict[str, FloatArray]


def linear_pieces(
    W: ArrayLike,
    L: ArrayLike,
    alpha_r: ArrayLike,
    alpha_l: ArrayLike | None = None,
    *,
    jacoby: bool = False,
) -> LinearPieces:
    """Return all linear-approximation pieces and the ten decision points (player's view).

    Volatilities are used as given (apply any statistical scale before calling). The points come out
    ordered tg_u <= tp <= rd_u <= id_u <= id_o <= rd_o <= cp <= tg_o for W, L <= 2.25 (volatilities up
    to 0.2, with or without Jacoby); beyond that, e.g. W = 3, L = 1, alpha_r >= 0.18 > alpha_l, the
    centred line can rise above the owned one and id_o passes rd_o: the approximation is out of range.
    """
    W_, L_ = check_win_value(W, "W"), check_win_value(L, "L")
    ar = check_volatility(alpha_r, "alpha_r")
    al = ar if alpha_l is None else check_volatility(alpha_l, "alpha_l")
    W_, L_, ar, al = np.broadcast_arrays(W_, L_, ar, al)
    S = W_ + L_ + 0.5
    tpL = (L_ - 0.5) / S
    cpL = (L_ + 1.0) / S

    B_Or1 = _slope_owned(W_, L_, ar)
    B_O1 = _slope_owned(W_, L_, al)
    B_U2 = _slope_unavailable(W_, L_, ar)
    tp = (L_ - 0.5) / B_Or1
    cp = 1.0 - (W_ - 0.5) / B_U2
    A_O1 = -L_
    A_Or1 = -L_
    A_U2 = W_ - B_U2

    def join_up(a1: FloatArray, b1: FloatArray, x0: FloatArray, yend: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Line from (x0, a1 + b1 x0) to (1, yend)."""
        y0 = a1 + b1 * x0
        b = (yend - y0) / (1.0 - x0)
        return yend - b, b

    A_O2, B_O2 = join_up(A_O1, B_O1, cp, W_)
    A_Or2, B_Or2 = join_up(A_Or1, B_Or1, cp, W_)
    A_U1 = -L_
    B_U1 = (A_U2 + B_U2 * tp + L_) / tp

    if jacoby:
        ecC = 1.0 - (2.0 / 3.0) * al * S
        ecT = -1.0 + (2.0 / 3.0) * ar * S
        lo_end, hi_end = -np.ones_like(L_), np.ones_like(W_)
    else:
        ecC = 1.0 - (al / 6.0) * S * (W_ + 1.0) / (W_ - 0.5)
        ecT = -1.0 + (ar / 6.0) * S * (L_ + 1.0) / (L_ - 0.5)
        lo_end, hi_end = -L_, W_
    B_C2 = (ecC - ecT) / (cpL - tpL)
    A_C2 = ecT - B_C2 * tpL
    A_C1 = lo_end
    B_C1 = (A_C2 + B_C2 * tp - lo_end) / tp
    A_C3, B_C3 = join_up(A_C2, B_C2, cp, hi_end)

    with np.errstate(divide="ignore", invalid="ignore"):
        rd_o = (2.0 * A_U2 - A_O1) / (B_O1 - 2.0 * B_U2)
        rd_u = (2.0 * A_Or1 - A_U2) / (B_U2 - 2.0 * B_Or1)
        id_o = (2.0 * A_U2 - A_C2) / (B_C2 - 2.0 * B_U2)
        id_u = (2.0 * A_Or1 - A_C2) / (B_C2 - 2.0 * B_Or1)
        tg_o = np.where(B_O2 > 0, (1.0 - A_O2) / B_O2, 1.0)
        tg_o = np.where(A_O1 + B_O1 * cp >= 1.0, (1.0 - A_O1) / B_O1, tg_o)
        tg_u = np.where(B_U1 > 0, (-1.0 - A_U1) / B_U1, 0.0)
        tg_oc = np.where(B_C3 > 0, (1.0 - A_C3) / B_C3, 1.0)
        tg_uc = np.where(B_C1 > 0, (-1.0 - A_C1) / B_C1, 0.0)
    rd_o = np.clip(rd_o, tp, cp)
    id_o = np.clip(id_o, tp, cp)
    rd_u = np.clip(rd_u, tp, cp)
    id_u = np.clip(id_u, tp, cp)
    points = {
        "tg_uc": np.clip(tg_uc, 0.0, tp),
        "tg_u": np.clip(tg_u, 0.0, tp),
        "tp": tp,
        "rd_u": rd_u,
        "id_u": id_u,
        "id_o": id_o,
        "rd_o": rd_o,
        "cp": cp,
        "tg_o": np.clip(tg_o, cp, 1.0),
        "tg_oc": np.clip(tg_oc, cp, 1.0),
    }
    return LinearPieces(
        W=W_,
        L=L_,
        tp=tp,
        cp=cp,
        A_O1=A_O1,
        B_O1=B_O1,
        A_O2=A_O2,
        B_O2=B_O2,
        A_Or1=A_Or1,
        B_Or1=B_Or1,
        A_Or2=A_Or2,
        B_Or2=B_Or2,
        A_U1=A_U1,
        B_U1=B_U1,
        A_U2=A_U2,
        B_U2=B_U2,
        A_C1=A_C1,
        B_C1=B_C1,
        A_C2=A_C2,
        B_C2=B_C2,
        A_C3=A_C3,
        B_C3=B_C3,
        points=points,
    )


def _pw2(P: FloatArray, brk: FloatArray, a1: FloatArray, b1: FloatArray, a2: FloatArray, b2: FloatArray) -> FloatArray:
    return np.where(brk > P, a1 + b1 * P, a2 + b2 * P)


def evaluate(pieces: LinearPieces, P: ArrayLike) -> dict[str, FloatArray]:
    """Return the linear-approximation equities at P (player's view, normalised to cube).

    Keys: the three :class:`CubeState` members (current cube level, local volatility)
    and ``owned_doubled`` (remote volatility; the equity after taking a double).
    """
    P_ = check_probability(P, "P")
    p = pieces
    owned = _pw2(P_, p.cp, p.A_O1, p.B_O1, p.A_O2, p.B_O2)
    owned_r = _pw2(P_, p.cp, p.A_Or1, p.B_Or1, p.A_Or2, p.B_Or2)
    unav = _pw2(P_, p.tp, p.A_U1, p.B_U1, p.A_U2, p.B_U2)
    cent = np.where(
        p.tp > P_,
        p.A_C1 + p.B_C1 * P_,
        np.where(p.cp >= P_, p.A_C2 + p.B_C2 * P_, p.A_C3 + p.B_C3 * P_),
    )
    return {
        CubeState.OWNED: owned,
        CubeState.UNAVAILABLE: unav,
        CubeState.CENTERED: cent,
        "owned_doubled": owned_r,
    }


@dataclass(frozen=True)
class JumpLinearModel:
    """Linear approximation with remote volatility ``alpha`` and optional local ``alpha_l``.

    ``statistical=True`` scales both volatilities by :data:`STATISTICAL_SCALE` (1.24).
    """

    alpha: float
    alpha_l: float | None = None
    statistical: bool = False

    def __post_init__(self) -> None:
        check_volatility(self.alpha, "alpha")
        if self.alpha_l is not None:
            check_volatility(self.alpha_l, "alpha_l")

    def _alphas(self) -> tuple[float, float]:
        k = STATISTICAL_SCALE if self.statistical else 1.0
        al = self.alpha if self.alpha_l is None else self.alpha_l
        return k * self.alpha, k * al

    def pieces(self, W: ArrayLike, L: ArrayLike, *, jacoby: bool = False) -> LinearPieces:
        """Return the linear pieces for these W, L (player's view)."""
        ar, al = self._alphas()
        return linear_pieces(W, L, ar, al, jacoby=jacoby)

    def equities(self, P: ArrayLike, W: ArrayLike, L: ArrayLike, *, jacoby: bool = False) -> dict[str, FloatArray]:
        """Return owned/unavailable/centered (and owned_doubled) equities at P, player's view."""
        return evaluate(self.pieces(W, L, jacoby=jacoby), P)

    def curves(self, W: float, L: float, *, jacoby: bool = False) -> EquityCurves:
        """Return the equity curves of one game state (normalised to the cube)."""
        pcs = self.pieces(W, L, jacoby=jacoby)

        def get(key: str) -> Curve:
            return lambda P: evaluate(pcs, P)[key]

        return EquityCurves(
            owned=get(CubeState.OWNED),
            unavailable=get(CubeState.UNAVAILABLE),
            centered=get(CubeState.CENTERED),
            owned_doubled=get("owned_doubled"),
            unavailable_doubled=get(CubeState.UNAVAILABLE),
        )

    def points(self, W: float, L: float, *, jacoby: bool = False, beavers: bool = False) -> DecisionPoints:
        """Return the ten decision points (closed form; numeric if beavers change them)."""
        if beavers:
            return find_decision_points(self.curves(W, L, jacoby=jacoby), jacoby=jacoby, beavers=True)
        pts = self.pieces(W, L, jacoby=jacoby).points
        vals: dict[str, float | None] = {k: float(v) for k, v in pts.items()}
        if jacoby:
            vals["tg_oc"] = vals["tg_uc"] = None
        return DecisionPoints(**vals)
