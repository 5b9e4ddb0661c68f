"""Batched entry points over raw boards, for self-play and lookahead, plus ID-pair parsing."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.errors import InvalidDice, InvalidPositionId
from engine.match import MatchState
from engine.movegen import BOARD_SIZE, children_batch_kernel, rear_and_front
from engine.position import GamePhase, Position
from engine.xgid import looks_like_xgid, parse_xgid


def children_batch(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Children of many (board, dice) pairs at once, each child from the opponent's view.

    ``boards``: int8 (n, 26), side on roll's view; ``dice``: (n, 2) ints 1-6. Returns
    ``(children, offsets)`` with the children of pair i in ``children[offsets[i]:offsets[i+1]]``.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    dice = np.ascontiguousarray(dice, dtype=np.int64)
    if boards.ndim != 2 or boards.shape[1] != BOARD_SIZE:
        raise ValueError(f"boards must have shape (n, {BOARD_SIZE}), got {boards.shape}")
    if dice.shape != (boards.shape[0], 2):
        raise ValueError(f"dice must have shape ({boards.shape[0]}, 2), got {dice.shape}")
    if dice.size and (dice.min() < 1 or dice.max() > 6):
        raise InvalidDice(f"dice must be 1-6, got values from {dice.min()} to {dice.max()}")
    return children_batch_kernel(boards, dice)


def flip_boards(boards: np.ndarray) -> np.ndarray:
    """The same int8 (n, 26) boards seen by the other side (as :meth:`Position.flip` does for one)."""
    return np.ascontiguousarray(-np.asarray(boards, dtype=np.int8)[:, ::-1])


def parse_id_pair(text: str, playable: bool = True) -> tuple[Position, MatchState | None]:
    """Parse ``POSITIONID``, ``POSITIONID:MATCHID`` or an XGID; raises InvalidPositionId/InvalidMatchId/InvalidXgid.

    The position is seen by the side on roll; an XGID always gives a match state. With
    ``playable`` the match state must be one a game can be in (InvalidMatchState otherwise).
    """
    if not isinstance(text, str):
        raise InvalidPositionId(f"position ID must be a string, got {type(text).__name__}: {text!r}")
    if text.strip().lower().startswith("board:"):
        raise InvalidPositionId(
            f"{text[:40]!r}... is a FIBS board, not a position ID: 'jumpgammon id --fibs BOARD' gives its IDs"
        )
    if looks_like_xgid(text):
        xgid = parse_xgid(text)
        state = MatchState.from_xgid(xgid)
        if playable:
            state.check_playable(text.strip())
        return Position.from_xgid(xgid), state
    pos_text, sep, match_text = text.strip().partition(":")
    position = Position.from_id(pos_text)
    match = MatchState.from_id(match_text) if sep else None
    if match is not None and playable:
        match.check_playable(match_text.strip())
    return position, match


@njit(cache=True)
def _phases_kernel(boards: np.ndarray, out: np.ndarray) -> None:
    for i in range(boards.shape[0]):
        b = boards[i]
        rear_own, front_opp = rear_and_front(b)
        if rear_own == 0 or front_opp == 25:
            out[i] = GamePhase.OVER
        elif rear_own > front_opp:
            out[i] = GamePhase.CONTACT
        elif rear_own <= 6 and front_opp >= 19:
            own = 0
            opp = 0
            for p in range(26):
                if b[p] > 0:
                    own += b[p]
                else:
                    opp -= b[p]
            out[i] = GamePhase.BEAROFF_TWO_SIDED if own <= 6 and opp <= 6 else GamePhase.BEAROFF_ONE_SIDED
        else:
            out[i] = GamePhase.RACE


def phases(boards: np.ndarray) -> np.ndarray:
    """Game phase (a :class:`GamePhase` value) of each int8 (n, 26) board, as int8 (n,)."""
    arr = np.ascontiguousarray(boards, dtype=np.int8)
    out = np.empty(arr.shape[0], np.int8)
    _phases_kernel(arr, out)
    return out


CRASHED_IN_PLAY = 6  # a side with at most this many checkers in play is crashed (gnubg's threshold)


@njit(cache=True, inline="always")
def _in_play(b: np.ndarray, flip: bool) -> int:
    """Checkers of one side in play: all not borne off, less a stack of 2+ on its ace and all but one on its deuce."""
    total = 0
    for p in range(1, 26):
        v = -b[25 - p] if flip else b[p]
        if v > 0:
            total += v
    ace = -b[24] if flip else b[1]
    deuce = -b[23] if flip else b[2]
    if ace >= 2:
        total -= ace
    if deuce >= 2:
        total -= deuce - 1
    return total


@njit(cache=True)
def _crashed_kernel(boards: np.ndarray, out: np.ndarray) -> None:
    for i in range(boards.shape[0]):
        b = boards[i]
        rear_own, front_opp = rear_and_front(b)
        out[i] = rear_own > front_opp and (
            _in_play(b, False) <= CRASHED_IN_PLAY or _in_play(b, True) <= CRASHED_IN_PLAY
        )


def crashed(boards: np.ndarray) -> np.ndarray:
    """Bool (n,): each int8 (n, 26) board is a contact position in which either side is crashed.

    gnubg's crashed class: a side is crashed when at most 6 of its checkers are in play, the
    checkers stacked 2+ on its ace point and those beyond the first on its deuce point not counting.
    """
    arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, BOARD_SIZE)
    out = np.empty(arr.shape[0], np.bool_)
    _crashed_kernel(arr, out)
    return out


#: Odd 64-bit multipliers of a board's four 8-byte words in its hash (fixed: from a seeded generator).
_HASH_MULTIPLIERS = np.random.default_rng(20261126).integers(1, 2**63, 4, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def distinct_rows(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct boards of int8 (n, 26) ``boards``: ``(first, inverse)``, ``first`` the index of each distinct
    board's first occurrence (in order of appearance) and ``inverse`` (n,) each board's index into ``first``, so
    ``boards[first][inverse]`` equals ``boards``; a hash table, several times faster than ``np.unique`` on rows."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    if boards.ndim != 2 or boards.shape[1] != BOARD_SIZE:
        raise ValueError(f"boards must have shape (n, {BOARD_SIZE}), got {boards.shape}")
    n = len(boards)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    padded = np.zeros((n, 32), np.int8)
    padded[:, :BOARD_SIZE] = boards
    words = padded.view(np.uint64)
    keys = words @ _HASH_MULTIPLIERS  # wraps modulo 2**64
    return _distinct_rows_kernel(words, keys, 1 << (2 * n - 1).bit_length())


@njit(cache=True)
def _distinct_rows_kernel(words: np.ndarray, keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of the distinct rows of ``words`` (n, 4), found by an open-addressing hash table.

    ``keys`` are the rows' hashes; ``size`` (a power of two above n) the table's; rows are equal
    when all four words are.
    """
    n = words.shape[0]
    table = np.full(size, -1, np.int64)
    first = np.empty(n, np.int64)
    inverse = np.empty(n, np.int64)
    count = 0
    mask = np.uint64(size - 1)
    for i in range(n):
        slot = np.int64((keys[i] ^ (keys[i] >> np.uint64(29))) & mask)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = count
                first[count] = i
                inverse[i] = count
                count += 1
                break
            r = first[j]
            if (
                keys[r] == keys[i]
                and words[r, 0] == words[i, 0]
                and words[r, 1] == words[i, 1]
                and words[r, 2] == words[i, 2]
                and words[r, 3] == words[i, 3]
            ):
                inverse[i] = j
                break
            slot = (slot + 1) & (size - 1)
    return first[:count], inverse
