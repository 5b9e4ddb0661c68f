"""Tesauro's pubeval: its published weights playing the openings every strong player plays, and its rules."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Position
from engine.batch import children_batch
from players.pubeval import PubevalPlayer, load_pubeval_weights, pubeval_scores

# The standard openings (book plays since the 1970s, and gnubg's and XG's first choices): pointing rolls make
# the point, 6-5 runs. A pubeval reading its board in the wrong frame or with a wrong weight order plays others.
OPENINGS = [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7"), ((5, 3), "8/3 6/3"), ((6, 5), "24/13")]


@pytest.mark.parametrize(("dice", "play"), OPENINGS, ids=[p for _, p in OPENINGS])
def test_pubeval_plays_the_book_openings(dice: tuple[int, int], play: str) -> None:
    start = Position.initial()
    chosen = Position(PubevalPlayer().choose_moves(start.array[None], np.array([dice]))[0])
    assert str(start.move_to(dice, chosen)) == play


def test_bearing_off_the_last_checker_scores_highest() -> None:
    board = np.zeros(26, np.int8)
    board[1], board[2], board[20] = 1, 1, -15  # the mover's last two checkers, a 2-1 bears both off
    kids, _ = children_batch(board[None], np.array([[2, 1]]))
    race, contact = load_pubeval_weights()
    scores = pubeval_scores(kids, np.ones(len(kids), bool), race, contact)
    finished = ~(kids < 0).any(axis=1)  # children are seen by the opponent: the mover's checkers are negative
    assert finished.sum() == 1 and len(kids) == 2  # 2/off 1/off, or 2/1 1/off leaving one
    assert scores[finished][0] == 99999999.0 and scores[~finished][0] < 1000


def test_the_race_weights_are_used_in_races_only() -> None:
    start = Position.initial().array[None]
    kids, _ = children_batch(start, np.array([[3, 1]]))
    race, contact = load_pubeval_weights()
    as_race = pubeval_scores(kids, np.ones(len(kids), bool), race, contact)
    as_contact = pubeval_scores(kids, np.zeros(len(kids), bool), race, contact)
    assert not np.allclose(as_race, as_contact)
    assert np.array_equal(as_race, pubeval_scores(kids, np.ones(len(kids), bool), race, np.zeros(122)))
