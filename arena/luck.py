"""The luck of a roll, by a reference evaluator: the control variate of rollouts, tournaments and analysis.

The luck of the side on roll with roll ``r`` is ``f(r) - sum over the 21 rolls of w(r') f(r')``,
where ``f(r)`` is the reference evaluator's 0-ply evaluation, as five probabilities from the
roller's view, of the position after its 0-ply best play of ``r`` and ``w`` is 1/36 for doubles
and 2/36 otherwise. Whatever happened before, the luck of the next roll has mean zero over the
dice, so a sum of lucks (each weighted by anything known before its roll, such as the cube then in
play) has mean zero too: subtracting it from a game's result leaves the expectation unchanged and
removes most of the dice's noise. That holds whatever the reference evaluator is; a better one
removes more noise.

A *screened* luck (``screen=k``) plays each roll by the reference evaluator's best of only the k
children pubeval ranks highest, so the evaluator judges about 21 k positions a board instead of
every child of every roll (bear-offs are not screened: the databases judge them exactly). It is
the same kind of control variate (any function of the board and the roll has a luck of mean
zero), a little noisier where pubeval's top k miss the best play, and it must then be used for
every roll, the one rolled included.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from cube.efficiency import DEFAULT_CUBE_LIFE
from cube.gamestate import difference_equity, flip_difference, flip_outcomes, win_loss_values
from cube.janowski import CUBE_STATES, gnubg_equity
from cube.match import MatchScore, game_result_mwc
from cube.met import MatchEquityTable
from cube.states import CubeState
from engine.batch import children_batch, distinct_rows, phases
from engine.errors import InvalidSpec
from engine.position import GamePhase
from nets.base import BoardEvaluator
from nets.evaluator import load_evaluator
from nets.lookahead import OPENING_WEIGHTS, ROLL_WEIGHTS, ROLLS, expand_rolls, segment_argmax
from nets.mlp import cubeless_equity, flip_probabilities
from players.pubeval import load_pubeval_weights, pubeval_scores

#: Index into :data:`nets.lookahead.ROLLS` (the 21 distinct rolls) of each ordered roll (d1 - 1, d2 - 1).
ROLL_INDEX = np.array([[ROLLS.tolist().index(sorted([a, b])) for b in range(1, 7)] for a in range(1, 7)])
LUCK_CHUNK = 256  # distinct boards whose 21-roll luck is evaluated in one batch (21 x children each)
#: The default luck screen of rollouts and tournaments: pubeval's top 8 plays of each roll hold the net's best
#: nearly always, so the luck is as good (variance +5% on cube decisions) for about half the CPU (docs/rollouts.md).
LUCK_SCREEN = 8


@njit(cache=True)
def _top_of_segments(scores: np.ndarray, offsets: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the ``keep[i]`` highest scores of each segment ``offsets[i]:offsets[i+1]`` (all of a shorter
    one), in their order within the segment (so ties between kept plays break as without a screen), and the
    new segments' offsets."""
    n = len(offsets) - 1
    new_offsets = np.zeros(n + 1, np.int64)
    for s in range(n):
        new_offsets[s + 1] = new_offsets[s] + min(offsets[s + 1] - offsets[s], keep[s])
    out = np.empty(new_offsets[n], np.int64)
    for s in range(n):
        start, size = offsets[s], offsets[s + 1] - offsets[s]
        taken = np.zeros(size, np.bool_)
        for _ in range(new_offsets[s + 1] - new_offsets[s]):
            best = -1
            for j in range(size):
                if not taken[j] and (best < 0 or scores[start + j] > scores[start + best]):
                    best = j
            taken[best] = True
        t = new_offsets[s]
        for j in range(size):
            if taken[j]:
                out[t] = start + j
                t += 1
    return out, new_offsets


@lru_cache(maxsize=1)
def _pubeval_weights() -> tuple[np.ndarray, np.ndarray]:
    return load_pubeval_weights()


