"""The jump-net cube spec: parsing, its volatility source behind jump-local's gate, and the player it builds."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from cube.states import CubeState
from cube.volatility import DEFAULT_REMOTE_ALPHA
from engine.errors import InvalidSpec, InvalidWeights
from nets.evaluator import load_evaluator
from nets.volnet import DEFAULT_VOLNET
from players import make_player, parse_cube_spec
from players.base import CubeContext
from players.cube import CubeDecider
from players.net import NetPlayer
from tests.nets.test_volnet import game_boards, random_volnet

SPEC_CASES = [
    # (spec, remote alpha, volatility net file)
    ("jump-net", DEFAULT_REMOTE_ALPHA, DEFAULT_VOLNET),
    ("jump-net:0.15", 0.15, DEFAULT_VOLNET),
    ("jump-net:0.2:runs/v.jgw", 0.2, Path("runs/v.jgw")),
    ("jump-net::runs/v.jgw", DEFAULT_REMOTE_ALPHA, Path("runs/v.jgw")),
    ("jump-net:0.1:C:/v.jgw", 0.1, Path("C:/v.jgw")),  # everything after the second colon is the file
]


@pytest.mark.parametrize(("text", "alpha", "file"), SPEC_CASES)
def test_jump_net_specs(text: str, alpha: float, file: Path) -> None:
    spec = parse_cube_spec(text)
    assert spec.strategy is not None and spec.strategy.needs_local_volatility
    assert spec.strategy.name == f"jump_local({alpha:g}, numerical)"
    assert spec.volatility_net == file


def test_jump_local_names_no_volatility_net() -> None:
    assert parse_cube_spec("jump-local").volatility_net is None


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("jump-net:0.7", "not in [0.001, 0.49]"),
        ("jump-net:abc", "not a number"),
        ("jump-net:0.1:", "file name is empty"),
        ("jump-nets", "is not one of"),
    ],
)
def test_bad_jump_net_specs_name_themselves(text: str, needle: str) -> None:
    with pytest.raises(InvalidSpec, match=re.escape(needle)) as info:
        parse_cube_spec(text)
    assert repr(text) in str(info.value)


# Volatilities on the gate's ladder: there a settled position's decision is the strategy's at that
# volatility by construction. (Between rungs it can differ in rare positions: the no-double equity
# is not monotone in the volatility near the "too good" boundary, e.g. double/pass at 0.001 and
# 0.05, too good at 0.0015-0.02, with equities within 0.002 of the cash.)
@pytest.mark.slow
@pytest.mark.parametrize("alpha", [0.05, 0.12, 0.25])
def test_a_volatility_source_behind_the_gate_decides_as_the_strategy_does(alpha: float) -> None:
    ev = load_evaluator()
    boards = game_boards(4, 40)
    strategy = parse_cube_spec("jump-net").strategy
    assert strategy is not None
    asked: list[int] = []

    def constant(b: np.ndarray) -> np.ndarray:
        asked.append(len(b))
        return np.full(len(b), alpha)

    decider = CubeDecider(strategy, ev.evaluate_boards, local_volatility=constant)
    for state in (CubeState.CENTERED, CubeState.OWNED):
        states = np.full(len(boards), state)
        full = strategy.decide(ev.evaluate_boards(boards), states, local_alpha=alpha)
        gated = decider.decide(boards, CubeContext.money(states))
        assert np.array_equal(gated.action, full.action) and np.array_equal(gated.response, full.response)
    assert decider.lookaheads == sum(asked) < 2 * len(boards)


@pytest.mark.slow
def test_a_jump_net_player_takes_its_volatility_from_the_net(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "v.jgw"
    random_volnet(6, (8,), 0.3, -2.0).save(path)
    player = make_player("net@0", f"jump-net:0.1:{path}")
    assert isinstance(player, NetPlayer) and player.decider is not None

    def no_lookahead(boards: np.ndarray) -> np.ndarray:
        raise AssertionError("jump-net ran a lookahead")

    monkeypatch.setattr(player.decider, "lookahead", no_lookahead)
    boards = game_boards(4, 40)
    player.double_actions(boards, CubeContext.money(np.full(len(boards), CubeState.CENTERED)))
    assert player.decider.lookaheads > 0  # the gate asked the net for some positions


def test_a_missing_volatility_net_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidWeights, match="absent.jgw"):
        make_player("net@0", f"jump-net:0.1:{tmp_path / 'absent.jgw'}")
