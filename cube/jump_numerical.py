"""Exact numerical solution of the jump model's integral equations (Higgins 2012, App. 2).

From the player's (side on roll's) view, normalised to the cube, with jumps J ~ f::

    E_O(P) = E[ max(E_O(P+J), min(2 E_U(P+J), 1)) ]
    E_U(P) = E[ min(E_U(P+J), max(2 E_O(P+J), -1)) ]
    E_C(P) = E[ min(max(E_C(P+J), min(2 E_U(P+J), 1)), max(2 E_O(P+J), -1)) ]

P is discretised on N buckets, P_i = i/N, with E(0) = -L and E(1) = W; the post-jump
equity Ê (the integrand, i.e. after the optimal cube action) is taken piecewise linear
between nodes, which gives the paper's sums of F and G differences; jumps below 0 and
above 1 use the paper's linear extrapolation through the two end nodes (I_OL, I_OW).
E_O and E_U are solved together: for a given set of the six decision points (TG_U, TP,
RD_U, RD_O, CP, TG_O) each node's Ê is E_O, 2 E_U, +1 (or E_U, 2 E_O, -1), so the
equations are one linear system of 2(N-1) unknowns; the points are then recomputed from
the solution (piecewise linear between nodes) and the system rebuilt, until no node changes
its branch.  The centred equity is then solved the same way (N-1 unknowns; points TG_UC,
ID_U, ID_O, TG_OC).  The initial points come from the linear approximation, as the paper
suggests.

Jacoby rule (our extension): with a centred cube the game's end values are -1 and +1, so
the centred system uses those boundary values (and extrapolation); the rest is unchanged.

Local volatility (our extension, used by :func:`cube.strategy.jump_local`): the equity at
the current cube level is one jump of the local volatility applied to the post-jump
equities Ê of the remote-volatility solution,
``E_X(P) = integral f_local(J) Ê_X(P+J) dJ``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from cube.distributions import DISTRIBUTIONS, JumpDistribution
from cube.errors import (
    CubeInputError,
    FloatArray,
    check_choice,
    check_cube_state,
    check_probability,
    check_volatility,
    check_win_value,
)
from cube.jump_linear import evaluate, linear_pieces
from cube.points import Curve, DecisionPoints, EquityCurves, find_decision_points
from cube.states import CubeState

__all__ = ["NumericalSolution", "StepKernel", "one_step", "solve", "solve_cached", "step_kernel"]

DEFAULT_N = 200
_MAX_ITER = 60
_VTOL = 1e-12


def _kernel(
    grid: FloatArray, kind: str, alpha: FloatArray | float, rows: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Return (K, cL, kL, cW, kW) for evaluation points ``rows``.

    ``E(row) = K @ Ê_nodes + cL * E_1 + kL * E_0 + cW * E_{N-1} + kW * E_N`` where
    cL/kL and cW/kW are the paper's extrapolation integrals I_L and I_W.  ``alpha`` is a
    scalar or one volatility per row.
    """
    N = len(grid) - 1
    h = grid[1] - grid[0]
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), rows.shape)
    dist = JumpDistribution(kind, a[:, None])
    D = grid[None, :] - rows[:, None]
    Fm = dist.cdf(D)
    Gm = dist.partial_mean(D)
    dF = Fm[:, 1:] - Fm[:, :-1]
    dG = Gm[:, 1:] - Gm[:, :-1]
    Pi = rows[:, None]
    right = ((Pi - grid[None, :-1]) * dF + dG) / h  # weight of node j (right end of bucket j)
    left = ((grid[None, 1:] - Pi) * dF - dG) / h  # weight of node j-1
    K = np.zeros((len(rows), N + 1))
    K[:, 1:] += right
    K[:, :-1] += left
    d1 = JumpDistribution(kind, a)
    P = rows
    F0, G0 = d1.cdf(-P), d1.partial_mean(-P)
    F1, G1 = d1.cdf(1.0 - P), d1.partial_mean(1.0 - P)
    cL = (G0 + P * F0) / h
    kL = (-G0 + (h - P) * F0) / h  # times E_0 (the paper writes -L/h (...) with E_0 = -L)
    cW = (G1 + (1.0 - P) * (1.0 - F1)) / h
    kW = (-G1 + (P - grid[N - 1]) * (1.0 - F1)) / h
    return K, cL, kL, cW, kW


