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

from arena.workers import worker_pool
from engine.batch import children_batch, distinct_rows, flip_boards, phases
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


def distinct_boards(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``boards`` (n, 26): ``(distinct, first, inverse)`` with ``boards == distinct[inverse]``.

    ``first`` holds the index in ``boards`` of each distinct row's first appearance, in order.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    first, inverse = distinct_rows(boards)
    return boards[first], first, inverse


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
