"""Replays: cube decisions played over one cubeless game per pair give the blocks that playing both gives."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pytest

from arena import PlayerSpec, TournamentConfig, run_tournament
from arena.games import BlockResult, Lockstep, Rules, play_block
from arena.luck import money_luck_seat0, reference_evaluator
from arena.replay import play_trajectories, replay_block
from players.specs import same_checker_play

_CACHE: dict[str, Any] = {}

# (A's cube, B's cube, rules, compare cube decisions): each case must give the same block both ways.
CASES = [
    ("jump:0.12:nonlinear", "janowski:0.7", Rules(cubeful=True), False),
    ("jump:0.1:linear", "janowski:0.6", Rules(cubeful=True, jacoby=True, beavers=True), True),
    ("live", "dead", Rules(cubeful=True, max_cube=4), True),
    ("janowski:0.9", "none", Rules(cubeful=True, beavers=True), False),
    ("janowski:0.7", "janowski:0.7", Rules(), True),
]


def _same(a: BlockResult, b: BlockResult) -> list[str]:
    """Names of the fields where two blocks differ."""
    return [
        f.name
        for f in fields(a)
        if not (
            a.records == b.records if f.name == "records" else np.array_equal(getattr(a, f.name), getattr(b, f.name))
        )
    ]


@pytest.mark.slow
@pytest.mark.parametrize(("a_cube", "b_cube", "rules", "compare"), CASES)
def test_a_replay_is_the_block_played(a_cube: str, b_cube: str, rules: Rules, compare: bool) -> None:
    def players() -> tuple[Any, Any]:
        return PlayerSpec("net@0", a_cube).build(_CACHE), PlayerSpec("net@0", b_cube).build(_CACHE)

    played = play_block(players(), 7, 40, 12, rules, True, compare)
    trajectories = play_trajectories(PlayerSpec("net@0").build(_CACHE), 7, 40, 12)
    replayed = replay_block(players(), trajectories, 7, rules, True, compare)
    assert _same(played, replayed) == []
    assert trajectories.n_pairs == 12 and trajectories.first_pair == 40
    assert (replayed.plies <= np.repeat(trajectories.plies, 2)).all()
    if rules.cubeful and a_cube != b_cube:
        assert replayed.doubles.sum() > 0  # the case exercises the cube


@pytest.mark.parametrize(("a_cube", "b_cube", "rules"), [CASES[0][:3], CASES[1][:3]])
def test_luck_judged_once_with_the_trajectories_is_the_luck_judged_in_the_block(
    a_cube: str, b_cube: str, rules: Rules
) -> None:
    def players() -> tuple[Any, Any]:
        return PlayerSpec("net@0", a_cube).build(_CACHE), PlayerSpec("net@0", b_cube).build(_CACHE)

    reference = reference_evaluator(None)
    played = play_block(players(), 5, 8, 6, rules, False, False, luck=reference)
    trajectories = play_trajectories(PlayerSpec("net@0").build(_CACHE), 5, 8, 6, luck=reference)
    replayed = replay_block(players(), trajectories, 5, rules, False, False)
    assert played.luck_seat0 is not None and replayed.luck_seat0 is not None
    assert np.abs(played.luck_seat0).sum() > 0
    np.testing.assert_allclose(replayed.luck_seat0, played.luck_seat0, atol=1e-9)
    assert np.array_equal(replayed.points_seat0, played.points_seat0)
    assert trajectories.luck_seat0 is not None
    assert (trajectories.luck_seat0[trajectories.starts + trajectories.plies] == 0).all()  # no roll from a final board
    with pytest.raises(ValueError, match="not both"):
        play_block(players(), 5, 8, 1, rules, luck=reference, judged_luck=trajectories.luck_at)
    unjudged = play_trajectories(PlayerSpec("net@0").build(_CACHE), 5, 8, 1)
    assert replay_block(players(), unjudged, 5, rules).luck_seat0 is None
    with pytest.raises(ValueError, match="without a luck evaluator"):
        unjudged.luck_at(np.zeros(1, np.int64), np.zeros(1, np.int64))


def test_a_trajectory_ends_where_its_game_ends() -> None:
    trajectories = play_trajectories(PlayerSpec("net@0").build(_CACHE), 3, 0, 4)
    last = trajectories.plies - 1
    assert trajectories.after(np.arange(4), last).shape == (4, 26)
    with pytest.raises(ValueError, match="past the end"):
        trajectories.after(np.arange(4), last + 1)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("net@0", "net@0", True),
        (" net@1", "net@1 ", True),
        ("net@0", "net@1", False),
        ("pubeval", "pubeval", False),  # no cube strategy to compare: played as before
        ("random:1", "random:1", False),
        ("net@0", "pubeval", False),
    ],
)
def test_which_players_share_their_checker_play(a: str, b: str, same: bool) -> None:
    assert same_checker_play(a, b) is same
    cfg = TournamentConfig(PlayerSpec(a), PlayerSpec(b), games=2)
    assert cfg.replays is same


@pytest.mark.slow
def test_a_tournament_gives_the_same_result_replayed_or_played() -> None:
    a, b = PlayerSpec("net@0", "jump:0.1:linear"), PlayerSpec("net@0", "janowski:0.6")
    rules = Rules(cubeful=True)
    replayed = TournamentConfig(a, b, games=24, seed=4, rules=rules, block_pairs=6)
    played = TournamentConfig(a, b, games=24, seed=4, rules=rules, block_pairs=6, replay=False)
    assert replayed.replays and not played.replays
    first, _ = run_tournament(replayed, progress=False)
    second, _ = run_tournament(played, progress=False)
    assert (first.ppg, first.se, first.a, first.b) == (second.ppg, second.se, second.a, second.b)
    assert first.a.doubles + first.b.doubles > 0


def test_a_hook_before_each_move_sees_the_games_as_the_block_plays_them() -> None:
    """A luck summed in ``before_move`` is the luck the block sums itself, and the games are unchanged."""
    rules = CASES[0][2]

    def players() -> tuple[Any, Any]:
        return PlayerSpec("net@0", CASES[0][0]).build(_CACHE), PlayerSpec("net@0", CASES[0][1]).build(_CACHE)

    reference = reference_evaluator(None)
    own = np.zeros(2 * 4)

    def sum_luck(g: Lockstep, idx: np.ndarray, rolls: np.ndarray) -> None:
        stake = np.where(g.cube_open[idx], g.cube[idx], 0)
        own[idx] += money_luck_seat0(reference, g.boards[idx], rolls, g.on_roll[idx], stake)

    played = play_block(players(), 3, 0, 4, rules, False, False, luck=reference)
    hooked = play_block(players(), 3, 0, 4, rules, False, False, before_move=sum_luck)
    assert played.luck_seat0 is not None and np.abs(own).sum() > 0
    np.testing.assert_allclose(own, played.luck_seat0, atol=1e-12)
    assert np.array_equal(hooked.points_seat0, played.points_seat0) and np.array_equal(hooked.plies, played.plies)
