"""Players that make cube decisions with a cube strategy from their own probabilities (money and match)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cube.match import MatchCube
from engine.batch import flip_boards
from players.base import Player
from players.cube import CubeDecider, CubeSpec, GnubgModelDecider
from players.match_cube import MatchCubeDecider


class StrategyPlayer(Player):
    """A player whose cube decisions come from a :class:`CubeDecider` (or none: never doubles, always takes).

    At a match score they come from ``match_decider`` (or none).
    """

    def __init__(
        self,
        name: str,
        cube: CubeSpec,
        decider: CubeDecider | GnubgModelDecider | None,
        match_decider: MatchCubeDecider | None = None,
    ) -> None:
        super().__init__(name)
        self.cube = cube
        self.decider = decider
        self.match_decider = match_decider

    def match_double_actions(self, boards: np.ndarray, cubes: Sequence[MatchCube]) -> np.ndarray:
        """The match strategy's action per board (side on roll); no double without one."""
        if self.match_decider is None:
            return super().match_double_actions(boards, cubes)
        return self.match_decider.decide(boards, cubes)[0]

    def match_double_responses(self, boards: np.ndarray, doubler_cubes: Sequence[MatchCube]) -> np.ndarray:
        """The match strategy's answer per board seen by the doubled side; take without one."""
        if self.match_decider is None:
            return super().match_double_responses(boards, doubler_cubes)
        return self.match_decider.decide(flip_boards(boards), doubler_cubes)[1]

    def double_actions(self, boards: np.ndarray, cube_states: np.ndarray, jacoby: bool, beavers: bool) -> np.ndarray:
        """The strategy's action per board (side on roll); no double without a strategy."""
        if self.decider is None:
            return super().double_actions(boards, cube_states, jacoby, beavers)
        return self.decider.decide(boards, cube_states, jacoby, beavers).action

    def double_responses(
        self, boards: np.ndarray, doubler_states: np.ndarray, jacoby: bool, beavers: bool
    ) -> np.ndarray:
        """The strategy's answer per board seen by the doubled side; take without a strategy."""
        if self.decider is None:
            return super().double_responses(boards, doubler_states, jacoby, beavers)
        return self.decider.decide(flip_boards(boards), doubler_states, jacoby, beavers).response

    def cube_equities(
        self, boards: np.ndarray, cube_states: np.ndarray, jacoby: bool, beavers: bool
    ) -> np.ndarray | None:
        """The strategy's cubeful equity per board (side on roll, per unit cube); None without a strategy."""
        if self.decider is None:
            return None
        return np.asarray(self.decider.decide(boards, cube_states, jacoby, beavers).equity, dtype=np.float64)
