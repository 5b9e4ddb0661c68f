"""Lockstep self-play: the opening roll, game numbering, restarts, retirement and the runaway guard."""

from __future__ import annotations

import numpy as np
import pytest

from engine.batch import children_batch, phases
from engine.errors import RunawayGame
from engine.game import Dice, roll_batch
from engine.position import GamePhase, Position
from engine.selfplay import Choose, SelfPlay


def _random_choice(rng: np.random.Generator) -> Choose:
    """Random legal play: each board's child drawn uniformly from ``rng``."""

    def choose(boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        kids, offsets = children_batch(boards, dice)
        return kids[offsets[:-1] + (rng.random(len(boards)) * np.diff(offsets)).astype(np.int64)]

    return choose


def test_only_opening_rolls_reroll_doubles() -> None:
    opening = np.arange(4000) % 2 == 0
    dice = roll_batch(np.random.default_rng(1), opening)
    same = dice[:, 0] == dice[:, 1]
    assert dice.shape == (4000, 2) and dice.min() == 1 and dice.max() == 6
    assert not same[opening].any()
    # 2,000 later rolls: a share of doubles with SE sqrt(1/6 * 5/6 / 2000) = 0.0083; 0.03 is 3.6 SEs
    assert same[~opening].mean() == pytest.approx(1 / 6, abs=0.03)


def test_a_single_opening_roll_draws_what_the_scalar_dice_draw() -> None:
    for seed in range(50):
        rng = np.random.default_rng(seed)
        a, b = roll_batch(rng, np.ones(1, bool))[0]
        assert Dice(seed).opening()[1] == (a, b)


@pytest.mark.parametrize(("games", "parallel"), [(1, 1), (5, 2), (3, 8), (12, 4)])
def test_every_game_starts_once_at_the_opening_and_plays_to_its_end(games: int, parallel: int) -> None:
    rng = np.random.default_rng(games)
    selfplay = SelfPlay(rng, parallel, games)
    choose = _random_choice(rng)
    starts: list[int] = []
    ends: list[int] = []
    for turn in selfplay:
        assert len(turn) <= min(parallel, games)
        at_start = (turn.boards == Position.initial().array).all(axis=1)
        assert (at_start[turn.opening]).all() and not (turn.plies[turn.opening]).any()
        starts.extend(turn.games[turn.opening].tolist())
        before = turn.games
        children, over = turn.move(choose)
        assert turn.dice is None
        ends.extend(before[over].tolist())
        assert (phases(children[over]) == GamePhase.OVER).all()
    assert sorted(starts) == sorted(ends) == list(range(games))
    assert selfplay.started == games and len(selfplay) == 0


def test_without_a_target_finished_slots_start_new_games_in_place() -> None:
    rng = np.random.default_rng(3)
    selfplay = SelfPlay(rng, 4)
    choose = _random_choice(rng)
    finished = 0
    for turn in selfplay:
        assert len(turn) == 4
        _, over = turn.move(choose)
        assert turn.opening.tolist() == over.tolist()
        finished += int(over.sum())
        if finished >= 6:
            break
    assert selfplay.started == 4 + finished


def test_games_ended_off_the_board_restart_now() -> None:
    selfplay = SelfPlay(np.random.default_rng(0), 3)
    turn = next(iter(selfplay))
    turn.move(_random_choice(np.random.default_rng(1)))
    turn.end(np.array([False, True, False]))
    assert turn.opening.tolist() == [False, True, False]
    assert turn.games.tolist() == [0, 3, 2] and turn.plies.tolist() == [1, 0, 1]
    assert (turn.boards[1] == Position.initial().array).all()


def test_arrays_read_before_a_move_keep_their_rows() -> None:
    selfplay = SelfPlay(np.random.default_rng(2), 2, games=2)
    turn = next(iter(selfplay))
    boards, opening = turn.boards, turn.opening
    turn.move(_random_choice(np.random.default_rng(2)))
    assert (boards == Position.initial().array).all() and opening.all()


def test_resumed_games_keep_their_boards_and_opening_flags() -> None:
    boards = np.repeat(Position.initial().array[None], 2, axis=0)
    boards[1] = -boards[1][::-1]
    selfplay = SelfPlay(np.random.default_rng(0), 2, boards=boards, opening=np.array([True, False]))
    assert (selfplay.boards == boards).all() and selfplay.opening.tolist() == [True, False]
    with pytest.raises(ValueError, match="opening"):
        SelfPlay(np.random.default_rng(0), 2, boards=boards)


def test_a_turn_without_a_move_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="without a move"):
        for _ in SelfPlay(np.random.default_rng(0), 1):
            pass


def test_a_game_that_cannot_end_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("engine.game.MAX_PLIES", 3)
    rng = np.random.default_rng(0)
    moves = 0
    with pytest.raises(RunawayGame, match="passed 3 moves"):
        for turn in SelfPlay(rng, 2, games=2):
            turn.move(_random_choice(rng))
            moves += 1
    assert moves == 3
