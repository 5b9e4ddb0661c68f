"""Paired comparison of two seeded tournaments from their --save files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from benchmarks.paired import compare, pair_points
from engine.errors import JumpgammonError


def _save(path: Path, seed: int, games: list[tuple[int, int, int, int]]) -> Path:
    """A --save file of (pair, seat of A, winner seat, points) games."""
    lines = [json.dumps({"tournament": {"player_a": "a", "player_b": "b", "seed": seed}})]
    lines += [json.dumps({"pair": p, "seat_of_a": s, "winner": w, "points": n}) for p, s, w, n in games]
    path.write_text("\n".join(lines) + "\n")
    return path


# A wins 2 and loses 1 in pair 0 (+0.5), wins 1 twice in pair 1 (+1), loses a gammon and wins 1 in pair 2 (-0.5).
BASE = [(0, 0, 0, 2), (0, 1, 0, 1), (1, 0, 0, 1), (1, 1, 1, 1), (2, 0, 1, 2), (2, 1, 1, 1)]
# The candidate gains one point in pair 2's second game only.
CAND = [(0, 0, 0, 2), (0, 1, 0, 1), (1, 0, 0, 1), (1, 1, 1, 1), (2, 0, 1, 2), (2, 1, 1, 2)]


def test_pair_points_are_a_s_mean_per_pair(tmp_path: Path) -> None:
    _, points = pair_points(_save(tmp_path / "a.jsonl", 1, BASE))
    np.testing.assert_allclose(points, [0.5, 1.0, -0.5])


def test_the_difference_is_taken_pair_by_pair(tmp_path: Path) -> None:
    out = compare(_save(tmp_path / "a.jsonl", 1, BASE), _save(tmp_path / "b.jsonl", 1, CAND))
    assert out.base.ppg == pytest.approx(1.0 / 3)
    assert out.candidate.ppg == pytest.approx(1.0 / 3 + 0.5 / 3)
    diffs = np.array([0.0, 0.0, 0.5])
    assert out.difference.ppg == pytest.approx(diffs.mean())
    assert out.difference.se == pytest.approx(diffs.std(ddof=1) / math.sqrt(3))


@pytest.mark.parametrize(("seed", "games"), [(2, CAND), (1, CAND[:4])])
def test_tournaments_that_do_not_share_dice_are_refused(tmp_path: Path, seed: int, games: list) -> None:
    with pytest.raises(JumpgammonError, match="seed or length"):
        compare(_save(tmp_path / "a.jsonl", 1, BASE), _save(tmp_path / "b.jsonl", seed, games))


def test_a_pair_missing_a_game_is_refused(tmp_path: Path) -> None:
    with pytest.raises(JumpgammonError, match="pair"):
        pair_points(_save(tmp_path / "a.jsonl", 1, BASE[:-1]))


def test_couples_of_other_seeds_pool_their_pairs(tmp_path: Path) -> None:
    one = compare(_save(tmp_path / "a.jsonl", 1, BASE), _save(tmp_path / "b.jsonl", 1, CAND))
    both = compare(
        _save(tmp_path / "a.jsonl", 1, BASE),
        _save(tmp_path / "b.jsonl", 1, CAND),
        _save(tmp_path / "c.jsonl", 2, CAND),
        _save(tmp_path / "d.jsonl", 2, BASE),
    )
    assert both.pairs == 6 and both.seed == [1, 2]
    assert both.difference.ppg == pytest.approx(0.0)  # the second couple's loss undoes the first's gain
    assert one.difference.ppg == pytest.approx(0.5 / 3)
    with pytest.raises(JumpgammonError, match="couples"):
        compare(tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl")
