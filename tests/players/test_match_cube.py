"""Match cube specs for players: the registry, position-class efficiency, gnubg's own match cube."""

from __future__ import annotations

import numpy as np
import pytest

from cube.match import MatchCube, MatchScore
from cube.met import published_met
from cube.states import CubeAction
from engine import Position
from engine.errors import InvalidSpec
from players.match_cube import (
    MATCH_CUBE_STRATEGIES,
    EfficiencyMatchCube,
    cube_efficiencies,
    parse_match_cube_spec,
    register_match_cube,
)


@pytest.mark.parametrize(("text", "x"), [("gnubg-match", None), ("janowski:0.7", 0.7), ("dead", 0.0), ("live", 1.0)])
def test_match_cube_specs_name_their_efficiency(text: str, x: float | None) -> None:
    spec = parse_match_cube_spec(text, published_met())
    assert isinstance(spec.strategy, EfficiencyMatchCube) and spec.strategy.x == x


@pytest.mark.parametrize("text", ["jump:0.1", "janowski:0.7,0.6", "janowski:", "janowski:2", "dead:1", "gnubg:1"])
def test_money_only_and_malformed_specs_are_refused(text: str) -> None:
    with pytest.raises(InvalidSpec, match="match cube"):
        parse_match_cube_spec(text, published_met())


def test_a_registered_strategy_is_a_spec_at_once() -> None:
    register_match_cube("test-live", "test-live", lambda arg, met: EfficiencyMatchCube(met, "test-live", 1.0))
    try:
        assert parse_match_cube_spec("test-live", published_met()).strategy is not None
    finally:
        del MATCH_CUBE_STRATEGIES["test-live"]


def test_cube_efficiency_by_position_class() -> None:
    contact = Position.initial().array
    race = np.zeros(26, np.int8)
    race[[6, 8]] = [10, 5]  # 100 pips, past the opponent's checkers
    race[22] = -15
    bearoff = np.zeros(26, np.int8)
    bearoff[[1, 2]] = [7, 8]
    bearoff[[24, 23]] = [-7, -8]
    x = cube_efficiencies(np.stack([contact, race, bearoff]))
    assert x[0] == 0.68 and x[1] == pytest.approx(0.00125 * 100 + 0.55) and x[2] == 0.6


def test_gnubg_own_match_cube_doubles_as_the_post_crawford_trailer() -> None:
    pytest.importorskip("gnubg")
    from players.specs import make_player

    player = make_player("gnubg@0", "gnubg", met=published_met())
    boards = np.repeat(Position.initial().array[None], 3, axis=0)
    cubes = [MatchCube(MatchScore(2, 1)), MatchCube(MatchScore(1, 2, crawford=True)), MatchCube(MatchScore(1, 2))]
    actions = player.match_double_actions(boards, cubes)
    assert list(actions) == [CubeAction.DOUBLE, CubeAction.NO_DOUBLE, CubeAction.NO_DOUBLE]
