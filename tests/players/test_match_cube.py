"""Match cube specs for players: the registry, position-class efficiency, gnubg's own match cube."""

from __future__ import annotations

import numpy as np
import pytest

from cube.jump_linear import STATISTICAL_SCALE
from cube.match import MatchCube, MatchScore
from cube.match_strategy import JumpMatchCube
from cube.met import published_met
from cube.states import CubeAction, CubeResponse
from cube.volatility import local_volatility
from engine import Position
from engine.batch import flip_boards
from engine.errors import InvalidSpec, JumpgammonError
from nets.cube_advice import cube_lives
from players.base import CubeContext
from players.cube import parse_cube_spec
from players.match_cube import MATCH_CUBE_STRATEGIES, EfficiencyMatchCube, ModelMatchCube, register_match_cube
from players.specs import make_player


@pytest.mark.parametrize(("text", "x"), [("gnubg-match", None), ("janowski:0.7", 0.7), ("dead", 0.0), ("live", 1.0)])
def test_match_cube_specs_name_their_efficiency(text: str, x: float | None) -> None:
    spec = parse_cube_spec(text, published_met())
    assert isinstance(spec.strategy, EfficiencyMatchCube) and spec.strategy.x == x


@pytest.mark.parametrize(
    "text",
    [
        "jump:0.1",
        "janowski:0.7,0.6",
        "janowski:",
        "janowski:2",
        "dead:1",
        "gnubg:1",
        "jump-match:abc",
        "jump-match:0.5",
        "jump-match:-0.1",
        "jump-match-local:nan",
    ],
)
def test_money_only_and_malformed_specs_are_refused(text: str) -> None:
    with pytest.raises(InvalidSpec, match="match cube"):
        parse_cube_spec(text, published_met())


def test_a_registered_strategy_is_a_spec_at_once() -> None:
    register_match_cube("test-live", "test-live", lambda arg, met: EfficiencyMatchCube(met, "test-live", 1.0))
    try:
        assert parse_cube_spec("test-live", published_met()).strategy is not None
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
    x = [life.x for life in cube_lives(np.stack([contact, race, bearoff]))]
    assert x[0] == 0.68 and x[1] == pytest.approx(0.00125 * 100 + 0.55) and x[2] == 0.6


def test_gnubg_own_match_cube_doubles_as_the_post_crawford_trailer() -> None:
    pytest.importorskip("gnubg")
    player = make_player("gnubg@0", "gnubg", met=published_met())
    boards = np.repeat(Position.initial().array[None], 3, axis=0)
    cubes = [MatchCube(MatchScore(2, 1)), MatchCube(MatchScore(1, 2, crawford=True)), MatchCube(MatchScore(1, 2))]
    actions = player.double_actions(boards, CubeContext.match(cubes))
    assert list(actions) == [CubeAction.DOUBLE, CubeAction.NO_DOUBLE, CubeAction.NO_DOUBLE]


@pytest.mark.parametrize(
    ("text", "alpha", "local"),
    [("jump-match", 0.113, False), ("jump-match:0.09", 0.09, False), ("jump-match-local", 0.113, True)],
)
def test_jump_match_specs(text: str, alpha: float, local: bool) -> None:
    spec = parse_cube_spec(text, published_met())
    strategy = spec.strategy
    assert isinstance(strategy, ModelMatchCube) and strategy.needs_lookahead == local
    assert strategy.model.alpha == alpha  # type: ignore[attr-defined]


def test_the_jump_match_player_decides_as_the_model_with_the_lookahead_volatility() -> None:
    met = published_met()
    rng = np.random.default_rng(3)
    lookahead_p = rng.uniform(0.2, 0.8, size=(6, 441))
    outcomes = np.zeros((6, 441, 5))
    outcomes[:, :, 0] = lookahead_p
    probs = np.array([[p, 0.2 * p, 0.0, 0.15 * (1 - p), 0.0] for p in (0.55, 0.68, 0.72, 0.8, 0.85, 0.9)])
    cubes = [MatchCube(MatchScore(5, 5))] * 3 + [MatchCube(MatchScore(3, 6))] * 3
    strategy = parse_cube_spec("jump-match-local:0.1", met).strategy
    assert isinstance(strategy, ModelMatchCube)
    action, response = strategy.decide(probs, cubes, np.zeros((6, 26), np.int8), lambda b: outcomes)
    volatility = STATISTICAL_SCALE * local_volatility(lookahead_p, measure="mean_abs")
    double, take = JumpMatchCube(met, 0.1, local=True).decide(probs, cubes, volatility)
    assert np.array_equal(action == CubeAction.DOUBLE, double) and np.array_equal(response == "take", take)


def test_a_net_with_the_gnubg_match_spec_uses_the_effective_cube_life_of_bearoffs() -> None:
    """A last roll at 4-away 2-away: gnubg's effective x is 0 there (nothing left to double), so the side on
    roll doubles and the opponent takes, where the class cap 0.6 would say no double (the old answer)."""
    player = make_player("net@0", "gnubg", met=published_met())
    board = Position.from_id("AwAAMAAAAAAAAA").array[None]
    cube = MatchCube(MatchScore(4, 2))
    assert list(player.double_actions(board, CubeContext.match([cube]))) == [CubeAction.DOUBLE]
    assert list(player.double_responses(flip_boards(board), CubeContext.match([cube]))) == [CubeResponse.TAKE]


def test_a_strategy_answers_only_questions_of_its_kind() -> None:
    """Money is the match of unlimited length: one question type, but a strategy decides only for its own kind."""
    board = Position.initial().array[None]
    at_score = CubeContext.match([MatchCube(MatchScore(3, 3))])
    money = CubeContext.money(["centered"])
    with pytest.raises(JumpgammonError, match="money cube strategy"):
        make_player("net@0", "janowski:0.7").double_actions(board, at_score)
    with pytest.raises(JumpgammonError, match="match cube strategy"):
        make_player("net@0", "janowski:0.7", met=published_met()).double_actions(board, money)
    both = CubeContext.match([MatchCube(MatchScore(3, 3)), MatchCube(MatchScore(2, 4))])
    picked = both.rows(np.array([False, True]))
    assert picked.cubes == (MatchCube(MatchScore(2, 4)),) and list(picked.states) == ["centered"]


def test_jump_match_local_takes_the_exact_decision_on_a_last_roll() -> None:
    """2-away against 4-away on a last roll (26 of 36 win): the game ends on this roll, so double/take wins the match
    or leaves 2-away all (86.1% to the doubler) against a pass's 81.4%: double, pass. The jump models alone took."""
    player = make_player("net@0", "jump-match-local", met=published_met())
    board = Position.from_id("AwAAMAAAAAAAAA").array[None]
    cube = MatchCube(MatchScore(2, 4))
    assert list(player.double_actions(board, CubeContext.match([cube]))) == [CubeAction.DOUBLE]
    assert list(player.double_responses(flip_boards(board), CubeContext.match([cube]))) == [CubeResponse.PASS]
