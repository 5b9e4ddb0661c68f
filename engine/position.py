"""The board, always seen from the side on roll, with gnubg IDs, pips, phase and children."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from enum import IntEnum, StrEnum
from typing import Any

import numpy as np

from engine.errors import (
    AmbiguousMove,
    IllegalMove,
    InvalidDice,
    InvalidMoveText,
    InvalidPosition,
    InvalidPositionId,
    InvalidXgid,
)
from engine.ids import (
    board_from_key,
    board_from_position_id,
    board_from_side_counts,
    key_from_board,
    position_id_from_board,
)
from engine.match import BARE_ID_STATE, MatchState
from engine.movegen import BOARD_SIZE, MAX_CHILDREN, TABLE_SIZE, children_into, plays_with_moves
from engine.notation import Move, format_hops, parse_hops, replay_hops
from engine.xgid import DEFAULT_MAX_CUBE_EXPONENT, Xgid, parse_xgid

CHECKERS = 15
_INITIAL = np.zeros(BOARD_SIZE, np.int8)
_INITIAL[[6, 8, 13, 24]] = [5, 3, 5, 2]
_INITIAL[[19, 17, 12, 1]] = [-5, -3, -5, -2]


class GamePhase(IntEnum):
    """Game phase of a position, for routing to nets and databases."""

    CONTACT = 0
    RACE = 1
    BEAROFF_ONE_SIDED = 2  # both sides have every checker home: one-sided database territory
    BEAROFF_TWO_SIDED = 3  # ... and at most 6 checkers each: exact two-sided database
    OVER = 4


class PhaseName(StrEnum):
    """The phase classes that nets are trained on and keyed by, as weights files, shards and reports spell them.

    ``CONTACT`` and ``RACE`` are :class:`GamePhase`'s (a race takes the bear-offs that no database
    covers); ``CRASHED`` is the contact positions where a side is crashed (gnubg's class,
    :func:`engine.batch.crashed`), judged by a net of their own where an evaluator has one.
    """

    CONTACT = "contact"
    CRASHED = "crashed"
    RACE = "race"


def _count_problem(values: Sequence[int]) -> str | None:
    """What breaks the checker-count rules in 26 slot values, or None (plain Python: fast on 26 ints)."""
    if values[25] < 0 or values[0] > 0:
        return f"bar counts have the wrong sign (own bar {values[25]}, opponent bar {values[0]})"
    own = sum(v for v in values if v > 0)
    theirs = -sum(v for v in values if v < 0)
    if own > CHECKERS or theirs > CHECKERS:
        return f"{own} and {theirs} checkers on the board (at most {CHECKERS} a side)"
    return _deadlock_problem(values)


def _deadlock_problem(values: Sequence[int]) -> str | None:
    """Why neither side could ever move (each on the bar against the other's closed board), or None.

    No game reaches such a position, and a game played from it would never end.
    """
    own_stuck = values[25] > 0 and all(values[p] <= -2 for p in range(19, 25))
    theirs_stuck = values[0] < 0 and all(values[p] >= 2 for p in range(1, 7))
    if own_stuck and theirs_stuck:
        return "neither side can ever move (both on the bar against a closed board; no game reaches this position)"
    return None


def validate_board(board: np.ndarray, label: str = "board") -> None:
    """Raise InvalidPosition naming the board if it breaks the rules of checker counts."""
    if board.shape != (BOARD_SIZE,):
        raise InvalidPosition(f"{label} must have {BOARD_SIZE} slots, got shape {board.shape}")
    problem = _count_problem(board.tolist())
    if problem is not None:
        raise InvalidPosition(f"{label}: {problem}")


def phase_of(board: np.ndarray) -> GamePhase:
    """Game phase of a 26-slot board (symmetric in the two sides)."""
    own_idx = np.flatnonzero(board > 0)
    opp_idx = np.flatnonzero(board < 0)
    if own_idx.size == 0 or opp_idx.size == 0:
        return GamePhase.OVER
    if own_idx[-1] > opp_idx[0]:
        return GamePhase.CONTACT
    if own_idx[-1] <= 6 and opp_idx[0] >= 19:
        own = int(board[board > 0].sum())
        theirs = int(-board[board < 0].sum())
        if own <= 6 and theirs <= 6:
            return GamePhase.BEAROFF_TWO_SIDED
        return GamePhase.BEAROFF_ONE_SIDED
    return GamePhase.RACE


_PACK_BOARD = struct.Struct(f"{BOARD_SIZE}b").pack  # 26 ints -> the int8 bytes of a board
# Reused by every single-position children() call (move generation is single-threaded here).
_SCRATCH = np.empty((MAX_CHILDREN, BOARD_SIZE), np.int8)
_OUT = np.empty((MAX_CHILDREN, BOARD_SIZE), np.int8)
_NO_MOVES = np.empty((1, 8), np.int8)
_TABLE = np.full(TABLE_SIZE, -1, np.int32)


class Position:
    """An immutable, hashable backgammon position seen from the side on roll.

    ``board[1..24]``: points from the side on roll's view (positive = its checkers, negative =
    the opponent's); ``board[25]``: its bar; ``board[0]``: minus the opponent's bar.
    """

    __slots__ = ("_bytes", "_hash")

    def __init__(self, board: Iterable[int] | np.ndarray, *, _trusted: bool = False) -> None:
        try:
            arr = np.asarray(board if isinstance(board, np.ndarray) else list(board))
        except TypeError:
            raise InvalidPosition(f"board {board!r} is not a sequence of {BOARD_SIZE} counts") from None
        if _trusted:
            self._bytes = np.ascontiguousarray(arr, dtype=np.int8).tobytes()
        else:
            if arr.dtype.kind not in "iu":
                raise InvalidPosition(f"board must hold integers, got dtype {arr.dtype}")
            if arr.shape != (BOARD_SIZE,):
                raise InvalidPosition(f"board {arr.tolist()} must have {BOARD_SIZE} slots, got shape {arr.shape}")
            values = arr.tolist()
            # Every message names the board; it is built only when something is wrong.
            if any(v > CHECKERS or v < -CHECKERS for v in values):
                raise InvalidPosition(f"board {values} has a count above {CHECKERS}")
            problem = _count_problem(values)
            if problem is not None:
                raise InvalidPosition(f"board {values}: {problem}")
            if not any(values):
                raise InvalidPosition(f"board {values} has no checkers for either side (no game is in this position)")
            self._bytes = _PACK_BOARD(*values)
        self._hash = hash(self._bytes)

    # --- construction -------------------------------------------------------------------
    @classmethod
    def initial(cls) -> Position:
        """The starting position."""
        return cls(_INITIAL, _trusted=True)

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Decode a gnubg position ID (or ``POSITIONID:MATCHID``); raises InvalidPositionId."""
        text = position_id.split(":", 1)[0] if isinstance(position_id, str) else position_id
        board = board_from_position_id(text)
        problem = _deadlock_problem(board.tolist())
        if problem is not None:
            raise InvalidPositionId(f"position ID {text!r}: {problem}")
        return cls(board, _trusted=True)

    @classmethod
    def from_xgid(cls, xgid: str | Xgid) -> Position:
        """The board of an XGID seen by its player on roll (the doubler, a double pending); raises InvalidXgid."""
        x = parse_xgid(xgid) if isinstance(xgid, str) else xgid
        try:
            return cls(x.board_on_roll())
        except InvalidPosition as exc:
            shown = xgid if isinstance(xgid, str) else x.text
            raise InvalidXgid(f"XGID {shown!r}: {exc}") from None

    @classmethod
    def from_key(cls, key: bytes) -> Position:
        """Decode a 10-byte gnubg position key; raises InvalidPositionId."""
        return cls(board_from_key(key), _trusted=True)

    @classmethod
    def from_board(cls, board: Iterable[int] | np.ndarray) -> Position:
        """Build from a 26-slot board (side on roll's view); raises InvalidPosition."""
        return cls(board)

    @classmethod
    def from_gnubg_board(cls, board: Sequence[Sequence[int]]) -> Position:
        """Build from gnubg's ``(not_on_roll, on_roll)`` pair of 25-tuples (each its own view)."""
        if not isinstance(board, Sequence) or len(board) != 2 or any(len(side) != 25 for side in board):
            raise InvalidPosition(f"gnubg board must be two sequences of 25 counts, got {board!r}")
        theirs, mine = board
        if min(min(theirs), min(mine)) < 0:
            raise InvalidPosition(f"gnubg board has negative counts: {board!r}")
        if max(sum(theirs), sum(mine)) > CHECKERS:
            raise InvalidPosition(f"gnubg board has more than {CHECKERS} checkers a side: {board!r}")
        arr = board_from_side_counts(theirs, mine)
        if isinstance(arr, int):
            raise InvalidPosition(f"gnubg board puts both sides on point {arr}: {board!r}")
        return cls(arr)

    # --- views ------------------------------------------------------------------------------
    @property
    def array(self) -> np.ndarray:
        """The 26-slot board as a read-only int8 array (side on roll's view)."""
        return np.frombuffer(self._bytes, dtype=np.int8)

    @property
    def board(self) -> tuple[int, ...]:
        """The 26-slot board as a tuple of ints (side on roll's view)."""
        return tuple(self.array.tolist())

    def to_gnubg_board(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gnubg's ``(not_on_roll, on_roll)`` pair of 25-tuples."""
        b = self.array
        theirs = tuple(max(0, -int(b[25 - p])) for p in range(1, 25)) + (-int(b[0]),)
        mine = tuple(max(0, int(b[p])) for p in range(1, 25)) + (int(b[25]),)
        return theirs, mine

    @property
    def id(self) -> str:
        """The 14-character gnubg position ID with this side on roll."""
        return position_id_from_board(self.array)

    def to_xgid(
        self,
        match: MatchState | None = None,
        *,
        beavers: bool = False,
        max_cube_exponent: int = DEFAULT_MAX_CUBE_EXPONENT,
    ) -> str:
        """The XGID of this board with ``match`` (default: a money game, player 1 (X) on roll, Jacoby rule on).

        The board is seen by ``match.on_roll``; raises InvalidMatchState for a state no XGID can hold.
        """
        state = match if match is not None else BARE_ID_STATE
        return state.xgid(self.array, beavers=beavers, max_cube_exponent=max_cube_exponent).text

    @property
    def key(self) -> bytes:
        """The 10-byte gnubg position key."""
        return key_from_board(self.array)

    @property
    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: (side on roll, opponent)."""
        b = self.array
        return int(b[25]), int(-b[0])

    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off: (side on roll, opponent)."""
        b = self.array
        return CHECKERS - int(b[b > 0].sum()), CHECKERS - int(-b[b < 0].sum())

    @property
    def pips(self) -> tuple[int, int]:
        """Pip counts: (side on roll, opponent)."""
        b = self.array.astype(np.int64)
        idx = np.arange(BOARD_SIZE)
        own = int((np.clip(b, 0, None) * idx).sum())
        theirs = int((np.clip(-b, 0, None) * (25 - idx)).sum())
        return own, theirs

    @property
    def phase(self) -> GamePhase:
        """The game phase (contact, race, bearoff one/two-sided, over)."""
        return phase_of(self.array)

    def is_over(self) -> bool:
        """True when a side has borne off every checker."""
        return self.phase == GamePhase.OVER

    def flip(self) -> Position:
        """The same position seen from the other side (who is then on roll)."""
        return Position(-self.array[::-1], _trusted=True)

    # --- moves ------------------------------------------------------------------------------
    def plays(self, dice: tuple[int, int]) -> list[tuple[Move, Position]]:
        """Every distinct legal play of ``dice`` with the resulting position (opponent on roll)."""
        d1, d2 = check_dice(dice)
        boards, moves = plays_with_moves(self.array, d1, d2)
        pairs = zip(boards, moves, strict=True)
        return [(self._move(row), Position(-board[::-1], _trusted=True)) for board, row in pairs]

    def move_to(self, dice: tuple[int, int], child: Position) -> Move | None:
        """The play of ``dice`` that leads to ``child`` (seen by the opponent, on roll), or None if none does.

        The same Move :meth:`plays` pairs with that child, at the cost of one notation instead of all.
        """
        d1, d2 = check_dice(dice)
        boards, moves = plays_with_moves(self.array, d1, d2)
        wanted = np.frombuffer(child._bytes, dtype=np.int8)[::-1] * -1
        found = np.flatnonzero((boards == wanted).all(axis=1))
        return self._move(moves[found[0]]) if len(found) else None

    def _move(self, row: np.ndarray) -> Move:
        """The Move of one row of ``plays_with_moves`` (hops as from, to pairs; -1 unused), hits replayed."""
        # Highest source first, so one checker's hops chain up in the notation.
        hops = tuple(sorted(((int(row[k]), int(row[k + 1])) for k in range(0, 8, 2) if row[k] >= 0), reverse=True))
        _, hits = replay_hops(self.array, hops)
        return Move(hops, hits)

    def children(self, dice: tuple[int, int]) -> list[Position]:
        """Every distinct position after a legal play of ``dice``, seen by the opponent (on roll).

        With no legal play, the one position where nothing moved (flipped). The same positions,
        in the same order, as :meth:`plays` gives, without the cost of the move notation.
        """
        d1, d2 = check_dice(dice)
        count = children_into(self.array, d1, d2, _SCRATCH, _NO_MOVES, _TABLE, _OUT)
        raw = _OUT[:count].tobytes()
        out = []
        new = object.__new__
        for k in range(0, count * BOARD_SIZE, BOARD_SIZE):  # inlined _wrap: this loop is the call's cost
            child = new(Position)
            child._bytes = key = raw[k : k + BOARD_SIZE]
            child._hash = hash(key)
            out.append(child)
        return out

    @classmethod
    def _wrap(cls, raw: bytes) -> Position:
        """A position from 26 trusted int8 bytes (side on roll's view), skipping validation."""
        position = cls.__new__(cls)
        position._bytes = raw
        position._hash = hash(raw)
        return position

    def play(self, move: str, dice: tuple[int, int]) -> Position:
        """The position after ``move`` (gnubg notation) with ``dice``, opponent on roll.

        Raises InvalidMoveText (not notation), IllegalMove (not legal here) or AmbiguousMove.
        """
        if not isinstance(move, str):
            raise InvalidMoveText(f"move must be a string, got {type(move).__name__}: {move!r}")
        plays = self.plays(dice)
        if move.strip() == "" and len(plays) == 1 and not plays[0][0].hops:
            return plays[0][1]
        hops = parse_hops(move)
        after, hits = replay_hops(self.array, hops, strict_text=move)
        target = Position(-after[::-1], _trusted=True)
        for _, child in plays:
            if child == target:
                return child
        wanted = format_hops(hops, hits).replace("*", "")
        matches = [c for m, c in plays if str(m).replace("*", "") == wanted]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise AmbiguousMove(f"move {move!r} with {dice[0]}-{dice[1]} fits {len(matches)} plays in {self.id}")
        raise IllegalMove(f"move {move!r} with {dice[0]}-{dice[1]} is not a legal play in {self.id}")

    # --- dunder -------------------------------------------------------------------------------
    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Position) and self._bytes == other._bytes

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Position.from_id({self.id!r})"

    def __str__(self) -> str:
        return self.id


def check_dice(dice: Sequence[int]) -> tuple[int, int]:
    """The pair of dice as two ints 1-6; raises InvalidDice naming them."""
    try:
        d1, d2 = (int(d) for d in dice)
        whole = all(int(d) == d and not isinstance(d, bool | str) for d in dice)  # 2.5 is no die, nor "3"
    except (TypeError, ValueError) as exc:
        raise InvalidDice(f"dice must be two integers 1-6, got {dice!r}") from exc
    if not (whole and 1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidDice(f"dice must be two integers 1-6, got {dice!r}")
    return d1, d2
