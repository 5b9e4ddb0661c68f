"""Speed benchmarks behind ``jumpgammon bench``; figures, never pass/fail thresholds."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarks.positions import random_game_positions
from benchmarks.reference_movegen import python_children
from engine.batch import children_batch
from engine.movegen import count_children_kernel
from engine.position import Position
from nets.evaluator import DEFAULT_WEIGHTS, Evaluator, load_evaluator
from nets.volatility import jump_volatility, two_roll_outcomes_batch


@dataclass(frozen=True)
class MovegenSpeed:
    """``bench movegen``: move-generation rates (per second, the best of ``repeats``) over ``positions`` pairs."""

    benchmark: ClassVar[str] = "movegen"
    positions: int
    children: int
    children_per_second: float
    children_per_second_batched_flipped: float
    pairs_per_second: float
    single_call_children_per_second: float
    plain_python_children_per_second: float
    single_call_over_plain_python: float
    repeats: int

    def to_json(self) -> dict[str, Any]:
        """The figures as ``bench movegen --json`` prints them."""
        return {"benchmark": self.benchmark, **asdict(self)}


@dataclass(frozen=True)
class EvalSpeed:
    """``bench eval``: batched 0-ply evaluations per second and the time of one jump volatility."""

    benchmark: ClassVar[str] = "eval"
    device: str
    positions: int
    evaluations_per_second: float
    jump_volatility_ms_median: float
    jump_volatility_ms_mean: float
    jump_volatility_positions: int
    #: the same positions' 441-roll passes in one batched call (as jump-local asks across games), ms a position
    jump_volatility_batched_ms: float

    def to_json(self) -> dict[str, Any]:
        """The figures as ``bench eval --json`` prints them."""
        return {"benchmark": self.benchmark, **asdict(self)}


def bench_movegen(n_games: int = 200, repeats: int = 5) -> MovegenSpeed:
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
    single, plain = _single_calls(boards, dice)
    return MovegenSpeed(
        positions=int(len(boards)),
        children=int(total),
        children_per_second=total / best_count,
        children_per_second_batched_flipped=len(kids) / best_batch,
        pairs_per_second=len(boards) / best_count,
        single_call_children_per_second=single,
        plain_python_children_per_second=plain,
        single_call_over_plain_python=single / plain,
        repeats=repeats,
    )


def _single_calls(boards: np.ndarray, dice: np.ndarray, limit: int = 3000) -> tuple[float, float]:
    """Children per second of ``Position.children`` called once per position, and of the plain-Python generator.

    Both start from the raw board and roll, as a user's own loop would.
    """
    boards, dice = boards[:limit], dice[:limit]
    Position(boards[0]).children((int(dice[0, 0]), int(dice[0, 1])))  # compiled before the timing
    rolls = [(int(a), int(b)) for a, b in dice]
    t0 = time.perf_counter()
    count = sum(len(Position(b).children(r)) for b, r in zip(boards, rolls, strict=True))
    single = count / (time.perf_counter() - t0)
    lists = [b.tolist() for b in boards]
    t0 = time.perf_counter()
    count = sum(len(python_children(b, r[0], r[1])) for b, r in zip(lists, rolls, strict=True))
    return single, count / (time.perf_counter() - t0)


def evaluator_on(device: str = "cpu", weights: str | Path | None = None) -> Evaluator:
    """The evaluator of ``weights`` (default: the shipped net): numpy nets on the CPU, else torch nets on ``device``."""
    ev = load_evaluator(weights)
    if device == "cpu":
        return ev
    from nets.model import torch_evaluator  # torch loads only for another device

    return torch_evaluator(ev, device)


def bench_eval(n_games: int = 200, repeats: int = 3, device: str = "cpu", weights: str | None = None) -> EvalSpeed:
    """Batched 0-ply evaluations per second, the time of one 441-roll jump volatility, and of 20 in one batched call."""
    if weights is not None or DEFAULT_WEIGHTS.is_file():
        ev = evaluator_on(device, weights)
    else:
        from nets.model import new_evaluator  # torch loads only when there is no net to load

        ev = new_evaluator(device=device)
    boards, _ = random_game_positions(n_games)
    contact = boards  # every phase, as met in games; the nets dominate the cost
    ev.evaluate_boards(contact[:64])
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        ev.evaluate_boards(contact)
        best = min(best, time.perf_counter() - t0)
    sample = [Position(b) for b in boards[:: max(1, len(boards) // 20)][:20]]
    jump_volatility(ev, sample[0])
    times = []
    for p in sample:
        t0 = time.perf_counter()
        jump_volatility(ev, p)
        times.append(time.perf_counter() - t0)
    boards_of_sample = np.stack([p.array for p in sample])
    two_roll_outcomes_batch(ev, boards_of_sample[:2])
    batched_times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        two_roll_outcomes_batch(ev, boards_of_sample)
        batched_times.append(time.perf_counter() - t0)
    batched = float(np.median(batched_times))  # a median, as the single positions' figure
    return EvalSpeed(
        device=device,
        positions=int(len(contact)),
        evaluations_per_second=len(contact) / best,
        jump_volatility_ms_median=float(np.median(times) * 1000),
        jump_volatility_ms_mean=float(np.mean(times) * 1000),
        jump_volatility_positions=len(sample),
        jump_volatility_batched_ms=batched * 1000 / len(sample),
    )
