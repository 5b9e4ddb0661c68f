"""Fixed benchmark position sets taken from seeded games."""

from __future__ import annotations

import numpy as np

from engine.batch import children_batch
from engine.selfplay import SelfPlay


def random_game_positions(n_games: int = 200, seed: int = 20261121) -> tuple[np.ndarray, np.ndarray]:
    """Boards and rolls met in ``n_games`` seeded games of random legal play, played in lockstep (no opening double).

    Returns ``(boards, dice)``: int8 (n, 26) boards from the side on roll, int64 (n, 2) rolls.
    """
    rng = np.random.default_rng(seed)
    seen_boards: list[np.ndarray] = []
    seen_dice: list[np.ndarray] = []
    for turn in SelfPlay(rng, n_games, games=n_games):
        roll = turn.roll()
        seen_boards.append(turn.boards)
        seen_dice.append(roll)
        kids, offsets = children_batch(turn.boards, roll)
        turn.play(kids[offsets[:-1] + (rng.random(len(turn)) * np.diff(offsets)).astype(np.int64)])
    return np.concatenate(seen_boards), np.concatenate(seen_dice).astype(np.int64)
