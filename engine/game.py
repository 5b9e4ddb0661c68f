"""Seeded dice and the score of a finished game (single, gammon, backgammon); games are played by :mod:`arena`."""

from __future__ import annotations

import numpy as np

from engine.position import Position


class Dice:
    """Reproducible dice from a numpy Generator (seed or Generator)."""

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def roll(self) -> tuple[int, int]:
        """One roll of two dice."""
        a, b = self.rng.integers(1, 7, size=2)
        return int(a), int(b)

    def opening(self) -> tuple[int, tuple[int, int]]:
        """The opening roll, rerolled on doubles: (player 0 or 1 who starts, its dice)."""
        while True:
            a, b = self.roll()  # a: player 0's die, b: player 1's die
            if a != b:
                return (0 if a > b else 1), (a, b)


def result_multipliers(final_children: np.ndarray) -> np.ndarray:
    """1, 2 or 3 per finished game, from the winner's view; each int8 (n, 26) board is seen by the loser.

    A gammon when the loser has borne off none; a backgammon when it also still has a checker on
    the bar or in the winner's home board.
    """
    own = np.clip(np.asarray(final_children, np.int64).reshape(-1, 26), 0, None)
    gammon = own.sum(axis=1) == 15
    backgammon = gammon & ((own[:, 25] > 0) | (own[:, 19:25] > 0).any(axis=1))
    return 1 + gammon.astype(np.int64) + backgammon.astype(np.int64)


def result_multiplier(position: Position) -> int:
    """1, 2 or 3 for a finished game, from the winner's view: ``position`` is seen by the loser."""
    return int(result_multipliers(position.array[None])[0])
