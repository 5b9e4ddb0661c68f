"""Decision points and the generic way to find them from cubeful-equity curves.

All points are cubeless win probabilities P of the player (side on roll), named as in
Higgins (2012); ``POINT_MEANINGS`` says what each is and which equities define it, in
increasing order of P (E_C: the player's cubeful equity with the cube centred, E_O: owned by
the player, E_U: owned by the opponent, all normalised to the cube).

Equities are normalised to the current cube value.  With beavers the doubling equity is
``min(2 E_U, 4 E_U)`` (the opponent beavers when E_U < 0), and symmetrically for the
opponent's doubles.  Under the Jacoby rule there is no too-good point with a centred cube
(gammons do not count until the cube is turned), so ``tg_uc`` and ``tg_oc`` are None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import brentq

from cube.errors import FloatArray

__all__ = ["POINT_MEANINGS", "POINT_NAMES", "DecisionPoints", "EquityCurves", "find_decision_points"]

# Each point's meaning and defining equation, in increasing order of P (the order of POINT_NAMES).
POINT_MEANINGS: dict[str, str] = {
    "tg_uc": "opponent too good to double, centred cube (E_C = -1)",
    "tg_u": "opponent too good to redouble, opponent owns the cube (E_U = -1)",
    "tp": "player's take point (E_O at the doubled cube = -1/2)",
    "rd_u": "opponent's redouble point (E_U = 2 E_O)",
    "id_u": "opponent's initial double point (E_C = 2 E_O)",
    "id_o": "player's initial double point (E_C = 2 E_U)",
    "rd_o": "player's redouble point (E_O = 2 E_U)",
    "cp": "player's cash point, the opponent's take point (E_U at the doubled cube = +1/2)",
    "tg_o": "player too good to redouble (E_O = +1)",
    "tg_oc": "player too good to double, centred cube (E_C = +1)",
}
POINT_NAMES: tuple[str, ...] = tuple(POINT_MEANINGS)


@dataclass(frozen=True)
class DecisionPoints:
    """The ten cube decision points of a model, as the player's cubeless win probability.

    A point a model does not define is None.
    """

    tg_uc: float | None = None
    tg_u: float | None = None
    tp: float | None = None
    rd_u: float | None = None
    id_u: float | None = None
    id_o: float | None = None
    rd_o: float | None = None
    cp: float | None = None
    tg_o: float | None = None
    tg_oc: float | None = None

    def as_dict(self) -> dict[str, float | None]:
        """Return the points keyed by the paper's names (None where undefined)."""
        return asdict(self)

    def defined(self) -> dict[str, float]:
        """Return only the points the model defines."""
        return {k: v for k, v in asdict(self).items() if v is not None}


Curve = Callable[[FloatArray], FloatArray]


@dataclass(frozen=True)
class EquityCurves:
    """Cubeful equity curves of one game state (fixed W, L), as functions of P.

    ``owned``, ``unavailable``, ``centered`` are at the current cube level (where a local
    volatility, if any, applies); ``owned_doubled`` and ``unavailable_doubled`` are the
    equities after a double, normalised to the doubled cube (remote volatility).  All are
    from the player's (side on roll's) perspective.
    """

    owned: Curve
    unavailable: Curve
    centered: Curve
    owned_doubled: Curve
    unavailable_doubled: Curve


_SCAN = np.linspace(0.0, 1.0, 2001)
#: How far past the cash (+-1 per cube) a curve must go to be too good rather than a rounded tie.
_CASH_TIE = 1e-12


def _crossings(f: Callable[[FloatArray], FloatArray], lo: float, hi: float) -> list[float]:
    """Return the zeros of ``f`` on [lo, hi] (sign changes on a fine grid, refined)."""
    if hi <= lo:
        return []
    grid = np.concatenate(([lo], _SCAN[(lo < _SCAN) & (hi > _SCAN)], [hi]))
    vals = np.asarray(f(grid), dtype=np.float64)
    roots: list[float] = []
    for k in range(len(grid) - 1):
        a, b = vals[k], vals[k + 1]
        if a == 0.0:
            if not roots or abs(roots[-1] - grid[k]) > 1e-12:
                roots.append(float(grid[k]))
        elif a * b < 0.0:
            g = lambda t: float(np.asarray(f(np.array([t])))[0])  # noqa: E731
            roots.append(float(brentq(g, grid[k], grid[k + 1], xtol=1e-13, rtol=1e-13)))
    if vals[-1] == 0.0 and (not roots or abs(roots[-1] - hi) > 1e-12):
        roots.append(float(hi))
    return roots


