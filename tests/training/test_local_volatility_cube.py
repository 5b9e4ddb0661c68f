"""Self-play training with the cube strategies that take a local volatility: ``jump-local`` and ``jump-net``.

The training cube turn decides as the tournament player's :class:`players.cube.CubeDecider` does
(same gate, same lookahead or volatility net), batched across the lockstep games.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cube.states import CubeAction, CubeResponse
from engine.errors import InvalidSpec
from engine.match import MAX_CUBE
from nets import load_evaluator
from players.base import CubeContext
from players.cube import cube_states_for, may_end_within_two_rolls, parse_cube_spec
from players.net import NetPlayer
from tests.cli.helpers import run_cli
from tests.selfplay_boards import positions_from_games
from training.selfplay_cube import CubeGames, CubeTally, parse_training_cube


@pytest.mark.parametrize("spec", ["jump-local", "jump-net", "jump-local:0.2,janowski:0.7", "jump-net,jump-local"])
def test_training_takes_the_strategies_with_a_local_volatility(spec: str) -> None:
    assert [s.text for s in parse_training_cube(spec)] == spec.split(",")


def test_a_local_volatility_needs_the_training_net() -> None:
    with pytest.raises(InvalidSpec, match="local volatility"):
        CubeGames((parse_cube_spec("jump-local"),), None, 4)


@pytest.mark.slow  # the gate's jump solutions for a hundred positions
@pytest.mark.parametrize("spec", ["jump-local", "jump-net"])
def test_the_training_cube_turn_decides_as_the_tournament_decider(spec: str) -> None:
    """On self-play positions at mixed cube states, each game doubles, takes or passes as a NetPlayer's decider says."""
    ev = load_evaluator()
    boards = positions_from_games(8, seed=17)[::3][:96]
    n = len(boards)
    rng = np.random.default_rng(5)
    games = CubeGames((parse_cube_spec(spec),), None, n, ev)
    games.probs = ev.evaluate_boards(boards)
    games.on_roll[:] = rng.integers(0, 2, n)
    games.owner[:] = rng.choice([-1, -1, 0, 1], n)
    games.cube[:] = np.where(games.owner < 0, 1, rng.choice([2, 4, MAX_CUBE], n))
    on_roll, owner, cube = games.on_roll.copy(), games.owner.copy(), games.cube.copy()
    tally = CubeTally()
    ended = games.cube_turn(np.zeros(n, bool), tally, boards)

    decider = NetPlayer(ev, 0, parse_cube_spec(spec), "net").decider
    assert decider is not None
    may = ((owner < 0) | (owner == on_roll)) & (cube * 2 <= MAX_CUBE)
    rows = np.flatnonzero(may)
    answers = decider.decide(boards[rows], CubeContext.money(cube_states_for(owner[rows], on_roll[rows])))
    doubles = rows[answers.action == CubeAction.DOUBLE.value]
    passes = doubles[answers.response[answers.action == CubeAction.DOUBLE.value] == CubeResponse.PASS.value]
    takes = np.setdiff1d(doubles, passes)
    assert np.array_equal(np.flatnonzero(ended), passes)
    assert np.array_equal(np.flatnonzero((games.cube != cube) & ~ended), takes)  # a passed game starts afresh
    assert np.array_equal(games.cube[takes], 2 * cube[takes]) and np.array_equal(games.owner[takes], 1 - on_roll[takes])
    assert tally.doubles == [len(doubles)] and tally.takes == [len(takes)] and tally.passes == [len(passes)]
    assert tally.too_good == [int((answers.action == CubeAction.TOO_GOOD.value).sum())]
    # the take question is asked again of the doubled games (its volatilities remembered for the turn)
    decider.decide(boards[doubles], CubeContext.money(cube_states_for(owner[doubles], on_roll[doubles])))
    # the sample exercises the gate: some positions needed a local volatility, most did not
    assert 0 < tally.local_volatilities[0] == decider.lookaheads < len(rows)
    assert len(takes) and len(passes)
    # lookaheads run: the gate's (jump-local) and those where the game may end within two rolls (both)
    near_end = int(may_end_within_two_rolls(boards[rows], games.probs[rows]).sum())
    if spec == "jump-local":
        assert 0 < tally.lookaheads_run[0] <= tally.local_volatilities[0] + near_end
    else:
        assert tally.lookaheads_run[0] <= near_end


@pytest.mark.slow  # 120 games, the gate's jump solutions at every cube turn: about a minute
@pytest.mark.parametrize("spec", ["jump-net", "jump-local"])
def test_train_plays_the_cube_with_a_local_volatility(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, spec: str
) -> None:
    out = tmp_path / "run.jgw"
    common = ["--parallel", "40", "--hidden", "16", "--no-bearoff", "--checkpoint-every", "40", "--seed", "3"]
    code, stdout, err = run_cli(capsys, "train", "--out", str(out), "--games", "120", "--cube", spec, *common, "--json")
    assert code == 0, err
    report = json.loads(stdout)["cube"]
    (entry,) = report["strategies"]
    assert report["games"] >= 120 and entry["spec"] == spec
    assert report["doubles"] == report["takes"] + report["passes"] > 0
    # Every pass ends its game; whether a pass happens at all in 120 games of these tiny random nets is the
    # dice's affair (the decider test above asserts takes and passes on positions from real games).
    assert report["passes"] == report["ended_by_pass"] and report["takes"] > 0
    assert entry["local_volatilities"] > 0
    # jump-net looks ahead only where the game may end within two rolls; jump-local also where its gate is open
    assert isinstance(entry["lookaheads_run"], int) and entry["lookaheads_run"] >= 0
    if spec == "jump-local":
        assert entry["lookaheads_run"] > 0
