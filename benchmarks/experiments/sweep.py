"""Sweep points: one cubeful tournament per point, played until its standard error meets a target.

Both players of a point use the same net for the checker play and differ only in their cube
strategies, and each pair of games shares its dice with seats swapped, so a pair scores zero
unless the two strategies decided something differently: the variance comes only from the
decisions that differ. The checker play is the same at every point too, so each block's pairs
are played once, cubeless, and every point that needs the block replays its cube decisions over
those games (:mod:`arena.replay`): a block costs one set of games plus each point's decisions.
Points grow in rounds: each round asks every unfinished point for the games its standard error
says it still needs (at least one block more), and one process pool plays the blocks of all
points together, so no worker waits for a point to finish. Every block
goes to its point's ledger (:mod:`arena.ledger`) as it finishes, so a stopped sweep resumes with
the same command and plays only what is missing.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from arena import PlayerSpec, Rules, TournamentConfig, ledger
from arena.games import BlockResult
from arena.luck import reference_evaluator
from arena.replay import play_trajectories, replay_block
from arena.tournament import BLOCK_PAIRS, pair_luck_of, pair_points_of
from arena.workers import worker_pool
from benchmarks.experiments.provenance import LEDGER_REMEDY
from players.base import Player

GAMES_PER_BLOCK = 2 * BLOCK_PAIRS


@dataclass(frozen=True)
class SweepSettings:
    """How far each point is played: SE target (ppg), first and largest number of games, seed, workers."""

    seed: int = 1
    se_target: float = 0.003
    min_games: int = 8 * GAMES_PER_BLOCK
    max_games: int = 400 * GAMES_PER_BLOCK
    workers: int = 1
    checker: str = "net@0"  # both players' checker play
    compare_cube: bool = False  # put every cube question to both players (counts disagreements, costs more)
    #: Luck-adjust every game (:mod:`arena.luck`) by this reference net ("" the shipped net); None: raw results.
    #: Each block's rolls are judged once, with its cubeless games, for all the points that replay it.
    luck_weights: str | None = None
    #: With ``luck_weights``: each roll's luck play is the reference's best of pubeval's top N (:mod:`arena.luck`);
    #: None judges every play, as the committed sweeps did.
    luck_screen: int | None = None


@dataclass(frozen=True)
class PointSpec:
    """A point to play: its label, A's and B's cube specs, and the ledger that keeps its blocks."""

    label: str
    a_cube: str
    b_cube: str
    ledger: Path


@dataclass(frozen=True)
class PointResult:
    """One point of a sweep: A's ppg against B with its SE, the games it took, and A's mean points per pair."""

    label: str
    a_cube: str
    b_cube: str
    ppg: float
    se: float
    games: int
    doubles_a: int
    doubles_b: int
    pair_points: np.ndarray  # A's mean points per pair, in pair order (for the joint bootstrap); luck-adjusted if so
    #: With luck adjustment: the raw (unadjusted) ppg and SE of the same games; ``ppg``/``se`` are then adjusted.
    raw: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready summary (without the per-pair points)."""
        out: dict[str, Any] = {
            "label": self.label,
            "a_cube": self.a_cube,
            "b_cube": self.b_cube,
            "ppg": self.ppg,
            "se": self.se,
            "games": self.games,
            "doubles_a": self.doubles_a,
            "doubles_b": self.doubles_b,
        }
        if self.raw is not None:
            out["raw_ppg"], out["raw_se"] = self.raw
        return out


