"""Exact cube decisions where the two-roll lookahead shows the game decided, and a search where nearly.

The jump models take a position's local volatility from the spread of the 441 two-roll win chances
(:mod:`cube.volatility`). On the game's last rolls that spread is huge and the model's equities are
wrong: its numerical solution extends the post-jump equity past P = 0 and 1 along a line, so it
knows nothing of a game that ends within the jump (``AwAAMAAAAAAAAA``, a last roll that wins 26
times in 36: jump_local's no double +0.377 against the exact +0.444).

Where every one of the 441 win chances after the side on roll's roll and the opponent's reply is
0 or 1, no model is needed: the game is decided by then, and what is left of the cube is one
decision, the opponent's, between the two rolls. Seen by the side on roll (per unit cube in money
play, MWC at a match score), after its roll ``r1`` the opponent holds the no-double value
``ND(r1)``, the mean over his 21 rolls of each result's cubeless value (the cube is dead after his
roll: the sure winner plays on, the sure loser has nothing to double with), and where he has
access to the cube he doubles if that lowers the side on roll's value::

    value(r1) = min(ND(r1), max(DT(r1), DP))

with ``DT(r1)`` the same mean at twice the cube (the side on roll owns it) and ``DP`` the loss
of the cube as it stands. The side on roll's no double is the mean of ``value(r1)`` over its 21
rolls at the cube as it stands; its double/take is the same at twice the cube with the opponent
holding it. Each result's cubeless value takes the lookahead's five probabilities of that cell
where given (gammons included), else its win chance with the root's W and L. Under the Jacoby
rule a centred cube leaves gammons out (the sure winner with gammon chances doubles, and the
loser passes).

Where only a few lines are open (at most :data:`SEARCH_CELLS` of the 441 win chances short of 0 and
1), the same tree is a search: each open line is a leaf where the side on roll is on roll again,
worth what a cube model says there with its own cube action taken (at the leaf's cube: the one as
it stands, its own after the opponent's double, the opponent's after its own double at the root, or
its own at four times after a redouble), the decided lines their results. The local
jump strategies supply their model with the remote volatility at the leaves
(:meth:`cube.strategy.CubeStrategy.equities`, :func:`cube.match_jump.jump_leaf_mwcs`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from cube.errors import CubeInputError, FloatArray
from cube.gamestate import outcome_equity
from cube.match import MatchCube, game_result_mwc, outcome_mwcs_at, result_probabilities
from cube.met import MatchEquityTable
from cube.points import opponent_double_equity
from cube.states import CubeState
from cube.volatility import ROLLS

__all__ = [
    "DECIDED_TOLERANCE",
    "LeafMwcs",
    "SEARCH_CELLS",
    "batch_of",
    "decided",
    "decided_leaf_values",
    "two_roll_money_equities",
    "two_roll_mwcs",
    "uncertain_cells",
    "win_chances",
    "wins_gammons",
]

#: A local jump strategy searches the two rolls where at most this many of the 441 lines are open (win chance
#: short of 0 and 1): where at least half of them end decided. In the two-sided bear-off database the search
#: beats the model alone up to about 300 open lines and loses beyond (``tools/cube_bearoff/near_decided.py``).
SEARCH_CELLS = 220

#: A win chance this close to 0 or 1 counts as a decided game (databases and finished games give 0 and 1 exactly).
DECIDED_TOLERANCE = 1e-9


#: How many of the 36 dice throws each of the 21 rolls is (1 a double, 2 the others), in :data:`ROLLS` order.
_THROWS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS])


def _mean_over_rolls(value: FloatArray) -> FloatArray:
    """The mean over the 21 rolls of the last axis, weighted by their throws: (..., 21) to (...).

    Whole throw counts summed in a fixed order and divided once by 36, so that sure results stay exact (a sure
    single win is 1.0, not 1 + 2e-16) and a position's figure does not depend on the batch it came in.
    """
    return np.asarray((np.asarray(value, dtype=np.float64) * _THROWS).sum(axis=-1) / 36.0, dtype=np.float64)


def _cells(lookahead: ArrayLike) -> FloatArray:
    """The lookahead as (n, 21, 21) win chances or (n, 21, 21, 5) outcomes; CubeInputError naming a bad shape."""
    arr = np.asarray(lookahead, dtype=np.float64)
    if arr.ndim >= 2 and arr.shape[-1] == 5 and arr.shape[-2] == 441:
        return arr.reshape(*arr.shape[:-2], 21, 21, 5)
    if arr.ndim >= 1 and arr.shape[-1] == 441:
        return arr.reshape(*arr.shape[:-1], 21, 21)
    if arr.shape[-2:] == (21, 21) or arr.shape[-3:] == (21, 21, 5):
        return arr
    raise CubeInputError(f"lookahead must end in 441, (441, 5), (21, 21) or (21, 21, 5), got shape {arr.shape}")


def _win_chances(cells: FloatArray) -> FloatArray:
    return cells[..., 0] if cells.shape[-3:] == (21, 21, 5) else cells


def batch_of(lookahead: ArrayLike, n: int) -> FloatArray:
    """The lookahead of ``n`` positions as (n, 441) win chances or (n, 441, 5) outcomes (one position's may come
    without its batch axis); CubeInputError naming the shape where it is neither."""
    arr = np.asarray(lookahead, dtype=np.float64)
    lead: tuple[int, ...]
    tail: tuple[int, ...]
    if arr.shape[-2:] == (441, 5):
        lead, tail = arr.shape[:-2], (441, 5)
    elif arr.shape[-1:] == (441,):
        lead, tail = arr.shape[:-1], (441,)
    else:
        lead, tail = (-1,), ()
    if not tail or int(np.prod(lead)) != n or len(lead) > 1:
        raise CubeInputError(f"lookahead of shape {arr.shape} is not 441 win chances or (441, 5) outcomes for {n}")
    return arr.reshape(n, *tail)


def win_chances(lookahead: ArrayLike) -> FloatArray:
    """The (..., 441) win chances of a lookahead given as (..., 441) win chances or (..., 441, 5) outcomes."""
    p = _win_chances(_cells(lookahead))
    return p.reshape(*p.shape[:-2], 441)


def decided(lookahead: ArrayLike, tolerance: float = DECIDED_TOLERANCE) -> NDArray[np.bool_]:
    """True for each position whose 441 two-roll win chances (side on roll) are all 0 or 1: decided within them.

    ``lookahead`` is (..., 441) win chances or (..., 441, 5) outcomes; returns shape (...).
    """
    p = _win_chances(_cells(lookahead))
    sure = (p <= tolerance) | (p >= 1.0 - tolerance)
    return np.asarray(sure.all(axis=(-2, -1)), dtype=bool)


def wins_gammons(lookahead: ArrayLike) -> NDArray[np.bool_]:
    """True for each position whose (..., 441, 5) two-roll outcomes give the side on roll a gammon anywhere."""
    cells = _cells(lookahead)
    if cells.shape[-3:] != (21, 21, 5):
        raise CubeInputError(f"gammons need the lookahead's five probabilities a cell, got shape {cells.shape}")
    return np.asarray((cells[..., 1] > 0.0).any(axis=(-2, -1)), dtype=bool)


def _cell_values(cells: FloatArray, W: FloatArray, L: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Each cell's cubeless money value with gammons and without (side on roll, per unit cube)."""
    if cells.shape[-3:] == (21, 21, 5):
        return outcome_equity(cells), 2.0 * cells[..., 0] - 1.0
    p = cells
    w, loss = np.asarray(W, dtype=np.float64)[..., None, None], np.asarray(L, dtype=np.float64)[..., None, None]
    return p * w - (1.0 - p) * loss, 2.0 * p - 1.0


