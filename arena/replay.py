"""Cubeful blocks replayed over cubeless games: the checker play once, the cube decisions per strategy.

When both players of a money block move their checkers the same way (the same deterministic
checker player, differing only in their cube strategies), a game's moves do not depend on the
cube: a double, a take or a beaver changes only the stake, and a pass only ends the game early.
So each pair's dice give one cubeless game (:func:`play_trajectories`), shared by the pair's two
mirrored games, and any number of cube strategy pairs can be played over it (:func:`replay_block`):
the cube turns run exactly as in :func:`arena.games.play_block` (the same code asks the same
questions of the same positions), while the moves are read from the trajectory instead of being
chosen again. The block that comes out is the one ``play_block`` would give, counters included;
the cost of a cube-strategy comparison becomes that of its cube decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from arena.games import BlockResult, DiceStreams, Lockstep, Rules, play_block
from engine.position import Position
from nets.base import BoardEvaluator
from players.base import Player


@dataclass(frozen=True)
class Trajectories:
    """Cubeless games of pairs ``first_pair ..``: each pair's boards, before every move and at the end.

    Pair ``k``'s board before its move at ply ``p`` (seen by the side on roll) is row
    ``starts[k] + p`` of ``boards``; row ``starts[k] + plies[k]`` is its final board.
    """

    first_pair: int
    boards: np.ndarray  # (sum(plies + 1), 26) int8
    starts: np.ndarray  # (n_pairs,)
    plies: np.ndarray  # (n_pairs,) moves the game took

    @property
    def n_pairs(self) -> int:
        """Number of pairs (one trajectory each)."""
        return len(self.plies)

    def after(self, pairs: np.ndarray, plies: np.ndarray) -> np.ndarray:
        """The boards after the moves at ``plies`` of ``pairs`` (indices in the block), the next side on roll's view."""
        if np.any(plies >= self.plies[pairs]):
            raise ValueError("a replayed game moved past the end of its trajectory")
        return self.boards[self.starts[pairs] + plies + 1]


def play_trajectories(
    player: Player, seed: int, first_pair: int, n_pairs: int, on_pairs_done: Callable[[int], None] | None = None
) -> Trajectories:
    """The cubeless game of each pair ``first_pair ..`` with ``player`` in both seats, on the pairs' dice.

    The dice and the opening side are those of :func:`arena.games.play_block`, so a replay over
    these trajectories is the block ``play_block`` plays with two players moving as ``player`` does.
    ``on_pairs_done`` hears how many more pairs' games have ended after each move (for a progress bar).
    """
    dice = DiceStreams.for_pairs(seed, first_pair, n_pairs)
    opening = dice.rolls[:, 0]
    pair = np.arange(n_pairs)
    g = Lockstep(
        (player, player),
        boards=np.repeat(Position.initial().array[None, :], n_pairs, axis=0),
        on_roll=(opening[:, 0] < opening[:, 1]).astype(np.int64),
        seat_of_a=np.zeros(n_pairs, np.int64),
        rules=Rules(),
    )
    seen_pairs = [pair]
    seen_plies = [np.zeros(n_pairs, np.int64)]
    seen_boards = [g.boards.copy()]
    live = n_pairs
    while g.live.any():
        idx = np.flatnonzero(g.live)
        kids, _ = g.move(idx, dice.at(idx, g.ply[idx]))
        seen_pairs.append(idx)
        seen_plies.append(g.ply[idx].copy())
        seen_boards.append(kids)
        if on_pairs_done is not None and (still := int(g.live.sum())) < live:
            on_pairs_done(live - still)
            live = still
    pairs = np.concatenate(seen_pairs)
    plies = np.concatenate(seen_plies)
    order = np.lexsort((plies, pairs))
    counts = np.bincount(pairs, minlength=n_pairs)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return Trajectories(first_pair, np.concatenate(seen_boards)[order], starts, counts.astype(np.int64) - 1)


def replay_block(
    players: tuple[Player, Player],
    trajectories: Trajectories,
    seed: int,
    rules: Rules,
    record: bool = False,
    compare_cube: bool = True,
    luck: BoardEvaluator | None = None,
) -> BlockResult:
    """The block of ``trajectories``' pairs played by ``players`` (A, B), the moves read from the trajectories.

    Equal to ``play_block(players, seed, first_pair, n_pairs, rules, record, compare_cube)`` when
    both players move as the trajectories' player did and ``seed`` is the trajectories' seed.
    """
    return play_block(
        players,
        seed,
        trajectories.first_pair,
        trajectories.n_pairs,
        rules,
        record,
        compare_cube,
        children=trajectories.after,
        luck=luck,
    )
