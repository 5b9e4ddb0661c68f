"""Cube turns of cubeful self-play: spec parsing, doubles, takes and passes, scoring, and the log's statistics.

Decisions are checked with the dead cube (Janowski x = 0) on gammonless probabilities, whose
theory is simple: the side on roll doubles from 50% wins, the opponent takes up to 75%.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.errors import InvalidSpec
from engine.game import result_multipliers
from engine.match import MAX_CUBE
from engine.position import Position
from players.cube import parse_cube_spec
from training.selfplay_cube import CubeGames, CubeTally, parse_training_cube


@pytest.mark.parametrize(
    ("text", "specs"),
    [
        ("janowski:0.7", ["janowski:0.7"]),
        ("janowski:0.7,jump:0.10:linear", ["janowski:0.7", "jump:0.10:linear"]),
        ("janowski:0.6,0.8", ["janowski:0.6,0.8"]),
        ("janowski:0.6, 0.8,jump:0.1", ["janowski:0.6,0.8", "jump:0.1"]),
        ("dead,janowski:0.6,0.8", ["dead", "janowski:0.6,0.8"]),
        ("none", []),
        ("none,dead", ["none", "dead"]),
    ],
)
def test_training_cube_specs_split_on_commas_but_keep_janowski_pairs(text: str, specs: list[str]) -> None:
    assert [s.text for s in parse_training_cube(text)] == specs


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("gnubg", "gnubg"),
        ("dead,live,dead", "one or two"),
        ("bogus", "bogus"),
        ("janowski:2", "janowski:2"),
        ("", "''"),
    ],
)
def test_training_refuses_cube_specs_it_cannot_play(text: str, needle: str) -> None:
    with pytest.raises(InvalidSpec, match=needle):
        parse_training_cube(text)


def _probs(wins: list[float]) -> np.ndarray:
    """Gammonless probabilities (win, win g, win bg, lose g, lose bg) with the given win chances."""
    out = np.zeros((len(wins), 5))
    out[:, 0] = wins
    return out


def _games(specs: str, n: int) -> CubeGames:
    return CubeGames(tuple(parse_cube_spec(s) for s in specs.split(";")), None, n)


def _boards(n: int) -> np.ndarray:
    """``n`` starting boards: where the cube turns of these tests are (their probabilities are set by hand)."""
    return np.repeat(Position.initial().array[None], n, axis=0)


# (side on roll's win chance, cube owner relative to the side on roll, at the opening) -> doubled, passed
DEAD_CUBE_CASES = [
    (0.40, "centred", False, False, False),  # below the doubling point
    (0.60, "centred", False, True, False),  # in the window: double, take
    (0.74, "centred", False, True, False),
    (0.80, "centred", False, True, True),  # past the take point: double, pass
    (0.99, "centred", False, True, True),
    (0.99, "centred", True, False, False),  # no double before the opening roll is played
    (0.80, "own", False, True, True),  # redouble from the cube it owns
    (0.80, "theirs", False, False, False),  # the opponent owns the cube
]


@pytest.mark.parametrize(("win", "owner", "opening", "doubled", "passed"), DEAD_CUBE_CASES)
def test_dead_cube_turn_doubles_takes_and_passes_by_the_theory(
    win: float, owner: str, opening: bool, doubled: bool, passed: bool
) -> None:
    games = _games("dead", 2)
    games.probs = _probs([win, win])
    games.cube[:] = 2 if owner != "centred" else 1
    on_roll = games.on_roll.copy()  # slot 0: seat 0 on roll, slot 1: seat 1
    owners: dict[str, np.ndarray] = {"centred": np.full(2, -1), "own": on_roll, "theirs": 1 - on_roll}
    games.owner[:] = owners[owner]
    tally = CubeTally()
    cube_before = games.cube.copy()
    ended = games.cube_turn(np.full(2, opening), tally, _boards(2))
    assert ended.tolist() == [passed, passed]
    assert tally.doubles == [2 * doubled] and tally.passes == [2 * passed]
    assert tally.takes == [2 * (doubled and not passed)]
    if passed:
        # the doubler wins the cube it offered; the slot starts a new game, opened by the other seat
        assert tally.points_a == int(cube_before[0] - cube_before[1]) and tally.games == tally.games_passed == 2
        assert games.cube.tolist() == [1, 1] and games.owner.tolist() == [-1, -1]
        assert games.on_roll.tolist() == [1 - s for s in on_roll]
    elif doubled:
        assert games.cube.tolist() == (2 * cube_before).tolist() and games.owner.tolist() == (1 - on_roll).tolist()
        assert tally.games == 0
    else:
        assert games.cube.tolist() == cube_before.tolist() and tally.games == 0


def test_a_pass_scores_the_offered_cube_to_the_doubler() -> None:
    games = _games("dead", 2)
    games.probs = _probs([0.9, 0.9])
    games.on_roll[:] = games.opener[:] = 1  # seat 1 (B) doubles in both slots, and seat 0 passes
    games.cube[:] = [1, 2]
    games.owner[:] = [-1, 1]
    tally = CubeTally()
    assert games.cube_turn(np.zeros(2, bool), tally, _boards(2)).all()
    assert tally.passes == [2] and tally.points_a == -3  # B wins the 1 and the 2 it offered: -3 for A


def test_no_double_past_the_largest_cube() -> None:
    games = _games("dead", 1)
    games.probs = _probs([0.99])
    games.cube[:] = MAX_CUBE
    games.owner[:] = games.on_roll
    tally = CubeTally()
    assert not games.cube_turn(np.zeros(1, bool), tally, _boards(1)).any() and tally.doubles == [0]


def test_each_seat_answers_with_its_own_strategy() -> None:
    """Seat 0 never doubles and always takes (none); seat 1 plays the dead cube."""
    games = _games("none;dead", 4)
    games.probs = _probs([0.8, 0.8, 0.9, 0.9])
    games.on_roll[:] = [0, 1, 0, 1]
    tally = CubeTally(strategies=2)
    ended = games.cube_turn(np.zeros(4, bool), tally, _boards(4))
    # seat 0 on roll: no double; seat 1 on roll doubles and seat 0 ("none") takes even at 80-90%
    assert not ended.any() and tally.doubles == [0, 2] and tally.takes == [2, 0] and tally.passes == [0, 0]
    assert games.cube.tolist() == [1, 2, 1, 2] and games.owner.tolist() == [-1, 0, -1, 0]


def test_finished_games_score_the_cube_times_the_result_for_the_seat_that_moved() -> None:
    games = _games("dead", 2)
    games.cube[:] = [2, 4]
    games.owner[:] = [1, 0]
    games.on_roll[:] = games.opener[:] = 0  # seat 0 moves, and wins, in both slots: a score of one sign
    on_roll = games.on_roll.copy()
    lost_gammon = np.zeros(26, np.int8)
    lost_gammon[6] = 15  # seen by the loser, who has borne off nothing: a gammon
    lost_single = np.zeros(26, np.int8)
    lost_single[1] = 1
    children = np.stack([lost_gammon, lost_single])
    assert result_multipliers(children).tolist() == [2, 1]
    tally = CubeTally()
    games.moved(_probs([0.0, 0.0]), children, np.array([True, True]), tally)
    assert tally.points_a == 8  # 2 x gammon and 4 x single, both to seat 0 (A)
    assert tally.points_a_squared == 32 and tally.final_cube_sum == 6
    assert games.cube.tolist() == [1, 1] and games.on_roll.tolist() == [1 - s for s in on_roll]


def test_a_game_that_goes_on_passes_the_roll_and_keeps_the_probabilities_of_the_chosen_child() -> None:
    games = _games("dead", 3)
    on_roll = games.on_roll.copy()
    chosen = _probs([0.1, 0.2, 0.3])
    boards = np.repeat(Position.initial().array[None], 3, axis=0)
    games.moved(chosen, boards, np.zeros(3, bool), CubeTally())
    assert games.on_roll.tolist() == [1 - s for s in on_roll] and np.array_equal(games.probs, chosen)


def test_the_opener_alternates_between_games_of_a_slot_and_between_slots() -> None:
    games = _games("dead;live", 4)
    openers = [games.on_roll.tolist()]
    for _ in range(3):
        games.moved(_probs([0.5] * 4), np.zeros((4, 26), np.int8), np.ones(4, bool), CubeTally(strategies=2))
        openers.append(games.on_roll.tolist())
    assert openers == [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]


def test_report_gives_each_strategy_its_ppg_and_the_standard_error_of_independent_games() -> None:
    specs = tuple(parse_cube_spec(s) for s in ("dead", "live"))
    points = np.array([1, -2, 4, 1, -1, -1, 2, 8, -4, 1])
    tally = CubeTally(strategies=2, games=len(points), points_a=int(points.sum()))
    tally.points_a_squared = int((points**2).sum())
    tally.final_cube_sum = 17
    report = tally.report(specs)
    se = points.std(ddof=1) / math.sqrt(len(points))
    a, b = report["strategies"]
    assert a["ppg"] == pytest.approx(points.mean(), abs=1e-5) and b["ppg"] == pytest.approx(-points.mean(), abs=1e-5)
    assert a["se"] == b["se"] == pytest.approx(se, abs=1e-5)
    assert report["mean_final_cube"] == pytest.approx(1.7)
    one = CubeTally(games=10).report(specs[:1])
    assert "ppg" not in one["strategies"][0]


def test_interval_counts_are_the_difference_of_the_running_totals() -> None:
    early = CubeTally(strategies=2, games=5, games_passed=2, doubles=[3, 1], takes=[0, 1], passes=[1, 1])
    late = CubeTally(strategies=2, games=9, games_passed=3, doubles=[4, 4], takes=[2, 1], passes=[1, 2])
    step = late.since(early)
    assert (step.games, step.games_passed, step.doubles, step.takes, step.passes) == (4, 1, [1, 3], [2, 0], [0, 1])
    assert CubeTally.from_json(late.to_json()) == late