def _opponent_may_double(no_double: FloatArray, doubled: FloatArray, pass_value: float) -> FloatArray:
    """The side on roll's value after its roll where the opponent may double: he picks the lower of no double and
    the double it answers best (``doubled``: its best of take and beaver; or pass)."""
    return np.minimum(no_double, np.maximum(doubled, pass_value))


def _check_decided(cells: FloatArray) -> None:
    """CubeInputError naming the first position whose lookahead is not decided (the figures hold only there)."""
    sure = decided(cells)
    if not np.all(sure):
        first = int(np.flatnonzero(~np.atleast_1d(sure))[0])
        raise CubeInputError(f"lookahead {first} is not decided (a win chance short of 0 or 1): no exact figures")


def uncertain_cells(lookahead: ArrayLike, tolerance: float = DECIDED_TOLERANCE) -> NDArray[np.int_]:
    """How many of each position's 441 two-roll win chances (side on roll) are short of 0 and 1: shape (...)."""
    p = _win_chances(_cells(lookahead))
    open_ = (p > tolerance) & (p < 1.0 - tolerance)
    return np.asarray(open_.sum(axis=(-2, -1)), dtype=np.int_)


def decided_leaf_values(
    lookahead: ArrayLike, W: ArrayLike = 1.0, L: ArrayLike = 1.0, *, jacoby: bool = False
) -> dict[CubeState, FloatArray]:
    """Each two-roll cell's value to the side on roll, on roll again there, where that cell's game is decided.

    (..., 21, 21) per cube state at the leaf, per unit cube: the cubeless value (its five probabilities, or its win
    chance with the root's ``W`` and ``L``); under the Jacoby rule a centred cube's sure winner cashes (single).
    Cells whose win chance is uncertain get the same formula, which is not their value: a caller searching
    nearly decided positions overwrites them (:meth:`cube.strategy.CubeStrategy.equities`).
    """
    cells = _cells(lookahead)
    full, single = _cell_values(cells, np.asarray(W), np.asarray(L))
    return {CubeState.CENTERED: single if jacoby else full, CubeState.OWNED: full, CubeState.UNAVAILABLE: full}


