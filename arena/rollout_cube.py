"""Cube-decision rollouts: no double and double/take played out on the same dice, double/pass the cash.

Every figure is from the view of the side on roll in the given position (the *doubler*), in
points per unit of the initial cube (money). Each trial plays two *branches* with the same dice
(trial ``t`` of every position of a rollout sees the same dice, :mod:`arena.rollout`):

* **no double** (ND): the cube as it is; the doubler rolls at once;
* **double/take** (DT): the cube doubled and owned by the taker; the doubler rolls at once.

Double/pass (DP) is the cash: +1 initial cube. The checkers play the same moves in both branches
(the players choose moves by cubeless equity), so the branches differ only in their cube games:
the later cube actions inside each branch come from the rollout's cube spec. Variance reduction
works in each branch's own cubeful value (the luck of a roll times the cube then in play), so
each branch's estimate is unbiased on its own; the decision's margin is taken trial by trial
(the *paired* difference of the two branches on the same dice), whose standard error is far
smaller than either branch's.

The proper action is gnubg's (:func:`cube.actions.decide`), named in gnubg's words
(:class:`cube.actions.ProperAction`). The cube is not available (an error naming the position)
when the opponent owns it, the dice are already rolled, the game is over or the cube is at its
largest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
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
from cube.actions import ProperAction, ProperDecision, decide, proper_action
from cube.match import game_result_mwc, mwc_to_equity
from cube.states import CubeState
from engine.errors import InvalidSpec, NotSupported
from engine.match import MAX_CUBE

__all__ = ["CubeDecisionRollout", "branch_starts", "cube_branches", "pair_up", "run_cube_decisions", "stop_figures"]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def cube_branches(start: RolloutStart) -> tuple[RolloutStart, RolloutStart]:
    """The no-double and double/take branches of ``start`` (the doubler rolls first in both).

    Raises NotSupported ("cube not available", naming the position) when the side on roll cannot double.
    """
    problem = None
    score = start.score
    if start.position.is_over():
        problem = "the game is over"
    elif start.dice is not None:
        problem = f"the dice are already rolled ({start.dice[0]}-{start.dice[1]}): the cube comes before the roll"
    elif start.owner == 1:
        problem = "the opponent owns the cube"
    elif 2 * start.cube > MAX_CUBE:
        problem = f"the cube is at its largest ({start.cube})"
    elif score is not None and score.crawford:
        problem = "the Crawford game: no one may double"
    elif score is not None and score.away <= start.cube:
        problem = f"{score.away}-away, the cube of {start.cube} already wins the match (a dead cube)"
    if problem is not None:
        raise NotSupported(f"{start.text}: cube not available: {problem}")
    no_double = replace(start, cube_decided=True)
    double_take = replace(start, cube=2 * start.cube, owner=1, cube_decided=True)
    return no_double, double_take


@dataclass
class CubeDecisionRollout:
    """A cube decision rolled out: both branches' results and the decision, from the doubler's view.

    ``no_double`` and ``double_take`` hold every trial (in trial order, the same trials); the
    branch figures are luck-adjusted with variance reduction, in points per initial cube.
    """

    start: RolloutStart
    config: RolloutConfig
    no_double: RolloutResult
    double_take: RolloutResult
    beavers: bool = False

    def per_trial(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-trial (ND, DT) cubeful results (k,), luck-adjusted, per initial cube (at a match score normalised
        equity at the initial cube); trial ``i`` of both alike."""
        assert np.array_equal(self.no_double.outcomes.trial, self.double_take.outcomes.trial)
        nd, dt = self.no_double.trial_values(), self.double_take.trial_values()
        if self.start.score is None:
            return nd, 2.0 * dt
        met, cube = self.config.match_table(), self.start.match_cube()
        return mwc_to_equity(nd, met, cube), mwc_to_equity(dt, met, cube)

    def mwc_figures(self) -> tuple[Figure, Figure, float] | None:
        """(ND, DT, DP) as MWC at a match score, with the branches' SEs; None in money play."""
        if self.start.score is None:
            return None
        nd, dt = self.no_double.trial_values(), self.double_take.trial_values()
        cash = game_result_mwc(self.config.match_table(), self.start.score, won=self.start.cube)
        return paired_figure(nd), paired_figure(dt), cash

    @property
    def trials(self) -> int:
        """Trials per branch."""
        return self.no_double.trials

    @property
    def figures(self) -> tuple[Figure, Figure, float]:
        """(ND, DT, DP): the two branches' means with standard errors and the cash (+1)."""
        nd, dt = self.per_trial()
        return paired_figure(nd), paired_figure(dt), 1.0  # the cash: one initial cube (normalised: +1)

    @property
    def decision(self) -> ProperDecision:
        """gnubg's decision on the rolled-out ND, DT and DP (gammons: the rollout saw any)."""
        nd, dt, dp = self.figures
        gammons = bool(self.no_double.raw.probabilities[1] > 0.0)
        return decide(nd.value, dt.value, dp, gammons=gammons, beavers=self.beavers)

    @property
    def action(self) -> ProperAction:
        """The proper action in gnubg's words."""
        d = self.decision
        state = CubeState.CENTERED if self.start.owner is None else CubeState.OWNED
        return proper_action(d.action, d.response, state, optional=d.optional)

    @property
    def margin(self) -> Figure:
        """min(DT, DP) minus ND (positive: doubling is right), with its paired standard error.

        Where the taker would take, the SE is that of the per-trial differences DT - ND; where
        it would pass, DP is exact and the SE is ND's.
        """
        nd, dt = self.per_trial()
        nd_figure, dt_figure, dp = self.figures
        if dt_figure.value < dp:
            return paired_figure(dt - nd)
        return Figure(dp - nd_figure.value, nd_figure.se)

    @property
    def take_margin(self) -> Figure:
        """DP minus DT from the doubler's view (positive: the taker should take), with DT's SE."""
        _, dt, dp = self.figures
        return Figure(dp - dt.value, dt.se)

    def to_json(self) -> dict[str, Any]:
        """The ``cube_decision`` object of ``--json`` (doubler's view; points per initial cube in money,
        normalised equity at the initial cube with the MWC beside it at a match score)."""
        nd, dt, dp = self.figures
        margin, take = self.margin, self.take_margin
        mwcs = self.mwc_figures()
        nd_json, dt_json = nd.to_json(), dt.to_json()
        if mwcs is not None:
            nd_json.update(mwc=round(mwcs[0].value, 6), mwc_se=_round(mwcs[0].se))
            dt_json.update(mwc=round(mwcs[1].value, 6), mwc_se=_round(mwcs[1].se))
        return {
            "no_double": nd_json,
            "double_take": dt_json,
            "double_pass": dp,
            "double_pass_mwc": None if mwcs is None else round(mwcs[2], 6),
            "action": str(self.action),
            "margin": round(margin.value, 6),
            "margin_se": None if margin.se is None else round(margin.se, 6),
            "take_margin": round(take.value, 6),
            "take_margin_se": None if take.se is None else round(take.se, 6),
            "units": "points per initial cube" if mwcs is None else "normalised equity at the initial cube",
        }


