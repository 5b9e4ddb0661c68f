"""n-ply probabilities for a whole file's positions, each distinct board evaluated once per batch.

The values are those of :func:`nets.lookahead.evaluate_plies` (the n-ply value of a position
averages, over the 21 rolls, the (n-1)-ply value of the reply reached by the play best at 0
ply), bit for bit: the net's value of a board does not depend on the batch it is evaluated in.
The work is less, because the same board turns up many times in a lookahead: one reply reached
by several rolls (6-1, 5-2 and 4-3 all playing 13/6), one position after different plays of
different decisions, the reply chosen at one ply being the board valued at the next. Here every
stage keeps only the distinct boards (:func:`distinct_boards`), the best play of a roll is
returned with its 0-ply probabilities (:func:`best_plays`), and a position's value at 0 ply is
taken from the stage that chose it instead of being evaluated again.

The deep values may be shared among processes (:func:`deep_workers`, ``analyse --workers``):
the distinct boards are cut into the same batches of :data:`DEEP_BOARDS` and each batch is
valued whole by one process, so the values do not depend on the number of workers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from multiprocessing.pool import Pool

import numpy as np
from numba import njit

from arena.workers import worker_pool
from engine.batch import children_batch, flip_boards, phases
from engine.position import GamePhase
from nets.base import BoardEvaluator
from nets.lookahead import ROLL_WEIGHTS, ROLLS, expand_rolls
from nets.mlp import cubeless_equity, flip_probabilities

__all__ = ["DEEP_BOARDS", "best_plays", "deep_workers", "distinct_boards", "evaluate_boards", "plies_probabilities"]

#: Boards valued beyond 0 ply together: 256 boards at 2 ply reach some 2.5 million positions
#: (65 MB as boards), enough for the repeats to be found, small enough for a shared machine.
DEEP_BOARDS = 256
#: Boards given to the net in one call (about 65 MB of encoded inputs).
NET_BATCH = 65_536
#: Odd 64-bit multipliers of a board's four 8-byte words in its hash (fixed: from a seeded generator).
_HASH_MULTIPLIERS = np.random.default_rng(20261126).integers(1, 2**63, 4, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def distinct_boards(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``boards`` (n, 26): ``(distinct, first, inverse)`` with ``boards == distinct[inverse]``.

    ``first`` holds the index in ``boards`` of each distinct row's first appearance, in order.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    n = len(boards)
    if n == 0:
        empty = np.zeros(0, np.int64)
        return boards, empty, empty
    padded = np.zeros((n, 32), np.int8)
    padded[:, :26] = boards
    words = padded.view(np.uint64)
    keys = words @ _HASH_MULTIPLIERS  # wraps modulo 2**64
    first, inverse = _distinct_rows(words, keys, 1 << (2 * n - 1).bit_length())
    return boards[first], first, inverse


@njit(cache=True)
def _distinct_rows(words: np.ndarray, keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
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


def evaluate_boards(ev: BoardEvaluator, boards: np.ndarray) -> np.ndarray:
    """0-ply probabilities (n, 5) of each board's side on roll; a board met twice is evaluated once."""
    distinct, _, inverse = distinct_boards(boards)
    probs = np.empty((len(distinct), 5))
    for lo in range(0, len(distinct), NET_BATCH):
        probs[lo : lo + NET_BATCH] = ev.evaluate_boards(distinct[lo : lo + NET_BATCH])
    return probs[inverse]


