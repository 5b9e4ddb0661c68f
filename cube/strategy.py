"""Cube actions for play: strategies answering double / take / too good / redouble.

Every strategy takes the player's (side on roll's) five cubeless probabilities, shape (5,)
or (n, 5), and a :class:`~cube.states.CubeState` (``CENTERED``, ``OWNED`` = the side on roll
owns it, ``UNAVAILABLE`` = the opponent owns it; or its string value), one or one per
position.  Equities are from the side on roll's view, normalised to the current cube value
(multiply by it).

Decision rule (money game): the no-double equity ND is E_C (E_O if the player owns the
cube).  If the player may double, the opponent answers with the response minimising the
player's equity among pass (+1), take (2 E_U after the double) and, with beavers, beaver
(4 E_U: the opponent redoubles to 4 and keeps the cube; raccoons are not modelled).  The
player doubles when that equity exceeds ND; too good (:attr:`CubeAction.TOO_GOOD`) means
ND > 1 while the opponent would pass.  Under the Jacoby rule the centred equity counts no
gammons, so a centred position is never too good.

Strategies: :func:`dead`, :func:`live`, :func:`janowski`, :func:`janowski_refined`,
:func:`jump` (constant volatility) and :func:`jump_local` (local volatility from the
evaluator's 441-roll lookahead, see :mod:`cube.volatility`).  The numerical jump model is
tabulated lazily on a (W, L) grid (step 0.05) and interpolated bilinearly, so a decision
costs microseconds once the few grid corners a game visits are solved (~15 ms each).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from cube.actions import ProperAction
from cube.errors import (
    CubeInputError,
    FloatArray,
    as_float_array,
    check_choice,
    check_cube_state,
    check_volatility,
)
from cube.gamestate import win_loss_values
from cube.janowski import JanowskiModel
from cube.jump_linear import STATISTICAL_SCALE, evaluate, linear_pieces
from cube.jump_nonlinear import nonlinear_equities
from cube.jump_numerical import DEFAULT_N, NumericalSolution, StepKernel, solve, step_kernel
from cube.states import CubeAction, CubeResponse, CubeState
from cube.two_roll import (
    DECIDED_TOLERANCE,
    SEARCH_CELLS,
    batch_of,
    decided_leaf_values,
    two_roll_money_equities,
    uncertain_cells,
    win_chances,
)
from cube.volatility import VolatilityMeasure, local_volatility

__all__ = [
    "APPROXIMATIONS",
    "CubeDecision",
    "CubeDecisions",
    "CubeStrategy",
    "JanowskiStrategy",
    "JumpApproximation",
    "JumpStrategy",
    "dead",
    "janowski",
    "janowski_refined",
    "jump",
    "jump_local",
    "live",
    "money_decisions",
]


class JumpApproximation(StrEnum):
    """How the jump model's equities are computed: Higgins' linear pieces, the nonlinear model, or numerically."""

    LINEAR = "linear"
    NONLINEAR = "nonlinear"
    NUMERICAL = "numerical"


#: The jump approximations as a tuple, in :class:`JumpApproximation`'s order.
APPROXIMATIONS: tuple[str, ...] = tuple(JumpApproximation)
#: A cube state for every position, or one per position (enum members or their string values).
CubeStates: TypeAlias = CubeState | str | Sequence[str] | NDArray[np.str_]
#: Smallest local volatility used (a lookahead can give 0, e.g. in a certain win).
MIN_LOCAL_ALPHA = 1e-3
_MAX_ALPHA = 0.49


@dataclass(frozen=True)
class CubeDecision:
    """The cube decision for one position (side on roll's view, per unit current cube).

    ``action`` is the side on roll's :class:`CubeAction` (``NO_DOUBLE`` when the cube is
    unavailable); ``response`` is the opponent's best :class:`CubeResponse` to a double.
    ``equity`` is the cubeful equity after optimal cube actions.
    """

    cube_state: CubeState
    action: CubeAction
    response: CubeResponse
    no_double: float
    double_take: float
    double_pass: float
    double_beaver: float | None
    equity: float

    @property
    def double(self) -> bool:
        """True if the side on roll should (re)double."""
        return self.action == CubeAction.DOUBLE

    @property
    def redouble(self) -> bool:
        """True if the side on roll owns the cube and should redouble."""
        return self.double and self.cube_state == CubeState.OWNED

    @property
    def too_good(self) -> bool:
        """True if the side on roll is too good to double (plays on for the gammon)."""
        return self.action == CubeAction.TOO_GOOD

    @property
    def take(self) -> bool:
        """True if the opponent should accept a double (take or beaver)."""
        return self.response in (CubeResponse.TAKE, CubeResponse.BEAVER)

    @property
    def beaver(self) -> bool:
        """True if the opponent should beaver a double."""
        return self.response == CubeResponse.BEAVER

    @property
    def label(self) -> str:
        """Human label, e.g. "Double, take", "Too good to redouble, pass", "No double, take"."""
        if self.cube_state == CubeState.UNAVAILABLE:
            return str(ProperAction.NOT_AVAILABLE)
        verb = "redouble" if self.cube_state == CubeState.OWNED else "double"
        first = {
            CubeAction.DOUBLE: verb.capitalize(),
            CubeAction.NO_DOUBLE: f"No {verb}",
            CubeAction.TOO_GOOD: f"Too good to {verb}",
        }[self.action]
        return f"{first}, {self.response}"


@dataclass(frozen=True)
class CubeDecisions:
    """Vectorised cube decisions: one entry per position (see :class:`CubeDecision`).

    ``cube_state``, ``action`` and ``response`` are numpy string arrays of the enum values.
    """

    cube_state: NDArray[np.str_]
    action: NDArray[np.str_]
    response: NDArray[np.str_]
    no_double: FloatArray
    double_take: FloatArray
    double_pass: FloatArray
    double_beaver: FloatArray
    equity: FloatArray
    beavers: bool = False

    def __len__(self) -> int:
        return int(self.action.shape[0])

    def __getitem__(self, i: int) -> CubeDecision:
        return CubeDecision(
            cube_state=CubeState(self.cube_state[i]),
            action=CubeAction(self.action[i]),
            response=CubeResponse(self.response[i]),
            no_double=float(self.no_double[i]),
            double_take=float(self.double_take[i]),
            double_pass=float(self.double_pass[i]),
            double_beaver=float(self.double_beaver[i]) if self.beavers else None,
            equity=float(self.equity[i]),
        )

    @property
    def double(self) -> NDArray[np.bool_]:
        """Boolean array: the side on roll should (re)double."""
        return np.asarray(self.action == CubeAction.DOUBLE)

    @property
    def take(self) -> NDArray[np.bool_]:
        """Boolean array: the opponent should accept a double (take or beaver)."""
        return np.asarray((self.response == CubeResponse.TAKE) | (self.response == CubeResponse.BEAVER))

    @property
    def too_good(self) -> NDArray[np.bool_]:
        """Boolean array: too good to double."""
        return np.asarray(self.action == CubeAction.TOO_GOOD)

    def with_rows(self, rows: ArrayLike, other: CubeDecisions) -> CubeDecisions:
        """These decisions with positions ``rows`` replaced by ``other``'s (one entry per row, in order)."""
        idx = np.asarray(rows, dtype=np.intp)
        if len(other) != len(idx) or other.beavers != self.beavers:
            raise CubeInputError(f"{len(other)} decisions (beavers {other.beavers}) for {len(idx)} rows")
        merged: dict[str, Any] = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if not isinstance(mine, np.ndarray):  # the rules (beavers), the same for both
                merged[f.name] = mine
                continue
            out = mine.astype(np.result_type(mine, theirs)) if mine.dtype.kind == "U" else mine.copy()
            out[idx] = theirs
            merged[f.name] = out
        return CubeDecisions(**merged)


