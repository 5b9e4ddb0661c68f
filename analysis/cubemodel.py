"""The money cube model of an analysis (``analyse --cube SPEC``): what cubeful equities and cube decisions use.

``gnubg`` (the default) is GNU Backgammon's model on this project's probabilities
(:func:`nets.cube_advice.money_cube_decisions`: Janowski's formula with gnubg's cube life per
position class). Any other money cube spec of :func:`players.cube.parse_cube_spec` that works
from the probabilities alone is accepted: ``dead``, ``live``, ``janowski:X``, ``janowski:X1,X2``,
``jump:ALPHA[:APPROXIMATION]``. ``none`` (no cube) and the strategies that need each position's
local volatility (``jump-local``, ``jump-net``) are refused. At a match score gnubg's match model
is the only one: a file holding a match analysed with another spec is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cube import CubeDecisions, CubeStrategy
from engine.errors import InvalidSpec
from nets.cube_advice import money_cube_decisions
from players.cube import parse_cube_spec

__all__ = ["GNUBG_MODEL", "MoneyCubeModel", "money_cube_model"]


@dataclass(frozen=True)
class MoneyCubeModel:
    """A money cube model named by its spec: gnubg's (``strategy`` None) or a strategy of :mod:`cube`."""

    spec: str
    strategy: CubeStrategy | None = None

    @property
    def is_gnubg(self) -> bool:
        """True for gnubg's model, the only one used at a match score."""
        return self.strategy is None

    def decide(
        self, boards: np.ndarray, probs: np.ndarray, states: np.ndarray, *, jacoby: bool, beavers: bool
    ) -> CubeDecisions:
        """Cube decisions of ``boards`` (side on roll's view) and their (n, 5) probabilities, per unit cube."""
        if self.strategy is None:
            return money_cube_decisions(boards, probs, states, jacoby=jacoby, beavers=beavers)
        return self.strategy.decide(probs, states, jacoby=jacoby, beavers=beavers)


#: gnubg's money cube model, the default.
GNUBG_MODEL = MoneyCubeModel("gnubg")


def money_cube_model(spec: str) -> MoneyCubeModel:
    """The money cube model ``spec`` names (module docstring); raises InvalidSpec (a ValueError) naming it."""
    parsed = parse_cube_spec(spec)
    if parsed.own:
        return GNUBG_MODEL
    if parsed.engine_plies is not None:
        raise InvalidSpec(
            f"--cube {spec!r}: GNU Backgammon's own cube is not a model of this net's probabilities "
            "(use gnubg for gnubg's model)"
        )
    if parsed.strategy is None:
        raise InvalidSpec(f"--cube {spec!r}: analysis needs a cube model (none plays without the cube)")
    if parsed.strategy.needs_local_volatility:
        raise InvalidSpec(
            f"--cube {spec!r}: a model needing each position's local volatility is not available in analysis "
            "(use gnubg, dead, live, janowski:X or jump:ALPHA)"
        )
    return MoneyCubeModel(spec.strip(), parsed.strategy)
