"""Compiled move generation over raw board arrays.

A board is ``int8[26]`` seen from the side on roll: ``b[1..24]`` are its points (1 = its ace
point), positive counts for its own checkers and negative for the opponent's; ``b[25]`` is its
bar (>= 0) and ``b[0]`` the opponent's bar (<= 0, the opponent enters toward high indices).
Borne-off counts are implicit (15 minus the checkers on the board).

The kernels return the *distinct resulting positions* after a full legal play, still in the
mover's orientation (not flipped); :func:`children_batch` flips them for the opponent.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BOARD_SIZE = 26
# Enough for any real position: the largest known distinct-play counts are in the low thousands.
MAX_CHILDREN = 4096
_TABLE_BITS = 13
TABLE_SIZE = 1 << _TABLE_BITS
_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _highest_own(b: np.ndarray, start: int) -> int:
    """Index of the side on roll's rearmost checker at or below ``start`` (25 = bar), 0 if none."""
    i = start
    while i > 0 and b[i] <= 0:
        i -= 1
    return i


@njit(cache=True, inline="always")
def _legal_single(b: np.ndarray, src: int, die: int, hi: int) -> bool:
    """Whether the checker on ``src`` may move ``die`` pips (``hi`` = rearmost own checker)."""
    if b[src] <= 0:
        return False
    if b[25] > 0 and src != 25:
        return False
    dst = src - die
    if dst >= 1:
        return b[dst] >= -1
    if hi > 6:
        return False
    if dst == 0:
        return True
    return src == hi


@njit(cache=True, inline="always")
def _apply_single(b: np.ndarray, src: int, die: int) -> None:
    """Move one own checker ``die`` pips from ``src`` in place, hitting a blot if there is one."""
    b[src] -= 1
    dst = src - die
    if dst >= 1:
        if b[dst] == -1:
            b[dst] = 1
            b[0] -= 1
        else:
            b[dst] += 1


@njit(cache=True)
def _board_hash(b: np.ndarray) -> np.uint64:
    h = np.uint64(1469598103934665603)
    for i in range(BOARD_SIZE):
        h = (h ^ np.uint64(b[i] + 16)) * _HASH_MULT
    return h


@njit(cache=True)
def _clear_table(table: np.ndarray, out: np.ndarray, count: int) -> None:
    """Empty the hash slots used by the first ``count`` boards of ``out``."""
    mask = TABLE_SIZE - 1
    for idx in range(count):
        slot = int(_board_hash(out[idx]) >> np.uint64(64 - _TABLE_BITS)) & mask
        while table[slot] >= 0:
            table[slot] = -1
            slot = (slot + 1) & mask


@njit(cache=True)
def _insert(
    b: np.ndarray,
    out: np.ndarray,
    count: int,
    table: np.ndarray,
    moves_stack: np.ndarray,
    depth: int,
    out_moves: np.ndarray,
    record_moves: bool,
) -> int:
    """Add ``b`` to ``out`` unless already present; returns the new count."""
    h = _board_hash(b)
    mask = TABLE_SIZE - 1
    slot = int(h >> np.uint64(64 - _TABLE_BITS)) & mask
    while True:
        idx = table[slot]
        if idx < 0:
            break
        same = True
        for i in range(BOARD_SIZE):
            if out[idx, i] != b[i]:
                same = False
                break
        if same:
            return count
        slot = (slot + 1) & mask
    if count >= out.shape[0]:
        raise ValueError("too many distinct plays for the output buffer")
    table[slot] = count
    out[count, :] = b
    if record_moves:
        for k in range(8):
            out_moves[count, k] = -1
        for k in range(depth):
            out_moves[count, 2 * k] = moves_stack[k, 0]
            out_moves[count, 2 * k + 1] = moves_stack[k, 1]
    return count + 1