def screened_children(
    boards: np.ndarray, kids: np.ndarray, offsets: np.ndarray, keep: int
) -> tuple[np.ndarray, np.ndarray]:
    """The ``keep`` children of each segment (the moves of ``boards[i]`` with one roll) that pubeval ranks
    highest for the mover, and their offsets; every child where ``boards[i]`` is a bear-off (the databases
    judge them exactly and cheaply, so the luck stays exact there)."""
    race_w, contact_w = _pubeval_weights()
    phase = phases(boards)
    race = np.repeat(phase != GamePhase.CONTACT, np.diff(offsets))
    limit = np.where(phase <= GamePhase.RACE, keep, np.iinfo(np.int64).max).astype(np.int64)
    picked, new_offsets = _top_of_segments(pubeval_scores(kids, race, race_w, contact_w), offsets, limit)
    return kids[picked], new_offsets


def check_screen(screen: int | None) -> int | None:
    """``screen`` if it is None or a positive whole number; InvalidSpec naming it otherwise."""
    if screen is not None and (isinstance(screen, bool) or not isinstance(screen, int) or screen < 1):
        raise InvalidSpec(f"luck screen {screen!r}: give a whole number of plays of at least 1 (or none)")
    return screen


def _best_plays(
    ev: BoardEvaluator, boards: np.ndarray, screen: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each distinct board (seen by the side on roll): the row of each board among them (k,), the 0-ply
    evaluation (d, 21, 5) from the roller's view of the position after each roll's 0-ply best play (among
    pubeval's top ``screen`` children when given), and those positions (d, 21, 26), seen by the next side on roll.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    keys = boards.view(np.dtype((np.void, boards.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    distinct = boards[first]
    values = np.empty((len(distinct), len(ROLLS), 5))
    best_kids = np.empty((len(distinct), len(ROLLS), boards.shape[1]), np.int8)
    for start in range(0, len(distinct), LUCK_CHUNK):
        part = distinct[start : start + LUCK_CHUNK]
        rep, dice = expand_rolls(part)
        kids, offsets = children_batch(rep, dice)
        if screen is not None:
            kids, offsets = screened_children(rep, kids, offsets, screen)
        # Different rolls (4-1 and 3-2, say) and boards often reach the same child: judge each once.
        kid_first, kid_inverse = distinct_rows(kids)
        probs = ev.evaluate_boards(kids[kid_first])[kid_inverse]  # the side that did not roll, now on roll
        best = segment_argmax(-cubeless_equity(probs), offsets)
        values[start : start + len(part)] = flip_probabilities(probs[best]).reshape(len(part), len(ROLLS), 5)
        best_kids[start : start + len(part)] = kids[best].reshape(len(part), len(ROLLS), -1)
    return inverse.ravel(), values, best_kids


def _luck_of(values: np.ndarray, rows: np.ndarray, roll: np.ndarray, opening: np.ndarray | None = None) -> np.ndarray:
    """``values[rows, roll]`` less the 21 rolls' weighted mean of ``values[rows]``: the luck, any trailing shape.

    Where ``opening`` (k,) is set the roll is a game's opening roll, never a double, so the mean is over the 15
    others (:data:`nets.lookahead.OPENING_WEIGHTS`): against all 21 its luck would not have mean zero.
    """
    trailing = (1,) * (values.ndim - 2)
    luck = values[rows, roll] - (values * ROLL_WEIGHTS.reshape((1, -1) + trailing)).sum(axis=1)[rows]
    if opening is not None and opening.any():
        first = values[rows, roll] - (values * OPENING_WEIGHTS.reshape((1, -1) + trailing)).sum(axis=1)[rows]
        luck = np.where(opening.reshape((-1,) + trailing), first, luck)
    return luck


def roll_luck(
    ev: BoardEvaluator,
    boards: np.ndarray,
    rolls: np.ndarray,
    roller_seat: np.ndarray,
    screen: int | None = None,
    opening: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The luck (k, 5) of each roll, as five probabilities from seat 0's view (0-ply), and the 0-ply
    best play of each roll (k, 26), the child seen by the next side on roll.

    ``boards`` are seen by the side on roll, which sits in ``roller_seat``; each of the 21 rolls
    is played by the 0-ply best play and evaluated at 0-ply, once per distinct board (the trials
    of a position, and the two games of a mirrored pair, share boards); ``screen`` screens the plays
    (module docstring); ``opening`` (k,) marks games' opening rolls (their luck is against the 15 non-doubles).
    """
    rows, values, best_kids = _best_plays(ev, boards, check_screen(screen))
    roll = ROLL_INDEX[rolls[:, 0] - 1, rolls[:, 1] - 1]
    luck = _luck_of(values, rows, roll, opening)
    return np.where((roller_seat == 0)[:, None], luck, flip_difference(luck)), best_kids[rows, roll]


def cubeful_roll_luck(
    ev: BoardEvaluator,
    boards: np.ndarray,
    rolls: np.ndarray,
    roller_seat: np.ndarray,
    owner: np.ndarray,
    *,
    jacoby: bool = False,
    cube_life: float = DEFAULT_CUBE_LIFE,
    screen: int | None = None,
    opening: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`roll_luck`, with a third array: the luck (k,) of each roll in seat 0's cubeful money equity
    per unit cube, the equity being gnubg's 0-ply cubeful equity (Janowski's mix of the dead and the
    live cube at ``cube_life``) of the position after the roll, its opponent on roll.

    ``owner`` (k,) is the seat owning the cube before the roll (-1: centred). The cubeful equity
    sees what the cubeless one cannot (a position past the cash point is worth the cash, a
    redouble is worth the cube's ownership), so its luck follows a cubeful game's result more
    closely; like any luck it has mean zero over the dice (``opening`` marks games' opening rolls, judged against
    the 15 non-doubles).
    """
    rows, values, best_kids = _best_plays(ev, boards, check_screen(screen))
    roll = ROLL_INDEX[rolls[:, 0] - 1, rolls[:, 1] - 1]
    luck = _luck_of(values, rows, roll, opening)
    # After the roll the opponent is on roll: its view of the probabilities and of the cube.
    opp = flip_outcomes(values.reshape(-1, 5))
    p, w, lose = win_loss_values(np.clip(opp, 0.0, 1.0))
    by_state = np.stack(
        [-gnubg_equity(p, w, lose, cube_life, state, jacoby=jacoby).reshape(values.shape[:2]) for state in CUBE_STATES],
        axis=-1,
    )  # (d, 21, 3): the roller's cubeful equity with the opponent's cube centred, owned, unavailable
    index = {state: k for k, state in enumerate(CUBE_STATES)}
    opp_state = np.where(
        owner < 0,
        index[CubeState.CENTERED],
        np.where(owner == roller_seat, index[CubeState.UNAVAILABLE], index[CubeState.OWNED]),
    )
    cube_luck = _luck_of(by_state, rows, roll, opening)[np.arange(len(rows)), opp_state]
    seat0 = roller_seat == 0
    return (
        np.where(seat0[:, None], luck, flip_difference(luck)),
        np.where(seat0, cube_luck, -cube_luck),
        best_kids[rows, roll],
    )


def money_luck_seat0(
    ev: BoardEvaluator,
    boards: np.ndarray,
    rolls: np.ndarray,
    roller_seat: np.ndarray,
    stake: np.ndarray,
    screen: int | None = None,
    opening: np.ndarray | None = None,
) -> np.ndarray:
    """The luck (k,) of each roll in points for seat 0 of a money game: the cubeless equity's luck times ``stake``.

    ``stake`` is the cube in play before the roll (0 where the game's points are already decided);
    ``screen`` screens the luck's plays (module docstring); ``opening`` marks games' opening rolls.
    """
    luck, _ = roll_luck(ev, boards, rolls, roller_seat, screen, opening)
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
    screen: int | None = None,
    opening: np.ndarray | None = None,
) -> np.ndarray:
    """The luck (k,) of each roll in seat 0's match-winning chance: the change of the cubeless MWC that the
    probabilities' luck makes at the score (``away`` (k, 2) by seat, ``crawford``) with ``stake`` in play.

    The cubeless MWC is linear in the five probabilities at a given score and cube, so its luck, like
    theirs, has mean zero over the dice. ``stake`` is the cube in play (0 once the game's points are decided);
    ``screen`` screens the luck's plays (module docstring); ``opening`` marks games' opening rolls.
    """
    luck, _ = roll_luck(ev, boards, rolls, roller_seat, screen, opening)
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
