"""GNU Backgammon's 0-ply cube model, money and match, from probabilities and each position's cube life.

gnubg mixes the dead and the fully live cube, ``(1 - x) dead + x live`` (Janowski), with the
cube life ``x`` set by the position's class (:mod:`cube.efficiency`): 0.68 in contact and
crashed positions, ``0.00125 pips + 0.55`` clipped to [0.6, 0.7] in a race (the side on roll's
pips), 0.6 in one-sided bear-offs. Where exact cubeful equities are known (the two-sided
bear-off database, which holds the money no-double equity of each cube state) gnubg uses them:

* **money**: no double is the database's equity for the cube state, double/take twice the
  equity with the opponent owning the cube, double/pass +1: no model at all;
* **match**: the x that makes Janowski's money formula give the database's money equity, for
  the cube as it is and, after a double, for the opponent owning it (:func:`effective_cube_life`,
  capped at 0.6), then gnubg's match formula.

This module is pure numpy: the caller classifies the positions and looks the database up (see
:mod:`nets.cube_advice`), and hands over one :class:`CubeLife` per position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from cube.actions import ProperAction, proper_action
from cube.efficiency import CubeEfficiency, PositionClass, effective_cube_life
from cube.gamestate import win_loss_values
from cube.janowski import gnubg_equity, live_equity
from cube.match import MatchCube, MatchCubeDecision, cube_decision
from cube.met import MatchEquityTable
from cube.states import CubeState
from cube.strategy import CubeDecision, CubeDecisions, money_decisions

__all__ = [
    "GNUBG_MODEL",
    "CubeLife",
    "gnubg_match_decision",
    "gnubg_money_decisions",
    "match_cube_lives",
    "money_proper_action",
]

#: The one name of this model (cube specs, labels, JSON).
GNUBG_MODEL = "gnubg"


@dataclass(frozen=True)
class CubeLife:
    """How gnubg's model treats one position's cube: its class, the x it uses, or the exact database values.

    ``x`` and ``x_doubled`` are the cube life as the cube is and after a double (equal except in
    two-sided bear-offs at a match score); ``exact`` holds the database's money no-double
    equities (centred, owned, unavailable; side on roll's view, per unit cube) in two-sided
    bear-offs, else None; ``pips`` is the side on roll's pip count where the class uses it.
    """

    position_class: PositionClass
    x: float
    x_doubled: float
    pips: int | None = None
    exact: tuple[float, float, float] | None = None

    @classmethod
    def of_class(
        cls,
        position_class: PositionClass,
        pips: int,
        exact: tuple[float, float, float] | None = None,
        efficiency: CubeEfficiency | None = None,
    ) -> CubeLife:
        """The class's cube life (races by the side on roll's ``pips``); two-sided bear-offs need ``exact``."""
        eff = efficiency or CubeEfficiency()
        kind = PositionClass(position_class)
        if kind is PositionClass.BEAROFF_TWO_SIDED and exact is None:
            raise ValueError("a two-sided bear-off needs the database's cubeful equities")
        x = eff.x(kind, pips if kind is PositionClass.RACE else None)
        return cls(kind, x, x, pips if kind is PositionClass.RACE else None, exact)

    @property
    def reason(self) -> str:
        """Why this x: the class, and the pips or the database."""
        if self.position_class is PositionClass.RACE:
            return f"race, {self.pips} pips"
        if self.exact is not None:
            return "two-sided bear-off database"
        return str(self.position_class)

    def label(self, x: float | None = None, x_doubled: float | None = None) -> str:
        """The model's label: ``gnubg(x=0.645: race, 76 pips)``, ``gnubg(exact: two-sided bear-off database)``.

        A match decision passes the x it used (:func:`match_cube_lives`); money leaves them out.
        """
        if x is None and self.exact is not None:
            return f"{GNUBG_MODEL}(exact: {self.reason})"
        if x is not None and self.exact is not None:
            after = 0.0 if x_doubled is None else x_doubled
            # + 0.0 turns a clipped -0.0 into 0.0 for printing
            return f"{GNUBG_MODEL}(x={x + 0.0:.3f}, after a double {after + 0.0:.3f}: effective, {self.reason})"
        return f"{GNUBG_MODEL}(x={self.x:.3f}: {self.reason})"


def gnubg_money_decisions(
    probs: ArrayLike,
    states: CubeState | str | np.ndarray,
    lives: list[CubeLife],
    *,
    jacoby: bool = False,
    beavers: bool = False,
) -> CubeDecisions:
    """gnubg's money cube decisions of many positions (probs (n, 5), side on roll's view, per unit cube).

    ``(1 - x) dead + x live`` (:func:`cube.janowski.gnubg_equity`) at each position's x, or the
    database's exact equities where a :class:`CubeLife` holds them.
    """
    arr = np.atleast_2d(np.asarray(probs, dtype=np.float64))
    n = len(arr)
    if len(lives) != n:
        raise ValueError(f"{len(lives)} cube lives for {n} positions")
    state_arr = np.broadcast_to(np.asarray(states, dtype=str), (n,)).copy()
    nd = np.empty(n)
    dt = np.empty(n)
    P, W, L = (np.atleast_1d(v) for v in win_loss_values(arr))
    xs = np.array([life.x for life in lives])
    for state in np.unique(state_arr):
        rows = np.flatnonzero(state_arr == state)
        nd[rows] = gnubg_equity(P[rows], W[rows], L[rows], xs[rows], str(state), jacoby=jacoby)
    dt[:] = 2.0 * gnubg_equity(P, W, L, xs, CubeState.UNAVAILABLE)
    for i, life in enumerate(lives):
        if life.exact is not None:  # the database's money equities replace the model
            by_state = dict(zip((CubeState.CENTERED, CubeState.OWNED, CubeState.UNAVAILABLE), life.exact, strict=True))
            nd[i] = by_state[CubeState(state_arr[i])]
            dt[i] = 2.0 * by_state[CubeState.UNAVAILABLE]
    return money_decisions(nd, dt, state_arr, beavers=beavers)


def money_proper_action(decision: CubeDecision) -> ProperAction:
    """gnubg's name of a money decision (``Cube not available`` where the opponent owns the cube)."""
    return proper_action(decision.action, decision.response, decision.cube_state)


def match_cube_lives(life: CubeLife, probs: ArrayLike, state: CubeState | str) -> tuple[float, float]:
    """(x as the cube is, x after a double) that gnubg uses at a match score for a position of ``life``.

    Two-sided bear-offs: the x that makes Janowski's money formula give the database's money
    equity, for ``state`` and for the opponent owning the cube, capped at 0.6.
    """
    if life.exact is None:
        return life.x, life.x_doubled
    p, w, l = win_loss_values(np.asarray(probs, dtype=np.float64))
    cubeless = float(p * w - (1.0 - p) * l)
    cap = CubeEfficiency().bearoff_two_sided
    by_state = dict(zip((CubeState.CENTERED, CubeState.OWNED, CubeState.UNAVAILABLE), life.exact, strict=True))

    def x_of(s: CubeState) -> float:
        return effective_cube_life(cubeless, float(live_equity(p, w, l, s)), by_state[s], cap)

    return x_of(CubeState(state)), x_of(CubeState.UNAVAILABLE)


def gnubg_match_decision(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube, life: CubeLife) -> MatchCubeDecision:
    """gnubg's cube decision at a match score (five probabilities of the side on roll, at ``cube``)."""
    x, x_doubled = match_cube_lives(life, probs, cube.state)
    return cube_decision(probs, met, cube, x, x_doubled)
