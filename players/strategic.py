"""Players that make cube decisions with a cube strategy from their own probabilities."""

from __future__ import annotations

import numpy as np

from engine.batch import flip_boards
from players.base import Player
from players.cube import CubeDecider, CubeSpec


class StrategyPlayer(Player):
    """A player whose cube decisions come from a :class:`CubeDecider` (or none: never doubles, always takes)."""

    def __init__(self, name: str, cube: CubeSpec, decider: CubeDecider | None) -> None:
        super().__init__(name)
        self.cube = cube
        self.decider = decider

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
