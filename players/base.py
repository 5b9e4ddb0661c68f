"""The one player interface: batched checker play and cube decisions, each from the deciding side's view.

A player chooses moves for many (board, dice) pairs at once and answers cube questions for many
positions at once. Boards are int8 (n, 26) arrays seen by the side on roll (see
:class:`engine.Position`); a chosen child is seen by the opponent, who is then on roll.

Cube questions: :meth:`Player.double_actions` asks the side on roll, before it rolls, whether to
double (its cube state: centred, or owned by it); :meth:`Player.double_responses` asks the side
that was doubled, with boards seen from its own view (it is not on roll), whether to take, pass
or beaver. A player without a cube strategy never doubles and always takes.

In a match the same two questions come as :meth:`Player.match_double_actions` and
:meth:`Player.match_double_responses`, with each position's :class:`cube.match.MatchCube` (the
score, the cube and who holds it) instead of a money cube state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from cube.match import MatchCube
from cube.states import CubeAction, CubeResponse


class Player(ABC):
    """A batched player: subclasses choose moves and may answer cube questions (see :mod:`players.strategic`)."""

    #: True when :meth:`choose_moves` gives the same child for the same (board, dice) every time, so a
    #: caller may ask once per distinct pair (a rollout's branches and trials that meet).
    repeatable_moves: bool = False

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """The chosen child (opponent's view) of each (board, dice) pair; boards (n, 26), dice (n, 2)."""

    def double_actions(self, boards: np.ndarray, cube_states: np.ndarray, jacoby: bool, beavers: bool) -> np.ndarray:
        """A :class:`CubeAction` value per board (side on roll, before rolling); by default never doubles."""
        return np.full(len(boards), CubeAction.NO_DOUBLE)

    def double_responses(
        self, boards: np.ndarray, doubler_states: np.ndarray, jacoby: bool, beavers: bool
    ) -> np.ndarray:
        """A :class:`CubeResponse` value per board seen by the doubled side; by default always takes.

        ``doubler_states`` are the cube states of the doubler (centred, or owned by the doubler).
        """
        return np.full(len(boards), CubeResponse.TAKE)

    def match_double_actions(self, boards: np.ndarray, cubes: Sequence[MatchCube]) -> np.ndarray:
        """A :class:`CubeAction` value per board (side on roll, before rolling) at its match cube; never doubles."""
        return np.full(len(boards), CubeAction.NO_DOUBLE)

    def match_double_responses(self, boards: np.ndarray, doubler_cubes: Sequence[MatchCube]) -> np.ndarray:
        """A :class:`CubeResponse` value per board seen by the doubled side; always takes here.

        ``doubler_cubes`` are the match cubes of the doubler (its score first, the cube before the double).
        """
        return np.full(len(boards), CubeResponse.TAKE)

    def cube_equities(
        self, boards: np.ndarray, cube_states: np.ndarray, jacoby: bool, beavers: bool
    ) -> np.ndarray | None:
        """Cubeful equity per board from this player's cube strategy, or None without one.

        From the side on roll's view, before it rolls, after its best cube action, per unit of the
        current cube (``cube_states``: centred, owned by the side on roll, or unavailable).
        """
        return None

    def __repr__(self) -> str:
        return self.name
