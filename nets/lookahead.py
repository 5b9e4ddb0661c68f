"""n-ply lookahead in the gnubg sense, batched across every position of a ply.

The n-ply value of a position (side on roll, before rolling) averages, over the 21 distinct
rolls, the (n-1)-ply value of the reply position reached by the move that is best at 0-ply;
values pass between plies flipped to the side on roll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from engine.batch import children_batch, flip_boards, phases
from engine.errors import InvalidPosition
from engine.notation import Move
from engine.position import GamePhase, Position
from nets.base import BoardEvaluator
from nets.mlp import cubeless_equity, flip_probabilities

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
#: The weights of the 21 rolls for a game's opening roll, which is never a double: the 15 others, 2/30 each.
OPENING_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 0.0, 2.0 / 30.0)

# gnubg's "Normal" move filter for 2-ply checker play: keep up to 8 moves within 0.16 at 0-ply.
FILTER_KEEP = 8
FILTER_MARGIN = 0.16
# Boards expanded together at each ply of lookahead: a board grows to 21 rolls of about 20
# children (about 1 kB each once encoded), so 128 boards take about 50 MB per ply, where the
# 4,096 candidates of 512 games in lockstep once took over 30 GB at 2-ply. The batches still
# hold some 50,000 children, enough to keep the nets busy.
DEEP_CHUNK = 128


def segment_argmax(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Index (into ``values``) of the largest value in each segment ``offsets[i]:offsets[i+1]`` (the first of
    equal largest ones); ValueError for an empty segment."""
    return _segment_argmax(np.ascontiguousarray(values, np.float64), np.ascontiguousarray(offsets, np.int64))


