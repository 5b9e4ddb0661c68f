"""The results of an analysis as dataclasses: each game's decisions and equity graph, each player's summary.

A :class:`PlayerSummary` adds up one player's decisions as gnubg's statistics do: checker play
(moves, unforced moves, marked errors, the error total and rate), cube decisions (close or
actual ones, by gnubg's classes of error), luck (marked rolls, total, luck-adjusted result) and
the overall error rate with its PR and rating band. Error totals are EMG (normalised equity,
per unit of the cube); ``_units`` totals are points in money and MWC at a match score. Rates are
mEMG (thousandths of EMG) per decision counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from analysis.evaluate import CheckerDecision, CubeDecisionAnalysis
from analysis.marks import (
    CubeError,
    LuckMark,
    LuckRating,
    Rating,
    Skill,
    luck_rating_of,
    performance_rating,
    rating_of,
)
from analysis.records import Action, MoneyRules

__all__ = [
    "CubeErrorCount",
    "FileAnalysis",
    "GameAnalysis",
    "GraphPoint",
    "LuckCounts",
    "MarkCounts",
    "MatchAnalysis",
    "PlayerSummary",
    "summarise_player",
]


@dataclass(frozen=True)
class MarkCounts:
    """Decisions marked doubtful, bad and very bad."""

    doubtful: int = 0
    bad: int = 0
    very_bad: int = 0

    @classmethod
    def of(cls, skills: Sequence[Skill]) -> MarkCounts:
        """The counts of ``skills``."""
        return cls(
            sum(s is Skill.DOUBTFUL for s in skills),
            sum(s is Skill.BAD for s in skills),
            sum(s is Skill.VERY_BAD for s in skills),
        )


@dataclass(frozen=True)
class LuckCounts:
    """Rolls marked very lucky, lucky, unlucky and very unlucky."""

    very_lucky: int = 0
    lucky: int = 0
    unlucky: int = 0
    very_unlucky: int = 0


@dataclass(frozen=True)
class CubeErrorCount:
    """How often a player made one class of cube error and what it cost (EMG, and points or MWC)."""

    kind: CubeError
    count: int
    error: float
    error_units: float


@dataclass(frozen=True)
class PlayerSummary:
    """One player's statistics over some games (module docstring); rates None where nothing was counted."""

    name: str
    moves: int
    unforced_moves: int
    checker_marks: MarkCounts
    checker_error: float
    checker_error_units: float
    cube_decisions: int
    doubles: int
    takes: int
    passes: int
    cube_errors: tuple[CubeErrorCount, ...]
    cube_marks: MarkCounts
    cube_error: float
    cube_error_units: float
    luck_marks: LuckCounts
    luck: float
    luck_units: float
    result: float
    luck_adjusted_result: float
    checker_rate: float | None
    cube_rate: float | None
    overall_rate: float | None
    pr: float | None
    checker_rating: Rating | None
    cube_rating: Rating | None
    overall_rating: Rating | None
    luck_rate: float | None = None  # mEMG of luck per move (every roll, forced moves and dances included)
    luck_rating: LuckRating | None = None  # gnubg's rating of that rate
    # The same rates in points (money) or MWC (match) per decision, as gnubg prints them in brackets.
    checker_rate_units: float | None = None
    cube_rate_units: float | None = None
    overall_rate_units: float | None = None
    luck_rate_units: float | None = None
    beavers: int = 0  # doubles answered with a beaver (money): not judged (gnubg judges its acceptance as a take)


@dataclass(frozen=True)
class GraphPoint:
    """Player 0's value after roll ``move`` of a game (0: before the first, last: the result): points or MWC."""

    move: int
    value: float


@dataclass(frozen=True)
class GameAnalysis:
    """One game: the score before it, the result, every decision judged, and player 0's value after each move."""

    number: int
    score: tuple[int, int]
    crawford: bool
    winner: int | None  # None: the record stops in the middle of the game (its points 0)
    points: int
    resigned: bool
    passed: bool
    checker: tuple[CheckerDecision, ...]
    cube: tuple[CubeDecisionAnalysis, ...]
    graph: tuple[GraphPoint, ...]


@dataclass(frozen=True)
class MatchAnalysis:
    """A match (``length`` points) or money session (``length`` 0): its games and both players' summaries."""

    title: str
    names: tuple[str, str]
    length: int
    rules: MoneyRules
    games: tuple[GameAnalysis, ...]
    players: tuple[PlayerSummary, PlayerSummary]


