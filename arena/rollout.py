"""Rollouts: many games played out from a position, in lockstep, with gnubg-style variance reduction.

Every figure is from the view of the side on roll in the given position (the *roller*; seat 0 of
every trial). A trial plays the position to the end of the game, or for ``truncate`` plies
and then takes the evaluation at ``truncate_plies`` there. The same player (this project's net at
0, 1 or 2 ply for the checkers, its own depth for the cube, a cheaper depth after ``late_after``
plies; with a cube strategy when cubeful) plays both sides. Cube decisions and candidate plays
are rolled out on top of this (:mod:`arena.rollout_cube`, :mod:`arena.rollout_plays`).

**Dice.** Trial ``t`` draws the first two rolls from a stratified table and every later roll
from ``numpy.random.default_rng([seed, t])``, so a trial's dice depend only on the seed and
its index: a rollout is reproducible and independent of the batch size and the number of
workers, and trial ``t`` of every position in one run sees the same dice. With the 36 ordered
rolls numbered ``r = 6 (d1 - 1) + (d2 - 1)``, trial ``t``'s first roll is ``t mod 36`` and its
second ``(t + t // 36) mod 36``: every 36 consecutive trials (from a multiple of 36) meet every
first roll once and every second roll once, and every 1,296 meet every ordered pair of first
two rolls once (the rotation and stratification of gnubg's quasi-random dice). When the match
ID says the dice are already rolled, the first ply plays those dice (no cube action before it)
and the stratified rolls are the next two.

**Variance reduction** (luck adjustment, as gnubg's rollouts do). At every random roll the
luck of the side on roll is ``f(roll) - sum over the 21 rolls of w(r) f(r)``, where ``f(r)`` is
the 0-ply evaluation (always 0-ply, whatever the rollout's depth: it needs 21 rolls' best
plays per ply) of the position after the 0-ply best play of ``r``, as five probabilities from
the roller's view, and ``w`` is 1/36 for doubles, 2/36 otherwise. Each term has mean zero
whatever the dice so far, so subtracting the sum of the luck from a trial's outcome leaves the
expectation unchanged and removes most of the dice's noise. The cubeful money equity is adjusted
by the luck of gnubg's 0-ply cubeful equity (the opponent on roll after the roll, at the cube's
ownership before it) times the cube then in play (relative to the initial cube): it sees cashes
and the cube's ownership, which the cubeless equity's luck (``cubeful_luck=False``) cannot; at a
match score the cubeful result is the MWC and its luck the change of the cubeless MWC at the
cube and score then in play. Both
standard errors are reported, with and without the adjustment. Adjusted probabilities of a
small rollout can fall slightly outside [0, 1].

**Lockstep.** The trials are split into blocks of the same trial indices of every position
(``block_trials`` per position), each played in one :class:`arena.games.Lockstep` batch:
every live trial of the block takes its cube turn, then all of them move in one batched
call. A block gives the same trials wherever it is played, so ``workers`` processes give the
result of one.

**Cube** (``cubeful``): both sides use the cube spec's strategy; a pass decides the cubeful
result at the current cube, and the checkers play on to the end so the cubeless outcome is
that of the whole game. Cubeful equities are in points per unit of the initial cube. Truncated
trials take the side on roll's strategy equity (``Player.cube_equities``), or the cubeless
equity times the cube without a strategy. At a match score (a match ID with a length) the
players use their match cube strategy, no one doubles in the Crawford game, and a trial's
cubeful result is the MWC the game leaves (truncated: gnubg's cubeful MWC of the evaluation).

**Stopping and continuing.** A :class:`StopRule` ends a rollout after the block where every
SE is small enough, every decision is settled or the time is spent; :class:`SavedRollout`
keeps every trial in a file, and ``run_rollouts(..., previous=...)`` continues with the next
trial index on the same dice.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from arena.games import Lockstep, MatchScores, Rules
from arena.luck import LUCK_SCREEN, check_screen, cubeful_roll_luck, roll_luck
from arena.stats import Figure
from arena.workers import worker_pool
from cube.errors import CubeInputError
from cube.gamestate import difference_equity
from cube.match import MatchCube, MatchScore, cubeless_mwc, game_result_mwc, mwc_to_equity
from cube.met import DEFAULT_MET, MatchEquityTable, met_by_name
from cube.states import CubeState
from engine.batch import parse_id_pair
from engine.errors import InvalidSpec, JumpgammonError, NotSupported, raised_by_interrupt
from engine.match import GameState, MatchState
from engine.position import Position, check_dice
from nets.base import BoardEvaluator
from nets.cube_advice import match_cube_advice
from nets.evaluator import Evaluator, game_over_probabilities, load_evaluator
from nets.lookahead import evaluate_plies
from nets.mlp import OUTPUTS, cubeless_equity, flip_probabilities
from nets.weights import write_atomic
from players.base import CubeContext, Player
from players.cube import cube_states_for, parse_cube_spec
from players.net import NetPlayer
from players.specs import weights_identity
from weights import DEFAULT_WEIGHTS

#: The 36 ordered rolls; roll ``r`` is ``(r // 6 + 1, r % 6 + 1)``.
ORDERED_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int64)
STRATA = 36
STRATIFIED_ROLLS = 2  # the first two random rolls of a trial come from the stratified table
DICE_CHUNK = 64  # later rolls drawn per trial at a time
#: No trial of a real game lasts this long (games end in a few hundred plies at most).
MAX_TRIAL_PLIES = 20_000
BLOCK_ROWS = 648  # trials (of all positions together) per lockstep block, about
#: Trials per player call at each depth: a 2-ply move choice holds ~10^5 evaluations per trial.
PLAYER_ROWS = {0: None, 1: 64, 2: 2}
DEFAULT_CUBE = "gnubg"  # gnubg's cube model, as ``eval`` shows: x by class, exact in two-sided bear-offs


@dataclass(frozen=True)
class RolloutStart:
    """A position to roll out, seen by its side on roll (seat 0), with the cube and any dice already rolled.

    ``owner`` is the seat that owns the cube (0 the side on roll, 1 its opponent) or None (centred);
    with ``cube_decided`` the side on roll has taken its cube action and rolls at once (a branch of a
    cube-decision rollout), as it does when ``dice`` are given. ``score`` is the match score seen by
    the side on roll (None: money play).
    """

    position: Position
    cube: int = 1
    owner: int | None = None
    dice: tuple[int, int] | None = None
    jacoby: bool = False
    match_id: str | None = None
    cube_decided: bool = False  # the side on roll has taken its cube action: it rolls first, no cube turn
    score: MatchScore | None = None

    @property
    def cube_state(self) -> CubeState:
        """The cube seen by the side on roll."""
        if self.owner is None:
            return CubeState.CENTERED
        return CubeState.OWNED if self.owner == 0 else CubeState.UNAVAILABLE

    def match_cube(self) -> MatchCube:
        """The side on roll's match cube (score, cube, who holds it); only at a match score."""
        assert self.score is not None
        return MatchCube(self.score, self.cube, self.cube_state)

    @classmethod
    def parse(cls, text: str) -> RolloutStart:
        """``POSITIONID[:MATCHID]`` as a rollout start; refuses a pending double, a resignation or a finished game.

        The cube value and owner, the dice, the Jacoby rule (money) and the match score come from the
        match ID, as ``eval`` reads them: a bare position ID is gnubg's default money game (a centred cube
        of 1, no dice, the Jacoby rule on).
        """
        position, match = parse_id_pair(text)
        if match is None:
            return cls(position, jacoby=MatchState().jacoby)
        label = match.id
        score = None
        if match.match_length > 0:
            me = match.on_roll
            try:
                score = MatchScore.from_scores(
                    match.match_length, match.score[me], match.score[1 - me], crawford=match.crawford
                )
            except CubeInputError as exc:
                raise NotSupported(f"match ID {label!r}: {exc}") from None
        if match.doubled:
            raise NotSupported(f"match ID {label!r}: a double is pending; roll out the take and the pass instead")
        if match.resigned or match.game_state not in (GameState.PLAYING, GameState.NONE):
            raise NotSupported(f"match ID {label!r}: the game is not being played (resigned, dropped or over)")
        owner = None if match.cube_owner is None else (0 if match.cube_owner == match.on_roll else 1)
        dice = check_dice(match.dice) if match.dice[0] else None
        start = cls(position, match.cube, owner, dice, match.jacoby and score is None, label, score=score)
        if score is not None:
            try:
                start.match_cube()
            except CubeInputError as exc:
                raise NotSupported(f"match ID {label!r}: {exc}") from None
        return start

    @property
    def text(self) -> str:
        """The ID pair this start was read from (the position ID alone without a match ID)."""
        return self.position.id + (f":{self.match_id}" if self.match_id else "")


