"""Match-play cube strategies for play: batched double and take answers at match scores.

A :class:`MatchCubeModel` answers, for many positions at once, two questions seen by the side
on roll at its :class:`cube.match.MatchCube`: should it double (or redouble) now, and would the
opponent take? Both follow gnubg's decision rules (:func:`cube.match.decision_from_mwcs`) from
the model's three MWCs (no double, double/take, double/pass):

* :class:`GnubgMatchCube`: gnubg's cubeful MWC, ``(1 - x) cubeless + x live`` with a cube
  efficiency ``x`` (:func:`cube.match.cubeful_mwc`);
* :class:`JumpMatchCube`: the jump model (:mod:`cube.match_jump`) with a constant volatility,
  or with a local volatility per position (``local=True``; the remote one stays constant).

``double`` is True only for a (re)double the model makes (not "too good", not where the side on
roll cannot double); ``take`` says whether the opponent would take a double offered now (False
where no double is possible).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from cube.efficiency import DEFAULT_CUBE_LIFE
from cube.errors import CubeInputError, FloatArray, as_float_array, check_cube_life
from cube.gamestate import _check_probabilities
from cube.match import MatchCube, cubeful_mwc, decision_rule, game_result_mwc, mwc_to_equity
from cube.match_jump import MAX_MATCH_VOLATILITY, check_match_volatility, jump_leaf_mwcs, jump_mwc
from cube.met import MatchEquityTable
from cube.states import CubeAction, CubeResponse
from cube.two_roll import SEARCH_CELLS, LeafMwcs, batch_of, two_roll_mwcs, uncertain_cells, wins_gammons

__all__ = [
    "LINEAR_ALPHA",
    "GnubgMatchCube",
    "JumpMatchCube",
    "MatchCubeActions",
    "MatchCubeModel",
    "MatchCubes",
]

#: Higgins' self-play optimum of a constant volatility in the linear approximation (seed 000, section 2:
#: 11.3%, i.e. the statistical 9.1% times 1.24); the jump match model is that approximation in MWC space.
LINEAR_ALPHA = 0.113
#: One cube for every position, or one per position.
MatchCubes = MatchCube | Sequence[MatchCube]


@dataclass(frozen=True)
class MatchCubeActions:
    """Boolean arrays, one entry per position: the side on roll doubles; the opponent would take; the side on roll
    is too good to double (plays on for a gammon). Unpacks as the pair ``double, take``."""

    double: NDArray[np.bool_]
    take: NDArray[np.bool_]
    too_good: NDArray[np.bool_]

    def __iter__(self) -> Iterator[NDArray[np.bool_]]:
        return iter((self.double, self.take))


class MatchCubeModel(Protocol):
    """A match-play cube strategy: batched decisions from cubeless probabilities (side on roll)."""

    name: str
    #: True if :meth:`decide` needs ``volatility`` (one local jump volatility per position).
    needs_volatility: bool

    def decide(
        self,
        probs: ArrayLike,
        cubes: MatchCubes,
        volatility: ArrayLike | None = None,
        lookahead: ArrayLike | None = None,
    ) -> MatchCubeActions:
        """Double and take answers for ``probs`` (shape (n, 5)) at ``cubes`` (one, or one per position); ``lookahead``
        ((n, 441, 5) two-roll outcomes) where the model can use it."""
        ...


def _cube_groups(cubes: MatchCubes, n: int) -> dict[MatchCube, NDArray[np.intp]]:
    """Positions grouped by cube (indices into the batch)."""
    if isinstance(cubes, MatchCube):
        return {cubes: np.arange(n)}
    if len(cubes) != n:
        raise CubeInputError(f"{len(cubes)} match cubes for {n} positions")
    groups: dict[MatchCube, list[int]] = {}
    for i, c in enumerate(cubes):
        if not isinstance(c, MatchCube):
            raise CubeInputError(f"cube {i} is {c!r}, not a MatchCube")
        groups.setdefault(c, []).append(i)
    return {c: np.array(idx, dtype=np.intp) for c, idx in groups.items()}


class _MwcModel:
    """Shared batching: subclasses give the MWC at a cube (current volatility or remote only)."""

    name: str = "match cube"
    needs_volatility: bool = False
    met: MatchEquityTable

    def _mwc(self, probs: FloatArray, cube: MatchCube, volatility: FloatArray | None) -> FloatArray:
        raise NotImplementedError

    def _leaf_mwcs(self) -> LeafMwcs | None:
        """The model's MWCs at the open lines of a two-roll search; None: the exact figures where decided only."""
        return None

    def _volatility(self, volatility: ArrayLike | None, n: int) -> FloatArray | None:
        if volatility is None:
            if self.needs_volatility:
                raise CubeInputError(f"model {self.name} needs one local jump volatility per position")
            return None
        v = np.broadcast_to(check_match_volatility(volatility, "volatility"), (n,))
        return np.asarray(v, dtype=np.float64)

    def decide(
        self,
        probs: ArrayLike,
        cubes: MatchCubes,
        volatility: ArrayLike | None = None,
        lookahead: ArrayLike | None = None,
    ) -> MatchCubeActions:
        """Double and take answers for ``probs`` (shape (n, 5)) at ``cubes`` (one, or one per position).

        A local model given ``lookahead`` ((n, 441, 5) two-roll outcomes) takes the exact MWCs where it shows the
        game decided, and the two-roll search's where it shows it nearly decided (:mod:`cube.two_roll`).
        """
        arr = _check_probabilities(probs)
        if arr.ndim != 2:
            raise CubeInputError(f"decide takes probabilities of shape (n, 5), got shape {arr.shape}")
        n = arr.shape[0]
        vol = self._volatility(volatility, n)
        searched = np.zeros(n, dtype=bool)
        outcomes = None if lookahead is None else batch_of(lookahead, n)
        if outcomes is not None and outcomes.ndim != 3:
            raise CubeInputError(f"a match score needs the lookahead's five probabilities a cell, got {outcomes.shape}")
        if outcomes is not None and self.needs_volatility:
            searched = uncertain_cells(outcomes) <= (0 if self._leaf_mwcs() is None else SEARCH_CELLS)
        double, take, too_good = (np.zeros(n, dtype=bool) for _ in range(3))
        for cube, idx in _cube_groups(cubes, n).items():
            if not cube.can_double:
                continue
            p = arr[idx]
            nd = self._mwc(p, cube, None if vol is None else vol[idx])
            dt = self._mwc(p, cube.doubled(), None)
            gammons = p[:, 1] > 0.0
            rows = np.flatnonzero(searched[idx])
            if len(rows):
                assert outcomes is not None
                searched_nd, searched_dt = two_roll_mwcs(outcomes[idx[rows]], self.met, cube, self._leaf_mwcs())
                assert searched_dt is not None  # the side on roll can double here
                nd, dt = nd.copy(), dt.copy()
                nd[rows], dt[rows] = searched_nd, searched_dt
                gammons[rows] = wins_gammons(outcomes[idx[rows]])
            dp = np.full(len(idx), game_result_mwc(self.met, cube.score, won=cube.value))
            # gnubg's rules on the normalised equities (cube.match.decision_rule, as the one-position decision)
            nd_eq, dt_eq, dp_eq = (mwc_to_equity(v, self.met, cube) for v in (nd, dt, dp))
            rule = decision_rule(nd_eq, dt_eq, dp_eq, gammons)
            double[idx] = rule.action == CubeAction.DOUBLE
            take[idx] = rule.response == CubeResponse.TAKE
            too_good[idx] = rule.action == CubeAction.TOO_GOOD
        return MatchCubeActions(double, take, too_good)

    def __repr__(self) -> str:
        return self.name