@dataclass(frozen=True)
class FileAnalysis:
    """Everything found in one file: its matches and, over all of them, each player's summary.

    ``plies`` is the depth of checker and cube analysis (luck is always 0 ply), ``met`` the
    match equity table used at a match score, ``seconds`` the time the analysis took, ``cube``
    the money cube model's spec (``gnubg``: gnubg's model; at a match score always gnubg's).
    """

    path: Path
    plies: int
    met: str | None
    weights: str
    matches: tuple[MatchAnalysis, ...]
    totals: tuple[PlayerSummary, PlayerSummary]
    seconds: float
    cube: str = "gnubg"


def _rate(error: float, count: int) -> float | None:
    """mEMG per decision, None without a decision."""
    return 1000.0 * error / count if count else None


def _units_rate(units: float, count: int) -> float | None:
    """Points (money) or MWC (match) per decision, None without a decision."""
    return units / count if count else None


def summarise_player(
    player: int, name: str, games: Sequence[GameAnalysis], result: float, opponent_luck_units: float
) -> PlayerSummary:
    """``player``'s statistics over ``games``; ``result`` is its points (money) or its match result (MWC)."""
    moves = [d for g in games for d in g.checker if d.player == player]
    unforced = [d for d in moves if not d.forced]
    doubling = [c for g in games for c in g.cube if c.player == player]
    # a beaver is not judged, nor counted as a cube decision (gnubg counts its acceptance as a take: docs/analysis.md)
    answered = [c for g in games for c in g.cube if c.player != player and c.doubled and c.response is not None]
    taking = [c for c in answered if c.response is not Action.BEAVER]
    counted = [c for c in doubling if c.close]
    kinds: dict[CubeError, list[tuple[float, float]]] = {}
    for c in doubling:
        if c.doubler_kind is not None:
            kinds.setdefault(c.doubler_kind, []).append((c.doubler_error, c.doubler_error_units))
    for c in taking:
        if c.taker_kind is not None:
            kinds.setdefault(c.taker_kind, []).append((c.taker_error, c.taker_error_units))
    cube_errors = tuple(
        CubeErrorCount(kind, len(kinds[kind]), sum(e for e, _ in kinds[kind]), sum(u for _, u in kinds[kind]))
        for kind in CubeError
        if kind in kinds
    )
    checker_error = sum(d.error for d in moves)
    checker_units = sum(d.error_units for d in moves)
    cube_error = sum(c.doubler_error for c in doubling) + sum(c.taker_error for c in taking)
    cube_units = sum(c.doubler_error_units for c in doubling) + sum(c.taker_error_units for c in taking)
    cube_count = len(counted) + len(taking)
    marks = [d.luck.mark for d in moves]
    luck = sum(d.luck.equity for d in moves)
    luck_units = sum(d.luck.units for d in moves)
    checker_rate = _rate(checker_error, len(unforced))
    cube_rate = _rate(cube_error, cube_count)
    overall_rate = _rate(checker_error + cube_error, len(unforced) + cube_count)
    return PlayerSummary(
        name=name,
        moves=len(moves),
        unforced_moves=len(unforced),
        checker_marks=MarkCounts.of([d.skill for d in moves]),
        checker_error=checker_error,
        checker_error_units=checker_units,
        cube_decisions=cube_count,
        doubles=sum(c.doubled for c in doubling),
        takes=sum(c.response is Action.TAKE for c in taking),
        passes=sum(c.response is Action.PASS for c in taking),
        cube_errors=cube_errors,
        cube_marks=MarkCounts.of([c.doubler_skill for c in doubling] + [c.taker_skill for c in taking]),
        cube_error=cube_error,
        cube_error_units=cube_units,
        luck_marks=LuckCounts(
            marks.count(LuckMark.VERY_LUCKY),
            marks.count(LuckMark.LUCKY),
            marks.count(LuckMark.UNLUCKY),
            marks.count(LuckMark.VERY_UNLUCKY),
        ),
        luck=luck,
        luck_units=luck_units,
        result=result,
        luck_adjusted_result=result - (luck_units - opponent_luck_units),
        checker_rate=checker_rate,
        cube_rate=cube_rate,
        overall_rate=overall_rate,
        pr=performance_rating(checker_error + cube_error, len(unforced) + cube_count),
        checker_rating=None if checker_rate is None else rating_of(checker_rate),
        cube_rating=None if cube_rate is None else rating_of(cube_rate),
        overall_rating=None if overall_rate is None else rating_of(overall_rate),
        luck_rate=_rate(luck, len(moves)),
        luck_rating=luck_rating_of(luck / len(moves)) if moves else None,
        checker_rate_units=_units_rate(checker_units, len(unforced)),
        cube_rate_units=_units_rate(cube_units, cube_count),
        overall_rate_units=_units_rate(checker_units + cube_units, len(unforced) + cube_count),
        luck_rate_units=_units_rate(luck_units, len(moves)),
        beavers=len(answered) - len(taking),
    )
