"""Seeded dice, the opening roll, the runaway-game guard and the score of a finished game.

Games between players are played by :mod:`arena`; a player's games against itself in lockstep by
:mod:`engine.selfplay`.
"""

from __future__ import annotations

import numpy as np

from engine.errors import RunawayGame
from engine.position import Position

MAX_PLIES = 3_000  # a game this long means a player that cannot finish: refused, not looped forever


def roll_batch(rng: np.random.Generator, opening: np.ndarray) -> np.ndarray:
    """One roll per game, int64 (n, 2) for the n flags of ``opening``; a game at its opening roll rerolls doubles.

    All n rolls are drawn at once, then the opening doubles again and again until none is left, so
    the numbers drawn from ``rng`` depend only on the flags and what it gives.
    """
    dice = rng.integers(1, 7, size=(len(opening), 2))
    while True:
        same = opening & (dice[:, 0] == dice[:, 1])
        if not same.any():
            return dice
        dice[same] = rng.integers(1, 7, size=(int(same.sum()), 2))


def check_plies(plies: np.ndarray) -> None:
    """Raise RunawayGame when a game's count of moves played (``plies``, one per game) has reached MAX_PLIES."""
    if len(plies) and int(plies.max()) >= MAX_PLIES:
        raise RunawayGame(f"a game passed {MAX_PLIES} moves: a player cannot finish")


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
        a, b = (int(v) for v in roll_batch(self.rng, np.ones(1, bool))[0])  # a: player 0's die, b: player 1's
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