def _cube_states(cube_state: CubeStates, n: int) -> NDArray[np.str_]:
    """Return the validated cube states as a string array of n entries."""
    if isinstance(cube_state, str):
        return np.full(n, check_cube_state(cube_state).value)
    arr = np.asarray(cube_state, dtype=str).ravel()
    if arr.shape != (n,):
        raise CubeInputError(f"cube_state has {arr.shape[0]} entries for {n} positions")
    for s in np.unique(arr):
        check_cube_state(str(s))
    return arr


class CubeStrategy(ABC):
    """A money-game cube strategy driven by cubeless probabilities (vectorised)."""

    name: str = "strategy"
    #: True if :meth:`decide` needs ``local_alpha`` (or ``lookahead``).
    needs_local_volatility: bool = False
    #: How a ``lookahead`` becomes the local volatility (sigma_J, or E|J|).
    local_measure: VolatilityMeasure = VolatilityMeasure.STD
    #: A local strategy given a lookahead searches the two rolls where at most this many of its 441 win chances
    #: are uncertain (0: only where the game is decided within them, and the figures are exact).
    search_cells: int = 0

    @abstractmethod
    def _equities(
        self,
        P: FloatArray,
        W: FloatArray,
        L: FloatArray,
        local_alpha: FloatArray | None,
        jacoby: bool,
    ) -> dict[str, FloatArray]:
        """Equities of P, W, L arrays: the three CubeState keys (current cube level),
        owned_doubled, unavailable_doubled (after a double); side on roll's view."""

    def _local(self, n: int, local_alpha: ArrayLike | None, lookahead: ArrayLike | None) -> FloatArray | None:
        if lookahead is not None:
            local_alpha = local_volatility(win_chances(lookahead), measure=self.local_measure)
        if local_alpha is None:
            if self.needs_local_volatility:
                raise CubeInputError(f"strategy {self.name} needs local_alpha (or a 441-roll lookahead)")
            return None
        a = as_float_array(local_alpha, "local_alpha")
        if np.any(a < 0):
            raise CubeInputError(f"local_alpha = {float(a.min())!r} < 0")
        return np.broadcast_to(np.clip(a, MIN_LOCAL_ALPHA, _MAX_ALPHA), (n,)).copy()

    def equities(
        self,
        probs: ArrayLike,
        *,
        jacoby: bool = False,
        local_alpha: ArrayLike | None = None,
        lookahead: ArrayLike | None = None,
    ) -> dict[str, FloatArray]:
        """Return cubeful equities (side on roll's view, per unit cube), one per position.

        Keys: the three :class:`CubeState` members (no cube action now) and
        ``owned_doubled``, ``unavailable_doubled`` (after a double, doubled-cube units).
        Shapes follow ``probs``: scalars for shape (5,), arrays (n,) for (n, 5).
        """
        P, W, L = win_loss_values(probs)
        single = np.ndim(P) == 0
        P, W, L = np.atleast_1d(P), np.atleast_1d(W), np.atleast_1d(L)
        eq = self._local_equities(P, W, L, local_alpha, lookahead, jacoby)
        return {k: (v[0] if single else v) for k, v in eq.items()}

    def _local_equities(
        self,
        P: FloatArray,
        W: FloatArray,
        L: FloatArray,
        local_alpha: ArrayLike | None,
        lookahead: ArrayLike | None,
        jacoby: bool,
        beavers: bool = False,
    ) -> dict[str, FloatArray]:
        """:meth:`_equities`, except that a local strategy given a lookahead which shows the game decided within
        it takes the exact two-roll equities there, and the two-roll search's where at most ``search_cells`` lines
        are open (:mod:`cube.two_roll`): no jump model knows a game that ends."""
        look = None if lookahead is None else batch_of(lookahead, P.shape[0])
        eq = self._equities(P, W, L, self._local(P.shape[0], local_alpha, look), jacoby)
        if look is None or not self.needs_local_volatility:
            return eq
        rows = np.flatnonzero(uncertain_cells(look) <= self.search_cells)
        if len(rows):
            picked = look[rows]
            leaves = self._leaf_values(picked, W[rows], L[rows], jacoby, beavers)
            searched = two_roll_money_equities(picked, jacoby=jacoby, beavers=beavers, leaves=leaves)
            for key, values in searched.items():
                eq[key] = eq[key].copy()
                eq[key][rows] = values
        return eq

    def _leaf_values(
        self, lookahead: FloatArray, W: FloatArray, L: FloatArray, jacoby: bool, beavers: bool
    ) -> dict[CubeState, FloatArray]:
        """The side on roll's value at each two-roll cell (on roll again, its cube action taken), per cube state:
        (k, 21, 21) each. Decided cells are worth their result; uncertain ones what this model with its remote
        volatility says (the leaf's own volatility is unknown without another lookahead)."""
        leaves = decided_leaf_values(lookahead, W, L, jacoby=jacoby)
        p = win_chances(lookahead).reshape(-1, 21, 21)
        cells = np.flatnonzero(((p > DECIDED_TOLERANCE) & (p < 1.0 - DECIDED_TOLERANCE)).ravel())
        if not len(cells):
            return leaves
        if lookahead.ndim == 3:  # five probabilities a cell: the leaf's own gammons
            cP, cW, cL = win_loss_values(lookahead.reshape(-1, 5)[cells])
        else:
            cP = p.ravel()[cells]
            cW, cL = np.repeat(W, 441)[cells], np.repeat(L, 441)[cells]
        eq = self._equities(cP, cW, cL, None, jacoby)
        centred = np.minimum(eq[CubeState.CENTERED], 1.0) if jacoby else eq[CubeState.CENTERED]
        double_take = 2.0 * eq["unavailable_doubled"]
        for state, no_double in (
            (CubeState.CENTERED, centred),
            (CubeState.OWNED, eq[CubeState.OWNED]),
            (CubeState.UNAVAILABLE, eq[CubeState.UNAVAILABLE]),
        ):
            values = leaves[state].reshape(-1).copy()
            values[cells] = money_decisions(no_double, double_take, state, beavers=beavers).equity
            leaves[state] = values.reshape(leaves[state].shape)
        return leaves

    def decide(
        self,
        probs: ArrayLike,
        cube_state: CubeStates = CubeState.CENTERED,
        *,
        jacoby: bool = False,
        beavers: bool = False,
        local_alpha: ArrayLike | None = None,
        lookahead: ArrayLike | None = None,
    ) -> CubeDecisions:
        """Return the cube decisions of many positions (probs shape (n, 5) or (5,)).

        ``local_alpha`` (float or (n,)) or ``lookahead`` ((n, 441) win chances after two rolls, or
        (n, 441, 5) outcomes) give the local volatility for :func:`jump_local`; where a lookahead shows
        the game decided within it, :func:`jump_local` takes the exact equities, and where nearly decided the
        two-roll search's (:mod:`cube.two_roll`).
        """
        P, W, L = win_loss_values(probs)
        P, W, L = np.atleast_1d(P), np.atleast_1d(W), np.atleast_1d(L)
        n = P.shape[0]
        states = _cube_states(cube_state, n)
        eq = self._local_equities(P, W, L, local_alpha, lookahead, jacoby, beavers)
        centered = eq[CubeState.CENTERED]
        if jacoby:
            centered = np.minimum(centered, 1.0)
        nd = np.where(
            states == CubeState.OWNED,
            eq[CubeState.OWNED],
            np.where(states == CubeState.UNAVAILABLE, eq[CubeState.UNAVAILABLE], centered),
        )
        return money_decisions(nd, 2.0 * eq["unavailable_doubled"], states, beavers=beavers)

    def decision(
        self,
        probs: ArrayLike,
        cube_state: CubeState | str = CubeState.CENTERED,
        *,
        jacoby: bool = False,
        beavers: bool = False,
        local_alpha: float | None = None,
        lookahead: ArrayLike | None = None,
    ) -> CubeDecision:
        """Return the cube decision of one position (probs shape (5,))."""
        arr = np.asarray(probs, dtype=np.float64)
        if arr.shape != (5,):
            raise CubeInputError(f"decision() takes one position (shape (5,)), got {arr.shape}")
        la = None if local_alpha is None else [local_alpha]
        lk = None if lookahead is None else np.asarray(lookahead)[None, ...]
        return self.decide(arr[None, :], cube_state, jacoby=jacoby, beavers=beavers, local_alpha=la, lookahead=lk)[0]

    def cubeful_equity(
        self,
        probs: ArrayLike,
        cube_state: CubeStates = CubeState.CENTERED,
        **kwargs: Any,
    ) -> FloatArray:
        """Return the cubeful equity after optimal cube action, side on roll, per unit cube."""
        out = self.decide(probs, cube_state, **kwargs).equity
        return out[0] if np.ndim(np.asarray(probs)) == 1 else out

    def __repr__(self) -> str:
        return self.name


