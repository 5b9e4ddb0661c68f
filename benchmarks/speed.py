"""Speed benchmarks behind ``jumpgammon bench``; figures, never pass/fail thresholds."""

from __future__ import annotations

import time
from typing import Any

from benchmarks.positions import random_game_positions
from engine.batch import children_batch
from engine.movegen import count_children_kernel


def bench_movegen(n_games: int = 200, repeats: int = 5) -> dict[str, Any]:
    """Distinct resulting positions per second, single process, over positions from seeded games."""
    boards, dice = random_game_positions(n_games)
    count_children_kernel(boards[:8], dice[:8])  # compile outside the timing
    children_batch(boards[:8], dice[:8])
    best_count = best_batch = float("inf")
    total = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        total = count_children_kernel(boards, dice)
        best_count = min(best_count, time.perf_counter() - t0)
        t0 = time.perf_counter()
        kids, _ = children_batch(boards, dice)
        best_batch = min(best_batch, time.perf_counter() - t0)
    return {
        "benchmark": "movegen",
        "positions": int(len(boards)),
        "children": int(total),
        "children_per_second": total / best_count,
        "children_per_second_batched_flipped": len(kids) / best_batch,
        "pairs_per_second": len(boards) / best_count,
        "repeats": repeats,
    }