@dataclass(frozen=True)
class StepKernel:
    """Weights of one jump from each of ``n`` points: E[Ê(P + J)] = K @ Ê + end-node extrapolation terms.

    The weights depend on the points, the volatilities and the grid only, so one kernel serves
    every nodal equity on that grid (every cube state, every (W, L) corner of a table).
    """

    # Interior weights (n, N + 1), then the extrapolation integrals I_L (times nodes 1 and 0) and
    # I_W (times nodes N - 1 and N) of the paper's App. 2.
    weights: FloatArray
    below_1: FloatArray
    below_0: FloatArray
    above_n1: FloatArray
    above_n: FloatArray

    def take(self, rows: np.ndarray) -> StepKernel:
        """The kernel of the points selected by ``rows`` (an index or boolean mask)."""
        return StepKernel(
            self.weights[rows], self.below_1[rows], self.below_0[rows], self.above_n1[rows], self.above_n[rows]
        )

    def apply(self, hat_nodes: FloatArray, ext_nodes: FloatArray | None = None) -> FloatArray:
        """E[Ê(P + J)] at each point (same units as ``hat_nodes``); ``ext_nodes`` as in :func:`one_step`."""
        ext = hat_nodes if ext_nodes is None else ext_nodes
        N = len(hat_nodes) - 1
        out = self.weights @ hat_nodes + self.below_1 * ext[1] + self.below_0 * ext[0]
        return out + self.above_n1 * ext[N - 1] + self.above_n * ext[N]


def step_kernel(grid: FloatArray, P: ArrayLike, kind: str, alpha: ArrayLike) -> StepKernel:
    """The one-jump kernel at the points ``P`` (flattened) with volatility ``alpha`` (scalar or one per point)."""
    flat = np.atleast_1d(np.asarray(P, dtype=np.float64)).ravel()
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), np.shape(P)).ravel()
    return StepKernel(*_kernel(grid, kind, a, flat))


def one_step(
    hat_nodes: FloatArray,
    grid: FloatArray,
    P: ArrayLike,
    kind: str,
    alpha: ArrayLike,
    ext_nodes: FloatArray | None = None,
) -> FloatArray:
    """Return E[Ê(P + J)] for a nodal piecewise-linear post-jump equity Ê (same units).

    ``alpha`` is a scalar or one (local) volatility per element of P.  Jumps beyond 0 and
    1 use the linear extrapolation through the end nodes of ``ext_nodes`` (default Ê); the
    paper extrapolates the equity E itself (pass it to reproduce the solver exactly).
    """
    shape = np.shape(P)
    return step_kernel(grid, P, kind, alpha).apply(hat_nodes, ext_nodes).reshape(shape)


@dataclass(frozen=True)
class NumericalSolution:
    """Nodal cubeful equities of the exact jump model for one (W, L, alpha, distribution).

    Arrays have N + 1 entries on ``grid`` (P = 0 .. 1), player's view, normalised to cube.
    ``hat_*`` are the post-jump equities (after the optimal cube action) at the nodes.
    """

    W: float
    L: float
    alpha: float
    distribution: str
    grid: FloatArray
    owned: FloatArray
    unavailable: FloatArray
    centered: FloatArray
    centered_jacoby: FloatArray
    hat_owned: FloatArray
    hat_unavailable: FloatArray
    hat_centered: FloatArray
    hat_centered_jacoby: FloatArray
    iterations: tuple[int, int, int]
    _points: dict[bool, DecisionPoints] = field(default_factory=dict, repr=False, compare=False)

    def equity(
        self, P: ArrayLike, cube_state: CubeState | str = CubeState.CENTERED, *, jacoby: bool = False
    ) -> FloatArray:
        """Return the cubeful equity at P in ``cube_state``, player's view (interpolated)."""
        state = check_cube_state(cube_state)
        P_ = check_probability(P, "P")
        if state is CubeState.OWNED:
            y = self.owned
        elif state is CubeState.UNAVAILABLE:
            y = self.unavailable
        else:
            y = self.centered_jacoby if jacoby else self.centered
        return np.interp(P_, self.grid, y)

    def curves(self, *, jacoby: bool = False) -> EquityCurves:
        """Return the equity curves (current and doubled cube levels coincide here)."""
        g = self.grid
        cen = self.centered_jacoby if jacoby else self.centered

        def interp(y: FloatArray) -> Curve:
            return lambda P: np.asarray(np.interp(P, g, y), dtype=np.float64)

        o, u, c = interp(self.owned), interp(self.unavailable), interp(cen)
        return EquityCurves(owned=o, unavailable=u, centered=c, owned_doubled=o, unavailable_doubled=u)

    def points(self, *, jacoby: bool = False, beavers: bool = False) -> DecisionPoints:
        """Return the ten decision points of the solution (player's P)."""
        if beavers:
            return find_decision_points(self.curves(jacoby=jacoby), jacoby=jacoby, beavers=True)
        if jacoby not in self._points:
            self._points[jacoby] = find_decision_points(self.curves(jacoby=jacoby), jacoby=jacoby)
        return self._points[jacoby]


