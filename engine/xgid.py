"""eXtreme Gammon's position strings (XGIDs): every field read and written, strictly.

An XGID is ``XGID=POSITION:CUBE:OWNER:TURN:DICE:SCORE_X:SCORE_O:RULES:LENGTH:MAXCUBE``, the fields
as GNU Backgammon 1.07's ``set xgid`` reads them (gnubg reads XGIDs but writes none):

- ``POSITION``: 26 characters in the frame of X, the player drawn at the bottom: index 0 is O's
  bar, 1-24 the points as X numbers them (X moves from 24 down to 1), 25 X's bar; ``-`` is an
  empty point, ``A``-``P`` one to sixteen of X's checkers, ``a``-``p`` of O's. Borne-off checkers
  are the ones missing from fifteen.
- ``CUBE``: the exponent of the cube (0 = 1, 1 = 2 ...); with a double offered, the cube before it.
- ``OWNER``: 0 centred, 1 X, -1 O.
- ``TURN``: the player on roll, 1 X or -1 O; with a double offered, the player who doubled.
- ``DICE``: ``00`` not rolled yet, ``D`` a double offered and awaiting the answer, else the two
  dice (``52``; read in either order and kept, as gnubg keeps them, the higher first). XG's ``B``
  and ``R`` (beaver, raccoon pending) are refused, as gnubg refuses them.
- ``SCORE_X``, ``SCORE_O``: the two scores.
- ``RULES``: in a match 1 for the Crawford game, else 0; in money play 1 for the Jacoby rule plus 2
  for beavers.
- ``LENGTH``: the match length, 0 for money play.
- ``MAXCUBE``: the exponent of the largest cube allowed (gnubg ignores it; kept here).

This module only decodes and encodes the fields (:class:`Xgid`); :meth:`engine.Position.from_xgid`,
:meth:`engine.MatchState.from_xgid` and :meth:`engine.Position.to_xgid` map them onto the
project's position (side on roll's view) and gnubg's match state (player 1 = X, player 0 = O).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from engine.errors import InvalidXgid

PREFIX = "XGID="
POSITION_CHARS = 26
FIELDS = 10
MAX_CUBE_EXPONENT = 15  # the largest exponent a gnubg match key can hold (cube 32768)
DEFAULT_MAX_CUBE_EXPONENT = 10  # XG's usual maximum cube, 1024
CHECKERS = 15
_POINT_RE = re.compile(r"^[A-Pa-p-]{26}$")
_INT_RE = re.compile(r"^-?[0-9]+$")
_FIELDS_LABEL = "XGID fields: "


class XgidPlayer(IntEnum):
    """XG's sign for a player: X at the bottom (uppercase, gnubg's player 1), O at the top (player 0)."""

    O = -1  # noqa: E741 - XG's own name for the player
    X = 1

    @property
    def gnubg(self) -> int:
        """gnubg's number for this player (X is 1, O is 0)."""
        return 1 if self is XgidPlayer.X else 0

    @classmethod
    def of_gnubg(cls, player: int) -> XgidPlayer:
        """The XG player of gnubg's player number 0 or 1."""
        return cls.X if player == 1 else cls.O


