"""GNU Backgammon 1.07 as a batched player through its ``external`` mode (:mod:`players.gnubg_client`).

One request per position; money play with gnubg's own cube, or no cube. The protocol, its limits
and gnubg 1.07's quirks are described in :mod:`players.gnubg_client`.
"""

from __future__ import annotations

import numpy as np

from cube.states import CubeAction, CubeState
from engine.position import Position
from players.base import CubeContext, Player
from players.gnubg_client import GNUBG_RESPONSES, GnubgExternal


class GnubgExternalPlayer(Player):
    """GNU Backgammon 1.07 over its external-player mode as a batched :class:`players.base.Player`.

    One request per position (the client is a line protocol); money play with gnubg's own cube
    when ``cube`` is True, else it never doubles and always takes. ``client`` must be started.
    """

    def __init__(self, client: GnubgExternal, cube: bool = True, name: str = "gnubg-1.07-external") -> None:
        super().__init__(name)
        self.client = client
        self.cube = cube

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """gnubg's play of each (board, dice) pair, one of its children (opponent's view)."""
        return np.stack(
            [self.client.choose(Position(b), (int(d[0]), int(d[1]))).array for b, d in zip(boards, dice, strict=True)]
        )

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        """Double or no double per board (side on roll); the external mode does not say "too good".

        Money play only: at a match score it never doubles.
        """
        if not self.cube or context.is_match:
            return super().double_actions(boards, context)
        owners = {CubeState.CENTERED: "centre", CubeState.OWNED: "player", CubeState.UNAVAILABLE: "opponent"}
        return np.array(
            [
                CubeAction.DOUBLE
                if self.client.double_decision(Position(b), owner=owners[CubeState(str(s))])  # type: ignore[arg-type]
                else CubeAction.NO_DOUBLE
                for b, s in zip(boards, context.states, strict=True)
            ]
        )

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        """Take, pass or beaver per board seen by the doubled side (money play; at a match score always takes)."""
        if not self.cube or doubler.is_match:
            return super().double_responses(boards, doubler)
        return np.array(
            [
                GNUBG_RESPONSES[self.client.take_decision(Position(b).flip(), redouble=str(s) == CubeState.OWNED)]
                for b, s in zip(boards, doubler.states, strict=True)
            ]
        )
