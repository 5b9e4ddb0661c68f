"""Paired comparison of two tournaments played with the same seed: the difference of A's ppg with its SE.

Two ``jumpgammon tournament ... --seed S --save FILE`` runs of the same length share the dice of each
mirrored pair, so A's per-pair results are correlated and the SE of their difference is far below
that of either figure alone. Usage: ``python -m benchmarks.paired BASE.jsonl CANDIDATE.jsonl [BASE2
CANDIDATE2 ...]``: further couples (other seeds) pool their pairs.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.stats import pair_statistics
from engine.errors import JumpgammonError


def pair_points(path: Path) -> tuple[dict[str, Any], np.ndarray]:
    """The tournament record of a ``--save`` file and player A's mean points per pair, in pair order."""
    lines = path.read_text().splitlines()
    head = json.loads(lines[0]).get("tournament")
    if not isinstance(head, dict):
        raise JumpgammonError(f"{path}: not a tournament's --save file")
    totals: dict[int, list[int]] = {}
    for line in lines[1:]:
        game = json.loads(line)
        sign = 1 if game["winner"] == game["seat_of_a"] else -1
        totals.setdefault(int(game["pair"]), []).append(sign * int(game["points"]))
    pairs = sorted(totals)
    if any(len(totals[p]) != 2 for p in pairs):
        raise JumpgammonError(f"{path}: a pair without its two games")
    return head, np.array([sum(totals[p]) / 2 for p in pairs])


@dataclass(frozen=True)
class PlayerFigure:
    """One tournament's player A and B as recorded, with A's points per game and its SE (None for one pair)."""

    player: Any
    opponent: Any
    ppg: float
    se: float | None


@dataclass(frozen=True)
class PairedDifference:
    """The candidate's gain in A's points per game over the base, pair by pair, with its SE and 95% interval."""

    ppg: float
    se: float | None
    ci95: tuple[float, float] | None


@dataclass(frozen=True)
class PairedComparison:
    """A paired comparison: ``seed`` is the one seed, or each couple's seed when several were pooled."""

    pairs: int
    seed: Any
    base: PlayerFigure
    candidate: PlayerFigure
    difference: PairedDifference

    def to_json(self) -> dict[str, Any]:
        """The comparison as ``python -m benchmarks.paired`` prints it."""
        return asdict(self)


def compare(base: Path, candidate: Path, *more: Path) -> PairedComparison:
    """Both players' ppg and SE, and the candidate's paired gain (A's view) with its SE.

    ``more`` gives further (base, candidate) couples, each of one seed; their pairs are pooled.
    """
    if len(more) % 2:
        raise JumpgammonError("give the tournaments as (base, candidate) couples")
    files = [base, candidate, *more]
    parts_a, parts_b, seeds = [], [], []
    for base_file, candidate_file in zip(files[::2], files[1::2], strict=True):
        head_a, part_a = pair_points(base_file)
        head_b, part_b = pair_points(candidate_file)
        if head_a.get("seed") != head_b.get("seed") or len(part_a) != len(part_b):
            raise JumpgammonError("the two tournaments differ in seed or length: their pairs do not share dice")
        parts_a.append(part_a)
        parts_b.append(part_b)
        seeds.append(head_a.get("seed"))
    a, b = np.concatenate(parts_a), np.concatenate(parts_b)
    figures = []
    for head, points in ((head_a, a), (head_b, b)):
        ppg, se, _ = pair_statistics(points)
        figures.append(PlayerFigure(head.get("player_a"), head.get("player_b"), ppg, se))
    diff, se, ci = pair_statistics(b - a)
    return PairedComparison(
        pairs=len(a),
        seed=seeds[0] if len(seeds) == 1 else seeds,
        base=figures[0],
        candidate=figures[1],
        difference=PairedDifference(diff, se, ci),
    )


if __name__ == "__main__":
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        sys.exit("usage: python -m benchmarks.paired BASE.jsonl CANDIDATE.jsonl [BASE2 CANDIDATE2 ...]")
    print(json.dumps(compare(*(Path(a) for a in sys.argv[1:])).to_json(), indent=1))
