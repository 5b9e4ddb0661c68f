"""Fixed benchmark position sets taken from seeded games."""

from __future__ import annotations

import numpy as np

from engine.batch import children_batch
from engine.position import Position


def random_game_positions(n_games: int = 200, seed: int = 20261121) -> tuple[np.ndarray, np.ndarray]:
    """Boards and rolls met in ``n_games`` seeded games of random legal play, played in lockstep.

    Returns ``(boards, dice)``: int8 (n, 26) boards from the side on roll, int64 (n, 2) rolls.
    """
    rng = np.random.default_rng(seed)
    live = np.repeat(Position.initial().array[None, :], n_games, axis=0)
    seen_boards: list[np.ndarray] = []
    seen_dice: list[np.ndarray] = []
    while len(live):
        roll = rng.integers(1, 7, size=(len(live), 2))
        seen_boards.append(live.copy())
        seen_dice.append(roll)
        kids, offsets = children_batch(live, roll)
        pick = offsets[:-1] + (rng.random(len(live)) * np.diff(offsets)).astype(np.int64)
        nxt = kids[pick]
        # A game ends when the mover (now the negative side) has no checkers left.
        alive = (nxt < 0).any(axis=1)
        live = nxt[alive]
    return np.concatenate(seen_boards), np.concatenate(seen_dice).astype(np.int64)