def money_decisions(
    no_double: ArrayLike, double_take: ArrayLike, cube_state: CubeStates, *, beavers: bool = False
) -> CubeDecisions:
    """Money cube decisions from each position's no-double and double/take equities (side on roll's view).

    Both per unit of the current cube; double/pass is +1, a beaver is twice the double/take (the
    opponent redoubles to 4 and keeps the cube). The module docstring gives the rule.
    """
    nd = np.atleast_1d(np.asarray(no_double, dtype=np.float64))
    dt = np.atleast_1d(np.asarray(double_take, dtype=np.float64))
    n = nd.shape[0]
    states = _cube_states(cube_state, n)
    db = 2.0 * dt
    dp = np.ones(n)
    resp = np.where(dt >= 1.0, CubeResponse.PASS.value, CubeResponse.TAKE.value)
    dbl = np.minimum(dt, 1.0)
    if beavers:
        resp = np.where((db < dt) & (dt < 1.0), CubeResponse.BEAVER.value, resp)
        dbl = np.minimum(dbl, db)
    can = states != CubeState.UNAVAILABLE
    # ties go to doubling (e.g. Jacoby: playing on can at best equal the cash)
    too_good = (nd > 1.0) & (dt >= 1.0)
    action = np.where(
        dbl >= nd, CubeAction.DOUBLE.value, np.where(too_good, CubeAction.TOO_GOOD.value, CubeAction.NO_DOUBLE.value)
    )
    action = np.where(can, action, CubeAction.NO_DOUBLE.value)
    equity = np.where(can, np.maximum(nd, dbl), nd)
    return CubeDecisions(
        cube_state=states,
        action=action,
        response=resp,
        no_double=nd,
        double_take=dt,
        double_pass=dp,
        double_beaver=db if beavers else np.full(n, np.nan),
        equity=equity,
        beavers=beavers,
    )


