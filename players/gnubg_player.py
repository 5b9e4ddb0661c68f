"""GNU Backgammon in process (the ``gnubg`` package) as a player: its checker play, its probabilities, its cube.

Install the optional extra with ``pip install -e ".[gnubg]"``; without it :func:`make_gnubg_player`
raises :class:`InvalidSpec` saying so. The package, its boards and gnubg's C cube functions are
reached through :mod:`players.gnubg_binding`, whose notes say how a cube decision is computed and
normalised; boards here are this project's int8 (n, 26) arrays seen by the side on roll.

Checker play (``plies`` 0, 1 or 2: gnubg's own n-ply, cubeless money evaluation, deterministic, no
noise, pruning nets on as in gnubg's default settings, and ``findbestmove``'s default move filters):
``gnubg.findbestmove`` gives gnubg's play as a tuple of single-die hops (1-based, 25 = bar). The
binding cuts that tuple at the first hop that bears a checker off (its "to" is negative, and it
stops at the first negative entry): a bear-off 6-5 taking two checkers off comes back as ``(6,)``.
So a tuple of odd length (it bears off) is never trusted; an even-length tuple is replayed on the
board and must give exactly one of :func:`engine.batch.children_batch`'s children. Otherwise the
child is chosen by gnubg's evaluation of every child: ``gnubg.evaluate`` of the child (the
opponent on roll) at the same plies, the child whose cubeless equity is lowest for the opponent,
that is best for the mover, wins; a child where the mover has borne off its last checker wins at
once (gnubg scores finished positions as single games, so it is not asked). Beyond 0-ply this
evaluates every child, without findbestmove's move filters.

Probabilities: ``gnubg.evaluate`` at ``plies``, cubeless, the first five outputs (win, win gammon,
win backgammon, lose gammon, lose backgammon; gammons include backgammons) for the side on roll;
any of this project's cube strategies can run on them (``jump-local`` cannot: no lookahead).

gnubg's own cube (cube spec ``gnubg``, or ``gnubg@PLY`` at another depth): the decisions of
:class:`players.gnubg_cube.GnubgEngineDecider`, money or match, whose notes say how gnubg's
decision codes become actions and responses.
"""

from __future__ import annotations

import numpy as np

from cube.states import CubeState
from engine.batch import children_batch
from engine.errors import IllegalMove, InvalidSpec
from engine.notation import replay_hops
from players.cube import AnyCubeSpec, make_decider
from players.gnubg_binding import (
    CENTRED,
    MAX_PLIES,
    ON_ROLL,
    OPPONENT,
    gnubg,
    gnubg_boards,
    gnubg_engine,
    require_gnubg,
)
from players.gnubg_cube import GnubgEngineDecider
from players.strategic import StrategyPlayer