def _policy_ou(O: FloatArray, U: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Branch per interior node: owned 0 keep / 1 redouble-take / 2 cash;
    unavailable 0 keep / 1 opponent redoubles, take / 2 opponent cashes."""
    dbl = np.minimum(2.0 * U, 1.0)
    po = np.where(dbl <= O, 0, np.where(2.0 * U < 1.0, 1, 2))
    odbl = np.maximum(2.0 * O, -1.0)
    pu = np.where(odbl >= U, 0, np.where(2.0 * O > -1.0, 1, 2))
    return po, pu


def _hat_centered(C: FloatArray, O: FloatArray, U: FloatArray) -> FloatArray:
    return np.minimum(np.maximum(C, np.minimum(2.0 * U, 1.0)), np.maximum(2.0 * O, -1.0))


def _policy_c(C: FloatArray, O: FloatArray, U: FloatArray) -> FloatArray:
    """Branch per node: 0 keep (no double), 1 a double (value fixed by O or U)."""
    return np.where(_hat_centered(C, O, U) == C, 0, 1)


def _solve_ou(
    W: float, L: float, K: FloatArray, bnd: tuple[FloatArray, ...], O0: FloatArray, U0: FloatArray
) -> tuple[FloatArray, FloatArray, int]:
    N = K.shape[1] - 1
    n = N - 1
    cL, kL, cW, kW = bnd
    Kint = K[:, 1:N]
    const = K[:, 0] * (-L) + K[:, N] * W + kL * (-L) + kW * W
    I = np.eye(n)
    O, U = O0.copy(), U0.copy()
    po, pu = _policy_ou(O, U)
    for it in range(1, _MAX_ITER + 1):
        keep_o = (po == 0).astype(float)
        keep_u = (pu == 0).astype(float)
        A_OO = I - Kint * keep_o[None, :]
        A_OO[:, 0] -= cL
        A_OO[:, n - 1] -= cW
        A_OU = -Kint * (2.0 * (po == 1))[None, :]
        b_O = const + Kint @ (1.0 * (po == 2))
        A_UU = I - Kint * keep_u[None, :]
        A_UU[:, 0] -= cL
        A_UU[:, n - 1] -= cW
        A_UO = -Kint * (2.0 * (pu == 1))[None, :]
        b_U = const + Kint @ (-1.0 * (pu == 2))
        A = np.block([[A_OO, A_OU], [A_UO, A_UU]])
        x = np.linalg.solve(A, np.concatenate([b_O, b_U]))
        done = it > 1 and max(np.abs(x[:n] - O).max(), np.abs(x[n:] - U).max()) < _VTOL
        O, U = x[:n], x[n:]
        npo, npu = _policy_ou(O, U)
        if done or (np.array_equal(npo, po) and np.array_equal(npu, pu)):
            return O, U, it
        po, pu = npo, npu
    raise CubeInputError(f"numerical jump model did not converge for W={W}, L={L} (alpha too large?)")


def _solve_c(
    K: FloatArray, bnd: tuple[FloatArray, ...], lo: float, hi: float, O: FloatArray, U: FloatArray, C0: FloatArray
) -> tuple[FloatArray, int]:
    N = K.shape[1] - 1
    n = N - 1
    cL, kL, cW, kW = bnd
    Kint = K[:, 1:N]
    const = K[:, 0] * lo + K[:, N] * hi + kL * lo + kW * hi
    I = np.eye(n)
    C = C0.copy()
    pc = _policy_c(C, O, U)
    for it in range(1, _MAX_ITER + 1):
        keep = (pc == 0).astype(float)
        # where a double happens, Ê_C is 2E_U, +1, 2E_O or -1, independent of C
        fixed = np.where(pc == 0, 0.0, _hat_centered(C, O, U))
        A = I - Kint * keep[None, :]
        A[:, 0] -= cL
        A[:, n - 1] -= cW
        Cn = np.linalg.solve(A, const + Kint @ fixed)
        # nodes where two branches tie can flip back and forth: stop when values settle
        done = it > 1 and np.abs(Cn - C).max() < _VTOL
        C = Cn
        npc = _policy_c(C, O, U)
        if done or np.array_equal(npc, pc):
            return C, it
        pc = npc
    raise CubeInputError("numerical jump model (centred cube) did not converge")


def solve(
    W: float,
    L: float,
    alpha: float,
    distribution: str = "double-exponential",
    N: int = DEFAULT_N,
) -> NumericalSolution:
    """Return the exact numerical solution for one game state (player's view).

    ``alpha`` is the (constant) jump volatility E|J|; ``N`` the number of P buckets.
    """
    W_ = float(check_win_value(W, "W"))
    L_ = float(check_win_value(L, "L"))
    a = float(check_volatility(alpha, "alpha"))
    if int(N) < 20:
        raise CubeInputError(f"grid size N = {N} is too small (need >= 20)")
    N = int(N)
    check_choice(distribution, "distribution", DISTRIBUTIONS)
    grid = np.linspace(0.0, 1.0, N + 1)
    rows = grid[1:N]
    K, cL, kL, cW, kW = _kernel(grid, distribution, a, rows)
    bnd = (cL, kL, cW, kW)
    lin = evaluate(linear_pieces(W_, L_, a), rows)
    O, U, it_ou = _solve_ou(W_, L_, K, bnd, lin[CubeState.OWNED], lin[CubeState.UNAVAILABLE])
    C, it_c = _solve_c(K, bnd, -L_, W_, O, U, lin[CubeState.CENTERED])
    linj = evaluate(linear_pieces(W_, L_, a, jacoby=True), rows)
    CJ, _ = _solve_c(K, bnd, -1.0, 1.0, O, U, linj[CubeState.CENTERED])

    def full(v: FloatArray, lo: float, hi: float) -> FloatArray:
        return np.concatenate(([lo], v, [hi]))

    Of, Uf = full(O, -L_, W_), full(U, -L_, W_)
    Cf, CJf = full(C, -L_, W_), full(CJ, -1.0, 1.0)
    hat_o = np.maximum(Of, np.minimum(2.0 * Uf, 1.0))
    hat_u = np.minimum(Uf, np.maximum(2.0 * Of, -1.0))
    return NumericalSolution(
        W=W_,
        L=L_,
        alpha=a,
        distribution=distribution,
        grid=grid,
        owned=Of,
        unavailable=Uf,
        centered=Cf,
        centered_jacoby=CJf,
        hat_owned=hat_o,
        hat_unavailable=hat_u,
        hat_centered=_hat_centered(Cf, Of, Uf),
        hat_centered_jacoby=_hat_centered(CJf, Of, Uf),
        iterations=(it_ou, it_c, 0),
    )


@lru_cache(maxsize=4096)
def solve_cached(
    W: float,
    L: float,
    alpha: float,
    distribution: str = "double-exponential",
    N: int = DEFAULT_N,
) -> NumericalSolution:
    """Return :func:`solve` for these exact arguments, cached (solutions are immutable)."""
    return solve(W, L, alpha, distribution, N)