def next_games(games: int, se: float, settings: SweepSettings) -> int:
    """Games a point at ``games`` with standard error ``se`` should reach next: a whole number of blocks.

    The SE falls as 1/sqrt(games), so the target needs games * (se / target)^2; ask for 10%
    more, and at least one block more, up to the cap.
    """
    need = games * (se / settings.se_target) ** 2 * 1.1
    blocks = max(math.ceil(need / GAMES_PER_BLOCK), games // GAMES_PER_BLOCK + 1)
    return min(settings.max_games, blocks * GAMES_PER_BLOCK)


def _config(point: PointSpec, games: int, settings: SweepSettings) -> TournamentConfig:
    return TournamentConfig(
        PlayerSpec(settings.checker, point.a_cube),
        PlayerSpec(settings.checker, point.b_cube),
        games=games,
        seed=settings.seed,
        rules=Rules(cubeful=True),
        compare_cube=settings.compare_cube,
        luck_weights=settings.luck_weights,
        luck_screen=settings.luck_screen,
    )


# --- the pool: workers build each point's players once and play any point's blocks ---------------

_PLAYERS: dict[tuple[str, str], Player] = {}
_CACHE: dict[str, Any] = {}
# One job: the checker player's spec, the seed, whether both players answer every cube question,
# the luck reference's weights (None: no adjustment) and its screen, a block's first pair and pairs, and
# the points (index, A's cube, B's cube) that still need it.
Job = tuple[str, int, bool, str | None, int | None, int, int, list[tuple[int, str, str]]]


def _player(checker: str, cube: str) -> Player:
    if (checker, cube) not in _PLAYERS:
        _PLAYERS[(checker, cube)] = PlayerSpec(checker, cube).build(_CACHE)
    return _PLAYERS[(checker, cube)]


def _play(job: Job) -> list[tuple[int, BlockResult]]:
    """The block for every point of the job: one cubeless game per pair, each point's cube decisions replayed on it."""
    checker, seed, compare, luck_weights, luck_screen, first, count, points = job
    luck = None if luck_weights is None else reference_evaluator(luck_weights or None)
    trajectories = play_trajectories(_player(checker, "none"), seed, first, count, luck=luck, luck_screen=luck_screen)
    out = []
    for index, a_cube, b_cube in points:
        players = (_player(checker, a_cube), _player(checker, b_cube))
        out.append((index, replay_block(players, trajectories, seed, Rules(cubeful=True), False, compare)))
    return out


def _blocks(jobs: list[Job], workers: int) -> Iterator[list[tuple[int, BlockResult]]]:
    if workers == 1:
        yield from map(_play, jobs)
        return
    with worker_pool(workers) as pool:
        yield from pool.imap_unordered(_play, jobs)


def play_points(
    points: list[PointSpec],
    settings: SweepSettings,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    play: bool = True,
) -> list[PointResult]:
    """Play every point to the SE target (or the cap); results in the order given, from A's view.

    With ``play`` False nothing is played or written: each point reports the longest run of blocks
    its ledger holds from pair 0 (a sweep's state so far).
    """
    target = [settings.min_games] * len(points)
    kept: list[dict[int, BlockResult]] = []
    for point in points:
        cfg = _config(point, settings.min_games, settings)
        blocks = ledger.load(point.ledger, cfg, option="ledger", remedy=LEDGER_REMEDY)
        if play:
            ledger.start(point.ledger, cfg, blocks)
        kept.append({(b.first_pair, b.games // 2): b for b in blocks})  # type: ignore[misc]
    if not play:
        held = [_held_games(k, settings) for k in kept]
        empty = [p.ledger.name for p, games in zip(points, held, strict=True) if games == 0]
        if empty:
            raise ValueError(f"nothing played yet for {empty[0]!r} (and {len(empty) - 1} more): run without --report")
        return [_result(p, _blocks_for(kept[i], p, held[i], settings)) for i, p in enumerate(points)]
    done = [False] * len(points)
    while not all(done):
        wanted: dict[tuple[int, int], list[tuple[int, str, str]]] = {}
        for i, point in enumerate(points):
            if done[i]:
                continue
            for first, count in _config(point, target[i], settings).blocks():
                if (first, count) not in kept[i]:
                    wanted.setdefault((first, count), []).append((i, point.a_cube, point.b_cube))
        jobs = [
            (
                settings.checker,
                settings.seed,
                settings.compare_cube,
                settings.luck_weights,
                settings.luck_screen,
                first,
                count,
                who,
            )
            for (first, count), who in sorted(wanted.items())
        ]
        total = sum(len(who) for who in wanted.values())
        bar = tqdm(total=total, unit="block", disable=not progress or not jobs, file=sys.stderr)
        for results in _blocks(jobs, settings.workers):
            for i, block in results:
                kept[i][(block.first_pair, block.games // 2)] = block  # type: ignore[index]
                ledger.append(points[i].ledger, block)
            bar.update(len(results))
        bar.close()
        for i, point in enumerate(points):
            if done[i]:
                continue
            pp = _pair_points(_blocks_for(kept[i], point, target[i], settings))
            se = float(pp.std(ddof=1) / math.sqrt(len(pp)))
            if log is not None:
                log(f"{point.label}: {pp.mean():+.4f} ppg, SE {se:.4f} after {2 * len(pp):,} games")
            if se <= settings.se_target or target[i] >= settings.max_games:
                done[i] = True
            else:
                target[i] = next_games(target[i], se, settings)
    return [_result(p, _blocks_for(kept[i], p, target[i], settings)) for i, p in enumerate(points)]


def _held_games(kept: dict[Any, BlockResult], settings: SweepSettings) -> int:
    """Games in the full blocks a ledger holds without a gap from pair 0."""
    blocks = 0
    while (blocks * BLOCK_PAIRS, BLOCK_PAIRS) in kept:
        blocks += 1
    return blocks * GAMES_PER_BLOCK


def _blocks_for(
    kept: dict[Any, BlockResult], point: PointSpec, games: int, settings: SweepSettings
) -> list[BlockResult]:
    return [kept[key] for key in _config(point, games, settings).blocks()]


def _pair_points(blocks: list[BlockResult]) -> np.ndarray:
    """A's mean points per pair over ``blocks``, luck-adjusted where the blocks carry their luck."""
    pp = pair_points_of(blocks)
    luck = pair_luck_of(blocks) if blocks and all(b.luck_seat0 is not None for b in blocks) else None
    return pp if luck is None else pp - luck


def _result(point: PointSpec, blocks: list[BlockResult]) -> PointResult:
    raw = pair_points_of(blocks)
    pp = _pair_points(blocks)
    a_doubles = sum(int(b.doubles[np.arange(b.games), b.seat_of_a].sum()) for b in blocks)
    b_doubles = sum(int(b.doubles[np.arange(b.games), 1 - b.seat_of_a].sum()) for b in blocks)
    return PointResult(
        label=point.label,
        a_cube=point.a_cube,
        b_cube=point.b_cube,
        ppg=float(pp.mean()),
        se=float(pp.std(ddof=1) / math.sqrt(len(pp))),
        games=2 * len(pp),
        doubles_a=a_doubles,
        doubles_b=b_doubles,
        pair_points=pp,
        raw=None if pp is raw else (float(raw.mean()), float(raw.std(ddof=1) / math.sqrt(len(raw)))),
    )


def identical_point(label: str, cube: str) -> PointResult:
    """The point where A and B are the same strategy: exactly 0 ppg with no games (every pair cancels)."""
    return PointResult(label, cube, cube, 0.0, 0.0, 0, 0, 0, np.zeros(0))
