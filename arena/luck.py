"""The luck of a roll, by a reference evaluator: the control variate of rollouts, tournaments and analysis.

The luck of the side on roll with roll ``r`` is ``f(r) - sum over the 21 rolls of w(r') f(r')``,
where ``f(r)`` is the reference evaluator's 0-ply evaluation, as five probabilities from the
roller's view, of the position after its 0-ply best play of ``r`` and ``w`` is 1/36 for doubles
and 2/36 otherwise. Whatever happened before, the luck of the next roll has mean zero over the
dice, so a sum of lucks (each weighted by anything known before its roll, such as the cube then in
play) has mean zero too: subtracting it from a game's result leaves the expectation unchanged and
removes most of the dice's noise. That holds whatever the reference evaluator is; a better one
removes more noise.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cube.gamestate import difference_equity, flip_difference
from cube.match import MatchScore, game_result_mwc
from cube.met import MatchEquityTable
from engine.batch import children_batch
from nets.base import BoardEvaluator
from nets.evaluator import load_evaluator
from nets.lookahead import ROLL_WEIGHTS, ROLLS, expand_rolls, segment_argmax
from nets.mlp import cubeless_equity, flip_probabilities

#: Index into :data:`nets.lookahead.ROLLS` (the 21 distinct rolls) of each ordered roll (d1 - 1, d2 - 1).
ROLL_INDEX = np.array([[ROLLS.tolist().index(sorted([a, b])) for b in range(1, 7)] for a in range(1, 7)])
LUCK_CHUNK = 256  # distinct boards whose 21-roll luck is evaluated in one batch (21 x children each)


def roll_luck(
    ev: BoardEvaluator, boards: np.ndarray, rolls: np.ndarray, roller_seat: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The luck (k, 5) of each roll, as five probabilities from seat 0's view (0-ply), and the 0-ply
    best play of each roll (k, 26), the child seen by the next side on roll.

    ``boards`` are seen by the side on roll, which sits in ``roller_seat``; each of the 21 rolls
    is played by the 0-ply best play and evaluated at 0-ply, once per distinct board (the trials
    of a position, and the two games of a mirrored pair, share boards).
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    keys = boards.view(np.dtype((np.void, boards.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    distinct = boards[first]
    values = np.empty((len(distinct), len(ROLLS), 5))  # the roller's view after each roll's best play
    best_kids = np.empty((len(distinct), len(ROLLS), boards.shape[1]), np.int8)
    for start in range(0, len(distinct), LUCK_CHUNK):
        part = distinct[start : start + LUCK_CHUNK]
        rep, dice = expand_rolls(part)
        kids, offsets = children_batch(rep, dice)
        probs = ev.evaluate_boards(kids)  # the side that did not roll, now on roll
        best = segment_argmax(-cubeless_equity(probs), offsets)
        values[start : start + len(part)] = flip_probabilities(probs[best]).reshape(len(part), len(ROLLS), 5)
        best_kids[start : start + len(part)] = kids[best].reshape(len(part), len(ROLLS), -1)
    rows, roll = inverse.ravel(), ROLL_INDEX[rolls[:, 0] - 1, rolls[:, 1] - 1]
    luck = values[rows, roll]
    luck -= (values * ROLL_WEIGHTS[None, :, None]).sum(axis=1)[rows]
    return np.where((roller_seat == 0)[:, None], luck, flip_difference(luck)), best_kids[rows, roll]


def money_luck_seat0(
    ev: BoardEvaluator, boards: np.ndarray, rolls: np.ndarray, roller_seat: np.ndarray, stake: np.ndarray
) -> np.ndarray:
    """The luck (k,) of each roll in points for seat 0 of a money game: the cubeless equity's luck times ``stake``.

    ``stake`` is the cube in play before the roll (0 where the game's points are already decided).
    """
    luck, _ = roll_luck(ev, boards, rolls, roller_seat)
    return stake * difference_equity(luck)


def match_luck_seat0(
    ev: BoardEvaluator,
    boards: np.ndarray,
    rolls: np.ndarray,
    roller_seat: np.ndarray,
    met: MatchEquityTable,
    away: np.ndarray,
    crawford: np.ndarray,
    stake: np.ndarray,
) -> np.ndarray:
    """The luck (k,) of each roll in seat 0's match-winning chance: the change of the cubeless MWC that the
    probabilities' luck makes at the score (``away`` (k, 2) by seat, ``crawford``) with ``stake`` in play.

    The cubeless MWC is linear in the five probabilities at a given score and cube, so its luck, like
    theirs, has mean zero over the dice. ``stake`` is the cube in play (0 once the game's points are decided).
    """
    luck, _ = roll_luck(ev, boards, rolls, roller_seat)
    w, wg, wbg, lg, lbg = (luck[:, k] for k in range(5))
    results = np.stack([w - wg, wg - wbg, wbg, -w - lg, lg - lbg, lbg], axis=1)  # each result's probability change
    out = np.zeros(len(boards))
    weights: dict[tuple[int, int, bool, int], np.ndarray] = {}
    keys = zip(away[:, 0].tolist(), away[:, 1].tolist(), crawford.tolist(), stake.tolist(), strict=True)
    for j, key in enumerate(keys):
        if key[3] == 0:
            continue
        if key not in weights:
            score, cube = MatchScore(key[0], key[1], bool(key[2])), int(key[3])
            wins = [game_result_mwc(met, score, won=k * cube) for k in (1, 2, 3)]
            weights[key] = np.array(wins + [game_result_mwc(met, score, lost=k * cube) for k in (1, 2, 3)])
        out[j] = results[j] @ weights[key]
    return out


@lru_cache(maxsize=4)
def reference_evaluator(weights: str | None = None) -> BoardEvaluator:
    """The 0-ply evaluator of ``weights`` (None: the shipped net) with the bearoff databases, once per process."""
    return load_evaluator(weights)