def _level(f: Curve, target: float) -> float:
    """Return the first P in [0, 1] where the increasing curve f reaches ``target``."""
    vals = f(np.array([0.0, 1.0]))
    if vals[0] >= target:
        return 0.0
    if vals[1] < target:
        return 1.0
    roots = _crossings(lambda p: f(p) - target, 0.0, 1.0)
    return roots[0] if roots else 1.0


def _window_start(gain: Curve, lo: float, hi: float) -> float:
    """Return the start of the last interval in [lo, hi] ending at hi where gain >= 0.

    Used for doubling points: ``gain`` = doubling equity - no-double equity.  If the gain
    is negative at ``hi`` there is no doubling window and ``hi`` is returned.
    """
    if hi <= lo:
        return hi
    if float(gain(np.array([hi]))[0]) < 0.0:
        return hi
    roots = _crossings(gain, lo, hi)
    return roots[-1] if roots else lo


def _window_end(gain: Curve, lo: float, hi: float) -> float:
    """Return the end of the first interval in [lo, hi] starting at lo where gain >= 0."""
    if hi <= lo:
        return lo
    if float(gain(np.array([lo]))[0]) < 0.0:
        return lo
    roots = _crossings(gain, lo, hi)
    return roots[0] if roots else hi


def player_double_equity(unavailable_doubled: FloatArray, beavers: bool) -> FloatArray:
    """Return the player's equity after doubling and a take (or beaver), current-cube units."""
    dt = 2.0 * unavailable_doubled
    return np.minimum(dt, 4.0 * unavailable_doubled) if beavers else dt


def opponent_double_equity(owned_doubled: FloatArray, beavers: bool) -> FloatArray:
    """Return the player's equity after the opponent doubles and the player takes (or beavers)."""
    dt = 2.0 * owned_doubled
    return np.maximum(dt, 4.0 * owned_doubled) if beavers else dt


def find_decision_points(curves: EquityCurves, *, jacoby: bool = False, beavers: bool = False) -> DecisionPoints:
    """Return the ten decision points implied by the equity curves (player's P).

    Points are found numerically (sign changes on a 2001-point grid refined by Brent's
    method), so this works for every model; closed forms exist for some models and are
    tested against it.
    """
    O, U, C = curves.owned, curves.unavailable, curves.centered
    Od, Ud = curves.owned_doubled, curves.unavailable_doubled
    tp = _level(Od, -0.5)
    cp = _level(Ud, 0.5)

    def dbl(p: FloatArray) -> FloatArray:
        return player_double_equity(Ud(p), beavers)

    def opp(p: FloatArray) -> FloatArray:
        return opponent_double_equity(Od(p), beavers)

    rd_o = _window_start(lambda p: dbl(p) - O(p), tp, cp)
    id_o = _window_start(lambda p: dbl(p) - C(p), tp, cp)
    rd_u = _window_end(lambda p: U(p) - opp(p), tp, cp)
    id_u = _window_end(lambda p: C(p) - opp(p), tp, cp)
    # Too good: playing on beats the cash (a curve past +-1), not merely ties it, as decide() breaks a tie
    # by doubling. Without gammons a curve only meets the cash, and with a small volatility its thin tail
    # rounds to exactly +-1 well inside [cp, 1]: read as a crossing, that reported a too-good point there.
    tg_o = _level(O, 1.0 + _CASH_TIE)
    tg_u = _level(U, -1.0 - _CASH_TIE)
    tg_oc: float | None = None
    tg_uc: float | None = None
    if not jacoby:
        tg_oc = _level(C, 1.0 + _CASH_TIE)
        tg_uc = _level(C, -1.0 - _CASH_TIE)
    return DecisionPoints(
        tg_uc=tg_uc,
        tg_u=tg_u,
        tp=tp,
        rd_u=rd_u,
        id_u=id_u,
        id_o=id_o,
        rd_o=rd_o,
        cp=cp,
        tg_o=tg_o,
        tg_oc=tg_oc,
    )
