"""GNU Backgammon's own cube decisions (its nets, its cubeful evaluation) as a decider any player can use.

The cube spec ``gnubg@PLY`` gives a player these decisions whatever plays its checkers, so two
players with the same checker play can differ in the cube handling alone (``net@0`` with
``jump-local`` against ``net@0`` with ``gnubg@0``); the cube spec ``gnubg`` of a ``gnubg@PLY``
player is the same decider at the player's own depth.

gnubg's decision codes become actions and responses as in gnubg's external mode (``external.c``):
the side on roll doubles for (re)double-take, (re)double-pass and double-beaver, is too good for
the too-good codes and does not double otherwise; an "optional" double (no double equal to the
better of the double equities within 1e-5) is doubled at 0-ply while the side on roll can still
win (P(win) > 0.001), as gnubg does, and not doubled deeper. The opponent passes for every pass
code, beavers for the beaver codes (only with beavers) and takes otherwise. A side whose cube is
unavailable never doubles and is not asked.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cube.match import MatchCube
from cube.states import CubeAction, CubeResponse, CubeState
from players.base import CubeAnswers, CubeContext
from players.gnubg_binding import (
    BEAVER_CODES,
    CENTRED,
    DOUBLING_CODES,
    ON_ROLL,
    OPPONENT,
    OPTIONAL_CODES,
    PASS_CODES,
    TOO_GOOD_CODES,
    GnubgEngine,
    gnubg_engine,
    require_gnubg,
)

OPTIONAL_DOUBLE_MIN_WIN = 0.001  # gnubg doubles an optional 0-ply double only while it can still win

_OWNER_OF_STATE = {CubeState.CENTERED: CENTRED, CubeState.OWNED: ON_ROLL, CubeState.UNAVAILABLE: OPPONENT}


def gnubg_action(code: int, win: float, plies: int) -> CubeAction:
    """The side on roll's action for gnubg's decision ``code`` at ``plies``, given its P(win) ``win``."""
    if code in DOUBLING_CODES:
        return CubeAction.DOUBLE
    if code in TOO_GOOD_CODES:
        return CubeAction.TOO_GOOD
    if code in OPTIONAL_CODES and plies == 0 and win > OPTIONAL_DOUBLE_MIN_WIN:
        return CubeAction.DOUBLE
    return CubeAction.NO_DOUBLE


def gnubg_response(code: int, beavers: bool) -> CubeResponse:
    """The opponent's answer to a double of the side on roll, for gnubg's decision ``code`` (beaver only if allowed)."""
    if code in PASS_CODES:
        return CubeResponse.PASS
    if code in BEAVER_CODES and beavers:
        return CubeResponse.BEAVER
    return CubeResponse.TAKE


class GnubgEngineDecider:
    """GNU Backgammon's cube decisions at ``plies`` (0-2), money or match, for boards seen by the side on roll.

    Its decisions ignore the player's probabilities: gnubg evaluates each position with its own
    nets. Money equities are gnubg's, per unit of the current cube, after the best cube action.
    """

    def __init__(self, plies: int, engine: GnubgEngine | None = None) -> None:
        require_gnubg(f"cube gnubg@{plies}")
        self.plies = plies
        self.engine = engine or gnubg_engine()
        self.decisions = 0
        self.lookaheads = 0  # none needed; kept for the statistics every decider reports
        self.lookaheads_run = 0

    def decide(self, boards: np.ndarray, context: CubeContext) -> CubeAnswers:
        """gnubg's action for each board's side on roll and its opponent's response, in ``context``."""
        boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
        self.decisions += len(boards)
        if context.cubes is not None:
            return self._decide_match(boards, context.cubes)
        # One call for every board: an unavailable cube (the opponent owns it) gets gnubg's NOT_AVAILABLE
        # code, which maps to no double, and its no-double equity.
        owners = np.array([_OWNER_OF_STATE[CubeState(s)] for s in np.asarray(context.states, dtype=str)], np.int64)
        codes, equities, win = self.engine.cube_decisions(boards, owners, self.plies, context.jacoby, context.beavers)
        actions = np.empty(len(boards), dtype=object)
        responses = np.empty(len(boards), dtype=object)
        equity = np.empty(len(boards))
        for i in range(len(boards)):
            action = gnubg_action(int(codes[i]), float(win[i]), self.plies)
            response = gnubg_response(int(codes[i]), context.beavers)
            actions[i], responses[i] = str(action), str(response)
            no_double, double_take, double_pass = equities[i]
            doubled = double_pass if response == CubeResponse.PASS else double_take
            equity[i] = doubled if action == CubeAction.DOUBLE else no_double
        return CubeAnswers(np.asarray(actions.astype(str)), np.asarray(responses.astype(str)), equity)

    def _decide_match(self, boards: np.ndarray, cubes: Sequence[MatchCube]) -> CubeAnswers:
        """gnubg's match action and the opponent's response per board (side on roll), with gnubg's own MET.

        gnubg reads a score only as the points each side still needs, so the match length given
        to it is the larger of the two.
        """
        actions = np.full(len(boards), str(CubeAction.NO_DOUBLE), dtype=object)
        responses = np.full(len(boards), str(CubeResponse.TAKE), dtype=object)
        for i, (board, cube) in enumerate(zip(boards, cubes, strict=True)):
            if not cube.can_double:
                continue
            s = cube.score
            length = max(s.away, s.opp_away)
            code, _, outputs = self.engine.match_cube_decision(
                board,
                self.plies,
                cube.value,
                _OWNER_OF_STATE[cube.state],
                length,
                (length - s.away, length - s.opp_away),
                s.crawford,
            )
            actions[i] = str(gnubg_action(code, outputs[0][0], self.plies))
            responses[i] = str(gnubg_response(code, beavers=False))
        return CubeAnswers(np.asarray(actions.astype(str)), np.asarray(responses.astype(str)))
