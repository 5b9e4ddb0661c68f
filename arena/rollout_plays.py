"""Candidate-play rollouts: every play of a roll rolled out on the same dice, ranked, with paired differences.

The position's side on roll (the *mover*) has rolled its dice. Each candidate play leads to a
child position with the opponent on roll; the child is rolled out from the opponent's view (the
opponent may double first when cubeful) and its figures negated, so every figure is the mover's.
Trial ``t`` of every child sees the same dice (:mod:`arena.rollout`), so the difference of two
plays is taken trial by trial: its standard error (the *paired* SE) is far smaller than either
play's, and a play entered twice differs from itself by exactly zero.

Candidates come from a filter (the ``count`` best plays by the net at a chosen depth, as ``hint``
ranks them) or are named in gnubg notation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.rollout import (
    RolloutConfig,
    RolloutInterrupted,
    RolloutResult,
    RolloutStart,
    Stopper,
    StopRule,
    TrialOutcomes,
    run_rollouts,
)
from arena.stats import Figure, paired_figure
from cube.match import mwc_to_equity
from engine.errors import InvalidDice, InvalidSpec
from engine.position import Position
from nets.base import BoardEvaluator
from nets.lookahead import rank_moves
from nets.mlp import OUTPUTS, flip_probabilities

__all__ = [
    "Candidate",
    "PlayFigures",
    "PlayRollout",
    "child_start",
    "filtered_candidates",
    "named_candidates",
    "run_play_rollout",
]


@dataclass(frozen=True)
class Candidate:
    """A play of the mover's dice: its gnubg notation and the position after it (opponent on roll)."""

    move: str
    position: Position


def _dice_of(start: RolloutStart) -> tuple[int, int]:
    if start.dice is None:
        raise InvalidDice(f"{start.text}: no dice rolled: give a match ID with the dice to roll out plays")
    if start.position.is_over():
        raise InvalidSpec(f"{start.text}: the game is over, there is no play to roll out")
    return start.dice


def filtered_candidates(evaluator: BoardEvaluator, start: RolloutStart, count: int, plies: int = 0) -> list[Candidate]:
    """The ``count`` best plays of the start's dice by the net at ``plies`` (``hint``'s ranking), best first."""
    if count < 1:
        raise InvalidSpec(f"plays {count!r}: give at least 1")
    ranked = rank_moves(evaluator, start.position, _dice_of(start), plies)
    return [Candidate(str(m.move), m.position) for m in ranked[:count]]


def named_candidates(start: RolloutStart, moves: Sequence[str]) -> list[Candidate]:
    """The plays named in gnubg notation, in the order given (raises IllegalMove or InvalidMoveText naming one)."""
    if not moves:
        raise InvalidSpec("no move to roll out")
    dice = _dice_of(start)
    by_child = {child: str(move) for move, child in start.position.plays(dice)}
    out = []
    for text in moves:
        child = start.position.play(text, dice)
        out.append(Candidate(by_child.get(child, text), child))
    return out


def child_start(start: RolloutStart, candidate: Candidate) -> RolloutStart:
    """The rollout start after ``candidate``: the opponent on roll (its cube turn first), the cube seen by it."""
    owner = None if start.owner is None else 1 - start.owner
    score = None if start.score is None else start.score.flipped()
    return RolloutStart(candidate.position, start.cube, owner, None, start.jacoby, score=score)


@dataclass(frozen=True)
class PlayFigures:
    """One play's rolled-out figures for the mover: equity, difference from the best, cubeless probabilities."""

    move: str
    equity: Figure
    difference: Figure
    probabilities: np.ndarray

    def to_json(self) -> dict[str, Any]:
        """One entry of ``"plays"``: move, equity, se, difference, difference_se, probabilities."""
        rounded = _rounded
        return {
            "move": self.move,
            "equity": rounded(self.equity.value),
            "se": rounded(self.equity.se),
            "difference": rounded(self.difference.value),
            "difference_se": rounded(self.difference.se),
            "probabilities": {name: round(float(v), 6) for name, v in zip(OUTPUTS, self.probabilities, strict=True)},
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


@dataclass
class PlayRollout:
    """Candidate plays rolled out on the same dice; ``results`` are the children's, from the opponent's view."""

    start: RolloutStart
    config: RolloutConfig
    candidates: list[Candidate]
    results: list[RolloutResult]

    def per_trial(self) -> np.ndarray:
        """(plays, trials): each play's luck-adjusted result per trial for the mover (cubeful: per initial cube;
        at a match score normalised equity at the mover's cube)."""
        trials = [r.outcomes.trial for r in self.results]
        assert all(np.array_equal(t, trials[0]) for t in trials)
        values = np.stack([r.trial_values() for r in self.results])
        if self.start.score is not None and self.config.cubeful:  # the children's MWCs, the opponent's
            return np.asarray(mwc_to_equity(1.0 - values, self.config.match_table(), self.start.match_cube()))
        return -values

    @property
    def trials(self) -> int:
        """Trials per play."""
        return self.results[0].trials

    def ranked(self) -> list[PlayFigures]:
        """The plays best first, each with its equity and its paired difference from the best."""
        values = self.per_trial()
        means = values.mean(axis=1)
        best = int(np.argmax(means))
        out = []
        for i in np.argsort(-means, kind="stable"):
            difference = Figure(0.0, 0.0) if i == best else paired_figure(values[i] - values[best])
            probabilities = flip_probabilities(self.results[i].estimate.probabilities)
            out.append(PlayFigures(self.candidates[i].move, paired_figure(values[i]), difference, probabilities))
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object: the start, the settings and ``"plays"`` best first."""
        c = self.config
        dice = self.start.dice
        return {
            "position_id": self.start.position.id,
            "match_id": self.start.match_id,
            "dice": None if dice is None else list(dice),
            "perspective": "side on roll in the given position (the mover)",
            "trials": self.trials,
            **c.levels_json(),
            "seed": c.seed,
            "cubeful": c.cubeful,
            "cube": c.cube_spec if c.cubeful else None,
            "variance_reduction": c.variance_reduction,
            "plays": [p.to_json() for p in self.ranked()],
        }


def run_play_rollout(
    start: RolloutStart,
    candidates: Sequence[Candidate],
    config: RolloutConfig,
    workers: int = 1,
    progress: bool = True,
    stop: StopRule | None = None,
    previous: TrialOutcomes | None = None,
) -> tuple[PlayRollout, str | None]:
    """Roll out every candidate play of ``start`` in one run (trial ``t`` of each on the same dice); returns the
    rollout and why it stopped early (None: all ``config.trials`` played). ``previous`` continues a saved one; a
    Ctrl-C after some trials raises RolloutInterrupted holding their rollout."""
    if not candidates:
        raise InvalidSpec("no play to roll out")
    candidates = list(candidates)

    def figures(results: list[RolloutResult]) -> tuple[list[float | None], list[Figure]]:
        ranked = PlayRollout(start, config, candidates, results).ranked()
        return [p.equity.se for p in ranked], [ranked[1].difference] if len(ranked) > 1 else []

    stopper = Stopper(stop, figures) if stop is not None else None
    children = [child_start(start, c) for c in candidates]
    try:
        results = run_rollouts(
            children, config, workers=workers, progress=progress, stop=stopper, previous=previous, mover_view=True
        )
    except RolloutInterrupted as exc:  # the plays' rollout of the trials played before the Ctrl-C
        raise RolloutInterrupted(PlayRollout(start, config, candidates, exc.partial), exc.trials) from None
    return PlayRollout(start, config, candidates, results), None if stopper is None else stopper.reason