@dataclass(frozen=True, slots=True)
class Xgid:
    """The ten fields of an XGID, in XG's terms (see the module docstring).

    ``board`` is the 26 slots in X's frame: positive counts are X's checkers, negative O's;
    ``board[25]`` is X's bar and ``-board[0]`` O's bar (the side-on-roll layout of
    :class:`engine.Position` when X is on roll). ``cube_owner`` is None for a centred cube; ``turn``
    is the player on roll (the doubler while ``doubled``); ``dice`` is (0, 0) before rolling.
    ``crawford`` is for matches, ``jacoby`` and ``beavers`` for money play.
    """

    board: tuple[int, ...]
    cube_exponent: int = 0
    cube_owner: XgidPlayer | None = None
    turn: XgidPlayer = XgidPlayer.X
    dice: tuple[int, int] = (0, 0)
    doubled: bool = False
    score_x: int = 0
    score_o: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    match_length: int = 0
    max_cube_exponent: int = DEFAULT_MAX_CUBE_EXPONENT

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem is not None:
            raise InvalidXgid(f"{_FIELDS_LABEL}{problem}")

    @property
    def cube(self) -> int:
        """The cube's value (before the double, while one is offered)."""
        return 1 << self.cube_exponent

    @property
    def rules(self) -> int:
        """The RULES field: Crawford (match) or Jacoby + 2 x beavers (money)."""
        if self.match_length > 0:
            return int(self.crawford)
        return int(self.jacoby) + 2 * int(self.beavers)

    @property
    def text(self) -> str:
        """The XGID string, ``XGID=`` included."""
        position = "".join(_encode_slot(v, i) for i, v in enumerate(self.board))
        owner = 0 if self.cube_owner is None else int(self.cube_owner)
        dice = "D" if self.doubled else f"{self.dice[0]}{self.dice[1]}"
        fields = (
            position,
            self.cube_exponent,
            owner,
            int(self.turn),
            dice,
            self.score_x,
            self.score_o,
            self.rules,
            self.match_length,
            self.max_cube_exponent,
        )
        return PREFIX + ":".join(str(f) for f in fields)

    def board_on_roll(self) -> np.ndarray:
        """The int8 26-slot board seen by the player on roll (the doubler while a double is offered)."""
        b = np.array(self.board, dtype=np.int8)
        return b if self.turn is XgidPlayer.X else np.ascontiguousarray(-b[::-1])

    @classmethod
    def from_board_on_roll(cls, board: np.ndarray | tuple[int, ...], turn: XgidPlayer, **fields: object) -> Xgid:
        """The XGID of a board seen by ``turn``, the player on roll, with the other fields as given."""
        b = np.asarray(board, dtype=np.int64)
        x_frame = b if turn is XgidPlayer.X else -b[::-1]
        return cls(board=tuple(int(v) for v in x_frame), turn=turn, **fields)  # type: ignore[arg-type]


def _encode_slot(value: int, index: int) -> str:
    if value == 0:
        return "-"
    return chr(ord("A") + value - 1) if value > 0 else chr(ord("a") - value - 1)


def _problem(x: Xgid) -> str | None:
    """What makes the fields impossible to write as an XGID, or None."""
    if len(x.board) != POSITION_CHARS:
        return f"the board has {len(x.board)} slots, expected {POSITION_CHARS}"
    if x.board[0] > 0 or x.board[25] < 0:
        return "index 0 holds only O's checkers (its bar) and index 25 only X's"
    own = sum(v for v in x.board if v > 0)
    theirs = -sum(v for v in x.board if v < 0)
    if own > CHECKERS or theirs > CHECKERS:
        return f"X has {own} and O {theirs} checkers (at most {CHECKERS} each)"
    if own == 0 and theirs == 0:
        return "no checkers for either side (no game is in this position)"
    if not 0 <= x.cube_exponent <= MAX_CUBE_EXPONENT:
        return f"cube exponent {x.cube_exponent} is not 0-{MAX_CUBE_EXPONENT}"
    if not 0 <= x.max_cube_exponent <= MAX_CUBE_EXPONENT:
        return f"maximum cube exponent {x.max_cube_exponent} is not 0-{MAX_CUBE_EXPONENT}"
    d0, d1 = x.dice
    if (d0, d1) != (0, 0) and not (1 <= d0 <= 6 and 1 <= d1 <= 6):
        return f"dice {x.dice} are not two values 1-6 nor 00"
    if x.doubled and (d0, d1) != (0, 0):
        return f"dice {x.dice} are rolled while a double is offered"
    if x.match_length < 0 or x.score_x < 0 or x.score_o < 0:
        return "match length and scores must not be negative"
    if x.match_length > 0 and (x.jacoby or x.beavers):
        return "the Jacoby rule and beavers are money-play rules, not match rules"
    if x.match_length == 0 and x.crawford:
        return "a Crawford game in money play"
    return None


def _int_field(text: str, name: str, shown: str, low: int, high: int) -> int:
    if not _INT_RE.match(text):
        raise InvalidXgid(f"XGID {shown!r}: {name} {text!r} is not an integer")
    value = int(text)
    if not low <= value <= high:
        raise InvalidXgid(f"XGID {shown!r}: {name} {text!r} is not {low} to {high}")
    return value


