"""Players that make cube decisions with a cube strategy from their own probabilities (money and match)."""

from __future__ import annotations

import numpy as np

from engine.batch import flip_boards
from players.base import CubeContext, Player
from players.cube import AnyCubeSpec, Decider


class StrategyPlayer(Player):
    """A player whose cube decisions come from a :class:`players.cube.Decider` (or none: never doubles, always takes).

    The decider is of its spec's kind: money, or at a match score.
    """

    def __init__(self, name: str, cube: AnyCubeSpec, decider: Decider | None) -> None:
        super().__init__(name)
        self.cube = cube
        self.decider = decider

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        """The strategy's action per board (side on roll); no double without a strategy."""
        if self.decider is None:
            return super().double_actions(boards, context)
        return self.decider.decide(boards, context).action

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        """The strategy's answer per board seen by the doubled side; take without a strategy."""
        if self.decider is None:
            return super().double_responses(boards, doubler)
        return self.decider.decide(flip_boards(boards), doubler).response

    def cube_equities(self, boards: np.ndarray, context: CubeContext) -> np.ndarray | None:
        """The strategy's money cubeful equity per board (side on roll, per unit cube); None without one."""
        if self.decider is None or context.is_match:
            return None
        equity = self.decider.decide(boards, context).equity
        return None if equity is None else np.asarray(equity, dtype=np.float64)
