"""Boards met in greedy 0-ply self-play of the shipped net: realistic positions for cube tests."""

from __future__ import annotations

import numpy as np

from engine import Position
from nets import load_evaluator
from nets.lookahead import best_children


def positions_from_games(n_games: int, seed: int) -> np.ndarray:
    """The boards (side on roll's view, games still in contact or racing) of ``n_games`` greedy games, ply by ply."""
    ev = load_evaluator()
    rng = np.random.default_rng(seed)
    boards = np.repeat(Position.initial().array[None], n_games, axis=0)
    seen = []
    for _ in range(60):
        dice = rng.integers(1, 7, size=(len(boards), 2))
        boards = best_children(ev, boards, dice)
        alive = (boards > 0).any(axis=1) & (boards < 0).any(axis=1)
        boards = boards[alive]
        if len(boards) == 0:
            break
        seen.append(boards.copy())
    return np.concatenate(seen)
