"""Bearoff databases: one-sided roll distributions and exact two-sided cubeful tables.

Both databases index the checkers of one side on its six home points by the *colex rank* of
its stars-and-bars pattern: with counts ``c[0..5]`` (``c[0]`` = the ace point) and partial sums
``s_k = c[0] + ... + c[k]``, the bar positions ``p_k = s_k + k`` are strictly increasing and the
index is ``sum_k C(p_k, k + 1)``. The rank does not depend on the maximum number of checkers,
so the 924 positions with at most 6 checkers are exactly the one-sided indices ``0..923``.

**One-sided database** (every position with up to 15 checkers on the six home points, 54,264
of them). For each position it holds the distribution of the number of rolls needed to bear
off *all* checkers when each roll is played to minimise the expected number of rolls, and the
distribution of the number of rolls needed to bear off the *first* checker (played to minimise
that expectation; a position with fewer than 15 checkers has already borne one off, so 0).
Win and gammon chances of a race where both sides are home then follow by treating the two
sides as independent. This is the standard one-sided approximation: each side plays to
minimise its own expected number of rolls and ignores the opponent's position, which is not
always the play that maximises its winning (or gammon) chances, so the probabilities are
approximate (typically within a fraction of a percent of the exact value).

**Two-sided database** (up to 6 checkers a side on the home points, 924 x 924 positions). Exact
cubeless winning chance (plays maximise it) and exact cubeful *money* equities for the three
cube states, computed by dynamic programming over optimal play and optimal cube actions, with
no gammons possible. Equities are normalised to the current cube value. Cube-state order
everywhere is ``(centred, owned, unavailable)``: *owned* means the side on roll owns the cube
and may redouble, *unavailable* means the opponent owns it. With ``ND`` the equity if the side
on roll does not double now (before rolling)::

    ND_c(i, j) = mean over 36 rolls of max over plays i' of -E_c(j, i')
    ND_o(i, j) = mean ... max -E_u(j, i')      ND_u(i, j) = mean ... max -E_o(j, i')
    D(i, j)    = min(2 ND_u(i, j), +1)         (double/take vs double/pass)
    E_c = max(ND_c, D)     E_o = max(ND_o, D)     E_u = ND_u

A side on roll without checkers has won (+1); one whose opponent has none has lost (-1). All
values lie in [-1, +1] (the +1 cap of a pass is what normalisation to the cube value keeps
redoubles within), and ``E_u <= E_c <= E_o`` and ``E_u <= 2 win - 1 <= E_o`` hold everywhere.
GNU Backgammon's two-sided database (``makebearoff -t 6x6``) stores the *no-double* values
(its evaluator applies the cube decision itself): ``bearoffdump`` prints ND_c as "Centered cube",
ND_o as "Owned cube" and ND_u as "Opponent owns cube"; they agree with ours within its 16-bit
quantisation (tests/fixtures/gnubg_bearoff_two_sided.json).

Files live in ``$JUMPGAMMON_CACHE`` (default ``~/.cache/jumpgammon``) as ``.npz`` archives
written atomically (temporary file, then ``os.replace``), never pickled; a version or shape
mismatch on load rebuilds them.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from numba import get_num_threads, njit, prange
from tqdm import tqdm

from cube.states import CubeState
from engine.movegen import BOARD_SIZE, MAX_CHILDREN, TABLE_SIZE, generate_plays
from nets.lookahead import ROLLS
from nets.weights import remove_stale_temporaries, write_atomic

__all__ = [
    "CUBE_STATES",
    "N_BINS",
    "N_ONE_SIDED",
    "N_TWO_SIDED",
    "N_TWO_SIDED_SIDE",
    "OneSidedDatabase",
    "TwoSidedDatabase",
    "cache_dir",
    "covered_by_one_sided",
    "covered_by_two_sided",
    "games_on",
    "load_one_sided",
    "load_two_sided",
    "one_sided_index",
    "one_sided_points",
    "race_probabilities",
    "two_sided_index",
]

ONE_SIDED_VERSION = 1
TWO_SIDED_VERSION = 1
MAX_ONE_SIDED = 15
MAX_TWO_SIDED = 6
N_ONE_SIDED = 54264  # C(21, 6)
N_TWO_SIDED_SIDE = 924  # C(12, 6)
N_TWO_SIDED = N_TWO_SIDED_SIDE * N_TWO_SIDED_SIDE
N_BINS = 32  # stored roll-count bins 0..31; the mass beyond is below 1e-30 (checked on build)
_WORK_BINS = 64  # bins used while building, to measure what the stored ones drop
#: The cube states in the order of the two-sided database's equity columns.
CUBE_STATES: tuple[CubeState, ...] = tuple(CubeState)

# BINOM[n, k] = C(n, k) for the index arithmetic (0 where k > n).
_BINOM = np.zeros((22, 8), np.int64)
for _n in range(22):
    _BINOM[_n, 0] = 1
    for _k in range(1, min(_n, 7) + 1):
        _BINOM[_n, _k] = _BINOM[_n - 1, _k - 1] + (_BINOM[_n - 1, _k] if _k <= _n - 1 else 0)

# The 21 distinct rolls and their weights out of 36.
_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], np.int64)
_ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in _ROLLS], np.float64)


# --- index arithmetic ------------------------------------------------------------------------


@njit(cache=True)
def _rank6(points: np.ndarray) -> int:
    """Colex rank of six home-point counts (ace point first)."""
    r = 0
    s = 0
    for k in range(6):
        s += points[k]
        r += _BINOM[s + k, k + 1]
    return r


def one_sided_index(points6: np.ndarray) -> np.ndarray:
    """Database index of home-point counts ``(..., 6)`` (ace point first); int64 ``(...)``."""
    pts = np.asarray(points6, dtype=np.int64)
    if pts.shape[-1] != 6:
        raise ValueError(f"points6 must end in an axis of 6 counts, got shape {pts.shape}")
    if (pts < 0).any() or (pts.sum(axis=-1) > MAX_ONE_SIDED).any():
        raise ValueError("points6 must hold non-negative counts with at most 15 checkers")
    cums = np.cumsum(pts, axis=-1) + np.arange(6)
    return _BINOM[cums, np.arange(1, 7)].sum(axis=-1)


def _enumerate_points(max_checkers: int) -> np.ndarray:
    """All home-point count vectors with up to ``max_checkers`` checkers, in index order."""
    grids = np.indices((max_checkers + 1,) * 6).reshape(6, -1).T
    pts = grids[grids.sum(axis=1) <= max_checkers]
    out = np.empty_like(pts)
    out[one_sided_index(pts)] = pts
    return out.astype(np.int8)


_POINTS: np.ndarray | None = None


def one_sided_points() -> np.ndarray:
    """int8 ``(54264, 6)``: the home-point counts (ace point first) of every one-sided index."""
    global _POINTS
    if _POINTS is None:
        _POINTS = _enumerate_points(MAX_ONE_SIDED)
        _POINTS.setflags(write=False)
    return _POINTS


def _as_boards(boards: np.ndarray) -> np.ndarray:
    b = np.asarray(boards)
    if b.ndim == 1:
        b = b[None, :]
    if b.ndim != 2 or b.shape[1] != BOARD_SIZE:
        raise ValueError(f"boards must have shape (n, {BOARD_SIZE}), got {np.shape(boards)}")
    return b.astype(np.int64)


def _split_sides(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Home-point counts (ace first) of the side on roll and of the opponent, ``(n, 6)`` each."""
    own = np.clip(b[:, 1:7], 0, None)
    opp = np.clip(-b[:, 24:18:-1], 0, None)
    return own, opp