def segment_best(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Index (into ``values``) of the largest value in each non-empty segment ``offsets[i]:offsets[i+1]``.

    Ties go to the first of the segment, as :func:`nets.lookahead.segment_argmax` breaks them.
    """
    starts = offsets[:-1]
    segment = np.repeat(np.arange(len(starts)), np.diff(offsets))
    top = np.maximum.reduceat(values, starts)
    hits = np.flatnonzero(values == top[segment])
    first = np.ones(len(hits), bool)
    first[1:] = segment[hits[1:]] != segment[hits[:-1]]
    return hits[first]


def best_plays(ev: BoardEvaluator, boards: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each (board, dice) pair the child best for the mover at 0 ply and that child's 0-ply probabilities.

    Children are seen by the opponent, on roll after the play; a finished game does not move (its
    child is the same board seen from the other side), as :func:`nets.lookahead.best_children` has it.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    out = flip_boards(boards)
    probs = np.empty((len(boards), 5))
    over = phases(boards) == GamePhase.OVER
    live = np.flatnonzero(~over)
    if len(live):
        kids, offsets = children_batch(boards[live], dice[live])
        kid_probs = evaluate_boards(ev, kids)
        best = segment_best(-cubeless_equity(kid_probs), offsets)
        out[live] = kids[best]
        probs[live] = kid_probs[best]
    if over.any():
        probs[over] = evaluate_boards(ev, out[over])
    return out, probs


def plies_probabilities(
    ev: BoardEvaluator,
    boards: np.ndarray,
    plies: int,
    known: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
    pool: Pool | None = None,
) -> np.ndarray:
    """Probabilities (n, 5) at ``plies`` for each board's side on roll, as :func:`nets.lookahead.evaluate_plies`.

    ``known`` may give the boards' 0-ply probabilities (used at 0 ply and for finished games).
    Boards are looked at :data:`DEEP_BOARDS` distinct ones at a time, in ``pool``'s processes when
    given (:func:`deep_workers`; the same values); ``progress`` is told how many of ``boards`` each
    batch settled.
    """
    distinct, first, inverse = distinct_boards(boards)
    known_distinct = None if known is None else np.asarray(known)[first]
    out = np.empty((len(distinct), 5))
    counts = np.bincount(inverse, minlength=len(distinct))
    parts = [slice(lo, lo + DEEP_BOARDS) for lo in range(0, len(distinct), DEEP_BOARDS)]
    jobs = ((distinct[part], plies, None if known_distinct is None else known_distinct[part]) for part in parts)
    if pool is None or plies == 0 or len(parts) <= 1:
        values: Iterator[np.ndarray] = (_plies(ev, *job) for job in jobs)
    else:
        values = pool.imap(_worker_plies, jobs)
    for part, found in zip(parts, values, strict=True):
        out[part] = found
        if progress is not None:
            progress(int(counts[part].sum()))
    return out[inverse]


@contextlib.contextmanager
def deep_workers(ev: BoardEvaluator, workers: int) -> Iterator[Pool | None]:
    """A pool of ``workers`` processes, each holding a copy of ``ev``, for :func:`plies_probabilities`; None for 1.

    The pool is :func:`arena.workers.worker_pool` (spawned processes sharing the cores; Ctrl-C
    answered by the parent, which terminates the pool on leaving the block).
    """
    if workers <= 1:
        yield None
        return
    with worker_pool(workers, _worker_init, (ev,)) as pool:
        yield pool


_WORKER_EV: BoardEvaluator | None = None


def _worker_init(ev: BoardEvaluator) -> None:
    """Keep the evaluator sent to this worker process when its pool started."""
    global _WORKER_EV
    _WORKER_EV = ev


def _worker_plies(job: tuple[np.ndarray, int, np.ndarray | None]) -> np.ndarray:
    """One batch of distinct boards valued in a worker process: :func:`_plies` of ``(boards, plies, known)``."""
    assert _WORKER_EV is not None
    boards, plies, known = job
    return _plies(_WORKER_EV, boards, plies, known)


def _plies(ev: BoardEvaluator, boards: np.ndarray, plies: int, known: np.ndarray | None) -> np.ndarray:
    """``plies``-ply probabilities of distinct ``boards``, ``known`` their 0-ply ones where already found."""
    if plies == 0:
        return known if known is not None else evaluate_boards(ev, boards)
    out = np.empty((len(boards), 5))
    over = phases(boards) == GamePhase.OVER
    if over.any():  # a finished game keeps its exact value
        out[over] = known[over] if known is not None else evaluate_boards(ev, boards[over])
    live = np.flatnonzero(~over)
    if len(live) == 0:
        return out
    rep, dice = expand_rolls(boards[live])
    replies, reply_probs = best_plays(ev, rep, dice)
    distinct, first, inverse = distinct_boards(replies)
    values = flip_probabilities(_plies(ev, distinct, plies - 1, reply_probs[first])[inverse])
    weighted = values.reshape(-1, len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]
    out[live] = weighted.sum(axis=1)
    return out
