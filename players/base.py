"""The one player interface: batched checker play and cube decisions, each from the deciding side's view.

A player chooses moves for many (board, dice) pairs at once and answers cube questions for many
positions at once. Boards are int8 (n, 26) arrays seen by the side on roll (see
:class:`engine.Position`); a chosen child is seen by the opponent, who is then on roll.

Cube questions: :meth:`Player.double_actions` asks the side on roll, before it rolls, whether to
double; :meth:`Player.double_responses` asks the side that was doubled, with boards seen from its
own view (it is not on roll), whether to take, pass or beaver. Each question comes with a
:class:`CubeContext`: per position the asked side's cube state (centred, or owned by it) and the
rules, and in a match each position's :class:`cube.match.MatchCube` (the score, the cube and who
holds it). Money play is the match of unlimited length: no score, the Jacoby rule and beavers
instead. A player without a cube strategy never doubles and always takes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cube.match import MatchCube
from cube.states import CubeAction, CubeResponse
from engine.errors import JumpgammonError


@dataclass(frozen=True)
class CubeContext:
    """The cube situation of each position of a batch, from the view of the side asked about.

    That side is the side on roll for a double question and the doubler for a take question.
    ``states`` (n,) holds its :class:`cube.states.CubeState` values. Money play (``cubes`` None)
    is played under ``jacoby`` and ``beavers``; in a match ``cubes`` holds each position's
    :class:`MatchCube` (its score first) and neither rule applies.
    """

    states: np.ndarray
    jacoby: bool = False
    beavers: bool = False
    cubes: tuple[MatchCube, ...] | None = None

    @classmethod
    def money(cls, states: Sequence[str] | np.ndarray, jacoby: bool = False, beavers: bool = False) -> CubeContext:
        """Money questions at ``states`` (one :class:`CubeState` value per position) under these rules."""
        return cls(np.asarray(states, dtype=str).reshape(-1), jacoby, beavers)

    @classmethod
    def match(cls, cubes: Sequence[MatchCube]) -> CubeContext:
        """Match questions at ``cubes`` (one per position; the states are theirs)."""
        cubes = tuple(cubes)
        return cls(np.array([str(c.state) for c in cubes], dtype=str).reshape(-1), cubes=cubes)

    @property
    def is_match(self) -> bool:
        """True at a match score, False in money play."""
        return self.cubes is not None

    def __len__(self) -> int:
        return len(self.states)

    def rows(self, index: np.ndarray) -> CubeContext:
        """The context of the positions ``index`` (integer indices or a boolean mask), in that order."""
        picked = np.arange(len(self))[index]
        cubes = None if self.cubes is None else tuple(self.cubes[int(i)] for i in picked)
        return CubeContext(self.states[picked], self.jacoby, self.beavers, cubes)


@dataclass(frozen=True)
class CubeAnswers:
    """A decider's answers for a batch (side on roll's view): its actions and its opponent's responses.

    ``action`` and ``response`` are :class:`CubeAction` and :class:`CubeResponse` value arrays;
    ``equity`` is the money cubeful equity per unit cube after the best cube action (None at a match score).
    """

    action: np.ndarray
    response: np.ndarray
    equity: np.ndarray | None = None


def check_context_kind(match: bool, context: CubeContext) -> None:
    """Raise JumpgammonError unless ``context`` is of the strategy's kind (a match one with ``match``, else money)."""
    if context.is_match != match:
        kind, where = ("match", "in money play") if match else ("money", "at a match score")
        raise JumpgammonError(f"a {kind} cube strategy cannot decide {where}")


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

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        """A :class:`CubeAction` value per board (side on roll, before rolling); by default never doubles."""
        return np.full(len(boards), CubeAction.NO_DOUBLE)

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        """A :class:`CubeResponse` value per board seen by the doubled side; by default always takes.

        ``doubler`` is the doubler's context (its cube state before the double; in a match its score first).
        """
        return np.full(len(boards), CubeResponse.TAKE)

    def cube_equities(self, boards: np.ndarray, context: CubeContext) -> np.ndarray | None:
        """Money cubeful equity per board from this player's cube strategy, or None without one (or in a match).

        From the side on roll's view, before it rolls, after its best cube action, per unit of the
        current cube (``context``: centred, owned by the side on roll, or unavailable).
        """
        return None

    def __repr__(self) -> str:
        return self.name