def _all_home(b: np.ndarray) -> np.ndarray:
    """Per board: no checker on a bar and every checker on its side's home points."""
    own_out = (b[:, 7:26] > 0).any(axis=1) | (b[:, 0:7] < 0).any(axis=1)
    opp_out = (b[:, 0:19] < 0).any(axis=1)
    return np.asarray(~(own_out | opp_out))


def covered_by_one_sided(boards: np.ndarray) -> np.ndarray:
    """bool ``(n,)``: both sides have every checker home (none borne off all, none on a bar)."""
    b = _as_boards(boards)
    own, opp = _split_sides(b)
    return _all_home(b) & (own.sum(axis=1) > 0) & (opp.sum(axis=1) > 0)


def covered_by_two_sided(boards: np.ndarray) -> np.ndarray:
    """bool ``(n,)``: both sides home with 1 to 6 checkers each (the exact two-sided table)."""
    b = _as_boards(boards)
    own, opp = _split_sides(b)
    n_own = own.sum(axis=1)
    n_opp = opp.sum(axis=1)
    return _all_home(b) & (n_own > 0) & (n_opp > 0) & (n_own <= 6) & (n_opp <= 6)


def _side_indices(boards: np.ndarray, max_checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """One-sided indices of (side on roll, opponent); raises ValueError off the database."""
    b = _as_boards(boards)
    own, opp = _split_sides(b)
    ok = _all_home(b) & (own.sum(axis=1) <= max_checkers) & (opp.sum(axis=1) <= max_checkers)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise ValueError(
            f"board {bad} is not a bearoff position with at most {max_checkers} checkers a side "
            f"all home: {b[bad].tolist()}"
        )
    return one_sided_index(own), one_sided_index(opp)


def two_sided_index(board: np.ndarray) -> np.ndarray:
    """Two-sided index ``924 * index(side on roll) + index(opponent)``; int64 ``(n,)``."""
    i, j = _side_indices(board, MAX_TWO_SIDED)
    return i * N_TWO_SIDED_SIDE + j


# --- cache files -----------------------------------------------------------------------------


def cache_dir() -> Path:
    """Directory of the database files: ``$JUMPGAMMON_CACHE`` or ``~/.cache/jumpgammon``."""
    env = os.environ.get("JUMPGAMMON_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "jumpgammon"


def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` as .npz atomically (no pickle)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    write_atomic(path, buffer.getvalue())


def read_npz(
    path: Path, expected: Mapping[str, tuple[tuple[int, ...], str]], version: int
) -> tuple[dict[str, np.ndarray] | None, str]:
    """Arrays of ``path`` if it holds this version with these shapes and dtypes, else None and why."""
    if not path.exists():
        return None, "not built yet"
    try:
        with np.load(path, allow_pickle=False) as data:
            if int(data["version"]) != version:
                return None, f"version {int(data['version'])}, not {version}"
            out = {}
            for name, (shape, dtype) in expected.items():
                arr = data[name]
                if arr.shape != shape or arr.dtype != np.dtype(dtype):
                    return None, f"array {name!r} is {arr.dtype}{arr.shape}, not {dtype}{shape}"
                if arr.dtype.kind == "f" and not np.isfinite(arr).all():
                    return None, f"array {name!r} holds NaN or infinite values"
                out[name] = arr
            return out, ""
    # A damaged archive can fail in the zip layer, the npy parser or the decompressor alike.
    except Exception as exc:  # noqa: BLE001
        return None, f"unreadable ({type(exc).__name__}: {exc})"


# --- one-sided database ----------------------------------------------------------------------


@njit(cache=True)
def _one_sided_position(
    pos: int,
    points: np.ndarray,
    rolls: np.ndarray,
    weights: np.ndarray,
    dist_all: np.ndarray,
    dist_first: np.ndarray,
    mean_all: np.ndarray,
    mean_first: np.ndarray,
    board: np.ndarray,
    out: np.ndarray,
    no_moves: np.ndarray,
    table: np.ndarray,
) -> None:
    """Fill the two roll distributions of one non-empty position from its (solved) children."""
    nb = dist_all.shape[1]
    n_checkers = 0
    for k in range(6):
        n_checkers += points[pos, k]
    for k in range(BOARD_SIZE):
        board[k] = 0
    for k in range(6):
        board[k + 1] = points[pos, k]
    for n in range(nb):
        dist_all[pos, n] = 0.0
        dist_first[pos, n] = 0.0
    for r in range(rolls.shape[0]):
        w = weights[r] / 36.0
        count = generate_plays(board, rolls[r, 0], rolls[r, 1], out, no_moves, False, table)
        best_all = -1
        best_first = -1
        for c in range(count):
            idx = _rank6(out[c, 1:7])
            if best_all < 0 or mean_all[idx] < mean_all[best_all]:
                best_all = idx
            if best_first < 0 or mean_first[idx] < mean_first[best_first]:
                best_first = idx
        for n in range(1, nb):
            dist_all[pos, n] += w * dist_all[best_all, n - 1]
            if n_checkers == MAX_ONE_SIDED:
                dist_first[pos, n] += w * dist_first[best_first, n - 1]
    if n_checkers < MAX_ONE_SIDED:
        dist_first[pos, 0] = 1.0
    m_all = 0.0
    m_first = 0.0
    for n in range(nb):
        m_all += n * dist_all[pos, n]
        m_first += n * dist_first[pos, n]
    mean_all[pos] = m_all
    mean_first[pos] = m_first


@njit(cache=True, parallel=True)
def _one_sided_level(
    positions: np.ndarray,
    points: np.ndarray,
    rolls: np.ndarray,
    weights: np.ndarray,
    dist_all: np.ndarray,
    dist_first: np.ndarray,
    mean_all: np.ndarray,
    mean_first: np.ndarray,
    n_chunks: int,
) -> None:
    """Solve positions that share a pip count (their children all have fewer pips)."""
    for chunk in prange(n_chunks):
        board = np.zeros(BOARD_SIZE, np.int8)
        out = np.empty((MAX_CHILDREN, BOARD_SIZE), np.int8)
        no_moves = np.empty((1, 8), np.int8)
        table = np.full(TABLE_SIZE, -1, np.int32)
        for t in range(chunk, positions.shape[0], n_chunks):
            _one_sided_position(
                positions[t],
                points,
                rolls,
                weights,
                dist_all,
                dist_first,
                mean_all,
                mean_first,
                board,
                out,
                no_moves,
                table,
            )


def _pip_levels(points: np.ndarray) -> list[np.ndarray]:
    """Position indices grouped by pip count, lowest first."""
    pips = points.astype(np.int64) @ np.arange(1, 7)
    order = np.argsort(pips, kind="stable")
    bounds = np.flatnonzero(np.diff(pips[order])) + 1
    return np.split(order, bounds)


def build_one_sided(progress: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Compute (off_all, off_first) float64 ``(54264, N_BINS)`` roll distributions."""
    points = one_sided_points()
    n = points.shape[0]
    dist_all = np.zeros((n, _WORK_BINS), np.float64)
    dist_first = np.zeros((n, _WORK_BINS), np.float64)
    mean_all = np.zeros(n, np.float64)
    mean_first = np.zeros(n, np.float64)
    dist_all[0, 0] = 1.0
    dist_first[0, 0] = 1.0
    n_chunks = max(1, get_num_threads()) * 4
    with tqdm(total=n, desc="one-sided bearoff", unit="pos", disable=not progress) as bar:
        bar.update(1)
        for level in _pip_levels(points)[1:]:
            _one_sided_level(
                level,
                points,
                _ROLLS,
                _ROLL_WEIGHTS,
                dist_all,
                dist_first,
                mean_all,
                mean_first,
                n_chunks,
            )
            bar.update(level.size)
    for dist in (dist_all, dist_first):
        lost = float(dist[:, N_BINS:].sum(axis=1).max())
        if lost > 1e-30:
            raise RuntimeError(f"one-sided distributions lose {lost:.3g} beyond {N_BINS} bins")
    return (
        np.ascontiguousarray(dist_all[:, :N_BINS]),
        np.ascontiguousarray(dist_first[:, :N_BINS]),
    )


def _tail(dist: np.ndarray) -> np.ndarray:
    """``T[..., k] = P(X >= k)`` for distributions along the last axis."""
    return np.flip(np.cumsum(np.flip(dist, axis=-1), axis=-1), axis=-1)


def race_probabilities(
    own_all: np.ndarray, own_first: np.ndarray, opp_all: np.ndarray, opp_first: np.ndarray
) -> np.ndarray:
    """``(n, 5)`` win, win gammon, win bg (0), lose gammon, lose bg (0) for the side on roll.

    Inputs are ``(n, bins)`` roll distributions of the side on roll (who rolls first) and of its
    opponent, treated as independent. The side on roll wins when it needs no more rolls than the
    opponent; it wins a gammon when the opponent has not borne off a checker within one roll
    fewer, and loses one when the opponent finishes before its first checker is off.
    """
    return _race_from_tails(own_all, _tail(own_first), opp_all, _tail(opp_all), _tail(opp_first))


def _race_from_tails(
    own_all: np.ndarray,
    own_first_tail: np.ndarray,
    opp_all: np.ndarray,
    opp_all_tail: np.ndarray,
    opp_first_tail: np.ndarray,
) -> np.ndarray:
    """:func:`race_probabilities` given the tails (:func:`_tail`) it needs, which a database keeps precomputed."""
    win = (own_all * opp_all_tail).sum(axis=1)
    # Win gammon: F_opp >= max(n_own, 1) (an opponent with 15 checkers needs >= 1 roll).
    first_ge = opp_first_tail.copy()
    first_ge[:, 0] = opp_first_tail[:, 1]
    win_gammon = (own_all * first_ge).sum(axis=1)
    # Lose gammon: opponent finishes on roll n with F_own > n.
    own_first_gt = np.zeros_like(own_first_tail)
    own_first_gt[:, :-1] = own_first_tail[:, 1:]
    lose_gammon = (opp_all * own_first_gt).sum(axis=1)
    # the sums of products round a few ulps past their bounds (a win of 1.0000000000000007): clip to them
    win = np.clip(win, 0.0, 1.0)
    out = np.zeros((win.shape[0], 5), np.float64)
    out[:, 0] = win
    out[:, 1] = np.clip(win_gammon, 0.0, win)
    out[:, 3] = np.clip(lose_gammon, 0.0, 1.0 - win)
    return out


class OneSidedDatabase:
    """Roll distributions for every position with up to 15 checkers on the six home points."""

    def __init__(self, off_all: np.ndarray, off_first: np.ndarray) -> None:
        self.off_all = off_all
        self.off_first = off_first
        self.mean_all = off_all @ np.arange(off_all.shape[1], dtype=np.float64)
        self.mean_first = off_first @ np.arange(off_first.shape[1], dtype=np.float64)
        # P(X >= k) of every position, once: race_probabilities would otherwise redo them for every board judged
        self.tail_all, self.tail_first = _tail(off_all), _tail(off_first)
        for arr in (self.off_all, self.off_first, self.mean_all, self.mean_first, self.tail_all, self.tail_first):
            arr.setflags(write=False)

    def indices(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One-sided indices ``(n,)`` of the side on roll and of the opponent."""
        return _side_indices(boards, MAX_ONE_SIDED)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """float64 ``(n, 5)`` win, win g, win bg, lose g, lose bg for the side on roll."""
        i, j = self.indices(boards)
        return _race_from_tails(
            self.off_all[i], self.tail_first[i], self.off_all[j], self.tail_all[j], self.tail_first[j]
        )

    def mean_rolls(self, boards: np.ndarray) -> np.ndarray:
        """float64 ``(n, 2)``: expected rolls to bear off all checkers (side on roll, opponent)."""
        i, j = self.indices(boards)
        return np.stack([self.mean_all[i], self.mean_all[j]], axis=1)

    def rolls_distribution(self, board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(off_all, off_first)``: P(n rolls) for the side on roll to bear off all / one."""
        i, _ = self.indices(np.asarray(board).reshape(1, BOARD_SIZE))
        return self.off_all[i[0]].copy(), self.off_first[i[0]].copy()


# --- two-sided database ----------------------------------------------------------------------


@njit(cache=True)
def _children_csr(points: np.ndarray, rolls: np.ndarray, n_pos: int) -> tuple[np.ndarray, np.ndarray]:
    """Children indices per (position < n_pos, roll): ``idx[start[p * 21 + r]:start[... + 1]]``."""
    n_rolls = rolls.shape[0]
    start = np.zeros(n_pos * n_rolls + 1, np.int64)
    cap = n_pos * n_rolls * 8
    idx = np.empty(cap, np.int32)
    board = np.zeros(BOARD_SIZE, np.int8)
    out = np.empty((MAX_CHILDREN, BOARD_SIZE), np.int8)
    no_moves = np.empty((1, 8), np.int8)
    table = np.full(TABLE_SIZE, -1, np.int32)
    total = 0
    for p in range(n_pos):
        for k in range(BOARD_SIZE):
            board[k] = 0
        for k in range(6):
            board[k + 1] = points[p, k]
        for r in range(n_rolls):
            count = 0
            if p > 0:
                count = generate_plays(board, rolls[r, 0], rolls[r, 1], out, no_moves, False, table)
            if total + count > idx.shape[0]:
                grown = np.empty(idx.shape[0] * 2, np.int32)
                grown[:total] = idx[:total]
                idx = grown
            for c in range(count):
                idx[total + c] = _rank6(out[c, 1:7])
            total += count
            start[p * n_rolls + r + 1] = total
    return start, idx[:total].copy()


@njit(cache=True, parallel=True)
def _two_sided_level(
    pairs: np.ndarray,
    n: int,
    start: np.ndarray,
    children: np.ndarray,
    weights: np.ndarray,
    win: np.ndarray,
    nd: np.ndarray,
    eq: np.ndarray,
) -> None:
    """Solve pairs that share a pip total (their successors all have a smaller one)."""
    n_rolls = weights.shape[0]
    for t in prange(pairs.shape[0]):
        pair = pairs[t]
        i = pair // n
        j = pair % n
        if i == 0 or j == 0:
            v = 1.0 if i == 0 and j != 0 else (-1.0 if j == 0 and i != 0 else 0.0)
            win[pair] = (v + 1.0) / 2.0
            for s in range(3):
                nd[s, pair] = v
                eq[s, pair] = v
            continue
        w_sum = 0.0
        c_sum = 0.0
        o_sum = 0.0
        u_sum = 0.0
        for r in range(n_rolls):
            bw = -np.inf
            bc = -np.inf
            bo = -np.inf
            bu = -np.inf
            for q in range(start[i * n_rolls + r], start[i * n_rolls + r + 1]):
                nxt = j * n + children[q]
                bw = max(bw, 1.0 - win[nxt])
                bc = max(bc, -eq[0, nxt])
                bo = max(bo, -eq[2, nxt])
                bu = max(bu, -eq[1, nxt])
            wt = weights[r]
            w_sum += wt * bw
            c_sum += wt * bc
            o_sum += wt * bo
            u_sum += wt * bu
        nd_c = c_sum / 36.0
        nd_o = o_sum / 36.0
        nd_u = u_sum / 36.0
        win[pair] = w_sum / 36.0
        nd[0, pair] = nd_c
        nd[1, pair] = nd_o
        nd[2, pair] = nd_u
        dbl = min(2.0 * nd_u, 1.0)
        eq[0, pair] = max(nd_c, dbl)
        eq[1, pair] = max(nd_o, dbl)
        eq[2, pair] = nd_u


# --- exact two-roll lookahead ----------------------------------------------------------------

_LOOKAHEAD_CHILDREN: tuple[np.ndarray, np.ndarray] | None = None


def _lookahead_children() -> tuple[np.ndarray, np.ndarray]:
    """:func:`_children_csr` of the 924 two-sided side positions with the rolls in :data:`nets.lookahead.ROLLS` order.

    Bearing off never meets the opponent, so a side's plays depend only on its own checkers.
    """
    global _LOOKAHEAD_CHILDREN
    if _LOOKAHEAD_CHILDREN is None:
        n = N_TWO_SIDED_SIDE
        _LOOKAHEAD_CHILDREN = _children_csr(one_sided_points()[:n], ROLLS, n)
    return _LOOKAHEAD_CHILDREN


@njit(cache=True, parallel=True)
def _two_roll_kernel(
    index: np.ndarray, n: int, start: np.ndarray, kids: np.ndarray, win: np.ndarray, out: np.ndarray
) -> None:
    """``out[t, 21 r1 + r2]``: the exact win chance of the side on roll of ``index[t]`` after rolls r1, r2.

    Each side plays the child that minimises its opponent's exact win chance (the first such
    child in play order on a tie); a side that bears off its last checker has won.
    """
    nr = (start.shape[0] - 1) // n
    for t in prange(index.shape[0]):
        i = index[t] // n
        j = index[t] % n
        if i == 0 or j == 0:
            v = 1.0 if i == 0 else 0.0
            for k in range(nr * nr):
                out[t, k] = v
            continue
        for r1 in range(nr):
            # the side on roll minimises its opponent's win chance (opponent then on roll)
            best = -1
            best_v = 2.0
            for q in range(start[i * nr + r1], start[i * nr + r1 + 1]):
                c = kids[q]
                v = win[j * n + c]
                if v < best_v:
                    best_v = v
                    best = c
            if best == 0:  # bore off its last checker: won
                for r2 in range(nr):
                    out[t, r1 * nr + r2] = 1.0
                continue
            for r2 in range(nr):
                reply_v = 2.0
                for q in range(start[j * nr + r2], start[j * nr + r2 + 1]):
                    v = win[best * n + kids[q]]
                    if v < reply_v:
                        reply_v = v
                out[t, r1 * nr + r2] = reply_v


def _optimal_from_no_double(nd: np.ndarray) -> np.ndarray:
    """Equities with optimal cube action ``(3, ...)`` from the no-double ones ``(3, ...)``."""
    dbl = np.minimum(2.0 * nd[2], 1.0)
    return np.stack([np.maximum(nd[0], dbl), np.maximum(nd[1], dbl), nd[2]])


def build_two_sided(progress: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Compute ``win`` ``(924, 924)`` and no-double equities ``(3, 924, 924)`` (float64)."""
    n = N_TWO_SIDED_SIDE
    points = one_sided_points()[:n]
    start, children = _children_csr(points, _ROLLS, n)
    pips = points.astype(np.int64) @ np.arange(1, 7)
    total = (pips[:, None] + pips[None, :]).ravel()
    order = np.argsort(total, kind="stable")
    bounds = np.flatnonzero(np.diff(total[order])) + 1
    win = np.zeros(n * n, np.float64)
    nd = np.zeros((3, n * n), np.float64)
    eq = np.zeros((3, n * n), np.float64)
    with tqdm(total=n * n, desc="two-sided bearoff", unit="pos", disable=not progress) as bar:
        for level in np.split(order, bounds):
            _two_sided_level(level, n, start, children, _ROLL_WEIGHTS, win, nd, eq)
            bar.update(level.size)
    return win.reshape(n, n), nd.reshape(3, n, n)


class TwoSidedDatabase:
    """Exact cubeless win chances and cubeful money equities, up to 6 checkers a side."""

    def __init__(self, win: np.ndarray, no_double: np.ndarray) -> None:
        n = N_TWO_SIDED_SIDE
        self.win = win.reshape(n * n)
        self.no_double = no_double.reshape(3, n * n)
        self.optimal = _optimal_from_no_double(self.no_double)
        for arr in (self.win, self.no_double, self.optimal):
            arr.setflags(write=False)

    def lookup(self, boards: np.ndarray) -> dict[str, np.ndarray]:
        """Side on roll's ``win`` (n,), ``no_double`` (n, 3) and ``optimal`` (n, 3) equities.

        Cube-state columns are (centred, owned by the side on roll, owned by the opponent);
        equities are money equities normalised to the current cube value.
        """
        idx = two_sided_index(boards)
        return {
            "win": self.win[idx],
            "no_double": self.no_double[:, idx].T.copy(),
            "optimal": self.optimal[:, idx].T.copy(),
        }

    def win_probability(self, boards: np.ndarray) -> np.ndarray:
        """float64 ``(n,)``: the side on roll's exact cubeless chance of winning."""
        return self.win[two_sided_index(boards)]

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """float64 ``(n, 5)`` win, win g, win bg, lose g, lose bg (gammons impossible: zeros)."""
        out = np.zeros((np.asarray(boards).reshape(-1, BOARD_SIZE).shape[0], 5), np.float64)
        out[:, 0] = self.win_probability(boards)
        return out

    def two_roll_win_chances(self, index: np.ndarray) -> np.ndarray:
        """float64 ``(n, 441)``: the exact win chance of the side on roll of each two-sided ``index`` after two rolls.

        ``index`` as :func:`two_sided_index` gives it. Row ``21 * r1 + r2``: the side on roll rolled
        ``ROLLS[r1]`` (:data:`nets.lookahead.ROLLS`), then its opponent ``ROLLS[r2]``, each playing the
        move that maximises its own exact win chance, as :func:`nets.volatility.two_roll_outcomes_batch`
        orders them. The mean weighted by :func:`cube.two_roll_weights` is the database win chance.
        """
        idx = np.ascontiguousarray(index, np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= N_TWO_SIDED):
            raise ValueError(f"two-sided indices must lie in [0, {N_TWO_SIDED}), got {idx.min()} to {idx.max()}")
        start, kids = _lookahead_children()
        out = np.empty((idx.size, len(ROLLS) ** 2), np.float64)
        _two_roll_kernel(idx, N_TWO_SIDED_SIDE, start, kids, np.ascontiguousarray(self.win), out)
        return out

    def two_roll_probabilities(self, boards: np.ndarray) -> np.ndarray:
        """float64 ``(n, 441, 5)`` after each pair of rolls, side on roll's view (win only; gammons impossible: zeros).

        The exact counterpart of :func:`nets.volatility.two_roll_outcomes_batch`; raises ValueError off the database.
        """
        win = self.two_roll_win_chances(two_sided_index(boards))
        out = np.zeros((*win.shape, 5), np.float64)
        out[:, :, 0] = win
        return out


# --- loading ---------------------------------------------------------------------------------

_ONE: OneSidedDatabase | None = None
_TWO: TwoSidedDatabase | None = None


def _report(what: str, seconds: float) -> None:
    tqdm.write(f"built {what} bearoff database in {seconds:.1f} s", file=sys.stderr)


def one_sided_path() -> Path:
    """Cache file of the one-sided database."""
    return cache_dir() / f"bearoff_one_sided_v{ONE_SIDED_VERSION}.npz"


def two_sided_path() -> Path:
    """Cache file of the two-sided database."""
    return cache_dir() / f"bearoff_two_sided_v{TWO_SIDED_VERSION}.npz"


def load_or_build(
    name: str,
    path: Path,
    expected: Mapping[str, tuple[tuple[int, ...], str]],
    version: int,
    build: Callable[[bool], tuple[np.ndarray, np.ndarray]],
    progress: bool,
    rebuild: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The two arrays of a database, in ``expected``'s order: read from ``path`` when valid, else built and saved."""
    data, why = (None, "rebuild asked for") if rebuild else read_npz(path, expected, version)
    if data is None:
        if path.exists():
            print(f"{path}: {why}; rebuilding the {name} bearoff database", file=sys.stderr)
        remove_stale_temporaries(path)
        t0 = time.perf_counter()
        built = build(progress)
        if progress:
            _report(name, time.perf_counter() - t0)
        data = dict(zip(expected, built, strict=True))
        save_npz(path, {"version": np.array(version), **data})
    first, second = (data[name] for name in expected)
    return first, second


def load_one_sided(progress: bool = True, rebuild: bool = False) -> OneSidedDatabase:
    """The one-sided database: cached in memory, else read from disk, else built and saved."""
    global _ONE
    if _ONE is None or rebuild:
        shape = (N_ONE_SIDED, N_BINS)
        off_all, off_first = load_or_build(
            "one-sided",
            one_sided_path(),
            {"off_all": (shape, "f8"), "off_first": (shape, "f8")},
            ONE_SIDED_VERSION,
            build_one_sided,
            progress,
            rebuild,
        )
        _ONE = OneSidedDatabase(off_all, off_first)
    return _ONE


def games_on(indices: np.ndarray) -> np.ndarray:
    """The two-sided database indices among ``indices`` whose position has checkers on both sides (a game on)."""
    mine, his = np.divmod(indices, N_TWO_SIDED_SIDE)
    return indices[(mine > 0) & (his > 0)]


def load_two_sided(progress: bool = True, rebuild: bool = False) -> TwoSidedDatabase:
    """The two-sided database: cached in memory, else read from disk, else built and saved."""
    global _TWO
    if _TWO is None or rebuild:
        n = N_TWO_SIDED_SIDE
        win, no_double = load_or_build(
            "two-sided",
            two_sided_path(),
            {"win": ((n, n), "f8"), "no_double": ((3, n, n), "f8")},
            TWO_SIDED_VERSION,
            build_two_sided,
            progress,
            rebuild,
        )
        _TWO = TwoSidedDatabase(win, no_double)
    return _TWO


def load_databases(progress: bool = True) -> tuple[OneSidedDatabase, TwoSidedDatabase]:
    """(one-sided, two-sided) databases, each built on first use and kept on disk (see :func:`load_one_sided`)."""
    return load_one_sided(progress), load_two_sided(progress)