class GnubgPlayer(StrategyPlayer):
    """GNU Backgammon at ``plies`` (0-2) in process: its checker play and probabilities, its cube or any strategy."""

    def __init__(self, plies: int, cube: AnyCubeSpec, name: str | None = None) -> None:
        require_gnubg(f"player gnubg@{plies}")
        if not 0 <= plies <= MAX_PLIES:
            raise InvalidSpec(f"player gnubg@{plies}: ply {plies} is not 0 to {MAX_PLIES}")
        # ``gnubg`` (own): the engine's own cube at this depth, money or match; any other strategy on its probabilities
        engine = gnubg_engine()
        decider = GnubgEngineDecider(plies, engine) if cube.own else make_decider(cube, self.probabilities)
        label = name or f"gnubg@{plies}" + ("" if cube.cubeless else f" [{cube.text}]")
        super().__init__(label, cube, decider)
        self.plies = plies
        self.engine = engine
        # Money, centred cube; with a cubeless evalcontext gnubg's money equity ignores the cube.
        self.cube_info = gnubg.cubeinfo(1, CENTRED, ON_ROLL, 0, (0, 0), 0)
        self.context = gnubg.evalcontext(0, plies, 1, 1, 0.0)  # cubeless, deterministic, pruning on, no noise
        self.tuple_moves = 0  # plays taken from findbestmove's tuple
        self.evaluated_moves = 0  # plays chosen by evaluating every child (bear-offs, unmapped tuples)

    # --- checker play -----------------------------------------------------------------------
    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """gnubg's play of each (board, dice) pair: one of ``children_batch``'s children (opponent's view)."""
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        dice = np.asarray(dice, dtype=np.int64)
        children, offsets = children_batch(boards, dice)
        chosen = np.empty((len(boards), 26), np.int8)
        for i, (board, gnubg_board) in enumerate(zip(boards, gnubg_boards(boards), strict=True)):
            kids = children[offsets[i] : offsets[i + 1]]
            if len(kids) == 1:  # a forced play (or none): gnubg has nothing to choose
                chosen[i] = kids[0]
                continue
            move = gnubg.findbestmove(gnubg_board, self.cube_info, self.context, (int(dice[i, 0]), int(dice[i, 1])))
            index = self._child_of_tuple(board, tuple(move), kids)
            if index is None:
                index = self.best_child_by_evaluation(kids)
                self.evaluated_moves += 1
            else:
                self.tuple_moves += 1
            chosen[i] = kids[index]
        return chosen

    @staticmethod
    def _child_of_tuple(board: np.ndarray, move: tuple[int, ...], kids: np.ndarray) -> int | None:
        """Index in ``kids`` of the child findbestmove's tuple leads to; None when the tuple cannot be trusted.

        An odd length means the binding cut the tuple at a bear-off; a tuple that does not replay,
        or leads to no child or to several, is not trusted either.
        """
        if not move or len(move) % 2:
            return None
        hops = [(move[k], move[k + 1]) for k in range(0, len(move), 2)]
        if any(not (1 <= src <= 25 and 1 <= dst <= 24) for src, dst in hops):
            return None
        try:
            after, _ = replay_hops(board, hops, strict_text=str(move))
        except IllegalMove:
            return None
        child = -after[::-1]
        matches = np.flatnonzero((kids == child).all(axis=1))
        return int(matches[0]) if len(matches) == 1 else None

    def best_child_by_evaluation(self, kids: np.ndarray) -> int:
        """Index of the child best for the mover by gnubg's cubeless equity at this player's plies.

        A child where the mover has no checker left is a win and is taken at once (gnubg would
        score it as a single game).
        """
        finished = np.flatnonzero(~(kids < 0).any(axis=1))
        if len(finished):
            return int(finished[0])
        return int(np.argmax(self.mover_equities(kids)))

    def mover_equities(self, kids: np.ndarray) -> np.ndarray:
        """gnubg's cubeless money equity at this player's plies of each child for the side that just moved.

        Children are seen by the opponent (on roll there), so this is minus gnubg's equity of each.
        """
        return -np.asarray([gnubg.evaluate(b, self.cube_info, self.context)[5] for b in gnubg_boards(kids)])

    # --- probabilities ------------------------------------------------------------------------
    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """Cubeless probabilities (n, 5) of each board's side on roll at this player's plies (gnubg's order)."""
        rows = [gnubg.evaluate(b, self.cube_info, self.context)[:5] for b in gnubg_boards(boards)]
        return np.asarray(rows, dtype=np.float64).reshape(-1, 5)

    # --- gnubg's own cube ---------------------------------------------------------------------
    def cube_analysis(
        self, boards: np.ndarray, cube_states: np.ndarray, jacoby: bool, beavers: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """gnubg's decision codes (n,), equities (n, 3: no double, double take, double pass) and P(win) (n,).

        Boards and cube states are the side on roll's (the would-be doubler's); money equities
        per unit of the current cube. A board whose cube is unavailable gets NOT_AVAILABLE.
        """
        states = np.asarray(cube_states, dtype=str)
        owners = np.where(states == CubeState.CENTERED, CENTRED, np.where(states == CubeState.OWNED, ON_ROLL, OPPONENT))
        return self.engine.cube_decisions(
            np.asarray(boards, dtype=np.int8).reshape(-1, 26), owners, self.plies, jacoby, beavers
        )


def make_gnubg_player(plies: int, cube: AnyCubeSpec) -> GnubgPlayer:
    """GNU Backgammon at ``plies`` with cube spec ``cube`` (money, or a match spec in matches); raises InvalidSpec."""
    require_gnubg(f"player gnubg@{plies}")
    return GnubgPlayer(plies, cube)