@dataclass(frozen=True)
class RolloutConfig:
    """How to roll out: trials per position, depths, cube, truncation, seed, variance reduction, weights.

    ``plies`` is the checker-play depth and ``cube_plies`` the depth of the cube decisions (None:
    the same); from ply ``late_after`` of a trial on, both play at ``late_plies`` (a cheaper depth);
    a trial truncated after ``truncate`` plies is scored by the evaluation at ``truncate_plies``.
    """

    trials: int = 1296
    plies: int = 0
    cubeful: bool = False
    cube: str | None = None  # cube spec for both sides; None: DEFAULT_CUBE when cubeful
    truncate: int | None = None  # plies after which a trial is evaluated (at truncate_plies) and stops
    seed: int = 0
    variance_reduction: bool = True
    weights: str | None = None
    block_rows: int = BLOCK_ROWS
    cube_plies: int | None = None
    truncate_plies: int = 0
    late_after: int | None = None
    late_plies: int = 0
    met: str | None = None  # match equity table (name or gnubg .xml) at a match score; None: DEFAULT_MET
    beavers: bool = False  # money: a doubled side may beaver (redouble at once, keeping the cube)
    cubeful_luck: bool = True  # money, cube in play: the luck of the 0-ply cubeful equity (else cubeless times cube)
    luck_screen: int | None = LUCK_SCREEN  # the luck plays each roll by the best of pubeval's top N (None: all)

    def __post_init__(self) -> None:
        if isinstance(self.trials, bool) or not isinstance(self.trials, int) or self.trials < 1:
            raise InvalidSpec(f"trials {self.trials!r}: give at least 1")
        for name in ("plies", "cube_plies", "truncate_plies", "late_plies"):
            value = getattr(self, name)
            if value is not None and value not in (0, 1, 2):
                raise InvalidSpec(f"{name.replace('_', ' ')} {value!r}: give 0, 1 or 2")
        if self.truncate is not None and (not isinstance(self.truncate, int) or self.truncate < 1):
            raise InvalidSpec(f"truncate {self.truncate!r}: give at least 1 ply (or no truncation)")
        if self.late_after is not None and (not isinstance(self.late_after, int) or self.late_after < 1):
            raise InvalidSpec(f"late after {self.late_after!r}: give at least 1 ply (or none)")
        if self.cube is not None and not self.cubeful:
            raise InvalidSpec(f"cube spec {self.cube!r} needs a cubeful rollout")
        if self.cube is not None:
            parse_cube_spec(self.cube)  # InvalidSpec naming it, before any trial
        check_screen(self.luck_screen)
        if isinstance(self.block_rows, bool) or not isinstance(self.block_rows, int) or self.block_rows < 1:
            raise InvalidSpec(f"block_rows {self.block_rows!r}: give at least 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer) or self.seed < 0:
            raise InvalidSpec(f"seed {self.seed!r}: give a whole number of at least 0")

    @property
    def cube_spec(self) -> str:
        """The cube spec both sides play (``none`` cubeless)."""
        return (self.cube or DEFAULT_CUBE) if self.cubeful else "none"

    @property
    def luck_is_cubeful(self) -> bool:
        """True when a cubeful money rollout's luck is that of the 0-ply cubeful equity: someone may double."""
        return self.cubeful and self.cubeful_luck and self.cube_spec != "none"

    @property
    def player_spec(self) -> str:
        """The player spec of both sides (see :func:`players.specs.make_player`)."""
        return f"net{':' + self.weights if self.weights else ''}@{self.plies}"

    def match_table(self) -> MatchEquityTable:
        """The match equity table of match scores (raises InvalidSpec naming it)."""
        try:
            return met_by_name(self.met or DEFAULT_MET)
        except (CubeInputError, OSError) as exc:
            raise InvalidSpec(f"match equity table {self.met!r}: {exc}") from None

    @property
    def cube_depth(self) -> int:
        """The depth of the cube decisions before ``late_after``."""
        return self.plies if self.cube_plies is None else self.cube_plies

    def levels_json(self) -> dict[str, Any]:
        """The depths as ``--json`` lists them."""
        return {
            "plies": self.plies,
            "cube_plies": self.cube_depth,
            "truncate": self.truncate,
            "truncate_plies": self.truncate_plies if self.truncate is not None else None,
            "late_after": self.late_after,
            "late_plies": self.late_plies if self.late_after is not None else None,
        }

    def describe(self) -> str:
        """The depths in words, e.g. "1-ply (cube 1-ply), 0-ply from ply 3, truncated after 11 plies at 1-ply"."""
        text = f"{self.plies}-ply"
        if self.cubeful and self.cube_depth != self.plies:
            text += f" (cube {self.cube_depth}-ply)"
        if self.late_after is not None:
            text += f", {self.late_plies}-ply from ply {self.late_after}"
        if self.truncate is not None:
            text += f", truncated after {self.truncate} plies at {self.truncate_plies}-ply"
        return text

    def block_trials(self, positions: int) -> int:
        """Trial indices per block: every block holds the same trials of every position."""
        return max(1, min(self.trials, self.block_rows // max(positions, 1)))


@dataclass(frozen=True)
class Level:
    """A named rollout level (depths and truncation), in the spirit of XG's Roller levels; see :data:`LEVELS`."""

    name: str
    plies: int
    cube_plies: int
    truncate: int | None
    truncate_plies: int
    late_after: int | None
    late_plies: int
    summary: str

    def apply(self, config: RolloutConfig) -> RolloutConfig:
        """``config`` with this level's depths and truncation."""
        return replace(
            config,
            plies=self.plies,
            cube_plies=self.cube_plies,
            truncate=self.truncate,
            truncate_plies=self.truncate_plies,
            late_after=self.late_after,
            late_plies=self.late_plies,
        )


#: Named levels, cheapest first.
LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("quick", 0, 0, 7, 1, None, 0, "0-ply play and cube, truncated after 7 plies at 1-ply"),
        Level("roller", 1, 1, 11, 1, 2, 0, "1-ply for 2 plies then 0-ply, truncated after 11 plies at 1-ply"),
        Level("roller+", 2, 1, 11, 1, 2, 1, "2-ply for 2 plies then 1-ply (cube 1-ply), truncated after 11 at 1-ply"),
        Level("full", 0, 0, None, 0, None, 0, "0-ply play and cube to the end of the game, as gnubg's default"),
        Level("full1", 1, 1, None, 0, None, 0, "1-ply play and cube to the end of the game"),
    )
}


def level(name: str) -> Level:
    """The named level; raises InvalidSpec listing the names."""
    try:
        return LEVELS[name]
    except KeyError:
        raise InvalidSpec(f"rollout level {name!r} is not one of {', '.join(LEVELS)}") from None


def stratification_warning(trials: int) -> str | None:
    """A note when ``trials`` is not a multiple of 1,296, the cycle over which every pair of first two rolls comes
    once (:func:`stratified_rolls`): below it the first and the second roll are each balanced at multiples of 36,
    their pairs are not."""
    if trials % STRATA**2 == 0:
        return None
    if trials % STRATA == 0:
        return (
            f"{trials} trials is not a multiple of {STRATA**2:,}: the first roll and the second are each balanced, "
            "but not their pairs, so how much the second roll's worth depends on the first beyond what the luck "
            f"adjustment sees is a small bias outside the SE (a multiple of {STRATA**2:,} balances the pairs)"
        )
    return (
        f"{trials} trials is not a multiple of {STRATA}: the first rolls are stratified but not all equally often "
        f"(a multiple of {STRATA**2:,} balances the first two)"
    )


def stratified_rolls(trials: np.ndarray) -> np.ndarray:
    """The first two random rolls (k, 2, 2) of trials ``trials``: ordered rolls ``t`` and ``t + t // 36`` mod 36.

    Every 36 trials meet each first roll once and each second roll once (a Latin square's rows), so each roll's
    own effect averages out at any multiple of 36; every ordered pair comes once in 1,296 trials, so only there
    does their interaction average out too.
    """
    t = np.asarray(trials, np.int64)
    return np.stack([ORDERED_ROLLS[t % STRATA], ORDERED_ROLLS[(t + t // STRATA) % STRATA]], axis=1)


class TrialDice:
    """The random rolls of trials ``trials``: two stratified, then each trial's own generator ``(seed, t)``."""

    def __init__(self, seed: int, trials: np.ndarray) -> None:
        self.generators = [np.random.default_rng([seed, int(t)]) for t in trials]
        self.rolls = np.concatenate([stratified_rolls(trials), self._draw()], axis=1)

    def _draw(self) -> np.ndarray:
        return np.stack([g.integers(1, 7, size=(DICE_CHUNK, 2)) for g in self.generators]).reshape(-1, DICE_CHUNK, 2)

    def at(self, slots: np.ndarray, index: np.ndarray) -> np.ndarray:
        """Random roll number ``index`` (0 = the first) of each trial slot; draws more when a trial outgrows them."""
        while index.size and index.max() >= self.rolls.shape[1]:
            self.rolls = np.concatenate([self.rolls, self._draw()], axis=1)
        return self.rolls[slots, index]


def to_seat0(probs: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """Probabilities (k, 5) of the side in ``seat`` seen by seat 0."""
    return np.where((seat == 0)[:, None], probs, flip_probabilities(probs))


@dataclass
class TrialOutcomes:
    """Per-trial results, from the roller's view: raw outcome, summed luck, cubeful points, plies, cube actions.

    ``outcome`` (k, 5) is the game's result (0/1 each) or the 0-ply probabilities where it was
    truncated; ``luck`` (k, 5) the summed luck (zeros without variance reduction); ``cubeful``
    the points won per unit of the initial cube and ``cubeful_luck`` its luck; per-seat cube
    counters are indexed ``[trial, seat]`` (seat 0 the roller).
    """

    position: np.ndarray  # (k,) index of the trial's start
    trial: np.ndarray  # (k,) trial index t
    outcome: np.ndarray
    luck: np.ndarray
    cubeful: np.ndarray
    cubeful_luck: np.ndarray
    plies: np.ndarray
    truncated: np.ndarray
    doubles: np.ndarray
    takes: np.ndarray
    passes: np.ndarray
    too_good: np.ndarray

    @staticmethod
    def concatenate(parts: Sequence[TrialOutcomes]) -> TrialOutcomes:
        """One set of outcomes from several, in the order given."""
        names = TrialOutcomes.__dataclass_fields__
        return TrialOutcomes(**{n: np.concatenate([getattr(p, n) for p in parts]) for n in names})

    def select(self, rows: np.ndarray) -> TrialOutcomes:
        """The outcomes of ``rows`` only."""
        return TrialOutcomes(**{n: getattr(self, n)[rows] for n in TrialOutcomes.__dataclass_fields__})

    def adjusted(self) -> np.ndarray:
        """Outcomes minus luck (k, 5): the variance-reduced result of each trial."""
        return self.outcome - self.luck


class MatchScoring:
    """Match winning chances of the trials of a block at their starts' scores, from seat 0's view."""

    def __init__(self, met: MatchEquityTable, scores: list[MatchScore], pos: np.ndarray) -> None:
        self.met = met
        self.scores = scores
        self.pos = pos
        self._results: dict[tuple[int, int], float] = {}
        self._luck: dict[tuple[int, int], np.ndarray] = {}

    def result_mwc(self, rows: np.ndarray, points_seat0: np.ndarray) -> np.ndarray:
        """Seat 0's MWC after winning (or, negative, losing) ``points_seat0`` in trials ``rows``."""
        out = np.empty(len(rows))
        for j, (row, points) in enumerate(zip(rows.tolist(), points_seat0.tolist(), strict=True)):
            key = (self.pos[row], points)
            if key not in self._results:
                score = self.scores[key[0]]
                self._results[key] = game_result_mwc(self.met, score, won=max(points, 0), lost=max(-points, 0))
            out[j] = self._results[key]
        return out

    def luck_mwc(self, rows: np.ndarray, luck: np.ndarray, cube: np.ndarray) -> np.ndarray:
        """The change (k,) of seat 0's MWC of a luck ``luck`` (k, 5) with ``cube`` in play: the linear map of the
        cubeless MWC (each result's probability times the MWC it leaves), applied to a difference."""
        weights = np.empty((len(rows), 6))
        for j, (row, value) in enumerate(zip(rows.tolist(), cube.tolist(), strict=True)):
            key = (self.pos[row], value)
            if key not in self._luck:
                score = self.scores[key[0]]
                wins = [game_result_mwc(self.met, score, won=k * value) for k in (1, 2, 3)]
                losses = [game_result_mwc(self.met, score, lost=k * value) for k in (1, 2, 3)]
                self._luck[key] = np.array(wins + losses)
            weights[j] = self._luck[key]
        w, wg, wbg, lg, lbg = (luck[:, k] for k in range(5))
        results = np.stack([w - wg, wg - wbg, wbg, -w - lg, lg - lbg, lbg], axis=1)
        return (results * weights).sum(axis=1)


ProgressCallback = Callable[[np.ndarray, np.ndarray], None]  # (start index, headline equity) of finished trials


def roll_out_block(
    player: Player,
    evaluator: BoardEvaluator,
    starts: Sequence[RolloutStart],
    config: RolloutConfig,
    trials: np.ndarray,
    on_finished: ProgressCallback | None = None,
    late: Player | None = None,
    horizon: Player | None = None,
) -> TrialOutcomes:
    """Play trials ``trials`` of every start in one lockstep batch; outcomes in (start, trial) order.

    ``player`` plays both sides (``late``, when given, from ply ``config.late_after`` on);
    ``evaluator`` gives the 0-ply luck and the truncation values (at ``config.truncate_plies``),
    ``horizon`` (default ``player``) the cubeful equity of a truncated trial.
    """
    trials = np.asarray(trials, np.int64)
    n_pos, n_tri = len(starts), len(trials)
    pos = np.repeat(np.arange(n_pos), n_tri)
    slot = np.tile(np.arange(n_tri), n_pos)
    n = len(pos)
    has_dice = np.array([s.dice is not None for s in starts])[pos]
    decided = np.array([s.cube_decided or s.dice is not None for s in starts])[pos]
    given = np.array([s.dice or (1, 1) for s in starts], np.int64)[pos]
    cube0 = np.array([s.cube for s in starts], np.int64)[pos]
    jacoby = {s.jacoby for s in starts} if config.cubeful else {False}
    if len(jacoby) > 1:
        raise NotSupported("the positions of a cubeful rollout differ in the Jacoby rule (their match IDs)")
    rules = Rules(cubeful=config.cubeful, jacoby=jacoby.pop(), beavers=config.beavers and not is_match(starts))
    boards = np.stack([s.position.array for s in starts])[pos]
    scoring, match = None, None
    if is_match(starts):
        scores = [s.score for s in starts if s.score is not None]
        scoring = MatchScoring(config.match_table(), scores, pos)
        away = np.array([[sc.away, sc.opp_away] for sc in scores], np.int64)[pos]
        match = MatchScores(away, np.array([sc.crawford for sc in scores])[pos])
    g = Lockstep(
        (player, player),
        boards=boards,
        on_roll=np.zeros(n, np.int64),
        seat_of_a=np.zeros(n, np.int64),
        rules=rules,
        cube=cube0,
        owner=np.array([-1 if s.owner is None else s.owner for s in starts], np.int64)[pos],
        first_cube_ply=decided.astype(np.int64),  # dice rolled or cube action taken: no cube turn before ply 1
        play_out_passes=True,
        max_rows=PLAYER_ROWS[max(config.plies, config.cube_depth)],
        match=match,
    )
    dice = TrialDice(config.seed, trials)
    active, depth = player, config.plies
    out = TrialOutcomes(
        position=pos,
        trial=trials[slot],
        outcome=np.zeros((n, 5)),
        luck=np.zeros((n, 5)),
        cubeful=np.zeros(n),
        cubeful_luck=np.zeros(n),
        plies=np.zeros(n, np.int64),
        truncated=np.zeros(n, bool),
        doubles=g.counters["doubles"],
        takes=g.counters["takes"],
        passes=g.counters["passes"],
        too_good=g.counters["too_good"],
    )

    def finished(rows: np.ndarray) -> None:
        out.plies[rows] = g.ply[rows]
        decided = rows[~g.cube_open[rows]]
        if scoring is None:
            out.cubeful[decided] = g.points_seat0[decided] / cube0[decided]
        else:
            out.cubeful[decided] = scoring.result_mwc(decided, g.points_seat0[decided])
        if on_finished is not None and len(rows):
            headline = (
                out.cubeful[rows] - out.cubeful_luck[rows]
                if config.cubeful
                else cubeless_equity(out.outcome[rows] - out.luck[rows])
            )
            on_finished(pos[rows], headline)

    over_at_start = np.flatnonzero(~g.live)
    out.outcome[over_at_start] = game_over_probabilities(boards[over_at_start])
    finished(over_at_start)
    while g.live.any():
        if g.ply[g.live].min() >= MAX_TRIAL_PLIES:  # a backstop: positions no game can leave are refused on input
            raise NotSupported(f"a trial passed {MAX_TRIAL_PLIES} plies without ending: the position cannot end")
        # Every live trial of a block is at the same ply: the late player takes over all at once.
        switch = late is not None and config.late_after is not None and active is player
        if switch and g.ply[g.live].min() >= (config.late_after or 0):
            assert late is not None
            active, depth = late, config.late_plies
            g.players = (late, late)
            g.max_rows = PLAYER_ROWS[config.late_plies]
        if config.cubeful:
            g.cube_turn()
        rows = np.flatnonzero(g.live)
        ply = g.ply[rows]
        fixed = has_dice[rows] & (ply == 0)
        index = ply - has_dice[rows].astype(np.int64)  # random rolls come after the given dice
        rolls = dice.at(slot[rows], np.maximum(index, 0))
        rolls[fixed] = given[rows[fixed]]
        played: np.ndarray | None = None
        if config.variance_reduction:
            lucky = rows[~fixed]
            if scoring is None and config.luck_is_cubeful:
                luck, cube_luck, played = cubeful_roll_luck(
                    evaluator,
                    g.boards[lucky],
                    rolls[~fixed],
                    g.on_roll[lucky],
                    g.owner[lucky],
                    jacoby=rules.jacoby,
                    screen=config.luck_screen,
                )
            else:
                screen = config.luck_screen
                luck, played = roll_luck(evaluator, g.boards[lucky], rolls[~fixed], g.on_roll[lucky], screen)
                cube_luck = difference_equity(luck)
            out.luck[lucky] += luck
            if scoring is None:
                stake = np.where(g.cube_open[lucky], g.cube[lucky] / cube0[lucky], 0.0)
                out.cubeful_luck[lucky] += stake * cube_luck
            elif config.cubeful:
                in_play = g.cube_open[lucky]
                out.cubeful_luck[lucky] += np.where(in_play, scoring.luck_mwc(lucky, luck, g.cube[lucky]), 0.0)
        # Unscreened, the luck's 0-ply best plays are the player's.
        if played is not None and config.luck_screen is None and plays_by_luck(active, evaluator):
            kids = np.empty((len(rows), 26), np.int8)
            kids[~fixed] = played
            if fixed.any():
                kids[fixed] = active.choose_moves(g.boards[rows[fixed]], rolls[fixed])
            over = g.apply_moves(rows, rolls, kids)
        else:
            kids, over = _move_distinct(g, active, rows, rolls, PLAYER_ROWS[depth])
        ended = rows[over]
        out.outcome[ended] = to_seat0(game_over_probabilities(kids[over]), g.on_roll[ended])
        cut = np.zeros(0, np.int64)
        if config.truncate is not None:
            cut = rows[g.live[rows] & (g.ply[rows] >= config.truncate)]
            _truncate(
                g,
                out,
                evaluator,
                horizon or active,
                cut,
                cube0,
                rules,
                config.truncate_plies,
                scoring,
                doubling=config.cube_spec != "none",
            )
        finished(np.concatenate([ended, cut]))
    return out


def is_match(starts: Sequence[RolloutStart]) -> bool:
    """True when the starts are at match scores, False in money play; raises NotSupported when they mix."""
    kinds = {s.score is not None for s in starts}
    if len(kinds) > 1:
        raise NotSupported("money and match positions in one rollout: roll them out separately")
    return kinds == {True}


def plays_by_luck(player: Player, evaluator: BoardEvaluator) -> bool:
    """True when ``player`` plays the 0-ply best play of ``evaluator``, which the luck adjustment finds anyway."""
    return isinstance(player, NetPlayer) and player.plies == 0 and player.evaluator is evaluator


def _move_distinct(
    g: Lockstep, player: Player, rows: np.ndarray, rolls: np.ndarray, max_rows: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Lockstep.move` with ``player`` in both seats, asked once per distinct (board, roll) when its
    moves are repeatable (:attr:`Player.repeatable_moves`).

    The branches of a cube decision (and trials whose games meet) play the same boards with the
    same dice; the player's choice depends on nothing else, so each is chosen once. Returns the
    children (next side on roll's view) and which of them ended the game.
    """
    if not player.repeatable_moves:
        return g.move(rows, rolls)
    keys = np.ascontiguousarray(np.concatenate([g.boards[rows], rolls.astype(np.int8)], axis=1))
    void = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
    _, first, inverse = np.unique(void, return_index=True, return_inverse=True)
    boards, dice = g.boards[rows[first]], rolls[first]
    step = max_rows or max(len(first), 1)
    parts = [player.choose_moves(boards[i : i + step], dice[i : i + step]) for i in range(0, len(first), step)]
    kids = np.concatenate(parts)[inverse.ravel()] if parts else np.zeros((0, 26), np.int8)
    return kids, g.apply_moves(rows, rolls, kids)


def _truncate(
    g: Lockstep,
    out: TrialOutcomes,
    evaluator: BoardEvaluator,
    player: Player,
    rows: np.ndarray,
    cube0: np.ndarray,
    rules: Rules,
    plies: int = 0,
    scoring: MatchScoring | None = None,
    doubling: bool = True,
) -> None:
    """Stop trials ``rows`` and score them by the evaluation at ``plies`` (cubeful: ``player``'s strategy's equity;
    at a match score gnubg's cubeful MWC of those probabilities, or their cubeless MWC when the rollout's cube spec
    never doubles: ``doubling`` False)."""
    if len(rows) == 0:
        return
    seat = g.on_roll[rows]
    probs = evaluate_plies(evaluator, g.boards[rows], plies)  # the side on roll's
    out.outcome[rows] = to_seat0(probs, seat)
    out.truncated[rows] = True
    g.stop(rows)
    open_ = g.cube_open[rows]
    if rules.cubeful and open_.any() and scoring is not None:
        r = rows[open_]
        states = cube_states_for(g.owner[r], g.on_roll[r])
        match = g.match
        assert match is not None
        for j, (row, state) in enumerate(zip(r.tolist(), states.tolist(), strict=True)):
            me = int(g.on_roll[row])
            score = MatchScore(int(match.away[row, me]), int(match.away[row, 1 - me]), bool(match.crawford[row]))
            cube = MatchCube(score, int(g.cube[row]), CubeState(state))
            if doubling:
                mwc = match_cube_advice(g.boards[row], probs[open_][j], scoring.met, cube).cubeful_mwc
                assert mwc is not None
            else:  # a cube nobody turns is worth nothing: the cubeless MWC at the cube in play
                mwc = float(cubeless_mwc(probs[open_][j], scoring.met, cube))
            out.cubeful[row] = mwc if me == 0 else 1.0 - mwc
    elif rules.cubeful and open_.any():
        r = rows[open_]
        states = cube_states_for(g.owner[r], g.on_roll[r])
        equity = player.cube_equities(g.boards[r], CubeContext.money(states, rules.jacoby, rules.beavers))
        if equity is None:
            equity = cubeless_equity(probs[open_])
        sign = np.where(seat[open_] == 0, 1.0, -1.0)
        out.cubeful[r] = sign * equity * g.cube[r] / cube0[r]


# --- statistics ------------------------------------------------------------------------------


def _mean_se(values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Mean and standard error over the first axis (None with a single trial)."""
    mean = values.mean(axis=0)
    if len(values) < 2:
        return mean, None
    return mean, values.std(axis=0, ddof=1) / math.sqrt(len(values))


@dataclass(frozen=True)
class Estimate:
    """Means and standard errors over the trials, from the roller's view (cubeful ones only when cubeful)."""

    probabilities: np.ndarray  # (5,)
    standard_errors: np.ndarray | None  # (5,), None with one trial
    equity: float
    equity_se: float | None
    cubeful_equity: float | None = None
    cubeful_equity_se: float | None = None

    @classmethod
    def of(cls, outcomes: np.ndarray, cubeful: np.ndarray | None) -> Estimate:
        """The estimate of per-trial outcomes (k, 5) and cubeful points (k,) (None: cubeless)."""
        probs, ses = _mean_se(outcomes)
        eq, eq_se = _mean_se(cubeless_equity(outcomes))
        cf, cf_se = _mean_se(cubeful) if cubeful is not None else (None, None)
        return cls(
            probabilities=probs,
            standard_errors=ses,
            equity=float(eq),
            equity_se=None if eq_se is None else float(eq_se),
            cubeful_equity=None if cf is None else float(cf),
            cubeful_equity_se=None if cf_se is None else float(cf_se),
        )

    def to_json(self) -> dict[str, Any]:
        """The estimate keyed as in ``--json``."""
        d: dict[str, Any] = {
            "probabilities": _named(self.probabilities),
            "standard_errors": None if self.standard_errors is None else _named(self.standard_errors),
            "equity": _round(self.equity),
            "equity_se": _round(self.equity_se),
        }
        if self.cubeful_equity is not None:
            d["cubeful_equity"] = _round(self.cubeful_equity)
            d["cubeful_equity_se"] = _round(self.cubeful_equity_se)
        return d


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def _named(values: np.ndarray) -> dict[str, float]:
    return {name: round(float(v), 6) for name, v in zip(OUTPUTS, values, strict=True)}


@dataclass
class RolloutResult:
    """One position's rollout, from the view of its side on roll (the roller).

    ``estimate`` is luck-adjusted with variance reduction (else equal to ``raw``); ``raw`` uses
    the outcomes as played. ``outcomes`` keeps every trial.
    """

    start: RolloutStart
    config: RolloutConfig
    estimate: Estimate
    raw: Estimate
    outcomes: TrialOutcomes = field(repr=False)

    @classmethod
    def of(cls, start: RolloutStart, config: RolloutConfig, outcomes: TrialOutcomes) -> RolloutResult:
        """Summarise a position's trials."""
        order = np.argsort(outcomes.trial, kind="stable")
        o = outcomes.select(order)
        cubeful = config.cubeful
        return cls(
            start=start,
            config=config,
            estimate=Estimate.of(o.adjusted(), o.cubeful - o.cubeful_luck if cubeful else None),
            raw=Estimate.of(o.outcome, o.cubeful if cubeful else None),
            outcomes=o,
        )

    @property
    def trials(self) -> int:
        """Number of trials."""
        return len(self.outcomes.trial)

    def cube_actions(self) -> dict[str, Any]:
        """Doubles, takes, passes and too-good turns over the trials: totals and per side (roller, opponent)."""
        o = self.outcomes
        counts = {name: getattr(o, name).sum(axis=0) for name in ("doubles", "takes", "passes", "too_good")}
        out: dict[str, Any] = {name: int(c.sum()) for name, c in counts.items()}
        for seat, side in enumerate(("roller", "opponent")):
            out[side] = {name: int(c[seat]) for name, c in counts.items()}
        return out

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (the README lists the keys); every figure from the roller's view."""
        c = self.config
        d: dict[str, Any] = {
            "position_id": self.start.position.id,
            "match_id": self.start.match_id,
            "perspective": "side on roll in the given position",
            "trials": self.trials,
            **c.levels_json(),
            "seed": c.seed,
            "cubeful": c.cubeful,
            "cube": c.cube_spec if c.cubeful else None,
            "beavers": c.beavers and c.cubeful and self.start.score is None,
            "jacoby": self.start.jacoby and c.cubeful and self.start.score is None,
            "variance_reduction": c.variance_reduction,
            "luck_plies": 0 if c.variance_reduction else None,
            "luck_screen": c.luck_screen if c.variance_reduction else None,
            **self.estimate.to_json(),
            "raw": self._raw_json(),
            "mean_plies": round(float(self.outcomes.plies.mean()), 3),
            "truncated_trials": int(self.outcomes.truncated.sum()),
        }
        if c.cubeful:
            d["cube_actions"] = self.cube_actions()
        if self.start.score is not None:
            d["match"] = match_json(self.start, c)
            d.update(self._at_score(self.estimate))
        return d

    def _at_score(self, e: Estimate) -> dict[str, Any]:
        """At a match score, cubeful: ``e``'s cubeful figure (an MWC) as the normalised equity with the MWC beside it,
        keyed as ``--json`` gives them; else nothing."""
        if self.start.score is None or not self.config.cubeful or e.cubeful_equity is None:
            return {}
        mwc = Figure(e.cubeful_equity, e.cubeful_equity_se)
        equity = normalised(self.start, self.config, mwc)
        return {
            "cubeful_equity": _round(equity.value),
            "cubeful_equity_se": _round(equity.se),
            "mwc": _round(mwc.value),
            "mwc_se": _round(mwc.se),
        }

    def _raw_json(self) -> dict[str, Any]:
        """The raw estimate's JSON, its cubeful figure at a match score normalised as the headline's is."""
        return {**self.raw.to_json(), **self._at_score(self.raw)}

    def trial_values(self) -> np.ndarray:
        """Each trial's luck-adjusted headline result (k,), roller's view: cubeless equity; cubeful, points per
        initial cube (money) or the MWC (at a match score)."""
        o = self.outcomes
        return o.cubeful - o.cubeful_luck if self.config.cubeful else cubeless_equity(o.adjusted())


def match_json(start: RolloutStart, config: RolloutConfig) -> dict[str, Any]:
    """The match score of a start as ``--json`` gives it (side on roll's view)."""
    assert start.score is not None
    return {
        "away": start.score.away,
        "opp_away": start.score.opp_away,
        "crawford": start.score.crawford,
        "post_crawford": start.score.post_crawford,
        "met": (config.met or DEFAULT_MET),
    }


def normalised(start: RolloutStart, config: RolloutConfig, mwc: Figure) -> Figure:
    """An MWC (with its SE) of the side on roll as normalised equity at the start's cube (gnubg's units)."""
    met, cube = config.match_table(), start.match_cube()
    low, high = (float(mwc_to_equity(v, met, cube)) for v in (0.0, 1.0))
    scale = high - low
    return Figure(float(mwc_to_equity(mwc.value, met, cube)), None if mwc.se is None else mwc.se * scale)


# --- running: blocks, workers, progress ----------------------------------------------------------


@dataclass(frozen=True)
class RolloutPlayers:
    """The players of a rollout, one net: ``early`` before ply ``late_after``, ``late`` from it on (None: early
    throughout), ``horizon`` deciding the cube of truncated trials (None: the player then playing)."""

    early: Player
    late: Player | None
    horizon: Player | None
    evaluator: Evaluator


def build_players(config: RolloutConfig, match: bool = False) -> RolloutPlayers:
    """The players of both sides (``match``: at match scores, the cube spec a match cube strategy) and their
    0-ply evaluator; raises InvalidSpec or InvalidWeights."""
    evaluator = load_evaluator(config.weights)
    cube = parse_cube_spec(config.cube_spec, config.match_table() if match else None)

    def net(plies: int, cube_plies: int) -> Player:
        name = f"net@{plies}" + (f" [{config.cube_spec}, cube {cube_plies}-ply]" if config.cubeful else "")
        return NetPlayer(evaluator, plies, cube, name, cube_plies=cube_plies)

    late = None if config.late_after is None else net(config.late_plies, config.late_plies)
    horizon = None
    if config.truncate is not None and config.cubeful:
        horizon = net(0, config.truncate_plies)
    return RolloutPlayers(net(config.plies, config.cube_depth), late, horizon, evaluator)


def build_player(config: RolloutConfig) -> tuple[Player, Evaluator]:
    """The player of both sides (before any late depth) and its 0-ply evaluator; raises InvalidSpec, InvalidWeights."""
    players = build_players(config)
    return players.early, players.evaluator


def blocks_of(config: RolloutConfig, positions: int, first: int = 0) -> list[np.ndarray]:
    """The trial indices of each block from trial ``first`` to ``config.trials``, in order."""
    step = config.block_trials(positions)
    return [np.arange(t, min(t + step, config.trials)) for t in range(first, config.trials, step)]


_WORKER: tuple[RolloutPlayers, list[RolloutStart], RolloutConfig] | None = None


def _worker_init(starts: list[RolloutStart], config: RolloutConfig) -> None:
    """Build the players once per worker process."""
    global _WORKER
    _WORKER = (build_players(config, is_match(starts)), starts, config)


def _worker_block(trials: np.ndarray) -> TrialOutcomes:
    assert _WORKER is not None
    players, starts, config = _WORKER
    return _play_block(players, starts, config, trials)


def _play_block(
    players: RolloutPlayers,
    starts: list[RolloutStart],
    config: RolloutConfig,
    trials: np.ndarray,
    on_finished: ProgressCallback | None = None,
) -> TrialOutcomes:
    return roll_out_block(
        players.early, players.evaluator, starts, config, trials, on_finished, players.late, players.horizon
    )


class _Running:
    """Running mean and SE of each start's headline equity (finished trials so far), for the progress bar."""

    def __init__(self, positions: int, mwc: bool = False, mover_view: bool = False) -> None:
        self.mwc = mwc  # the headline is a match-winning chance (a rollout at a match score), shown in percent
        self.mover_view = mover_view  # shown for the side that moved into each start (a rollout of plays)
        self.n = np.zeros(positions)
        self.total = np.zeros(positions)
        self.squares = np.zeros(positions)

    def add(self, pos: np.ndarray, equity: np.ndarray) -> None:
        np.add.at(self.n, pos, 1)
        np.add.at(self.total, pos, equity)
        np.add.at(self.squares, pos, equity**2)

    def text(self) -> str:
        n = self.n[0]
        if n < 2:
            return ""
        mean = self.total[0] / n
        se = math.sqrt(max(self.squares[0] / n - mean**2, 0.0) * n / (n - 1) / n)
        prefix = ("first play " if self.mover_view else "first position ") if len(self.n) > 1 else ""
        if self.mwc:
            mean = 1.0 - mean if self.mover_view else mean
            return f"{prefix}MWC {100 * mean:.2f}% +- {100 * se:.2f}%"
        return f"{prefix}equity {-mean if self.mover_view else mean:+.4f} +- {se:.4f}"


#: Asked after each block with every start's results so far: True stops the rollout there.
StopCheck = Callable[[list["RolloutResult"]], bool]


@dataclass(frozen=True)
class StopRule:
    """When to stop before every trial is played: each SE below ``until_se``, each decision settled (the best
    ahead of the runner-up by ``settle`` paired SEs), or ``max_seconds`` spent; None turns a rule off."""

    until_se: float | None = None
    settle: float | None = None
    max_seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("until_se", "settle", "max_seconds"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise InvalidSpec(f"{name.replace('_', ' ')} {value!r}: give a positive number")

    def reason(self, ses: Sequence[float | None], margins: Sequence[Figure], elapsed: float) -> str | None:
        """Why to stop now, or None to go on: ``ses`` are the standard errors that count, ``margins`` each
        decision's lead of the best over the runner-up with its paired SE, ``elapsed`` the seconds spent."""
        if self.max_seconds is not None and elapsed >= self.max_seconds:
            return f"time limit of {self.max_seconds:g} s reached"
        if self.until_se is not None and ses and all(se is not None and se < self.until_se for se in ses):
            return f"every standard error below {self.until_se:g}"
        settled = [m.se is not None and abs(m.value) > self.settle * m.se for m in margins] if self.settle else []
        if settled and all(settled):
            return f"decision settled (ahead by more than {self.settle:g} paired SEs)"
        return None


class Stopper:
    """A :class:`StopRule` applied to a rollout as it runs; ``reason`` says why it stopped (None: all trials)."""

    def __init__(
        self, rule: StopRule, figures: Callable[[list[RolloutResult]], tuple[list[float | None], list[Figure]]]
    ) -> None:
        self.rule = rule
        self.figures = figures
        self.started = time.perf_counter()
        self.reason: str | None = None

    def __call__(self, results: list[RolloutResult]) -> bool:
        ses, margins = self.figures(results)
        self.reason = self.rule.reason(ses, margins, time.perf_counter() - self.started)
        return self.reason is not None


def headline_ses(results: list[RolloutResult]) -> tuple[list[float | None], list[Figure]]:
    """The standard error of each result's headline equity (cubeful when cubeful; at a match score the normalised
    equity, as the output heads it, not the MWC); no decision to settle."""
    ses: list[float | None] = []
    for r in results:
        if not r.config.cubeful:
            ses.append(r.estimate.equity_se)
        elif r.start.score is not None:
            mwc = Figure(r.estimate.cubeful_equity or 0.0, r.estimate.cubeful_equity_se)
            ses.append(normalised(r.start, r.config, mwc).se)
        else:
            ses.append(r.estimate.cubeful_equity_se)
    return ses, []


def check_match_lengths(starts: Sequence[RolloutStart], config: RolloutConfig) -> None:
    """Refuse, before any trial, a start at a score the match equity table does not reach (NotSupported naming it):
    its trials would otherwise fail at their first game's end."""
    if not is_match(starts):
        return
    met = config.match_table()
    for k, start in enumerate(starts, start=1):
        score = start.score
        assert score is not None
        if max(score.away, score.opp_away) > met.length:
            raise NotSupported(
                f"position {k}: {score.away}-away against {score.opp_away}-away is beyond match equity table "
                f"{met.name!r} ({met.length} points): give a longer table with --met"
            )


def check_one_jacoby_rule(starts: Sequence[RolloutStart], config: RolloutConfig) -> None:
    """Refuse, naming the first two that differ, cubeful starts played under different Jacoby rules (one lockstep
    batch plays one set of rules)."""
    if not config.cubeful or len({s.jacoby for s in starts}) < 2:
        return
    other = next(i for i, s in enumerate(starts) if s.jacoby != starts[0].jacoby)

    def rule(i: int) -> str:
        given = starts[i].position.id + (f":{starts[i].match_id}" if starts[i].match_id else " (no match ID)")
        return f"position {i + 1} ({given}) {'on' if starts[i].jacoby else 'off'}"

    raise NotSupported(
        f"the positions of a cubeful rollout differ in the Jacoby rule (their match IDs): {rule(0)}, {rule(other)}; "
        "give them all the same rule"
    )


def run_rollouts(
    starts: Sequence[RolloutStart],
    config: RolloutConfig,
    workers: int = 1,
    progress: bool = True,
    stop: StopCheck | None = None,
    previous: TrialOutcomes | None = None,
    mover_view: bool = False,
) -> list[RolloutResult]:
    """Roll out every start with ``config``; one result per start, in order (each from its roller's view).

    All starts share the lockstep blocks; ``workers`` processes split the blocks, and the result
    equals a single-process run. ``previous`` holds trials ``0 .. m-1`` of every start already
    played (a saved rollout): the run continues with trial ``m`` on the same dice. ``stop`` is
    asked after each block (in trial order) and ends the rollout early when it answers True.
    ``mover_view``: the progress bar shows the running figure for the side that moved into each start (the
    starts are the plays of a rollout of plays, whose table shows them so), not for its roller.
    """
    if not starts:
        raise InvalidSpec("no position to roll out")
    players = build_players(config, is_match(starts))  # a bad spec or weights file fails before any trial
    check_match_lengths(starts, config)
    check_one_jacoby_rule(starts, config)
    done = 0 if previous is None else _played_trials(previous, len(starts))
    if done > config.trials:
        raise InvalidSpec(f"trials {config.trials}: the saved rollout already holds {done} trials of each position")
    blocks = blocks_of(config, len(starts), done)
    running = _Running(len(starts), mwc=config.cubeful and is_match(starts), mover_view=mover_view)
    # Until the first trials end the bar says why nothing moves (numba compiles its kernels on a first run).
    bar = tqdm(
        total=(config.trials - done) * len(starts),
        unit="trial",
        disable=not progress,
        file=sys.stderr,
        smoothing=0.1,
        desc="first block (a first run compiles the kernels)",
    )

    first = [True]

    def on_finished(pos: np.ndarray, equity: np.ndarray) -> None:
        if first[0] and progress:
            bar.set_description_str("", refresh=False)
        first[0] = False
        running.add(pos, equity)
        bar.update(len(pos))
        bar.set_postfix_str(running.text(), refresh=False)

    def summary(parts: list[TrialOutcomes]) -> list[RolloutResult]:
        everything = TrialOutcomes.concatenate(parts)
        return [
            RolloutResult.of(start, config, everything.select(np.flatnonzero(everything.position == i)))
            for i, start in enumerate(starts)
        ]

    parts: list[TrialOutcomes] = [] if previous is None else [previous]
    try:
        for part in _played_blocks(players, list(starts), config, blocks, workers, on_finished):
            parts.append(part)
            if stop is not None and stop(summary(parts)):
                break
    except (KeyboardInterrupt, Exception) as exc:
        if not raised_by_interrupt(exc):
            raise
        if len(parts) > (previous is not None):  # a block of this run finished: its trials make a result
            partial = summary(parts)
            raise RolloutInterrupted(partial, partial[0].trials) from None
        raise KeyboardInterrupt(f"{bar.n:,} of {bar.total:,} trials finished and none kept") from None
    finally:
        bar.close()
    if not parts:
        raise InvalidSpec(f"trials {config.trials}: no trial to play")
    return summary(parts)


class RolloutInterrupted(KeyboardInterrupt):
    """A Ctrl-C after some blocks of a rollout finished: ``partial`` is the rollout of their ``trials`` trials of
    every start, as the interrupted call would have returned it had it asked for that many."""

    def __init__(self, partial: Any, trials: int) -> None:
        super().__init__(f"{trials:,} trials of each position played")  # what a caller keeps of them is its own say
        self.partial = partial
        self.trials = trials


def _played_trials(previous: TrialOutcomes, positions: int) -> int:
    """How many trials of each start ``previous`` holds (they must be trials 0 .. m-1 of every start)."""
    m = len(previous.trial) // max(positions, 1)
    expected = np.tile(np.arange(m), positions)
    order = np.lexsort((previous.trial, previous.position))
    if len(previous.trial) != m * positions or not np.array_equal(previous.trial[order], expected):
        raise InvalidSpec("the saved rollout does not hold trials 0 .. m-1 of every position")
    return m


def _played_blocks(
    players: RolloutPlayers,
    starts: list[RolloutStart],
    config: RolloutConfig,
    blocks: list[np.ndarray],
    workers: int,
    on_finished: ProgressCallback,
) -> Iterator[TrialOutcomes]:
    """Each block's outcomes in trial order: here (progress trial by trial) or in worker processes."""
    if workers <= 1 or len(blocks) <= 1:
        for trials in blocks:
            yield _play_block(players, starts, config, trials, on_finished)
        return
    with worker_pool(min(workers, len(blocks)), _worker_init, (starts, config)) as pool:
        for part in pool.imap(_worker_block, blocks):
            headline = part.cubeful - part.cubeful_luck if config.cubeful else cubeless_equity(part.outcome - part.luck)
            on_finished(part.position, headline)
            yield part


class RolloutKind(StrEnum):
    """What a rollout answers: positions' equities, cube decisions, or candidate plays of a roll."""

    POSITIONS = "positions"
    CUBE_DECISION = "cube decision"
    PLAYS = "plays"


ROLLOUT_FILE_FORMAT = "jumpgammon-rollout-1"


@dataclass(frozen=True)
class SavedRollout:
    """A rollout kept in a file to be continued on the same dice: what it rolls out, how, and every trial so far.

    ``starts`` are the ID pairs as given, ``moves`` the candidate plays (kind ``PLAYS``), ``config``
    the settings with ``trials`` the trials played; ``outcomes`` holds those trials of every
    position the run played (branches and children included), in position order. ``jacoby`` is the
    Jacoby rule each start was played with and ``net`` the digest of the net that played: a file
    saved before they were kept has None (its bare IDs were played without the Jacoby rule).
    """

    kind: RolloutKind
    starts: list[str]
    moves: list[str]
    config: RolloutConfig
    outcomes: TrialOutcomes
    jacoby: list[bool] | None = None
    net: str | None = None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the rollout to ``path`` (npz) atomically: a temporary file beside it, then renamed."""
        meta = {
            "format": ROLLOUT_FILE_FORMAT,
            "kind": str(self.kind),
            "starts": self.starts,
            "moves": self.moves,
            "config": asdict(self.config),
            "jacoby": self.jacoby,
            "net": self.net,
        }
        arrays = {name: getattr(self.outcomes, name) for name in TrialOutcomes.__dataclass_fields__}
        buffer = io.BytesIO()
        np.savez_compressed(buffer, meta=np.array(json.dumps(meta)), **arrays)
        write_atomic(path, buffer.getvalue())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SavedRollout:
        """The rollout saved in ``path``; raises InvalidSpec naming the file when it is not one."""
        try:
            if not zipfile.is_zipfile(path):  # np.load would read other files as pickles, and say so
                raise ValueError("not an .npz archive")
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                arrays = {name: data[name] for name in TrialOutcomes.__dataclass_fields__}
            if not isinstance(meta, dict) or not isinstance(meta.get("config"), dict):
                raise ValueError("its description is not a JSON object with a config")
            if meta.get("format") != ROLLOUT_FILE_FORMAT:
                raise ValueError(f"format {meta.get('format')!r}")
            _check_saved_outcomes(arrays, len(meta["starts"]))
            jacoby = meta.get("jacoby")
            if jacoby is not None and (
                not isinstance(jacoby, list)
                or len(jacoby) != len(meta["starts"])
                or not all(isinstance(rule, bool) for rule in jacoby)
            ):
                raise ValueError(f"its Jacoby rules {jacoby!r} are not one true or false a start")
            net = meta.get("net")
            if net is not None and not isinstance(net, str):
                raise ValueError(f"its net digest {net!r} is not a string")
            return cls(
                RolloutKind(meta["kind"]),
                [str(t) for t in meta["starts"]],
                [str(m) for m in meta["moves"]],
                # Saved before the cubeful luck and the luck screen: continued with the luck they had.
                RolloutConfig(**{"cubeful_luck": False, "luck_screen": None} | meta["config"]),
                TrialOutcomes(**arrays),
                jacoby,
                net,
            )
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, JumpgammonError) as exc:
            raise InvalidSpec(f"{os.fspath(path)!r} is not a saved rollout ({exc})") from None


def net_digest(config: RolloutConfig) -> str:
    """The SHA-256 digest of the net ``config`` plays (its ``weights``, else the shipped net); InvalidSpec naming an
    unreadable file."""
    return weights_identity(Path(config.weights) if config.weights else DEFAULT_WEIGHTS, "the rollout's net")


def _check_saved_outcomes(arrays: dict[str, np.ndarray], starts: int) -> None:
    """ValueError unless a saved rollout's arrays are numbers, finite, one row per trial each, its positions
    numbered from 0 up (at least one per start) and its trials whole numbers from 0."""
    rows = {name: a.shape[0] if a.ndim else -1 for name, a in arrays.items()}
    if len(set(rows.values())) != 1 or -1 in rows.values():
        raise ValueError(f"its arrays hold different numbers of trials ({rows})")
    for name, a in arrays.items():
        if a.dtype.kind not in "biuf":
            raise ValueError(f"array {name!r} holds {a.dtype}, not numbers")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise ValueError(f"array {name!r} holds a value that is not finite")
    position, trial = arrays["position"], arrays["trial"]
    if position.dtype.kind not in "iu" or trial.dtype.kind not in "iu" or position.ndim != 1 or trial.ndim != 1:
        raise ValueError("its positions and trials are not whole numbers")
    if len(position) and (trial.min() < 0 or not np.array_equal(np.unique(position), np.arange(position.max() + 1))):
        raise ValueError("its positions are not numbered from 0 without a gap, or a trial number is negative")
    if len(position) and position.max() + 1 < starts:
        raise ValueError(f"it holds trials of {position.max() + 1} positions for {starts} starts")
    outcome = arrays["outcome"]
    if outcome.dtype.kind == "f" and (outcome.min(initial=0.0) < 0.0 or outcome.max(initial=0.0) > 1.0):
        raise ValueError("its game results are not probabilities (0 to 1)")


def read_position_file(lines: Sequence[str], source: str) -> list[RolloutStart]:
    """Starts from the lines of a file (one ``POSITIONID[:MATCHID]`` a line; blank lines and ``#`` comments skipped).

    Raises the parsing error with the file and line named.
    """
    starts = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            starts.append(RolloutStart.parse(text))
        except JumpgammonError as exc:
            raise type(exc)(f"{source} line {number}: {exc}") from None
    if not starts:
        raise InvalidSpec(f"{source} holds no position ID")
    return starts
