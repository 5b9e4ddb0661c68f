"""A player choosing uniformly among the distinct legal results, reproducibly.

The choice is a hash of the position, the dice and the player's seed, so the same position
and roll always get the same move whatever the batch, the order of calls or the worker: a
tournament played in one process or split across workers gives the same games.
"""

from __future__ import annotations

import numpy as np

from engine.batch import children_batch
from players.base import Player


class RandomPlayer(Player):
    """Uniform over distinct resulting positions (by a seeded hash); never doubles, always takes."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__("random" if seed == 0 else f"random:{seed}")  # as its spec names it
        self.weights = np.random.default_rng(seed).integers(1, 2**62, size=28, dtype=np.int64)

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """A pseudo-random child (opponent's view) of each (board, dice) pair."""
        kids, offsets = children_batch(boards, dice)
        features = np.concatenate([np.asarray(boards, np.int64), np.asarray(dice, np.int64)], axis=1)
        with np.errstate(over="ignore"):
            h = (features * self.weights).sum(axis=1).view(np.uint64)
            h ^= h >> np.uint64(31)
            h *= np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
        pick = offsets[:-1] + (h % np.diff(offsets).astype(np.uint64)).astype(np.int64)
        return kids[pick]
