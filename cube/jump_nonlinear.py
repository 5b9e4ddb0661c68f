"""Nonlinear approximation to the jump model (Higgins 2012, Appendix 1).

One more step of the iteration that starts from the live cube: the integral equations are
evaluated with the *linear approximation* (:mod:`cube.jump_linear`) as the post-jump
equity, piece by piece, using the jump distribution's

    F(J) = integral_{-inf}^{J} f,   G(J) = integral_{-inf}^{J} x f

(double-exponential by default, as in the paper).  A linear piece A + B P on [a, b]
contributes ``(A + B P)(F(b-P) - F(a-P)) + B (G(b-P) - G(a-P))``.  Player-owned cube::

    [0, RD_O) E_O1   [RD_O, CP) 2 E_U2   [CP, TG_O) +1   [TG_O, 1) E_O2

unavailable (opponent owns) cube::

    [0, TG_U) E_U1   [TG_U, TP) -1   [TP, RD_U) 2 E_O1   [RD_U, 1) E_U2

centred cube::

    [0, TGC_U) E_C1  [TGC_U, TP) -1  [TP, ID_U) 2 E_O1  [ID_U, ID_O) E_C2
    [ID_O, CP) 2 E_U2  [CP, TGC_O) +1  [TGC_O, 1) E_C3

plus lines through (0, -L) and (1, W) for jumps beyond 0 and 1, whose slopes B_- and B_+
are solved so that E(0) = -L and E(1) = W.  The breakpoints are the linear
approximation's decision points.

**Misprints in the paper.**  In the printed E_U and E_C expressions the "-1" region
appears as ``- F(TG_U - P) + F(TP - P)``; integrating -1 over [TG_U, TP] gives
``- (F(TP - P) - F(TG_U - P))``, the opposite sign (the E_O expression has the
corresponding ``+ F(TG_O - P) - F(CP - P)`` right).  The E_C expression's last line
(``A_U+``, ``B_U+``) and first line are garbled; they are the centred cube's own extension
lines.  We implement the derived forms.

Volatilities: F and G use the local volatility for equities at the current cube level and
the remote volatility for equities after a double (the take and cash points, and the
post-double equities compared when doubling); the embedded linear pieces use remote or
local volatility as in the linear approximation.  Under the Jacoby rule (our extension)
the centred cube has no too-good regions and end values -1 and +1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from cube.distributions import DISTRIBUTIONS, JumpDistribution
from cube.errors import (
    FloatArray,
    check_choice,
    check_probability,
    check_volatility,
    check_win_value,
)
from cube.jump_linear import LinearPieces, linear_pieces
from cube.points import DecisionPoints, EquityCurves, find_decision_points
from cube.states import CubeState

__all__ = ["JumpNonlinearModel", "nonlinear_equities"]


def _integrate(
    P: FloatArray,
    breaks: Sequence[FloatArray | float],
    coefs: Sequence[tuple[FloatArray | float, FloatArray | float]],
    lo: FloatArray | float,
    hi: FloatArray | float,
    dist: JumpDistribution,
) -> FloatArray:
    """Return E[Ê(P+J)] for a piecewise-linear Ê with end values Ê(0) = lo, Ê(1) = hi.

    ``breaks`` are the inner breakpoints (sorted into order and clipped to [0, 1]);
    ``coefs`` has one (A, B) pair per segment of [0, 1].  The extension slopes beyond 0
    and 1 are solved so that the result equals lo at P = 0 and hi at P = 1.
    """
    b = np.stack(np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in breaks)))
    b = np.maximum.accumulate(np.clip(b, 0.0, 1.0), axis=0)
    edges = [np.zeros_like(b[0]), *list(b), np.ones_like(b[0])]
    F, G = dist.cdf, dist.partial_mean

    def body(p: FloatArray) -> FloatArray:
        total = np.zeros(np.broadcast_shapes(np.shape(p), b[0].shape))
        for k, (A, B) in enumerate(coefs):
            a_, b_ = edges[k] - p, edges[k + 1] - p
            total = total + (A + B * p) * (F(b_) - F(a_)) + B * (G(b_) - G(a_))
        return total

    def ext(p: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        # lines lo + B_- P (P < 0) and hi + B_+ (P - 1) (P > 1)
        Fm, Gm = F(-p), G(-p)
        Fp, Gp = F(1.0 - p), G(1.0 - p)
        base = lo * Fm + hi * (1.0 - Fp)
        u = p * Fm + Gm
        w = (p - 1.0) * (1.0 - Fp) - Gp
        return base, u, w

    zero, one = np.zeros(1), np.ones(1)
    b0, u0, w0 = ext(zero)
    b1, u1, w1 = ext(one)
    r0 = lo - body(zero) - b0
    r1 = hi - body(one) - b1
    det = u0 * w1 - w0 * u1
    Bm = (r0 * w1 - w0 * r1) / det
    Bp = (u0 * r1 - r0 * u1) / det
    base, u, w = ext(P)
    return body(P) + base + Bm * u + Bp * w


def _owned(P: FloatArray, lp: LinearPieces, dist: JumpDistribution, *, remote: bool) -> FloatArray:
    pt = lp.points
    A1, B1 = (lp.A_Or1, lp.B_Or1) if remote else (lp.A_O1, lp.B_O1)
    A2, B2 = (lp.A_Or2, lp.B_Or2) if remote else (lp.A_O2, lp.B_O2)
    return _integrate(
        P,
        [pt["rd_o"], pt["cp"], pt["tg_o"]],
        [(A1, B1), (2.0 * lp.A_U2, 2.0 * lp.B_U2), (1.0, 0.0), (A2, B2)],
        -lp.L,
        lp.W,
        dist,
    )


def _unavailable(P: FloatArray, lp: LinearPieces, dist: JumpDistribution) -> FloatArray:
    pt = lp.points
    return _integrate(
        P,
        [pt["tg_u"], pt["tp"], pt["rd_u"]],
        [(lp.A_U1, lp.B_U1), (-1.0, 0.0), (2.0 * lp.A_Or1, 2.0 * lp.B_Or1), (lp.A_U2, lp.B_U2)],
        -lp.L,
        lp.W,
        dist,
    )


def _centered(P: FloatArray, lp: LinearPieces, dist: JumpDistribution, *, jacoby: bool) -> FloatArray:
    pt = lp.points
    tgc_u = 0.0 if jacoby else pt["tg_uc"]
    tgc_o = 1.0 if jacoby else pt["tg_oc"]
    lo, hi = (-1.0, 1.0) if jacoby else (-lp.L, lp.W)
    return _integrate(
        P,
        [tgc_u, pt["tp"], pt["id_u"], pt["id_o"], pt["cp"], tgc_o],
        [
            (lp.A_C1, lp.B_C1),
            (-1.0, 0.0),
            (2.0 * lp.A_Or1, 2.0 * lp.B_Or1),
            (lp.A_C2, lp.B_C2),
            (2.0 * lp.A_U2, 2.0 * lp.B_U2),
            (1.0, 0.0),
            (lp.A_C3, lp.B_C3),
        ],
        lo,
        hi,
        dist,
    )


def nonlinear_equities(
    P: ArrayLike,
    W: ArrayLike,
    L: ArrayLike,
    alpha_r: ArrayLike,
    alpha_l: ArrayLike | None = None,
    *,
    distribution: str = "double-exponential",
    jacoby: bool = False,
) -> dict[str, FloatArray]:
    """Return the nonlinear-approximation equities at P (player's view, normalised to cube).

    Keys: the three :class:`CubeState` members (current cube level, F and G with the
    local volatility) and ``owned_doubled``, ``unavailable_doubled`` (remote volatility).
    All arguments broadcast.
    """
    check_choice(distribution, "distribution", DISTRIBUTIONS)
    P_ = check_probability(P, "P")
    W_, L_ = check_win_value(W, "W"), check_win_value(L, "L")
    ar = check_volatility(alpha_r, "alpha_r")
    al = ar if alpha_l is None else check_volatility(alpha_l, "alpha_l")
    P_, W_, L_, ar, al = np.broadcast_arrays(P_, W_, L_, ar, al)
    lp_cur = linear_pieces(W_, L_, ar, al, jacoby=jacoby)
    lp_rem = linear_pieces(W_, L_, ar, ar, jacoby=jacoby)
    d_loc = JumpDistribution(distribution, al)
    d_rem = JumpDistribution(distribution, ar)
    return {
        CubeState.OWNED: _owned(P_, lp_cur, d_loc, remote=False),
        CubeState.UNAVAILABLE: _unavailable(P_, lp_cur, d_loc),
        CubeState.CENTERED: _centered(P_, lp_cur, d_loc, jacoby=jacoby),
        "owned_doubled": _owned(P_, lp_rem, d_rem, remote=True),
        "unavailable_doubled": _unavailable(P_, lp_rem, d_rem),
    }


@dataclass(frozen=True)
class JumpNonlinearModel:
    """Nonlinear approximation with remote volatility ``alpha`` and optional local ``alpha_l``."""

    alpha: float
    alpha_l: float | None = None
    distribution: str = "double-exponential"

    def __post_init__(self) -> None:
        check_volatility(self.alpha, "alpha")
        if self.alpha_l is not None:
            check_volatility(self.alpha_l, "alpha_l")
        check_choice(self.distribution, "distribution", DISTRIBUTIONS)

    def equities(self, P: ArrayLike, W: ArrayLike, L: ArrayLike, *, jacoby: bool = False) -> dict[str, FloatArray]:
        """Return the equities at P (see :func:`nonlinear_equities`), player's view."""
        return nonlinear_equities(P, W, L, self.alpha, self.alpha_l, distribution=self.distribution, jacoby=jacoby)

    def curves(self, W: float, L: float, *, jacoby: bool = False) -> EquityCurves:
        """Return the equity curves of one game state (normalised to the cube)."""
        ar = self.alpha
        al = ar if self.alpha_l is None else self.alpha_l
        lp_cur = linear_pieces(W, L, ar, al, jacoby=jacoby)
        lp_rem = linear_pieces(W, L, ar, ar, jacoby=jacoby)
        d_loc = JumpDistribution(self.distribution, al)
        d_rem = JumpDistribution(self.distribution, ar)
        return EquityCurves(
            owned=lambda P: _owned(np.asarray(P, float), lp_cur, d_loc, remote=False),
            unavailable=lambda P: _unavailable(np.asarray(P, float), lp_cur, d_loc),
            centered=lambda P: _centered(np.asarray(P, float), lp_cur, d_loc, jacoby=jacoby),
            owned_doubled=lambda P: _owned(np.asarray(P, float), lp_rem, d_rem, remote=True),
            unavailable_doubled=lambda P: _unavailable(np.asarray(P, float), lp_rem, d_rem),
        )

    def points(self, W: float, L: float, *, jacoby: bool = False, beavers: bool = False) -> DecisionPoints:
        """Return the ten decision points (player's P), found from the nonlinear equities."""
        return find_decision_points(self.curves(W, L, jacoby=jacoby), jacoby=jacoby, beavers=beavers)
