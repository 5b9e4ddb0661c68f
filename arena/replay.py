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
from arena.luck import roll_luck
from cube.gamestate import difference_equity
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
    #: (sum(plies + 1),) the cubeless equity luck, for seat 0, of the roll played from each row's board
    #: (0 on final boards), when the trajectories were played with a luck evaluator; else None.
    luck_seat0: np.ndarray | None = None

    @property
    def n_pairs(self) -> int:
        """Number of pairs (one trajectory each)."""
        return len(self.plies)

    def after(self, pairs: np.ndarray, plies: np.ndarray) -> np.ndarray:
        """The boards after the moves at ``plies`` of ``pairs`` (indices in the block), the next side on roll's view."""
        if np.any(plies >= self.plies[pairs]):
            raise ValueError("a replayed game moved past the end of its trajectory")
        return self.boards[self.starts[pairs] + plies + 1]

    def luck_at(self, pairs: np.ndarray, plies: np.ndarray) -> np.ndarray:
        """The cubeless equity luck for seat 0 of the rolls at ``plies`` of ``pairs``; ValueError without luck."""
        if self.luck_seat0 is None:
            raise ValueError("these trajectories were played without a luck evaluator")
        return self.luck_seat0[self.starts[pairs] + plies]


def play_trajectories(
    player: Player,
    seed: int,
    first_pair: int,
    n_pairs: int,
    on_pairs_done: Callable[[int], None] | None = None,
    luck: BoardEvaluator | None = None,
    luck_screen: int | None = None,
) -> Trajectories:
    """The cubeless game of each pair ``first_pair ..`` with ``player`` in both seats, on the pairs' dice.

    The dice and the opening side are those of :func:`arena.games.play_block`, so a replay over
    these trajectories is the block ``play_block`` plays with two players moving as ``player`` does.
    ``on_pairs_done`` hears how many more pairs' games have ended after each move (for a progress bar).
    With ``luck`` (a reference evaluator) every roll's cubeless luck is judged once here, so that any
    number of replays over the trajectories luck-adjust their games without judging it again
    (``luck_screen`` screens the luck's plays, :mod:`arena.luck`).
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
    seen_luck: list[np.ndarray] = []
    live = n_pairs
    while g.live.any():
        idx = np.flatnonzero(g.live)
        rolls = dice.at(idx, g.ply[idx])
        if luck is not None:
            luck_rolls, _ = roll_luck(luck, g.boards[idx], rolls, g.on_roll[idx], luck_screen)  # as play_block
            seen_luck.append(difference_equity(luck_rolls))
        kids, _ = g.move(idx, rolls)
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
    luck_rows = None
    if luck is not None:
        # The luck judged at a move is kept first with the child it led to (0 on the opening boards);
        # in (pair, ply) order a board's next row is its child, so one shift gives each board the
        # luck of the roll played from it, and a final board the next pair's opening 0.
        luck_into = np.concatenate([np.zeros(n_pairs), *seen_luck])[order]
        luck_rows = np.zeros(len(luck_into))
        luck_rows[:-1] = luck_into[1:]
    return Trajectories(first_pair, np.concatenate(seen_boards)[order], starts, counts.astype(np.int64) - 1, luck_rows)


def replay_block(
    players: tuple[Player, Player],
    trajectories: Trajectories,
    seed: int,
    rules: Rules,
    record: bool = False,
    compare_cube: bool = True,
    luck: BoardEvaluator | None = None,
    luck_screen: int | None = None,
) -> BlockResult:
    """The block of ``trajectories``' pairs played by ``players`` (A, B), the moves read from the trajectories.

    Equal to ``play_block(players, seed, first_pair, n_pairs, rules, record, compare_cube)`` when
    both players move as the trajectories' player did and ``seed`` is the trajectories' seed. The
    games are luck-adjusted by ``luck`` (a reference evaluator), or, without one, by the luck the
    trajectories carry when they were played with a luck evaluator (``luck_screen`` screens the plays
    of the luck judged here).
    """
    judged = trajectories.luck_at if luck is None and trajectories.luck_seat0 is not None else None
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
        judged_luck=judged,
        luck_screen=luck_screen,
    )
