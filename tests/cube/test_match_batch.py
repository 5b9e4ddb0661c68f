"""Batched match cube decisions: the same as gnubg's one-position rule, position by position."""

from __future__ import annotations

import numpy as np

from cube.match import MatchCube, MatchScore, cube_actions, cube_decision
from cube.met import published_met
from cube.states import CubeState


def random_probabilities(rng: np.random.Generator, n: int) -> np.ndarray:
    """Consistent cumulative probabilities (win, wg, wbg, lg, lbg) of the side on roll."""
    win = rng.uniform(0.02, 0.98, n)
    wg = win * rng.uniform(0, 0.5, n)
    wbg = wg * rng.uniform(0, 0.2, n)
    lg = (1 - win) * rng.uniform(0, 0.5, n)
    lbg = lg * rng.uniform(0, 0.2, n)
    return np.stack([win, wg, wbg, lg, lbg], axis=1)


CUBES = [
    MatchCube(MatchScore(7, 7)),
    MatchCube(MatchScore(5, 3)),
    MatchCube(MatchScore(2, 1)),  # post-Crawford trailer
    MatchCube(MatchScore(1, 4, crawford=True)),  # Crawford: no double
    MatchCube(MatchScore(1, 2)),  # the leader post-Crawford: the cube already wins it the match
    MatchCube(MatchScore(6, 4), 2, CubeState.OWNED),
    MatchCube(MatchScore(6, 4), 2, CubeState.UNAVAILABLE),
    MatchCube(MatchScore(9, 11), 4, CubeState.OWNED),
    MatchCube(MatchScore(3, 3), 2, CubeState.OWNED),  # 2-cube at 3-away: a double would kill the cube
]


def test_batched_decisions_equal_the_one_position_rule() -> None:
    rng = np.random.default_rng(11)
    met = published_met()
    probs = random_probabilities(rng, 400)
    cubes = [CUBES[k % len(CUBES)] for k in range(len(probs))]
    x = rng.uniform(0.5, 0.8, len(probs))
    actions, responses = cube_actions(probs, met, cubes, x)
    seen = set()
    for i, cube in enumerate(cubes):
        one = cube_decision(probs[i], met, cube, float(x[i]))
        assert actions[i] == one.action
        assert responses[i] == (one.response if one.response is not None else "take")
        seen.add((str(one.action), str(one.response)))
    assert len(seen) >= 4  # no double, double/take, double/pass, too good all occur