def _decode_position(text: str, shown: str) -> tuple[int, ...]:
    if len(text) != POSITION_CHARS or not _POINT_RE.match(text):
        raise InvalidXgid(
            f"XGID {shown!r}: the position {text!r} is not 26 characters of '-', A-P (X's checkers) and a-p (O's)"
        )
    values = []
    for i, c in enumerate(text):
        if c == "-":
            values.append(0)
        elif c.isupper():
            if i == 0:
                raise InvalidXgid(f"XGID {shown!r}: X's checkers at index 0, which is O's bar")
            values.append(ord(c) - ord("A") + 1)
        else:
            if i == POSITION_CHARS - 1:
                raise InvalidXgid(f"XGID {shown!r}: O's checkers at index 25, which is X's bar")
            values.append(-(ord(c) - ord("a") + 1))
    return tuple(values)


def looks_like_xgid(text: str) -> bool:
    """True when ``text`` is meant as an XGID: it starts with ``XGID=`` or has colons beyond a gnubg ID pair's one."""
    if not isinstance(text, str):
        return False
    stripped = text.strip()
    return stripped.upper().startswith(PREFIX) or stripped.count(":") >= 2


def parse_xgid(text: str) -> Xgid:
    """Decode an XGID (``XGID=`` optional); raises InvalidXgid naming the string and the field at fault."""
    if not isinstance(text, str):
        raise InvalidXgid(f"XGID must be a string, got {type(text).__name__}: {text!r}")
    shown = text.strip()
    body = shown[len(PREFIX) :] if shown.upper().startswith(PREFIX) else shown
    parts = body.split(":")
    if len(parts) != FIELDS:
        raise InvalidXgid(f"XGID {shown!r} has {len(parts)} colon-separated fields, expected {FIELDS}")
    position, cube, owner, turn, dice, score_x, score_o, rules, length, max_cube = parts
    board = _decode_position(position, shown)
    cube_exponent = _int_field(cube, "cube exponent", shown, 0, MAX_CUBE_EXPONENT)
    owner_value = _int_field(owner, "cube owner", shown, -1, 1)
    turn_text = turn
    if turn_text not in ("1", "-1"):
        raise InvalidXgid(f"XGID {shown!r}: turn {turn!r} is not 1 (X) or -1 (O)")
    doubled = dice == "D"
    if dice in ("B", "R"):
        raise InvalidXgid(f"XGID {shown!r}: dice field {dice!r} (a beaver or raccoon pending) is not supported")
    if not doubled and not re.match(r"^[0-6][0-6]$", dice):
        raise InvalidXgid(f"XGID {shown!r}: dice {dice!r} are not 00, D or two dice 1-6")
    dice_values = (0, 0) if doubled else (max(int(dice[0]), int(dice[1])), min(int(dice[0]), int(dice[1])))
    if (dice_values[0] == 0) != (dice_values[1] == 0):
        raise InvalidXgid(f"XGID {shown!r}: dice {dice!r} are not 00, D or two dice 1-6")
    match_length = _int_field(length, "match length", shown, 0, (1 << 15) - 1)
    rules_value = _int_field(rules, "rules", shown, 0, 1 if match_length > 0 else 3)
    scores = (
        _int_field(score_x, "X's score", shown, 0, (1 << 15) - 1),
        _int_field(score_o, "O's score", shown, 0, (1 << 15) - 1),
    )
    max_cube_exponent = _int_field(max_cube, "maximum cube exponent", shown, 0, MAX_CUBE_EXPONENT)
    try:
        return Xgid(
            board=board,
            cube_exponent=cube_exponent,
            cube_owner=None if owner_value == 0 else XgidPlayer(owner_value),
            turn=XgidPlayer(int(turn_text)),
            dice=dice_values,
            doubled=doubled,
            score_x=scores[0],
            score_o=scores[1],
            crawford=match_length > 0 and rules_value == 1,
            jacoby=match_length == 0 and bool(rules_value & 1),
            beavers=match_length == 0 and bool(rules_value & 2),
            match_length=match_length,
            max_cube_exponent=max_cube_exponent,
        )
    except InvalidXgid as exc:
        raise InvalidXgid(f"XGID {shown!r}: {str(exc).removeprefix(_FIELDS_LABEL)}") from None
