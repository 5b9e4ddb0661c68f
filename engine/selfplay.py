"""Lockstep self-play: many games of one player against itself, advancing one roll and move at a time.

:class:`SelfPlay` keeps each live game's board (side on roll's view, before it rolls), its number,
whether it is at its opening roll, and the moves played in it. Iterating over it yields it once
per lockstep move; the caller rolls (:meth:`SelfPlay.roll`, opening doubles rerolled), chooses one
child of every board (:func:`engine.batch.children_batch` lists them) however it plays (a net at
0-ply, a torch model being trained, random legal moves) and plays them (:meth:`SelfPlay.play`),
or does both with a batched choice (:meth:`SelfPlay.move`). A finished game starts again from the
opening in its slot while the target number of games has not all started, and retires otherwise;
a game that passes :data:`engine.game.MAX_PLIES` moves raises :class:`engine.errors.RunawayGame`.

The dice are the only numbers drawn from the generator given, so a caller that draws its own
numbers from it between the steps (samples, exploration) keeps one reproducible stream.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from engine.batch import phases
from engine.game import check_plies, roll_batch
from engine.position import GamePhase, Position

#: A batched move choice: (boards int8 (n, 26), rolls (n, 2)) -> the children played, int8 (n, 26).
Choose = Callable[[np.ndarray, np.ndarray], np.ndarray]


class SelfPlay:
    """Games in lockstep: ``parallel`` at a time (fewer when ``games`` is smaller), ``games`` in all (None: no end).

    ``boards`` and ``opening`` resume games in flight (a checkpoint's); they are numbered from 0 in
    their order. Rows of the arrays are the live games, in the order of their slots.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        parallel: int,
        games: int | None = None,
        boards: np.ndarray | None = None,
        opening: np.ndarray | None = None,
    ) -> None:
        self.rng = rng
        self.target = games
        if boards is None:
            n = parallel if games is None else min(parallel, games)
            boards = np.repeat(Position.initial().array[None, :], n, axis=0)
            opening = np.ones(n, bool)
        elif opening is None:
            raise ValueError("resumed boards need their opening flags")
        self.boards: np.ndarray = np.array(boards, np.int8)  # int8 (m, 26): side on roll's view, before its roll
        self.opening: np.ndarray = np.array(opening, bool)  # (m,): at the opening roll (no doubles)
        self.games: np.ndarray = np.arange(len(self.boards), dtype=np.int64)  # (m,): game numbers, 0.. as started
        self.plies: np.ndarray = np.zeros(len(self.boards), np.int64)  # (m,): moves played in each game
        self.started = len(self.boards)  # games started so far
        self.moves = 0  # lockstep moves played so far
        self.dice: np.ndarray | None = None  # the last roll, int64 (m, 2)

    def __len__(self) -> int:
        return len(self.boards)

    def __iter__(self) -> Iterator[SelfPlay]:
        """Yields this object before each lockstep move until no game is live; each turn must :meth:`play`.

        Raises RunawayGame when a game has played :data:`engine.game.MAX_PLIES` moves.
        """
        while len(self.boards):
            check_plies(self.plies)
            before = self.moves
            yield self
            if self.moves == before:
                raise RuntimeError("a self-play turn ended without a move played")

    def roll(self) -> np.ndarray:
        """Roll for every live game (opening doubles rerolled): int64 (m, 2), also kept in ``dice``."""
        self.dice = roll_batch(self.rng, self.opening)
        return self.dice

    def play(self, children: np.ndarray) -> np.ndarray:
        """Play one child per live game (int8 (m, 26), the next side on roll's view); which of them ended their game.

        Finished games restart from the opening in their slot or retire (see the class). Arrays
        read from this object before the call keep the rows as they were; ``children`` is copied.
        """
        if len(children) != len(self.boards):
            raise ValueError(f"{len(children)} children for {len(self.boards)} live games")
        over = phases(children) == GamePhase.OVER
        self.boards = np.array(children, np.int8)
        self.opening = np.zeros(len(self.boards), bool)
        self.plies = self.plies + 1
        self.dice = None
        self.moves += 1
        self.end(over)
        return over

    def move(self, choose: Choose) -> tuple[np.ndarray, np.ndarray]:
        """Roll and play the children ``choose`` picks for the boards and rolls; (children, which ended their game)."""
        children = choose(self.boards, self.roll())
        return children, self.play(children)

    def end(self, finished: np.ndarray) -> None:
        """End the games flagged in ``finished`` (m,), e.g. by a pass: each slot starts a new game or retires.

        The first finished slots, in row order, start new games until ``games`` have started; the others retire.
        """
        rows = np.flatnonzero(finished)
        if len(rows) == 0:
            return
        fresh = rows if self.target is None else rows[: max(0, self.target - self.started)]
        self.boards, self.games = self.boards.copy(), self.games.copy()
        self.opening, self.plies = self.opening.copy(), self.plies.copy()
        self.boards[fresh] = Position.initial().array
        self.games[fresh] = np.arange(self.started, self.started + len(fresh))
        self.opening[fresh] = True
        self.plies[fresh] = 0
        self.started += len(fresh)
        if len(fresh) < len(rows):
            alive = np.ones(len(self.boards), bool)
            alive[rows[len(fresh) :]] = False
            self.boards, self.games = self.boards[alive], self.games[alive]
            self.opening, self.plies = self.opening[alive], self.plies[alive]
            if self.dice is not None:
                self.dice = self.dice[alive]
