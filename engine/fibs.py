"""FIBS ``board:`` strings (the CLIP format GNU Backgammon's external-player mode speaks).

53 colon-separated fields: ``board``, the player's and the opponent's names, match length,
both scores, 26 board counts (positive = colour O = 1, negative = X = -1; indices 0 and 25 are
bars), turn, the player's two dice, the opponent's two dice, cube, may-double flags for both,
was-doubled, colour, direction, home, bar, borne off and on bar for both, can-move,
forced-move, did-Crawford and redoubles.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from engine.errors import InvalidFibsBoard
from engine.position import Position

N_FIELDS = 53


@dataclass(frozen=True, slots=True)
class FibsBoard:
    """A parsed FIBS board; ``board`` holds the 26 raw signed counts in FIBS order."""

    player: str
    opponent: str
    match_length: int
    player_score: int
    opponent_score: int
    board: tuple[int, ...]
    turn: int
    player_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    player_may_double: bool
    opponent_may_double: bool
    was_doubled: bool
    color: int
    direction: int
    home: int
    bar: int
    player_off: int
    opponent_off: int
    player_on_bar: int
    opponent_on_bar: int
    can_move: int
    forced_move: int
    did_crawford: bool
    redoubles: int

    @classmethod
    def parse(cls, text: str) -> FibsBoard:
        """Read a ``board:...`` line; raises InvalidFibsBoard naming it."""
        parts = text.strip().split(":")
        if len(parts) != N_FIELDS or parts[0] != "board":
            raise InvalidFibsBoard(
                f"FIBS board {text!r} must be 'board:' and {N_FIELDS - 1} fields, got {len(parts)} fields"
            )
        try:
            nums = [int(x) for x in parts[3:]]
        except ValueError as exc:
            raise InvalidFibsBoard(f"FIBS board {text!r} has a non-integer field: {exc}") from None
        board = tuple(nums[3:29])
        rest = nums[29:]
        fb = cls(
            player=parts[1],
            opponent=parts[2],
            match_length=nums[0],
            player_score=nums[1],
            opponent_score=nums[2],
            board=board,
            turn=rest[0],
            player_dice=(rest[1], rest[2]),
            opponent_dice=(rest[3], rest[4]),
            cube=rest[5],
            player_may_double=bool(rest[6]),
            opponent_may_double=bool(rest[7]),
            was_doubled=bool(rest[8]),
            color=rest[9],
            direction=rest[10],
            home=rest[11],
            bar=rest[12],
            player_off=rest[13],
            opponent_off=rest[14],
            player_on_bar=rest[15],
            opponent_on_bar=rest[16],
            can_move=rest[17],
            forced_move=rest[18],
            did_crawford=bool(rest[19]),
            redoubles=rest[20],
        )
        fb._check(text)
        return fb

    def _check(self, text: str) -> None:
        if self.color not in (-1, 1) or self.direction not in (-1, 1):
            raise InvalidFibsBoard(f"FIBS board {text!r}: colour and direction must be -1 or 1")
        for sign, name in ((self.color, "player"), (-self.color, "opponent")):
            total = sum(abs(v) for v in self.board if v * sign > 0)
            if total > 15:
                raise InvalidFibsBoard(f"FIBS board {text!r} gives the {name} {total} checkers")
        for d in self.player_dice + self.opponent_dice:
            if not 0 <= d <= 6:
                raise InvalidFibsBoard(f"FIBS board {text!r} has a die {d} outside 0-6")

    def __str__(self) -> str:
        values: list[str] = ["board"]
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, tuple):
                values.extend(str(int(x)) for x in v)
            elif isinstance(v, bool):
                values.append(str(int(v)))
            else:
                values.append(str(v))
        return ":".join(values)

    def _point_index(self, point: int) -> int:
        """FIBS index of the player's point ``point`` (1..24, own view)."""
        return point if self.direction == -1 else 25 - point

    def position(self) -> Position:
        """The position seen from the player (whose board this is), as if the player were on roll."""
        arr = np.zeros(26, np.int64)
        for p in range(1, 25):
            arr[p] = self.board[self._point_index(p)] * self.color
        arr[25] = self.player_on_bar
        arr[0] = -self.opponent_on_bar
        return Position.from_board(arr)

    @classmethod
    def from_position(
        cls,
        position: Position,
        *,
        player: str = "You",
        opponent: str = "Opponent",
        dice: tuple[int, int] = (0, 0),
        cube: int = 1,
        match_length: int = 9999,
        score: tuple[int, int] = (0, 0),
        color: int = -1,
        direction: int = -1,
        player_may_double: bool = True,
        opponent_may_double: bool = True,
    ) -> FibsBoard:
        """A board for the player on roll in ``position`` (own view) with the given context."""
        b = position.array
        raw = [0] * 26
        home, bar = (0, 25) if direction == -1 else (25, 0)
        for p in range(1, 25):
            raw[p if direction == -1 else 25 - p] = int(b[p]) * color
        raw[bar] = int(b[25]) * color
        raw[home] = int(b[0]) * color  # the opponent's bar is at the player's home end
        own_off, opp_off = position.off
        return cls(
            player=player,
            opponent=opponent,
            match_length=match_length,
            player_score=score[0],
            opponent_score=score[1],
            board=tuple(raw),
            turn=color,
            player_dice=dice,
            opponent_dice=(0, 0),
            cube=cube,
            player_may_double=player_may_double,
            opponent_may_double=opponent_may_double,
            was_doubled=False,
            color=color,
            direction=direction,
            home=home,
            bar=bar,
            player_off=own_off,
            opponent_off=opp_off,
            player_on_bar=int(b[25]),
            opponent_on_bar=int(-b[0]),
            can_move=2,
            forced_move=0,
            did_crawford=False,
            redoubles=0,
        )
