"""Every decision of the replayed matches judged at once: checker plays, cube decisions and the luck of each roll.

All positions of all matches are evaluated together, a few large batched calls per stage; beyond
0 ply the candidate plays of every decision and the positions of every cube decision are valued
in one pass (:func:`analysis.deep.plies_probabilities`: each distinct board once, the same values
as :func:`nets.lookahead.evaluate_plies`):

* **checker play**: every legal play of every roll at 0 ply; beyond 0 ply gnubg's Normal
  filter (up to 8 plays within 0.16 of the best at 0 ply, :func:`nets.lookahead.filtered_candidates`)
  plus the play made are looked at again at ``plies``. A play's value is the mover's cubeful
  equity after it: in money, minus the opponent's equity on roll under the money cube model
  (``--cube``, :class:`analysis.cubemodel.MoneyCubeModel`; gnubg's by default,
  :func:`nets.cube_advice.money_cube_decisions`), per unit of the cube, with the session's Jacoby
  and beaver rules; at a match score, the mover's cubeful match winning chance under gnubg's
  model, the opponent on roll taking its best cube action (no double, or the better for it of
  double/take and double/pass, as gnubg values a position below the top), also shown as normalised
  equity (EMG). The error is the best play's value minus the
  played one's, marked with :func:`analysis.marks.skill_of`.
* **cube**: each turn where the side on roll could double, evaluated at ``plies`` before the
  roll, decided by the money cube model or, at a match score, gnubg's
  (:func:`nets.cube_advice.match_cube_advice`); the doubler's and the taker's errors are
  classified as gnubg's statistics do (:class:`analysis.marks.CubeError`).
* **luck**: for every roll, the mover's value after its best play of each of the 21 rolls, the
  play chosen and valued by the 0-ply cubeful value at the score and cube (as gnubg's luck
  analysis picks it); the luck is the value of the roll thrown minus their average. A game's
  opening roll also decides who moves first, so, as gnubg's ``LuckFirst`` does, it is judged
  against the 30 ways the opening can go: each of the 15 non-doubles played by the mover, and each
  played by its opponent instead (the mover then on roll in the mirror image of the position the
  mover's play leaves).

Equities are from the view of the player who decides (the mover, the doubler, the taker), EMG
per unit of the cube; ``units`` figures are points (EMG times the cube) in money and MWC at a
match score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from multiprocessing.pool import Pool

import numpy as np
from tqdm import tqdm

from analysis.cubemodel import GNUBG_MODEL, MoneyCubeModel
from analysis.deep import deep_workers, evaluate_boards, plies_probabilities, segment_best
from analysis.marks import CLOSE_CUBE, CubeError, LuckMark, Skill, luck_mark, skill_of
from analysis.records import Action
from analysis.replay import CheckerTurn, CubeContext, CubeTurn, MatchReplay
from arena.luck import ROLL_INDEX
from cube.actions import ProperAction
from cube.gnubg_model import match_cube_lives, money_proper_action
from cube.match import best_action_mwc, mwc_to_equity
from cube.met import MatchEquityTable
from cube.states import CubeState
from engine.batch import children_batch
from engine.position import Position
from nets.base import BoardEvaluator
from nets.cube_advice import cube_lives, match_cube_advice
from nets.lookahead import OPENING_WEIGHTS, ROLL_WEIGHTS, ROLLS, expand_rolls, filtered_candidates
from nets.mlp import cubeless_equity, flip_probabilities

__all__ = [
    "Candidate",
    "CheckerDecision",
    "CubeDecisionAnalysis",
    "Luck",
    "analyse_decisions",
]

#: Positions whose 21 rolls' best plays are found in one batch (21 x about 20 children each).
LUCK_CHUNK = 256


@dataclass(frozen=True)
class Candidate:
    """One play of a roll: its notation, the position after it (opponent's view), its value and depth.

    ``equity`` is EMG for the mover, ``mwc`` the mover's MWC (None in money), ``probabilities``
    the mover's win, gammon, backgammon, lose gammon and lose backgammon chances.
    """

    move: str
    position_id: str
    equity: float
    mwc: float | None
    plies: int
    probabilities: tuple[float, float, float, float, float]


@dataclass(frozen=True)
class Luck:
    """A roll's luck for the side that rolled: EMG, the same in points or MWC (``units``), and gnubg's mark."""

    equity: float
    units: float
    mark: LuckMark


@dataclass(frozen=True)
class CheckerDecision:
    """One roll and its play, judged: the error (EMG and units) against the best play, the mark, the alternatives.

    ``candidates`` are ranked best first (at most the asked number, plus the play made when it
    ranks below them); ``played_rank`` is the rank of the play made (1 = best); ``value_after``
    the mover's value after the play made (EMG; MWC in ``mwc_after`` at a match score).
    """

    ply: int
    game: int
    move: int
    player: int
    position_id: str
    cube: int
    dice: tuple[int, int]
    played: str
    forced: bool
    error: float
    error_units: float
    skill: Skill
    played_rank: int
    candidates: tuple[Candidate, ...]
    luck: Luck
    value_after: float
    mwc_after: float | None
    where: str


@dataclass(frozen=True)
class CubeDecisionAnalysis:
    """A turn where ``player`` could double, judged; equities are the doubler's, EMG per unit of the cube.

    ``proper`` is gnubg's name of the right action; ``doubler_error``/``taker_error`` what the
    action taken cost each side (EMG; ``_units`` in points or MWC), with gnubg's class of the error
    and its mark; ``close``: the decision counts in the doubler's statistics (a double, or doubling
    would have cost less than a very bad error).
    """

    ply: int
    game: int
    move: int
    player: int
    position_id: str
    cube: int
    state: CubeState
    proper: ProperAction
    no_double: float
    double_take: float
    double_pass: float
    mwc: tuple[float, float, float] | None
    doubled: bool
    response: Action | None
    close: bool
    doubler_error: float
    doubler_error_units: float
    doubler_kind: CubeError | None
    doubler_skill: Skill
    taker_error: float
    taker_error_units: float
    taker_kind: CubeError | None
    taker_skill: Skill
    where: str


def values_after_play(
    met: MatchEquityTable | None,
    kids: np.ndarray,
    opp_probs: np.ndarray,
    context_of: np.ndarray,
    contexts: Sequence[CubeContext],
    model: MoneyCubeModel = GNUBG_MODEL,
) -> tuple[np.ndarray, np.ndarray]:
    """The mover's cubeful value of each child: (EMG per unit of the cube, MWC or nan in money).

    ``kids`` (n, 26) are seen by the opponent, on roll after the play, with ``opp_probs`` its
    probabilities; row ``i`` was played with the mover's cube ``contexts[context_of[i]]``; ``met``
    is needed where a context is at a match score, ``model`` is the money cube model.
    """
    return _cubeful_values(met, kids, opp_probs, context_of, contexts, model, mover_on_roll=False)


def values_on_roll(
    met: MatchEquityTable | None,
    kids: np.ndarray,
    opp_probs: np.ndarray,
    context_of: np.ndarray,
    contexts: Sequence[CubeContext],
    model: MoneyCubeModel = GNUBG_MODEL,
) -> tuple[np.ndarray, np.ndarray]:
    """The mover's cubeful value (EMG, MWC or nan in money) on roll at each of ``kids`` with ``opp_probs``, its cube
    ``contexts[context_of[i]]``: what :func:`values_after_play` gives its opponent, had the opponent played instead.

    From the start position the opponent's play of a roll leaves the mirror image of the mover's play
    of it, which the mover then faces on roll: the board and probabilities of the side on roll are the same.
    """
    return _cubeful_values(met, kids, opp_probs, context_of, contexts, model, mover_on_roll=True)


def _cubeful_values(
    met: MatchEquityTable | None,
    kids: np.ndarray,
    probs: np.ndarray,
    context_of: np.ndarray,
    contexts: Sequence[CubeContext],
    model: MoneyCubeModel,
    mover_on_roll: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The mover's (EMG, MWC or nan) at ``kids``, whose side on roll has ``probs``: the mover itself when
    ``mover_on_roll``, else its opponent (the mover's cube ``contexts[context_of[i]]`` seen from that side)."""
    n = len(kids)
    emg = np.empty(n)
    mwc = np.full(n, np.nan)
    if n == 0:
        return emg, mwc
    sign = 1.0 if mover_on_roll else -1.0
    money = np.array([contexts[k].match is None for k in range(len(contexts))], bool)[context_of]
    dead = np.array([contexts[k].dead for k in range(len(contexts))], bool)[context_of]
    if dead.any():  # no cube turn can come: the game is played out at this cube (Jacoby: no gammons while centred)
        rows = np.flatnonzero(dead)
        single = np.array([c.jacoby and c.state is CubeState.CENTERED for c in contexts], bool)[context_of[rows]]
        emg[rows] = sign * np.where(single, 2.0 * probs[rows, 0] - 1.0, cubeless_equity(probs[rows]))
    live = money & ~dead
    if live.any():
        rows = np.flatnonzero(live)
        on_roll = [c if mover_on_roll else c.opponent for c in contexts]
        states = np.array([str(on_roll[k].state) for k in context_of[rows]])
        rules = np.array([2 * contexts[k].jacoby + contexts[k].beavers for k in context_of[rows]])
        for rule in np.unique(rules):
            part = rows[rules == rule]
            d = model.decide(
                kids[part], probs[part], states[rules == rule], jacoby=bool(rule & 2), beavers=bool(rule & 1)
            )
            emg[part] = sign * d.equity
    if (~money).any():
        assert met is not None
        rows = np.flatnonzero(~money)
        lives = cube_lives(kids[rows])
        for k in np.unique(context_of[rows]):
            mine = contexts[int(k)].match
            assert mine is not None
            cube = mine if mover_on_roll else mine.flipped()  # the cube as the side on roll holds it
            sel = np.flatnonzero(context_of[rows] == k)
            part = rows[sel]
            both = np.array([match_cube_lives(lives[j], probs[i], cube.state) for i, j in zip(part, sel, strict=True)])
            on_roll_mwc = best_action_mwc(probs[part], met, cube, both[:, 0], both[:, 1])
            mwc[part] = on_roll_mwc if mover_on_roll else 1.0 - on_roll_mwc
            emg[part] = mwc_to_equity(mwc[part], met, mine)
    return emg, mwc


