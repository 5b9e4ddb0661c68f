"""Money-game play: seeded dice, the cube, gammons and backgammons, optional Jacoby rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from engine.position import Position


class Dice:
    """Reproducible dice from a numpy Generator (seed or Generator)."""

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def roll(self) -> tuple[int, int]:
        """One roll of two dice."""
        a, b = self.rng.integers(1, 7, size=2)
        return int(a), int(b)

    def opening(self) -> tuple[int, tuple[int, int]]:
        """The opening roll, rerolled on doubles: (player 0 or 1 who starts, its dice)."""
        while True:
            a, b = self.roll()  # a: player 0's die, b: player 1's die
            if a != b:
                return (0 if a > b else 1), (a, b)


class Player(Protocol):
    """What the game loop asks of a player; positions are from that player's view."""

    def choose(self, position: Position, dice: tuple[int, int]) -> Position:
        """The chosen child of ``position`` for ``dice`` (opponent's view, one of ``children``)."""
        ...

    def offer_double(self, position: Position, cube: int, owned: bool) -> bool:
        """Whether to double before rolling (``owned``: this player owns the cube)."""
        ...

    def accept_double(self, position: Position, cube: int) -> bool:
        """Whether to take a double to ``2 * cube`` (``position`` from this player's view, not on roll)."""
        ...


def result_multiplier(position: Position) -> int:
    """1, 2 or 3 for a finished game, from the winner's view: ``position`` is seen by the loser."""
    b = position.array
    loser_off = 15 - int(b[b > 0].sum())
    if loser_off > 0:
        return 1
    # Backgammon: the loser still has a checker on the bar or in the winner's home board.
    if b[25] > 0 or (b[19:25] > 0).any():
        return 3
    return 2


@dataclass
class GameResult:
    """Outcome of one money game; ``points`` are won by ``winner`` (cube and multiplier applied)."""

    winner: int
    points: int
    multiplier: int
    cube: int
    dropped: bool
    turns: int
    record: list[tuple[str, tuple[int, int], str]] = field(default_factory=list)

    def points_for(self, player: int) -> int:
        """Signed points from ``player``'s view."""
        return self.points if player == self.winner else -self.points


def play_game(
    players: tuple[Player, Player],
    dice: Dice,
    *,
    use_cube: bool = True,
    jacoby: bool = False,
    max_cube: int = 1 << 15,
    record: bool = False,
) -> GameResult:
    """Play one money game between ``players[0]`` and ``players[1]``; returns the result."""
    on_roll, roll = dice.opening()
    position = Position.initial()
    cube, owner = 1, None  # owner: None centred, else player number
    turns = 0
    history: list[tuple[str, tuple[int, int], str]] = []
    first = True
    while True:
        me, you = players[on_roll], players[1 - on_roll]
        may_double = not first and use_cube and cube < max_cube and owner in (None, on_roll)
        if may_double and me.offer_double(position, cube, owner == on_roll):
            if not you.accept_double(position.flip(), cube):
                return GameResult(on_roll, cube, 1, cube, True, turns, history)
            cube, owner = cube * 2, 1 - on_roll
        if not first:
            roll = dice.roll()
        first = False
        child = me.choose(position, roll)
        turns += 1
        if record:
            history.append((position.id, roll, child.id))
        if child.is_over():
            mult = result_multiplier(child)
            if jacoby and cube == 1:
                mult = 1
            return GameResult(on_roll, cube * mult, mult, cube, False, turns, history)
        position = child
        on_roll = 1 - on_roll
