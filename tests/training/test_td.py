"""TD(0) self-play's move choice and targets."""

from __future__ import annotations

import numpy as np
import pytest

from engine.batch import children_batch
from engine.position import Position
from nets.evaluator import load_evaluator
from nets.mlp import cubeless_equity
from training.td import moves_and_targets


@pytest.mark.parametrize("exploration", [0.0, 0.5, 1.0])
def test_an_explored_position_learns_its_best_play_not_the_random_one(exploration: float) -> None:
    """With every move random (1.0) the games move at random, and each target is still the best child's value."""
    ev = load_evaluator(bearoff=False)
    opening = Position.initial().array
    boards = np.stack([opening] * 15)
    dice = np.array([[a, b] for a in range(1, 6) for b in range(a + 1, 7)])  # 15 non-double rolls
    kids, offsets = children_batch(boards, dice)
    probs = ev.evaluate_boards(kids)
    pick, targets = moves_and_targets(probs, offsets, exploration, np.random.default_rng(3))
    for game in range(len(boards)):
        lo, hi = offsets[game], offsets[game + 1]
        assert lo <= pick[game] < hi
        best = lo + int(np.argmax(-cubeless_equity(probs[lo:hi])))
        # the target is the side on roll's view of the best child: its win is the child's loss
        assert targets[game][0] == pytest.approx(1 - probs[best][0])
        assert cubeless_equity(targets[game : game + 1])[0] == pytest.approx(
            -cubeless_equity(probs[best : best + 1])[0]
        )
    greedy = np.array(
        [offsets[g] + int(np.argmax(-cubeless_equity(probs[offsets[g] : offsets[g + 1]]))) for g in range(15)]
    )
    if exploration == 0:
        np.testing.assert_array_equal(pick, greedy)
    if exploration == 1:
        assert (pick != greedy).sum() >= 10  # moved at random (a random pick is the best one now and then)