def _contexts(turns: Sequence[CheckerTurn | CubeTurn]) -> tuple[np.ndarray, list[CubeContext]]:
    """Each turn's index into a list of the distinct cube contexts."""
    index: dict[CubeContext, int] = {}
    of = np.array([index.setdefault(t.cube, len(index)) for t in turns], np.int64)
    return of, list(index)


def _units(emg: np.ndarray, mwc: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Points (EMG times the cube) in money rows, MWC at a match score."""
    return np.where(np.isnan(mwc), emg * value, mwc)


def analyse_checker(
    ev: BoardEvaluator,
    turns: Sequence[CheckerTurn],
    plies: int,
    met: MatchEquityTable | None,
    alternatives: int,
    bar: tqdm | None = None,
    deep: dict[bytes, np.ndarray] | None = None,
    model: MoneyCubeModel = GNUBG_MODEL,
    also: np.ndarray | None = None,
    pool: Pool | None = None,
) -> tuple[list[CheckerDecision], np.ndarray]:
    """Every roll's play judged at ``plies`` (module docstring), and each turn's played-child row index.

    Returns the decisions (without luck; see :func:`analyse_decisions`) and, per turn, the mover's
    (EMG, MWC) after the play made as a (n, 2) array. ``deep`` collects the probabilities of every
    board evaluated at ``plies`` (keyed by its bytes, side on roll's view) for the cube analysis;
    ``also`` names more boards (the cube decisions' positions) to value at ``plies`` in the same
    batch, every distinct board of both looked at once (:func:`analysis.deep.plies_probabilities`, in
    ``pool``'s processes when given).
    """
    n = len(turns)
    if n == 0:
        return [], np.zeros((0, 2))
    boards = np.stack([t.position.array for t in turns])
    dice = np.array([t.dice for t in turns], np.int64)
    kids, offsets = children_batch(boards, dice)
    segment = np.repeat(np.arange(n), np.diff(offsets))
    keys = np.ascontiguousarray(kids).view(np.dtype((np.void, 26))).ravel()
    played = np.empty(n, np.int64)
    for i, t in enumerate(turns):
        hit = np.flatnonzero(keys[offsets[i] : offsets[i + 1]] == np.void(t.child.array.tobytes()))
        played[i] = offsets[i] + hit[0]
    context_of, contexts = _contexts(turns)
    row_context = context_of[segment]
    probs = evaluate_boards(ev, kids)
    emg, mwc = values_after_play(met, kids, probs, row_context, contexts, model)
    depth = np.zeros(len(kids), np.int64)
    if plies > 0:
        keep = filtered_candidates(emg, offsets)
        look = np.zeros(len(kids), bool)
        look[keep] = True
        look[played] = True
        per_segment = np.bincount(segment[look], minlength=n)
        look &= per_segment[segment] > 1  # a decision with one candidate needs no deeper look
        rows = np.flatnonzero(look)
        _advance(bar, n)
        extra = np.zeros((0, 26), np.int8) if also is None else np.asarray(also, np.int8).reshape(-1, 26)
        boards_deep = np.concatenate([kids[rows], extra])
        if bar is not None:
            bar.total += len(boards_deep)
            bar.refresh()
        found = plies_probabilities(ev, boards_deep, plies, progress=lambda k: _advance(bar, k), pool=pool)
        probs[rows] = found[: len(rows)]
        if deep is not None:
            deep.update((extra[k].tobytes(), found[len(rows) + k]) for k in range(len(extra)))
        if len(rows):
            emg[rows], mwc[rows] = values_after_play(met, kids[rows], probs[rows], row_context[rows], contexts, model)
        depth[rows] = plies
        if deep is not None:
            deep.update((kids[r].tobytes(), probs[r]) for r in rows)
    else:
        _advance(bar, n)
    order = np.lexsort((-emg, -depth, segment))  # per decision: deepest first, then best
    decisions = []
    value = np.array([t.cube.value for t in turns], np.float64)[segment]
    units = _units(emg, mwc, value)
    for i, t in enumerate(turns):
        ranked = order[offsets[i] : offsets[i + 1]]
        best, mine = int(ranked[0]), int(played[i])
        rank = int(np.flatnonzero(ranked == mine)[0]) + 1
        error = max(0.0, float(emg[best] - emg[mine]))
        error_units = max(0.0, float(units[best] - units[mine]))
        shown = [int(r) for r in ranked[:alternatives]]
        if mine not in shown:
            shown.append(mine)
        names = _move_names(t)
        candidates = tuple(
            Candidate(
                names[kids[r].tobytes()],
                Position(kids[r]).id,
                float(emg[r]),
                None if np.isnan(mwc[r]) else float(mwc[r]),
                int(depth[r]),
                _mover_probabilities(probs[r]),
            )
            for r in shown
        )
        forced = offsets[i + 1] - offsets[i] == 1
        decisions.append(
            CheckerDecision(
                ply=t.ply,
                game=t.game,
                move=t.move,
                player=t.player,
                position_id=t.position.id,
                cube=t.cube.value,
                dice=t.dice,
                played=names[kids[mine].tobytes()],
                forced=bool(forced),
                error=error,
                error_units=error_units,
                skill=skill_of(error),
                played_rank=rank,
                candidates=candidates,
                luck=Luck(0.0, 0.0, LuckMark.NONE),
                value_after=float(emg[mine]),
                mwc_after=None if np.isnan(mwc[mine]) else float(mwc[mine]),
                where=t.where,
            )
        )
    return decisions, np.stack([emg[played], mwc[played]], axis=1)


def _move_names(turn: CheckerTurn) -> dict[bytes, str]:
    """gnubg notation of each play of the turn's roll, keyed by the child's bytes (opponent's view)."""
    return {child.array.tobytes(): str(move) for move, child in turn.position.plays(turn.dice)}


def _mover_probabilities(opp: np.ndarray) -> tuple[float, float, float, float, float]:
    """The mover's five probabilities from the opponent's (on roll after the play)."""
    p = flip_probabilities(opp[None])[0]
    return (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))


def analyse_luck(
    ev: BoardEvaluator,
    turns: Sequence[CheckerTurn],
    met: MatchEquityTable | None,
    bar: tqdm | None = None,
    model: MoneyCubeModel = GNUBG_MODEL,
) -> list[Luck]:
    """Each roll's luck for the side that rolled (module docstring), at 0 ply."""
    n = len(turns)
    if n == 0:
        return []
    boards = np.stack([t.position.array for t in turns])
    context_of, contexts = _contexts(turns)
    # a roll's best play depends on the score and the cube, so each distinct (board, cube context) once
    index: dict[tuple[bytes, int], int] = {}
    keys = zip(boards, context_of, strict=True)
    inverse = np.array([index.setdefault((b.tobytes(), int(c)), len(index)) for b, c in keys], np.int64)
    _, firsts = np.unique(inverse, return_index=True)  # each key's first turn, keys in order of appearance
    emg = np.empty((len(index), len(ROLLS)))
    mwc = np.empty((len(index), len(ROLLS)))
    kids = np.empty((len(index), len(ROLLS), 26), np.int8)
    probs = np.empty((len(index), len(ROLLS), 5))
    for lo in range(0, len(index), LUCK_CHUNK):
        rows = firsts[lo : lo + LUCK_CHUNK]
        rep, rolls = expand_rolls(boards[rows])
        children, offsets = children_batch(rep, rolls)
        child_probs = evaluate_boards(ev, children)
        of = np.repeat(np.repeat(context_of[rows], len(ROLLS)), np.diff(offsets))
        values, values_mwc = values_after_play(met, children, child_probs, of, contexts, model)
        best = segment_best(values, offsets)  # the mover's best play at the score, as gnubg picks it
        part = slice(lo, lo + len(rows))
        emg[part] = values[best].reshape(len(rows), len(ROLLS))
        mwc[part] = values_mwc[best].reshape(len(rows), len(ROLLS))
        kids[part] = children[best].reshape(len(rows), len(ROLLS), 26)
        probs[part] = child_probs[best].reshape(len(rows), len(ROLLS), 5)
        _advance(bar, len(rows))
    _advance(bar, n - len(index))  # repeated positions (openings) cost nothing more
    emg, mwc = emg[inverse], mwc[inverse]
    played = kids[inverse].reshape(-1, 26)  # each turn's 21 best plays, row by row
    played_probs = probs[inverse].reshape(-1, 5)
    mean_emg, mean_mwc = (emg * ROLL_WEIGHTS).sum(axis=1), (mwc * ROLL_WEIGHTS).sum(axis=1)
    opening = np.flatnonzero([t.opening for t in turns])
    if len(opening):  # the 30 ways an opening can go: the mover's 15 non-doubles, and the opponent's
        picked = (opening[:, None] * len(ROLLS) + np.arange(len(ROLLS))).ravel()
        theirs_emg, theirs_mwc = values_on_roll(
            met, played[picked], played_probs[picked], np.repeat(context_of[opening], len(ROLLS)), contexts, model
        )
        theirs_emg, theirs_mwc = theirs_emg.reshape(-1, len(ROLLS)), theirs_mwc.reshape(-1, len(ROLLS))
        mean_emg[opening] = ((emg[opening] + theirs_emg) * OPENING_WEIGHTS).sum(axis=1) / 2
        mean_mwc[opening] = ((mwc[opening] + theirs_mwc) * OPENING_WEIGHTS).sum(axis=1) / 2
    dice = np.array([t.dice for t in turns], np.int64)
    thrown = ROLL_INDEX[dice[:, 0] - 1, dice[:, 1] - 1]
    rows = np.arange(n)
    luck = emg[rows, thrown] - mean_emg
    luck_mwc = mwc[rows, thrown] - mean_mwc
    value = np.array([t.cube.value for t in turns], np.float64)
    units = _units(luck, luck_mwc, value)
    return [Luck(float(lk), float(u), luck_mark(float(lk))) for lk, u in zip(luck, units, strict=True)]


def analyse_cube(
    ev: BoardEvaluator,
    turns: Sequence[CubeTurn],
    plies: int,
    met: MatchEquityTable | None,
    bar: tqdm | None = None,
    deep: dict[bytes, np.ndarray] | None = None,
    model: MoneyCubeModel = GNUBG_MODEL,
    pool: Pool | None = None,
) -> list[CubeDecisionAnalysis]:
    """Each turn where the side on roll could double, judged at ``plies`` (module docstring).

    ``deep`` holds probabilities already found at ``plies`` (the plays the checker analysis looked
    at again: the position before a cube decision is the play made just before it); the others are
    valued in ``pool``'s processes when given.
    """
    n = len(turns)
    if n == 0:
        return []
    boards = np.stack([t.position.array for t in turns])
    probs = np.empty((n, 5))
    known = deep if deep is not None and plies > 0 else {}
    found = [i for i in range(n) if boards[i].tobytes() in known]
    for i in found:
        probs[i] = known[boards[i].tobytes()]
    _advance(bar, len(found))
    missing = np.setdiff1d(np.arange(n), found)
    if len(missing):
        probs[missing] = plies_probabilities(ev, boards[missing], plies, progress=lambda k: _advance(bar, k), pool=pool)
    out: list[CubeDecisionAnalysis] = []
    money = [i for i, t in enumerate(turns) if t.cube.match is None]
    triples: dict[int, tuple[ProperAction, float, float, float, tuple[float, float, float] | None]] = {}
    for jacoby in (False, True):
        for beavers in (False, True):
            rows = [i for i in money if turns[i].cube.jacoby == jacoby and turns[i].cube.beavers == beavers]
            if not rows:
                continue
            states = np.array([str(turns[i].cube.state) for i in rows])
            d = model.decide(boards[rows], probs[rows], states, jacoby=jacoby, beavers=beavers)
            for k, i in enumerate(rows):
                one = d[k]
                triples[i] = (money_proper_action(one), one.no_double, one.double_take, one.double_pass, None)
    for i, t in enumerate(turns):
        if t.cube.match is not None:
            assert met is not None
            a = match_cube_advice(boards[i], probs[i], met, t.cube.match)
            assert a.double_take is not None and a.double_pass is not None and a.mwc is not None
            mwcs = (a.mwc[0], float(a.mwc[1] or 0.0), float(a.mwc[2] or 0.0))
            triples[i] = (a.action, a.no_double, a.double_take, a.double_pass, mwcs)
        out.append(_judge(t, *triples[i]))
    return out


def _judge(
    t: CubeTurn,
    proper: ProperAction,
    nd: float,
    dt: float,
    dp: float,
    mwcs: tuple[float, float, float] | None,
) -> CubeDecisionAnalysis:
    """The doubler's and the taker's errors at one cube turn (equities the doubler's, EMG per unit of the cube).

    As gnubg's analysis judges them: the doubler's equity after a double is the smaller of
    double/take and double/pass, the right action the better of that and no double; a beaver is
    not judged (gnubg judges its acceptance as a take, with the first double's figures), so it enters
    neither side's error.
    """
    best_answer = min(dt, dp)
    optimal = max(nd, best_answer)
    answers = {Action.TAKE: dt, Action.PASS: dp}
    outcome = {Action.TAKE: 1, Action.PASS: 2}  # index into ``mwcs``: nd, dt, dp
    best_outcome = 1 if dt <= dp else 2

    def units(error: float, high: int, low: int) -> float:
        """An error in points (money) or as the MWC between outcomes ``high`` and ``low`` (match)."""
        return error * t.cube.value if mwcs is None else mwcs[high] - mwcs[low]

    doubler_kind: CubeError | None = None
    taker_kind: CubeError | None = None
    taker_error = taker_units = doubler_units = 0.0
    if t.doubled:
        doubler_error = optimal - best_answer
        if doubler_error > 0:
            doubler_units = units(doubler_error, 0, best_outcome)
            too_good = proper.name.startswith("TOO_GOOD")
            doubler_kind = CubeError.WRONG_DOUBLE_ABOVE_TG if too_good else CubeError.WRONG_DOUBLE_BELOW_DP
        # a beaver is not judged; nor is a double the record stops at (no answer yet)
        answer = t.response
        taker_error = answers[answer] - best_answer if answer is not None and answer in answers else 0.0
        if answer is not None and taker_error > 0:
            taker_units = units(taker_error, outcome[answer], best_outcome)
            taker_kind = CubeError.WRONG_PASS if answer is Action.PASS else CubeError.WRONG_TAKE
    else:
        doubler_error = optimal - nd
        if doubler_error > 0:
            doubler_units = units(doubler_error, best_outcome, 0)
            doubler_kind = CubeError.MISSED_DOUBLE_ABOVE_CP if dp < dt else CubeError.MISSED_DOUBLE_BELOW_CP
    return CubeDecisionAnalysis(
        ply=t.ply,
        game=t.game,
        move=t.move,
        player=t.player,
        position_id=t.position.id,
        cube=t.cube.value,
        state=t.cube.state,
        proper=proper,
        no_double=float(nd),
        double_take=float(dt),
        double_pass=float(dp),
        mwc=mwcs,
        doubled=t.doubled,
        response=t.response,
        close=bool(t.doubled or optimal - best_answer < CLOSE_CUBE),
        doubler_error=float(doubler_error),
        doubler_error_units=float(doubler_units),
        doubler_kind=doubler_kind,
        doubler_skill=skill_of(float(doubler_error)),
        taker_error=float(max(taker_error, 0.0)),
        taker_error_units=float(taker_units),
        taker_kind=taker_kind,
        taker_skill=skill_of(float(max(taker_error, 0.0))),
        where=t.where,
    )


def _advance(bar: tqdm | None, steps: int) -> None:
    """Move the progress bar on by ``steps`` (none without a bar)."""
    if bar is not None and steps > 0:
        bar.update(steps)


@dataclass(frozen=True)
class MatchDecisions:
    """One match's judged decisions in match order, and the mover's (EMG, MWC) after each play made."""

    checker: tuple[CheckerDecision, ...]
    cube: tuple[CubeDecisionAnalysis, ...]
    after: np.ndarray


def analyse_decisions(
    ev: BoardEvaluator,
    matches: Sequence[MatchReplay],
    plies: int,
    met: MatchEquityTable | None,
    alternatives: int = 5,
    progress: bool = True,
    model: MoneyCubeModel = GNUBG_MODEL,
    workers: int = 1,
) -> list[MatchDecisions]:
    """Every decision of every match judged in one batch per stage (module docstring); one result per match.

    ``model`` is the money cube model (gnubg's by default; matches always use gnubg's). Beyond 0 ply
    the deep values are shared among ``workers`` processes (:func:`analysis.deep.deep_workers`),
    with the same results as one.
    """
    checker_turns = [t for m in matches for g in m.games for t in g.checker]
    cube_turns = [t for m in matches for g in m.games for t in g.cube]
    total = 2 * len(checker_turns) + len(cube_turns)
    bar = tqdm(total=total, unit="position", disable=not progress, desc=f"analysis at {plies} ply", leave=False)
    with bar, deep_workers(ev, workers if plies > 0 else 1) as pool:
        deep: dict[bytes, np.ndarray] = {}
        cube_boards = np.array([t.position.array for t in cube_turns], np.int8).reshape(-1, 26)
        checker, after = analyse_checker(
            ev, checker_turns, plies, met, alternatives, bar, deep, model, cube_boards, pool
        )
        luck = analyse_luck(ev, checker_turns, met, bar, model)
        checker = [replace(d, luck=lk) for d, lk in zip(checker, luck, strict=True)]
        cubes = analyse_cube(ev, cube_turns, plies, met, bar, deep, model, pool)
    out = []
    c0 = k0 = 0
    for m in matches:
        nc = sum(len(g.checker) for g in m.games)
        nk = sum(len(g.cube) for g in m.games)
        out.append(MatchDecisions(tuple(checker[c0 : c0 + nc]), tuple(cubes[k0 : k0 + nk]), after[c0 : c0 + nc]))
        c0, k0 = c0 + nc, k0 + nk
    return out