def two_roll_money_equities(
    lookahead: ArrayLike,
    W: ArrayLike = 1.0,
    L: ArrayLike = 1.0,
    *,
    jacoby: bool = False,
    beavers: bool = False,
    leaves: Mapping[CubeState, ArrayLike] | None = None,
) -> dict[str, FloatArray]:
    """Money equities from the cube decisions within two rolls (module notes), side on roll, per unit cube.

    Keys as :meth:`cube.strategy.CubeStrategy.equities`: the three :class:`CubeState` members and
    ``owned_doubled``, ``unavailable_doubled`` (after a double, in units of the doubled cube).
    Without ``leaves`` the positions must be decided within the lookahead (CubeInputError otherwise) and the
    figures are exact: with win chances only, each result is valued with the root's ``W`` and ``L``, which
    approximates its gammons; (..., 441, 5) outcomes value them exactly. ``leaves`` gives, per cube state at the
    leaf, the side on roll's value of each of the (..., 21, 21) cells (on roll again, its own cube action
    included; :func:`decided_leaf_values` where decided): the search of nearly decided positions.
    ``beavers``: the side on roll may beaver the opponent's double between the rolls (it matters only under the
    Jacoby rule, where the opponent's no double leaves gammons out).
    """
    cells = _cells(lookahead)
    if leaves is None:
        _check_decided(cells)
        leaves = decided_leaf_values(cells, W, L, jacoby=jacoby)
    shape = _win_chances(cells).shape
    leaf = {}
    for state in CubeState:
        values = np.asarray(leaves[state], dtype=np.float64)
        if values.shape != shape:
            raise CubeInputError(f"{state} leaf values of shape {values.shape} do not match the lookahead's {shape}")
        leaf[state] = _mean_over_rolls(values)  # (..., 21) after each roll of the side on roll, before the reply
    # the opponent doubled and the side on roll took (owning twice the cube) or beavered (four times, its cube)
    redoubled = opponent_double_equity(leaf[CubeState.OWNED], beavers)
    owned = _mean_over_rolls(leaf[CubeState.OWNED])
    unavailable = _mean_over_rolls(_opponent_may_double(leaf[CubeState.UNAVAILABLE], redoubled, -1.0))
    centred = _mean_over_rolls(_opponent_may_double(leaf[CubeState.CENTERED], redoubled, -1.0))
    return {
        CubeState.CENTERED: np.asarray(centred),
        CubeState.OWNED: np.asarray(owned),
        CubeState.UNAVAILABLE: np.asarray(unavailable),
        "owned_doubled": np.asarray(owned),
        "unavailable_doubled": np.asarray(unavailable),
    }