class JanowskiStrategy(CubeStrategy):
    """Janowski's (refined) general model: x1 for the side on roll, x2 for the opponent.

    ``capped=True`` is the play mode: the article's straight lines (5)-(7) are a dead/live mix
    whose live part keeps rising past the cash point (and falling below the take point), so
    without gammons (W = 1) a position near P = 1 is worth more than 1 and is called "too
    good".  Capped, the live part follows the live cube's piecewise curve instead (owned:
    (CP, 1) to (1, W); unavailable: (0, -L) to (TP, -1)), as gnubg's interpolation does, and
    the centred equity is kept between the capped unavailable and owned equities (gnubg's centred
    equity is the dead/live mix instead, :func:`cube.janowski.gnubg_equity`).  Inside the doubling
    window both modes agree.
    """

    def __init__(self, x1: float, x2: float | None = None, name: str | None = None, *, capped: bool = False) -> None:
        self.model = JanowskiModel(x1, x2)
        self.capped = capped
        if name is None:
            m = self.model
            name = f"janowski({m.x1:g})" if m.x1 == m.x2 else f"janowski_refined({m.x1:g}, {m.x2:g})"
            if capped:
                name = name[:-1] + ", capped)"
        self.name = name

    def _equities(
        self,
        P: FloatArray,
        W: FloatArray,
        L: FloatArray,
        local_alpha: FloatArray | None,
        jacoby: bool,
    ) -> dict[str, FloatArray]:
        m = self.model
        o = m.owned(P, W, L)
        u = m.unavailable(P, W, L)
        c = m.centered(P, W, L, jacoby=jacoby)
        if self.capped:
            o, u, c = _capped(P, W, L, m.x1, m.x2, o, u, c)
        return {
            CubeState.CENTERED: c,
            CubeState.OWNED: o,
            CubeState.UNAVAILABLE: u,
            "owned_doubled": o,
            "unavailable_doubled": u,
        }