@njit(cache=True)
def generate_plays(
    board: np.ndarray,
    d1: int,
    d2: int,
    out: np.ndarray,
    out_moves: np.ndarray,
    record_moves: bool,
    table: np.ndarray,
) -> int:
    """Fill ``out`` with every distinct board after a legal play of ``d1``-``d2``; returns the count.

    Boards stay in the mover's orientation. ``table`` is an all ``-1`` int32 scratch array of
    ``TABLE_SIZE`` and is left that way. With ``record_moves`` each row of ``out_moves`` holds
    one sequence of (from, to) pairs producing that board (to 0 = borne off), -1 padded.
    """
    doubles = d1 == d2
    n_dice = 4 if doubles else 2
    boards = np.empty((5, BOARD_SIZE), np.int8)
    next_src = np.zeros(5, np.int64)
    his = np.zeros(5, np.int64)
    had_child = np.zeros(5, np.bool_)
    moves_stack = np.zeros((4, 2), np.int64)
    dice = np.empty(4, np.int64)
    count = 0
    best_score = -1
    for order in range(1 if doubles else 2):
        if doubles:
            dice[:] = d1
        else:
            dice[0] = d1 if order == 0 else d2
            dice[1] = d2 if order == 0 else d1
        boards[0, :] = board
        his[0] = _highest_own(board, 25)
        next_src[0] = his[0]
        had_child[0] = False
        depth = 0
        while depth >= 0:
            b = boards[depth]
            if depth < n_dice:
                die = dice[depth]
                src = next_src[depth]
                while src >= 1 and not _legal_single(b, src, die, his[depth]):
                    src -= 1
                if src >= 1:
                    next_src[depth] = src - 1
                    had_child[depth] = True
                    nb = boards[depth + 1]
                    nb[:] = b
                    _apply_single(nb, src, die)
                    moves_stack[depth, 0] = src
                    moves_stack[depth, 1] = max(src - die, 0)
                    his[depth + 1] = _highest_own(nb, his[depth])
                    # Doubles: later checkers start no higher than this one, which loses no
                    # play and avoids permutations; mixed dice: any checker takes the second die.
                    next_src[depth + 1] = src if doubles else his[depth + 1]
                    had_child[depth + 1] = False
                    depth += 1
                    continue
                if had_child[depth]:
                    depth -= 1
                    continue
            # A leaf: all dice played, or no legal move for the next die.
            if doubles or depth == 2:
                score = 10 * depth
            elif depth == 1:
                score = dice[0]  # one die only: the larger one must be played when it can be
            else:
                score = 0
            if score > best_score:
                _clear_table(table, out, count)
                best_score = score
                count = 0
            if score == best_score:
                count = _insert(b, out, count, table, moves_stack, depth, out_moves, record_moves)
            depth -= 1
    _clear_table(table, out, count)
    return count


@njit(cache=True, inline="always")
def flip_into(src: np.ndarray, dst: np.ndarray) -> None:
    """Write ``src`` seen from the other side into ``dst``."""
    for i in range(BOARD_SIZE):
        dst[i] = -src[BOARD_SIZE - 1 - i]


@njit(cache=True)
def children_batch_kernel(boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Children of many (board, dice) pairs, flipped to the opponent's view.

    Returns ``(children, offsets)``: the children of pair ``i`` are
    ``children[offsets[i]:offsets[i + 1]]``.
    """
    n = boards.shape[0]
    offsets = np.zeros(n + 1, np.int64)
    capacity = max(64, n * 32)
    result = np.empty((capacity, BOARD_SIZE), np.int8)
    scratch = np.empty((MAX_CHILDREN, BOARD_SIZE), np.int8)
    no_moves = np.empty((1, 8), np.int8)
    table = np.full(TABLE_SIZE, -1, np.int32)
    total = 0
    for i in range(n):
        k = generate_plays(boards[i], dice[i, 0], dice[i, 1], scratch, no_moves, False, table)
        if total + k > capacity:
            while total + k > capacity:
                capacity *= 2
            grown = np.empty((capacity, BOARD_SIZE), np.int8)
            grown[:total] = result[:total]
            result = grown
        for j in range(k):
            flip_into(scratch[j], result[total + j])
        total += k
        offsets[i + 1] = total
    return result[:total], offsets


@njit(cache=True)
def children_into(
    board: np.ndarray, d1: int, d2: int, scratch: np.ndarray, no_moves: np.ndarray, table: np.ndarray, out: np.ndarray
) -> int:
    """Write the children of one (board, roll), flipped to the opponent's view, into ``out``; returns their count.

    The scratch arrays are the caller's to reuse (the hash table is left cleared), so a single
    position costs no allocation.
    """
    k = generate_plays(board, d1, d2, scratch, no_moves, False, table)
    for j in range(k):
        flip_into(scratch[j], out[j])
    return k


@njit(cache=True)
def count_children_kernel(boards: np.ndarray, dice: np.ndarray) -> int:
    """Total number of distinct children over many (board, dice) pairs (benchmark path)."""
    scratch = np.empty((MAX_CHILDREN, BOARD_SIZE), np.int8)
    no_moves = np.empty((1, 8), np.int8)
    table = np.full(TABLE_SIZE, -1, np.int32)
    total = 0
    for i in range(boards.shape[0]):
        total += generate_plays(boards[i], dice[i, 0], dice[i, 1], scratch, no_moves, False, table)
    return total


def plays_with_moves(board: np.ndarray, d1: int, d2: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct boards after a legal play (mover's view) and one (from, to) sequence for each."""
    out = np.empty((MAX_CHILDREN, BOARD_SIZE), np.int8)
    moves = np.empty((MAX_CHILDREN, 8), np.int8)
    table = np.full(TABLE_SIZE, -1, np.int32)
    k = generate_plays(np.ascontiguousarray(board, dtype=np.int8), d1, d2, out, moves, True, table)
    return out[:k].copy(), moves[:k].copy()


@njit(cache=True)
def rear_and_front(b: np.ndarray) -> tuple[int, int]:
    """(index of the side on roll's rearmost checker or 0, index of the opponent's rearmost or 25).

    The sides are in contact when the first exceeds the second.
    """
    rear_own = 25
    while rear_own > 0 and b[rear_own] <= 0:
        rear_own -= 1
    front_opp = 0
    while front_opp < 25 and b[front_opp] >= 0:
        front_opp += 1
    return rear_own, front_opp