def pair_up(
    starts: Sequence[RolloutStart], config: RolloutConfig, results: list[RolloutResult]
) -> list[CubeDecisionRollout]:
    """The cube decisions of ``starts`` from the results of their branches (ND, DT of each start in turn)."""
    return [
        CubeDecisionRollout(start, config, results[2 * i], results[2 * i + 1], config.beavers and start.score is None)
        for i, start in enumerate(starts)
    ]


def stop_figures(
    starts: Sequence[RolloutStart], config: RolloutConfig
) -> Callable[[list[RolloutResult]], tuple[list[float | None], list[Figure]]]:
    """What a :class:`StopRule` watches: the SEs of ND and DT, and both margins of every decision."""

    def figures(results: list[RolloutResult]) -> tuple[list[float | None], list[Figure]]:
        decisions = pair_up(starts, config, results)
        ses = [f.se for d in decisions for f in d.figures[:2]]
        return ses, [m for d in decisions for m in (d.margin, d.take_margin)]

    return figures


def run_cube_decisions(
    starts: Sequence[RolloutStart],
    config: RolloutConfig,
    workers: int = 1,
    progress: bool = True,
    stop: StopRule | None = None,
    previous: TrialOutcomes | None = None,
) -> tuple[list[CubeDecisionRollout], str | None]:
    """Roll out the cube decision of every start (both branches of all in one run, the same dice throughout);
    returns the decisions and why the rollout stopped early (None: all ``config.trials`` played). A Ctrl-C after
    some trials raises RolloutInterrupted holding their decisions.

    Needs a cubeful config; raises NotSupported naming a start whose side on roll cannot double.
    ``previous`` continues a saved rollout of the same branches (:func:`branch_starts`).
    """
    if not config.cubeful:
        raise InvalidSpec("a cube-decision rollout is cubeful: give a cubeful config")
    stopper = Stopper(stop, stop_figures(starts, config)) if stop is not None else None
    try:
        results = run_rollouts(
            branch_starts(starts), config, workers=workers, progress=progress, stop=stopper, previous=previous
        )
    except RolloutInterrupted as exc:  # the decisions of the trials played before the Ctrl-C
        raise RolloutInterrupted(pair_up(starts, config, exc.partial), exc.trials) from None
    return pair_up(starts, config, results), None if stopper is None else stopper.reason


def branch_starts(starts: Sequence[RolloutStart]) -> list[RolloutStart]:
    """The branches rolled out for ``starts``: no double and double/take of each in turn."""
    return [b for s in starts for b in cube_branches(s)]