@njit(cache=True)
def _segment_argmax(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.empty(len(offsets) - 1, np.int64)
    for s in range(len(offsets) - 1):
        start, end = offsets[s], offsets[s + 1]
        if end <= start:
            raise ValueError("segment_argmax: an empty segment has no largest value")
        best = start
        for j in range(start + 1, end):
            if values[j] > values[best]:
                best = j
        out[s] = best
    return out


def best_children(ev: BoardEvaluator, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """For each (board, dice) pair, the child (opponent's view) that is best at 0-ply for the mover.

    A finished game does not move: its child is the same board seen from the other side.
    """
    over = phases(boards) == GamePhase.OVER
    if over.any():
        out = flip_boards(boards)
        live = ~over
        if live.any():
            out[live] = best_children(ev, boards[live], dice[live])
        return out
    kids, offsets = children_batch(boards, dice)
    mover_equity = -cubeless_equity(ev.evaluate_boards(kids))
    return kids[segment_argmax(mover_equity, offsets)]


def filtered_candidates(equity: np.ndarray, offsets: np.ndarray, keep: int = FILTER_KEEP) -> np.ndarray:
    """Indices of the children gnubg's Normal filter keeps: per segment the best ``keep`` within 0.16 of the best."""
    seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    order = np.lexsort((-equity, seg))  # segments in order, best first inside each
    rank = np.arange(len(order)) - offsets[seg[order]]
    best = equity[order[offsets[:-1]]]
    kept = (rank < keep) & (equity[order] >= best[seg[order]] - FILTER_MARGIN)
    return np.sort(order[kept])


def best_children_plies(ev: BoardEvaluator, boards: np.ndarray, dice: np.ndarray, plies: int) -> np.ndarray:
    """For each (board, dice) pair the child (opponent's view) best for the mover at ``plies``.

    0-ply is :func:`best_children`; deeper, gnubg's Normal filter keeps up to 8 children within
    0.16 of the best at 0-ply and the survivors are compared at ``plies`` (all in one batch).
    """
    if plies == 0:
        return best_children(ev, boards, dice)
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    over = phases(boards) == GamePhase.OVER
    out = flip_boards(boards)
    live = np.flatnonzero(~over)
    if len(live) == 0:
        return out
    kids, offsets = children_batch(boards[live], dice[live])
    out[live] = kids[choose_children(ev, kids, offsets, plies)]
    return out


def choose_children(ev: BoardEvaluator, kids: np.ndarray, offsets: np.ndarray, plies: int) -> np.ndarray:
    """Index into ``kids`` (opponent's view) of the child best for the mover in each segment at ``plies``.

    Segment i is ``kids[offsets[i]:offsets[i+1]]``, the plays of one decision. Beyond 0-ply gnubg's
    Normal filter keeps up to 8 children within 0.16 of the best at 0-ply for the deeper look.
    """
    equity0 = -cubeless_equity(ev.evaluate_boards(kids))
    if plies == 0:
        return segment_argmax(equity0, offsets)
    keep = filtered_candidates(equity0, offsets)
    deep = np.full(len(kids), -np.inf)
    # A decision whose filter keeps one play needs no deeper look: its choice is already made.
    segment = np.searchsorted(offsets, keep, side="right") - 1
    contested = np.bincount(segment, minlength=len(offsets) - 1)[segment] > 1
    deep[keep[~contested]] = 0.0
    look = keep[contested]
    deep[look] = -cubeless_equity(evaluate_plies(ev, kids[look], plies))
    return segment_argmax(deep, offsets)


def expand_rolls(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each board repeated for the 21 rolls: ``(boards (21n, 26), dice (21n, 2))``."""
    n = len(boards)
    return np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1))


def evaluate_plies(ev: BoardEvaluator, boards: np.ndarray, plies: int, chunk: int = DEEP_CHUNK) -> np.ndarray:
    """Probabilities (n, 5) at ``plies`` (0, 1, 2, ...) for each board's side on roll.

    Beyond 0-ply the boards are expanded ``chunk`` at a time, at every ply, which bounds the memory.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    if plies < 0:
        raise ValueError(f"plies must be >= 0, got {plies}")
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    if plies == 0 or len(boards) == 0:
        return ev.evaluate_boards(boards)
    if len(boards) > chunk:
        return np.concatenate(
            [evaluate_plies(ev, boards[lo : lo + chunk], plies, chunk) for lo in range(0, len(boards), chunk)]
        )
    out = ev.evaluate_boards(boards)  # finished games keep their exact value
    live = phases(boards) != GamePhase.OVER
    if not live.any():
        return out
    rep, dice = expand_rolls(boards[live])
    replies = best_children(ev, rep, dice)
    reply_values = flip_probabilities(evaluate_plies(ev, replies, plies - 1))
    weighted = reply_values.reshape(-1, len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]
    out[live] = weighted.sum(axis=1)
    return out


@dataclass(frozen=True)
class RankedMove:
    """One candidate play: its move, resulting position, the mover's probabilities, the mover's figure it was
    ranked by (``equity``: :func:`rank_moves`' ``value``) and the depth it was evaluated at."""

    move: Move
    position: Position
    probabilities: np.ndarray
    equity: float
    plies: int


def rank_moves(
    ev: BoardEvaluator,
    position: Position,
    dice: tuple[int, int],
    plies: int = 0,
    value: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> list[RankedMove]:
    """Every legal play of ``dice`` ranked best first, evaluated for the mover at ``plies``.

    ``value`` maps the mover's probabilities (n, 5) and the plays' boards (n, 26, opponent's view)
    to the figure the plays are filtered and ranked by, in equity units (default: the cubeless
    money equity; ``hint`` gives the cubeful money equity, or at a match score the normalised
    equity of the cubeful MWC, as gnubg filters).
    Beyond 0-ply, gnubg's Normal filter applies: only the best 8 within 0.16 at 0-ply are looked at
    deeper; the rest keep their 0-ply figures and rank after them.
    """
    if position.is_over():
        raise InvalidPosition(f"position {position.id}: the game is over, there is no play to rank")
    plays = position.plays(dice)
    kids = np.stack([c.array for _, c in plays])
    probs = flip_probabilities(ev.evaluate_boards(kids))
    depth = np.zeros(len(plays), np.int64)

    def figure(p: np.ndarray) -> np.ndarray:
        return cubeless_equity(p) if value is None else np.asarray(value(p, kids), np.float64)

    eq = figure(probs)
    if plies > 0 and len(plays) > 1:
        order = np.argsort(-eq, kind="stable")
        keep = [i for i in order[:FILTER_KEEP] if eq[i] >= eq[order[0]] - FILTER_MARGIN]
        deep = flip_probabilities(evaluate_plies(ev, kids[keep], plies))
        probs[keep] = deep
        depth[keep] = plies
        eq = figure(probs)
    ranked = sorted(range(len(plays)), key=lambda i: (-depth[i], -eq[i]))
    return [RankedMove(plays[i][0], plays[i][1], probs[i], float(eq[i]), int(depth[i])) for i in ranked]


class PlyEvaluator:
    """An n-ply evaluator wrapping a 0-ply one: :func:`evaluate_plies` behind the one batched call."""

    def __init__(self, base: BoardEvaluator, plies: int) -> None:
        if plies < 0:
            raise ValueError(f"plies must be >= 0, got {plies}")
        self.base = base
        self.plies = plies

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities (n, 5) at ``plies`` for each board's side on roll."""
        return evaluate_plies(self.base, boards, self.plies)