def _cubeless_mwcs(cells: FloatArray, met: MatchEquityTable, cube: MatchCube, value: int) -> FloatArray:
    """Each cell's cubeless MWC at a cube of ``value`` (side on roll), from its five probabilities.

    Summed elementwise, not by a matrix product, so that a cell's figure does not depend on its batch.
    """
    results = outcome_mwcs_at(met, cube.score, value)
    return np.asarray((result_probabilities(cells) * results).sum(axis=-1), dtype=np.float64)


#: The side on roll's MWC at leaves whose win chance is open, its own cube action included: from their (m, 5)
#: probabilities at the leaf's cube (a match model's, for the search of nearly decided positions).
LeafMwcs = Callable[[FloatArray, MatchCube], FloatArray]


def _leaf_mwcs(
    cells: FloatArray, met: MatchEquityTable, cube: MatchCube, value: int, holder: CubeState, leaf_mwc: LeafMwcs | None
) -> FloatArray:
    """Each cell's MWC to the side on roll, on roll again with the cube at ``value`` held by ``holder`` (its view):
    the cubeless MWC where decided, else ``leaf_mwc``'s (the tree only reaches cubes a :class:`MatchCube` holds:
    the opponent's access is ``MatchCube.can_double``'s rule)."""
    values = _cubeless_mwcs(cells, met, cube, value)
    if leaf_mwc is None:
        return values
    p = cells[..., 0]
    open_ = (p > DECIDED_TOLERANCE) & (p < 1.0 - DECIDED_TOLERANCE)
    if not open_.any():
        return values
    values = values.copy()
    values[open_] = leaf_mwc(cells[open_], MatchCube(cube.score, value, holder))
    return values


def _node_values(
    cells: FloatArray,
    met: MatchEquityTable,
    cube: MatchCube,
    value: int,
    opponent_holds: bool,
    leaf_mwc: LeafMwcs | None = None,
) -> FloatArray:
    """The side on roll's MWC after each of its rolls with the cube at ``value`` (held by the opponent or centred
    when ``opponent_holds`` or the cube is centred), the opponent's double between the two rolls included."""
    s = cube.score
    centred = value == 1 and not opponent_holds and cube.state is CubeState.CENTERED
    holder = CubeState.UNAVAILABLE if opponent_holds else CubeState.CENTERED if centred else CubeState.OWNED
    no_double = _mean_over_rolls(_leaf_mwcs(cells, met, cube, value, holder, leaf_mwc))
    # MatchCube.can_double from the opponent's side, for a value (a redouble's) a MatchCube may refuse to hold
    access = (opponent_holds or centred) and not s.crawford and s.opp_away > value
    if not access:
        return no_double
    doubled = _mean_over_rolls(_leaf_mwcs(cells, met, cube, 2 * value, CubeState.OWNED, leaf_mwc))
    return _opponent_may_double(no_double, doubled, game_result_mwc(met, s, lost=value))


def two_roll_mwcs(
    lookahead: ArrayLike, met: MatchEquityTable, cube: MatchCube, leaf_mwc: LeafMwcs | None = None
) -> tuple[FloatArray, FloatArray | None]:
    """MWCs of no double and double/take (None where the side on roll cannot double) from the cube decisions
    within two rolls at a match score (module notes); side on roll.

    ``lookahead`` is (..., 441, 5) outcomes: at a match score each result's gammons count apart. Without
    ``leaf_mwc`` the positions must be decided within it (CubeInputError otherwise) and the figures are exact;
    with it, the lines still open take its MWCs (the search of nearly decided positions).
    """
    cells = _cells(lookahead)
    if cells.shape[-3:] != (21, 21, 5):
        raise CubeInputError(f"a match score needs the lookahead's five probabilities a cell, got shape {cells.shape}")
    if leaf_mwc is None:
        _check_decided(cells)
    held = cube.state is CubeState.UNAVAILABLE
    no_double = _mean_over_rolls(_node_values(cells, met, cube, cube.value, held, leaf_mwc))
    if not cube.can_double:
        return np.asarray(no_double), None
    double_take = _mean_over_rolls(_node_values(cells, met, cube, 2 * cube.value, True, leaf_mwc))
    return np.asarray(no_double), np.asarray(double_take)
