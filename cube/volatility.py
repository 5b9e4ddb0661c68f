"""Local jump volatility from the evaluator's two-roll (21 x 21 = 441) lookahead.

Higgins (2012, section 2): after each of the 21 x 21 pairs of rolls (player's roll, the
best move, opponent's roll, his best move) the evaluator gives the cubeless win probability
P_i of the player; with roll-pair weights w_i (1/36^2 both doubles, 1/18^2 both mixed,
1/(18*36) otherwise)::

    P_a     = sum_i w_i P_i
    sigma_J = sqrt(sum_i w_i (P_i - P_a)^2)

Note: the paper defines the jump volatility as E|J| but computes this estimate as a
standard deviation; ``measure="mean_abs"`` gives ``sum_i w_i |P_i - P_a|`` instead.
Statistically estimated volatilities should be scaled by 1.24 before use in the linear
approximation (:data:`cube.jump_linear.STATISTICAL_SCALE`).
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike

from cube.errors import CubeInputError, FloatArray, check_choice, check_probability

__all__ = ["DEFAULT_REMOTE_ALPHA", "ROLLS", "VolatilityMeasure", "local_volatility", "two_roll_weights"]


class VolatilityMeasure(StrEnum):
    """How the spread of the 441 two-roll win chances becomes a volatility."""

    STD = "std"  # sigma_J, the standard deviation: the paper's computation
    MEAN_ABS = "mean_abs"  # E|J|, the mean absolute jump: the paper's definition of alpha


#: The remote (constant) jump volatility E|J| assumed where no better one is given: the jump-local
#: strategies' volatility for the turns after this one, and the constant-volatility jump player's.
DEFAULT_REMOTE_ALPHA = 0.10

#: The 21 distinct rolls in the order assumed by :func:`two_roll_weights`: (1,1), (1,2),
#: ..., (1,6), (2,2), ..., (6,6) (first die <= second die).
ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


def two_roll_weights(rolls: tuple[tuple[int, int], ...] = ROLLS) -> FloatArray:
    """Return the (21, 21) probabilities of each (player roll, opponent roll) pair."""
    single = np.array([1.0 / 36.0 if a == b else 1.0 / 18.0 for a, b in rolls])
    if len(rolls) != 21 or abs(single.sum() - 1.0) > 1e-12:
        raise CubeInputError(f"rolls must list the 21 distinct rolls, got {len(rolls)}")
    return np.outer(single, single)


def local_volatility(
    p_after: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    measure: VolatilityMeasure | str = VolatilityMeasure.STD,
) -> FloatArray:
    """Return the local jump volatility of each position from its 441 two-roll win chances.

    ``p_after`` has shape (..., 441) or (..., 21, 21), the player's cubeless P after each
    roll pair (rows: player's roll in :data:`ROLLS` order).  Returns shape (...).
    """
    measure = VolatilityMeasure(check_choice(str(measure), "measure", tuple(VolatilityMeasure)))
    p = check_probability(p_after, "P after two rolls")
    if p.shape[-2:] == (21, 21):
        p = p.reshape(*p.shape[:-2], 441)
    if p.shape[-1:] != (441,):
        raise CubeInputError(f"p_after must end in 441 or (21, 21), got shape {p.shape}")
    w = two_roll_weights() if weights is None else np.asarray(weights, dtype=np.float64)
    w = w.reshape(441)
    if np.any(w < 0) or abs(w.sum() - 1.0) > 1e-9:
        raise CubeInputError(f"weights must be >= 0 and sum to 1, got sum {w.sum()!r}")
    mean = p @ w
    dev = p - mean[..., None]
    if measure is VolatilityMeasure.STD:
        return np.sqrt((dev**2) @ w)
    return np.asarray(np.abs(dev) @ w, dtype=np.float64)