class GnubgMatchCube(_MwcModel):
    """gnubg's match cube: cubeful MWC ``(1 - x) cubeless + x live`` with one cube efficiency ``x``."""

    def __init__(self, met: MatchEquityTable, x: float = DEFAULT_CUBE_LIFE) -> None:
        self.met = met
        self.x = float(check_cube_life(x, "x"))
        self.name = f"gnubg-match(x={self.x:g})"

    def _mwc(self, probs: FloatArray, cube: MatchCube, volatility: FloatArray | None) -> FloatArray:
        return cubeful_mwc(probs, self.met, cube, self.x)


class JumpMatchCube(_MwcModel):
    """The jump model at a match score: remote volatility ``alpha``; ``local=True`` takes one local one per position.

    Local volatilities are used as given (apply :data:`cube.jump_linear.STATISTICAL_SCALE` to a
    441-roll estimate first) and clipped below 0.5.
    """

    def __init__(self, met: MatchEquityTable, alpha: float = LINEAR_ALPHA, *, local: bool = False) -> None:
        self.met = met
        self.alpha = float(check_match_volatility(alpha, "alpha"))
        self.needs_volatility = local
        self.name = f"jump-match({'local, ' if local else ''}alpha={self.alpha:g})"

    def _volatility(self, volatility: ArrayLike | None, n: int) -> FloatArray | None:
        if volatility is not None and not self.needs_volatility:
            raise CubeInputError(f"model {self.name} has a constant volatility; build it with local=True")
        if volatility is not None:
            # a lookahead can measure more than the approximation accepts: use the largest it takes
            volatility = np.minimum(as_float_array(volatility, "volatility"), np.nextafter(MAX_MATCH_VOLATILITY, 0.0))
        return super()._volatility(volatility, n)

    def _mwc(self, probs: FloatArray, cube: MatchCube, volatility: FloatArray | None) -> FloatArray:
        return jump_mwc(probs, self.met, cube, self.alpha, volatility)

    def _leaf_mwcs(self) -> LeafMwcs | None:
        return jump_leaf_mwcs(self.met, self.alpha)
