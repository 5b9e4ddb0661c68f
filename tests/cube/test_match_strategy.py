"""Match cube strategies: batched answers agree with the one-position decisions; bad input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from cube.errors import CubeInputError
from cube.match import MatchCube, MatchCubeDecision, MatchScore, cube_decision
from cube.match_jump import MAX_MATCH_VOLATILITY, jump_cube_decision
from cube.match_strategy import GnubgMatchCube, JumpMatchCube, MatchCubeModel
from cube.met import published_met
from cube.states import CubeAction, CubeResponse, CubeState

MET = published_met("Kazaross-XG2")
NOT_A_CUBE: Any = "centered"
CUBES = [
    MatchCube(MatchScore(7, 7)),
    MatchCube(MatchScore(7, 4), 2, CubeState.OWNED),
    MatchCube(MatchScore(7, 4), 2, CubeState.UNAVAILABLE),
    MatchCube(MatchScore(3, 5)),
    MatchCube(MatchScore(1, 4, crawford=True)),
    MatchCube(MatchScore(4, 1)),
    MatchCube(MatchScore(2, 5), 2, CubeState.OWNED),
]


# both strategies satisfy the protocol (checked by mypy)
MODELS: tuple[MatchCubeModel, ...] = (GnubgMatchCube(MET), JumpMatchCube(MET), JumpMatchCube(MET, local=True))


def positions(n: int, seed: int) -> np.ndarray:
    """Consistent random probabilities: win, then gammon and backgammon shares of wins and losses."""
    rng = np.random.default_rng(seed)
    win = rng.uniform(0.05, 0.95, n)
    wg, lg = rng.uniform(0, 0.5, n), rng.uniform(0, 0.5, n)
    wbg, lbg = wg * rng.uniform(0, 0.2, n), lg * rng.uniform(0, 0.2, n)
    gammonless = rng.random(n) < 0.25
    wg, lg = np.where(gammonless, 0.0, wg), np.where(gammonless, 0.0, lg)
    wbg, lbg = np.where(gammonless, 0.0, wbg), np.where(gammonless, 0.0, lbg)
    return np.stack([win, win * wg, win * wbg, (1 - win) * lg, (1 - win) * lbg], axis=1)


def expected(d: MatchCubeDecision) -> tuple[bool, bool, bool]:
    too_good = d.available and d.action is CubeAction.TOO_GOOD
    return d.action is CubeAction.DOUBLE, d.available and d.response is CubeResponse.TAKE, too_good


@pytest.mark.parametrize(
    ("model", "single"),
    [
        (GnubgMatchCube(MET, 0.68), lambda p, c, v: cube_decision(p, MET, c, 0.68)),
        (JumpMatchCube(MET, 0.113), lambda p, c, v: jump_cube_decision(p, MET, c, 0.113)),
        (JumpMatchCube(MET, 0.09, local=True), lambda p, c, v: jump_cube_decision(p, MET, c, 0.09, v)),
    ],
)
def test_batched_answers_are_the_single_decisions(
    model: MatchCubeModel, single: Callable[[np.ndarray, MatchCube, float], MatchCubeDecision]
) -> None:
    n = 400
    probs = positions(n, 7)
    cubes = [CUBES[i % len(CUBES)] for i in range(n)]
    vol = np.random.default_rng(3).uniform(0.01, 0.25, n)
    got = model.decide(probs, cubes, vol if model.needs_volatility else None)
    want = np.array([expected(single(probs[i], cubes[i], vol[i])) for i in range(n)])
    np.testing.assert_array_equal(got.double, want[:, 0])
    np.testing.assert_array_equal(got.take, want[:, 1])
    np.testing.assert_array_equal(got.too_good, want[:, 2])  # it was dropped: jump-match counted no too-good
    assert got.double.any() and got.take.any() and got.too_good.any() and not got.double.all()


def test_one_cube_for_all_positions() -> None:
    probs = positions(50, 1)
    model = JumpMatchCube(MET)
    one = model.decide(probs, CUBES[0])
    many = model.decide(probs, [CUBES[0]] * 50)
    np.testing.assert_array_equal(one.double, many.double)
    np.testing.assert_array_equal(one.take, many.take)
    double, take = one  # unpacks as a pair
    assert double.dtype == bool and take.shape == (50,)


def test_no_double_where_the_cube_cannot_be_used() -> None:
    """Crawford game and an opponent-owned cube: never a double, never a take answer."""
    probs = positions(30, 2)
    for cube in (CUBES[2], CUBES[4]):
        acts = GnubgMatchCube(MET).decide(probs, cube)
        assert not acts.double.any() and not acts.take.any()


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: JumpMatchCube(MET).decide(positions(3, 0), CUBES[:2]), "2 match cubes for 3 positions"),
        (lambda: JumpMatchCube(MET, local=True).decide(positions(3, 0), CUBES[0]), "needs one local"),
        (lambda: JumpMatchCube(MET).decide(positions(3, 0), CUBES[0], [0.1] * 3), "constant volatility"),
        (lambda: JumpMatchCube(MET).decide(positions(2, 0), [CUBES[0], NOT_A_CUBE]), "not a MatchCube"),
        (lambda: JumpMatchCube(MET).decide(positions(1, 0)[0], CUBES[0]), "shape (n, 5)"),
        (lambda: JumpMatchCube(MET, 0.6), "outside [0, 0.5)"),
        (lambda: JumpMatchCube(MET, local=True).decide(positions(2, 0), CUBES[0], [0.1, -0.2]), "-0.2"),
        (lambda: GnubgMatchCube(MET, 1.5), "1.5"),
    ],
)
def test_bad_input_names_it(call: Callable[[], object], words: str) -> None:
    with pytest.raises(CubeInputError, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        call()


def test_large_local_volatility_is_capped_not_refused() -> None:
    """A 441-roll estimate can exceed what the approximation accepts: it is used at its largest."""
    probs = positions(40, 0)
    model = JumpMatchCube(MET, local=True)
    largest = float(np.nextafter(MAX_MATCH_VOLATILITY, 0.0))
    capped, at_cap = (model.decide(probs, CUBES[0], [v] * 40) for v in (0.8, largest))
    assert np.array_equal(capped.double, at_cap.double) and np.array_equal(capped.take, at_cap.take)
    quiet = model.decide(probs, CUBES[0], [0.001] * 40)
    assert not np.array_equal(capped.double, quiet.double)  # the volatility given matters on these positions
