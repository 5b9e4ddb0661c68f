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

gnubg's own cube (cube spec ``gnubg``): :class:`players.gnubg_binding.GnubgEngine` gives gnubg's
decision code per board. The codes become actions and responses as in gnubg's external mode
(``external.c``), the other backend this project uses: ``double_actions`` says double for
(re)double-take, (re)double-pass and double-beaver, too good for the too-good codes, no double
otherwise; an "optional" double (no double equal to the better of the double equities within 1e-5)
is doubled at 0-ply when the side on roll can still win (P(win) > 0.001), as gnubg does, and not
doubled deeper. ``double_responses`` asks the same question from the doubler's side (its board
flipped, its cube state): pass for every pass code, beaver for the beaver codes (only with
beavers), take otherwise. A side whose cube is unavailable is not asked and never doubles.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cube.match import MatchCube
from cube.states import CubeAction, CubeResponse, CubeState
from engine.batch import children_batch, flip_boards
from engine.errors import IllegalMove, InvalidSpec
from engine.notation import replay_hops
from players.base import CubeContext
from players.cube import AnyCubeSpec, make_decider
from players.gnubg_binding import (
    BEAVER_CODES,
    CENTRED,
    DOUBLING_CODES,
    MAX_PLIES,
    ON_ROLL,
    OPPONENT,
    OPTIONAL_CODES,
    PASS_CODES,
    TOO_GOOD_CODES,
    gnubg,
    gnubg_boards,
    gnubg_engine,
    require_gnubg,
)
from players.strategic import StrategyPlayer

OPTIONAL_DOUBLE_MIN_WIN = 0.001  # gnubg doubles an optional 0-ply double only while it can still win


class GnubgPlayer(StrategyPlayer):
    """GNU Backgammon at ``plies`` (0-2) in process: its checker play and probabilities, its cube or any strategy."""

    def __init__(self, plies: int, cube: AnyCubeSpec, name: str | None = None) -> None:
        require_gnubg(f"player gnubg@{plies}")
        if not 0 <= plies <= MAX_PLIES:
            raise InvalidSpec(f"player gnubg@{plies}: ply {plies} is not 0 to {MAX_PLIES}")
        # ``gnubg`` (own): the engine's own cube, money or match; any other strategy on its probabilities
        decider = None if cube.own else make_decider(cube, self.probabilities)
        label = name or f"gnubg@{plies}" + ("" if cube.cubeless else f" [{cube.text}]")
        super().__init__(label, cube, decider)
        self.plies = plies
        self.engine = gnubg_engine() if cube.own else None
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
        engine = self.engine or gnubg_engine()
        states = np.asarray(cube_states, dtype=str)
        owners = np.where(states == CubeState.CENTERED, CENTRED, np.where(states == CubeState.OWNED, ON_ROLL, OPPONENT))
        return engine.cube_decisions(
            np.asarray(boards, dtype=np.int8).reshape(-1, 26), owners, self.plies, jacoby, beavers
        )

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        """Per board (side on roll, before rolling): gnubg's own double / no double / too good, or the strategy's.

        At a match score gnubg's own match cube action.
        """
        if not self.cube.own:
            return super().double_actions(boards, context)
        if context.cubes is not None:
            return self._match_double_actions(boards, context.cubes)
        states = np.asarray(context.states, dtype=str)
        actions = np.full(len(boards), CubeAction.NO_DOUBLE, dtype=object)
        may = np.flatnonzero(states != CubeState.UNAVAILABLE)
        if len(may):
            codes, _, win = self.cube_analysis(np.asarray(boards)[may], states[may], context.jacoby, context.beavers)
            actions[may] = [self._action(int(code), float(p)) for code, p in zip(codes, win, strict=True)]
        return np.asarray(actions.astype(str))

    def _action(self, code: int, win: float) -> CubeAction:
        """The action for gnubg's decision code, as gnubg's external mode maps it."""
        if code in DOUBLING_CODES:
            return CubeAction.DOUBLE
        if code in TOO_GOOD_CODES:
            return CubeAction.TOO_GOOD
        if code in OPTIONAL_CODES and self.plies == 0 and win > OPTIONAL_DOUBLE_MIN_WIN:
            return CubeAction.DOUBLE
        return CubeAction.NO_DOUBLE

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        """Per board seen by the doubled side: gnubg's take / pass / beaver (its decision from the doubler's side).

        At a match score gnubg's own match take / pass.
        """
        if not self.cube.own:
            return super().double_responses(boards, doubler)
        if len(boards) == 0:
            return np.asarray([], dtype=str)
        if doubler.cubes is not None:
            return self._match_double_responses(boards, doubler.cubes)
        beavers = doubler.beavers
        codes, _, _ = self.cube_analysis(flip_boards(np.asarray(boards)), doubler.states, doubler.jacoby, beavers)
        responses = [
            CubeResponse.PASS
            if code in PASS_CODES
            else CubeResponse.BEAVER
            if code in BEAVER_CODES and beavers
            else CubeResponse.TAKE
            for code in codes
        ]
        return np.asarray([str(r) for r in responses])

    # --- gnubg's own match cube ---------------------------------------------------------------
    def match_cube_codes(self, boards: np.ndarray, cubes: Sequence[MatchCube]) -> tuple[np.ndarray, np.ndarray]:
        """gnubg's match decision code and P(win) per board (side on roll) at its match cube (gnubg's own MET).

        gnubg reads a score only as the points each side still needs, so the match length given
        to it is the larger of the two.
        """
        engine = self.engine or gnubg_engine()
        codes = np.empty(len(cubes), np.int64)
        win = np.empty(len(cubes))
        owner_of = {CubeState.CENTERED: CENTRED, CubeState.OWNED: ON_ROLL, CubeState.UNAVAILABLE: OPPONENT}
        for i, (board, cube) in enumerate(zip(np.asarray(boards, dtype=np.int8).reshape(-1, 26), cubes, strict=True)):
            s = cube.score
            length = max(s.away, s.opp_away)
            code, _, outputs = engine.match_cube_decision(
                board,
                self.plies,
                cube.value,
                owner_of[cube.state],
                length,
                (length - s.away, length - s.opp_away),
                s.crawford,
            )
            codes[i], win[i] = code, outputs[0][0]
        return codes, win

    def _match_double_actions(self, boards: np.ndarray, cubes: Sequence[MatchCube]) -> np.ndarray:
        """Per board (side on roll): gnubg's own match cube action."""
        actions = np.full(len(boards), str(CubeAction.NO_DOUBLE), dtype=object)
        may = np.flatnonzero([cube.can_double for cube in cubes])
        if len(may):
            codes, win = self.match_cube_codes(np.asarray(boards)[may], [cubes[int(i)] for i in may])
            actions[may] = [str(self._action(int(code), float(p))) for code, p in zip(codes, win, strict=True)]
        return np.asarray(actions.astype(str))

    def _match_double_responses(self, boards: np.ndarray, doubler_cubes: Sequence[MatchCube]) -> np.ndarray:
        """Per board seen by the doubled side: gnubg's own match take / pass (its decision from the doubler's side)."""
        codes, _ = self.match_cube_codes(flip_boards(np.asarray(boards)), doubler_cubes)
        return np.asarray([str(CubeResponse.PASS if code in PASS_CODES else CubeResponse.TAKE) for code in codes])


def make_gnubg_player(plies: int, cube: AnyCubeSpec) -> GnubgPlayer:
    """GNU Backgammon at ``plies`` with cube spec ``cube`` (money, or a match spec in matches); raises InvalidSpec."""
    require_gnubg(f"player gnubg@{plies}")
    return GnubgPlayer(plies, cube)