def _capped(
    P: FloatArray,
    W: FloatArray,
    L: FloatArray,
    x1: float,
    x2: float,
    owned: FloatArray,
    unavailable: FloatArray,
    centered: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return (owned, unavailable, centred) with the live part capped as in JanowskiStrategy."""
    S = W + L + 0.5
    cp = (L + 1.0) / S
    tp = (L - 0.5) / S
    # owned: the straight live line P S - L passes (CP, 1); past it the live cube cashes or
    # plays on for gammons along (CP, 1) -> (1, W)
    live_line = P * S - L
    live_owned = np.where(cp < P, 1.0 + (P - cp) * (W - 1.0) / np.maximum(1.0 - cp, 1e-12), live_line)
    owned = owned - x1 * np.maximum(live_line - live_owned, 0.0)
    # unavailable: the line P S - L - 1/2 passes (TP, -1); below it the opponent cashes or plays
    # on along (0, -L) -> (TP, -1)
    live_line_u = live_line - 0.5
    live_unavail = np.where(tp > P, -L + P * (L - 1.0) / np.maximum(tp, 1e-12), live_line_u)
    unavailable = unavailable + x2 * np.maximum(live_unavail - live_line_u, 0.0)
    centered = np.clip(centered, unavailable, owned)
    return owned, unavailable, centered


#: Solves one (W, L, alpha, distribution, N) of the numerical jump model: :func:`solve` or a cache of it.
Solver = Callable[[float, float, float, str, int], NumericalSolution]


@dataclass
class _NumericalTable:
    """Lazy (W, L) grid of numerical solutions, bilinearly interpolated; corners come from ``solver``."""

    alpha: float
    distribution: str
    N: int = DEFAULT_N
    step: float = 0.05
    cache: dict[tuple[int, int], NumericalSolution] = field(default_factory=dict)
    solver: Solver = solve

    def corner(self, i: int, j: int) -> NumericalSolution:
        key = (i, j)
        sol = self.cache.get(key)
        if sol is None:
            sol = self.solver(1.0 + i * self.step, 1.0 + j * self.step, self.alpha, self.distribution, self.N)
            self.cache[key] = sol
        return sol

    def tabulate(self, W_max: float = 2.0, L_max: float = 2.0) -> int:
        """Solve every grid corner up to W_max, L_max; return how many are cached."""
        for i in range(int(np.ceil((W_max - 1.0) / self.step)) + 1):
            for j in range(int(np.ceil((L_max - 1.0) / self.step)) + 1):
                self.corner(i, j)
        return len(self.cache)

    def evaluate(
        self,
        P: FloatArray,
        W: FloatArray,
        L: FloatArray,
        local_alpha: FloatArray | None,
        jacoby: bool,
    ) -> dict[str, FloatArray]:
        kmax = int(round(2.0 / self.step))
        fw = (W - 1.0) / self.step
        fl = (L - 1.0) / self.step
        i0 = np.clip(np.floor(fw).astype(int), 0, kmax - 1)
        j0 = np.clip(np.floor(fl).astype(int), 0, kmax - 1)
        tw = np.clip(fw - i0, 0.0, 1.0)
        tl = np.clip(fl - j0, 0.0, 1.0)
        keys = (*CubeState, "owned_doubled", "unavailable_doubled")
        out = {k: np.zeros_like(P) for k in keys}
        # One jump's kernel depends on P, the local volatility and the grid (the same at every
        # corner), not on (W, L): computed once here, it serves all four corners and three states.
        kernel = None
        if local_alpha is not None:
            kernel = step_kernel(np.linspace(0.0, 1.0, self.N + 1), P, self.distribution, local_alpha)
        for di in (0, 1):
            for dj in (0, 1):
                wgt = (tw if di else 1.0 - tw) * (tl if dj else 1.0 - tl)
                ci, cj = i0 + di, j0 + dj
                for key in np.unique(np.stack([ci, cj], axis=1), axis=0):
                    sel = (ci == key[0]) & (cj == key[1]) & (wgt > 0.0)
                    if not np.any(sel):
                        continue
                    sol = self.corner(int(key[0]), int(key[1]))
                    vals = self._at(sol, P[sel], None if kernel is None else kernel.take(sel), jacoby)
                    for k in keys:
                        out[k][sel] += wgt[sel] * vals[k]
        return out

    @staticmethod
    def _at(sol: NumericalSolution, P: FloatArray, kernel: StepKernel | None, jacoby: bool) -> dict[str, FloatArray]:
        """Equities at ``P`` from one corner's solution; with a local-volatility ``kernel``, one local jump first."""
        g = sol.grid
        od = np.interp(P, g, sol.owned)
        ud = np.interp(P, g, sol.unavailable)
        if kernel is None:
            cen = sol.centered_jacoby if jacoby else sol.centered
            return {
                CubeState.CENTERED: np.interp(P, g, cen),
                CubeState.OWNED: od,
                CubeState.UNAVAILABLE: ud,
                "owned_doubled": od,
                "unavailable_doubled": ud,
            }
        hc = sol.hat_centered_jacoby if jacoby else sol.hat_centered
        ec = sol.centered_jacoby if jacoby else sol.centered
        return {
            CubeState.CENTERED: kernel.apply(hc, ec),
            CubeState.OWNED: kernel.apply(sol.hat_owned, sol.owned),
            CubeState.UNAVAILABLE: kernel.apply(sol.hat_unavailable, sol.unavailable),
            "owned_doubled": od,
            "unavailable_doubled": ud,
        }


class JumpStrategy(CubeStrategy):
    """Higgins' jump model with remote volatility ``alpha``; local volatility optional."""

    def __init__(
        self,
        alpha: float,
        approximation: JumpApproximation | str = JumpApproximation.LINEAR,
        *,
        distribution: str = "double-exponential",
        local: bool = False,
        statistical: bool = False,
        N: int = DEFAULT_N,
        table_step: float = 0.05,
        solver: Solver = solve,
        local_measure: VolatilityMeasure | str = VolatilityMeasure.STD,
    ) -> None:
        self.alpha = float(check_volatility(alpha, "alpha"))
        measures = tuple(VolatilityMeasure)
        self.local_measure = VolatilityMeasure(check_choice(str(local_measure), "local_measure", measures))
        self.approximation = JumpApproximation(check_choice(approximation, "approximation", APPROXIMATIONS))
        self.distribution = check_choice(distribution, "distribution", ("gaussian", "double-exponential"))
        self.needs_local_volatility = local
        self.search_cells = SEARCH_CELLS if local else 0
        self.statistical = statistical
        kind = "jump_local" if local else "jump"
        measure = f", local {self.local_measure}" if local and self.local_measure is not VolatilityMeasure.STD else ""
        self.name = f"{kind}({self.alpha:g}, {self.approximation}{measure})"
        self.table = _NumericalTable(self.alpha, self.distribution, N, table_step, solver=solver)

    def tabulate(self, W_max: float = 2.0, L_max: float = 2.0) -> int:
        """Precompute the numerical table up to W_max, L_max (numerical approximation only)."""
        return self.table.tabulate(W_max, L_max)

    def _equities(
        self,
        P: FloatArray,
        W: FloatArray,
        L: FloatArray,
        local_alpha: FloatArray | None,
        jacoby: bool,
    ) -> dict[str, FloatArray]:
        ar: FloatArray | float = self.alpha
        al: FloatArray | float = self.alpha if local_alpha is None else local_alpha
        if self.approximation is JumpApproximation.LINEAR:
            k = STATISTICAL_SCALE if self.statistical else 1.0
            ar_s = np.minimum(k * np.asarray(ar), _MAX_ALPHA)
            al_s = np.minimum(k * np.asarray(al), _MAX_ALPHA)
            pcs = linear_pieces(W, L, ar_s, al_s, jacoby=jacoby)
            eq = evaluate(pcs, P)
            eq["unavailable_doubled"] = eq[CubeState.UNAVAILABLE]
        elif self.approximation is JumpApproximation.NONLINEAR:
            eq = nonlinear_equities(P, W, L, ar, al, distribution=self.distribution, jacoby=jacoby)
        else:
            eq = self.table.evaluate(P, W, L, local_alpha, jacoby)
        # With the cube handled optimally by both sides no cube state is worth more than W or
        # less than -L per unit cube.  Jumps past P = 0 or 1 are extrapolated linearly (the
        # paper's convention), which can step just outside; unclipped, a gammonless cash at
        # 1 + 1e-4 would read as too good.
        return {k: np.clip(v, -L, W) for k, v in eq.items()}


# --------------------------------------------------------------------------- factories


def dead() -> JanowskiStrategy:
    """Return the dead-cube strategy (Janowski x = 0)."""
    return JanowskiStrategy(0.0, name="dead")


def live(*, capped: bool = False) -> JanowskiStrategy:
    """Return the live-cube strategy (Janowski x = 1); ``capped`` as in JanowskiStrategy."""
    return JanowskiStrategy(1.0, name="live, capped" if capped else "live", capped=capped)


def janowski(x: float, *, capped: bool = False) -> JanowskiStrategy:
    """Return Janowski's general model with cube-life index x for both sides (capped: play mode)."""
    return JanowskiStrategy(x, capped=capped)


def janowski_refined(x1: float, x2: float, *, capped: bool = False) -> JanowskiStrategy:
    """Return Janowski's refined model: x1 for the side on roll, x2 for the opponent."""
    return JanowskiStrategy(x1, x2, capped=capped)


def jump(
    alpha: float,
    approximation: JumpApproximation | str = JumpApproximation.LINEAR,
    *,
    distribution: str = "double-exponential",
    statistical: bool = False,
    solver: Solver = solve,
) -> JumpStrategy:
    """Return the jump model with constant volatility ``alpha`` (E|J|) for both sides.

    ``statistical=True`` scales alpha by 1.24 in the linear approximation; ``solver`` solves the
    numerical approximation's table corners (e.g. from a cache on disk).
    """
    return JumpStrategy(alpha, approximation, distribution=distribution, statistical=statistical, solver=solver)


def jump_local(
    remote_alpha: float,
    approximation: JumpApproximation | str = JumpApproximation.LINEAR,
    *,
    distribution: str = "double-exponential",
    statistical: bool = False,
    solver: Solver = solve,
    local_measure: VolatilityMeasure | str = VolatilityMeasure.STD,
) -> JumpStrategy:
    """Return the jump model with a remote volatility and a per-position local volatility.

    Pass ``local_alpha=`` (or ``lookahead=``: the 441 two-roll win chances or (441, 5) outcomes, read as
    ``local_measure``) to its methods; where a lookahead shows the game decided, it takes the exact figures
    of :mod:`cube.two_roll` instead of the model's, and where at most :data:`cube.two_roll.SEARCH_CELLS` lines
    are open the two-roll search's (the model with the remote volatility at the open lines only).
    """
    return JumpStrategy(
        remote_alpha,
        approximation,
        distribution=distribution,
        local=True,
        statistical=statistical,
        solver=solver,
        local_measure=local_measure,
    )
