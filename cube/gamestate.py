"""Game-state inputs of the cube models: P, W, L and cubeless equity.

Probabilities follow the project convention: five numbers for the side on roll, before it
rolls, ``(P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon))``,
gammons including backgammons (cumulative, as gnubg).  Following Janowski (and Higgins,
Appendix 1)::

    W = (P + P_gw + P_bw) / P                 average cubeless value of games won
    L = (1 - P + P_gl + P_bl) / (1 - P)       average cubeless value of games lost

When P = 0 (resp. P = 1) W (resp. L) is undefined; it is then taken as 1, the gammon-free
value, which does not change any equity because it is multiplied by zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from cube.errors import (
    CubeInputError,
    FloatArray,
    as_float_array,
    check_probability,
    check_win_value,
)

__all__ = [
    "GameState",
    "cubeless_equity",
    "difference_equity",
    "flip_difference",
    "flip_outcomes",
    "flip_probabilities",
    "outcome_equity",
    "win_loss_values",
]

_TOL = 1e-9


def _check_probabilities(probs: ArrayLike) -> FloatArray:
    arr = as_float_array(probs, "probabilities")
    if arr.shape[-1:] != (5,):
        raise CubeInputError(f"probabilities must have shape (5,) or (n, 5), got shape {arr.shape}")
    check_probability(arr, "probability")
    win, wg, wbg, lg, lbg = (arr[..., k] for k in range(5))
    for small, big, what in (
        (wg, win, "P(win gammon) > P(win)"),
        (wbg, wg, "P(win backgammon) > P(win gammon)"),
        (lg, 1.0 - win, "P(lose gammon) > P(lose)"),
        (lbg, lg, "P(lose backgammon) > P(lose gammon)"),
    ):
        bad = small > big + 1e-6
        if np.any(bad):
            raise CubeInputError(f"inconsistent probabilities {arr[bad].tolist()}: {what}")
    return np.clip(arr, 0.0, 1.0)


def win_loss_values(probs: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return ``(P, W, L)`` for the side on roll from its five probabilities (shape (5,) or (n,5)).

    W and L are the paper's average cubeless values of games won and lost, both >= 1.
    """
    arr = _check_probabilities(probs)
    win = arr[..., 0]
    lose = 1.0 - win
    with np.errstate(divide="ignore", invalid="ignore"):
        W = np.where(win > _TOL, (win + arr[..., 1] + arr[..., 2]) / np.maximum(win, _TOL), 1.0)
        L = np.where(lose > _TOL, (lose + arr[..., 3] + arr[..., 4]) / np.maximum(lose, _TOL), 1.0)
    return win, np.clip(W, 1.0, 3.0), np.clip(L, 1.0, 3.0)


def outcome_equity(arr: np.ndarray) -> np.ndarray:
    """Cubeless money equity per unit stake of five probabilities (..., 5), same side's view; unchecked.

    The one definition of the equity; :func:`cubeless_equity` validates its input first, while
    the evaluator's hot paths call this on arrays they made themselves.
    """
    return 2.0 * arr[..., 0] - 1.0 + (arr[..., 1] - arr[..., 3]) + (arr[..., 2] - arr[..., 4])


def difference_equity(delta: np.ndarray) -> np.ndarray:
    """The change in cubeless money equity (...,) of a change ``delta`` (..., 5) of the five probabilities.

    The linear part of :func:`outcome_equity`: a difference of probabilities (a roll's luck) has
    no constant term, so ``outcome_equity(delta)`` would be off by -1 per difference.
    """
    return 2.0 * delta[..., 0] + (delta[..., 1] - delta[..., 3]) + (delta[..., 2] - delta[..., 4])


def flip_difference(delta: np.ndarray) -> np.ndarray:
    """A change ``delta`` (..., 5) of the five probabilities seen by the other side (win <-> lose); shape preserved."""
    out = np.empty_like(delta)
    out[..., 0] = -delta[..., 0]
    out[..., 1] = delta[..., 3]
    out[..., 2] = delta[..., 4]
    out[..., 3] = delta[..., 1]
    out[..., 4] = delta[..., 2]
    return out


def flip_outcomes(arr: np.ndarray) -> np.ndarray:
    """The five probabilities (..., 5) seen by the other side (win <-> lose); unchecked, shape preserved.

    The one definition of the flip; :func:`flip_probabilities` validates its input first.
    """
    out = np.empty_like(arr)
    out[..., 0] = 1.0 - arr[..., 0]
    out[..., 1] = arr[..., 3]
    out[..., 2] = arr[..., 4]
    out[..., 3] = arr[..., 1]
    out[..., 4] = arr[..., 2]
    return out


def cubeless_equity(probs: ArrayLike) -> FloatArray:
    """Return the cubeless money equity of the side on roll, per unit cube: P*W - (1-P)*L."""
    return outcome_equity(_check_probabilities(probs))


def flip_probabilities(probs: ArrayLike) -> FloatArray:
    """Return the five probabilities seen from the other side (shape preserved)."""
    return flip_outcomes(_check_probabilities(probs))


@dataclass(frozen=True)
class GameState:
    """Janowski's reduced game state for the side on roll: win probability P, W and L."""

    P: float
    W: float
    L: float

    def __post_init__(self) -> None:
        check_probability(self.P, "P")
        check_win_value(self.W, "W")
        check_win_value(self.L, "L")

    @classmethod
    def from_probabilities(cls, probs: ArrayLike) -> GameState:
        """Return the state of the side on roll from its five probabilities (shape (5,))."""
        P, W, L = win_loss_values(probs)
        if np.ndim(P) != 0:
            raise CubeInputError(f"expected one position (shape (5,)), got shape {np.shape(probs)}")
        return cls(float(P), float(W), float(L))

    @classmethod
    def gammon_free(cls, P: float) -> GameState:
        """Return a gammon-free state (W = L = 1), e.g. a race or a bearoff."""
        return cls(float(P), 1.0, 1.0)

    @property
    def cubeless_equity(self) -> float:
        """Cubeless equity of the side on roll per unit cube: P*W - (1-P)*L."""
        return self.P * self.W - (1.0 - self.P) * self.L

    def flipped(self) -> GameState:
        """Return the same position seen from the opponent (1-P, W and L swapped)."""
        return GameState(1.0 - self.P, self.L, self.W)
