"""Rollout labels: positions from the net's own self-play, chosen where they teach most, rolled out in lockstep.

A data set is a folder of numbered shards and a manifest. Shard ``i`` is a function of the
settings, ``(seed, i)`` and the labelling net alone:

1. **Pool.** ``pool_games`` cubeless 0-ply self-play games of the net
   (:func:`training.supervised.data.play_positions`) keep each position met (side on roll, before
   rolling) with chance ``keep`` (contact) or ``keep_race``; positions a phase net evaluates
   (contact and race: not the bearoff databases' nor finished games) are kept, each board once.
   For each pooled position one random roll is also played at 0 ply and at 1 ply (gnubg's
   Normal filter); where the two choose different plays, both resulting positions join the pool.
2. **Selection** (:class:`Selection`): ``rows`` positions, a share for each :class:`Reason`:
   the play pairs whose 0-ply and 1-ply choices differ most (by the 1-ply gap between them), the
   positions whose 0-ply and 1-ply equities differ most, crashed positions (gnubg's class, the
   shipped net's weakest), the rarest structures of the pool (:func:`structure_keys`), and a
   uniform share. A share the pool cannot fill goes to the uniform one.
3. **Labels.** Every chosen position is rolled out by :func:`arena.rollout.run_rollouts`, cubeless
   at 0 ply with the labelling net: stratified dice, luck adjustment, truncation (if asked) with
   the net's 0-ply evaluation at the horizon. A row holds the five luck-adjusted probabilities
   and their standard errors, all from the view of the position's side on roll, before it rolls.

All positions of a shard are rolled out together (one lockstep batch per block of trials) with
the shard's own rollout seed (:func:`rollout_seed`), so the dice of two shards are independent.
Shards are written atomically; a rerun with the same settings writes only the missing ones, and
settings that differ from the manifest's are refused. Shards are labelled here, in ``workers``
processes, or as Ray tasks.
"""

from __future__ import annotations

import enum
import importlib.util
import json
import math
import queue
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from arena.rollout import RolloutConfig, RolloutStart, run_rollouts
from arena.workers import connect_ray, worker_pool
from cube.efficiency import NET_CLASSES, PositionClass
from engine.batch import children_batch, phases
from engine.errors import InvalidSpec, JumpgammonError
from engine.position import Position
from nets.cube_advice import gnubg_class_codes
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import choose_children, evaluate_plies, segment_argmax
from nets.mlp import OUTPUTS, cubeless_equity
from nets.weights import arrays_to_npz, read_npz_arrays, remove_stale_temporaries, sha256_hex, write_atomic
from training.supervised.data import play_positions
from training.supervised.shards import GAME_ID_STRIDE, NET_OF_PHASE
from weights import DEFAULT_WEIGHTS

FORMAT = "jumpgammon-rollout-labels"
VERSION = 1
MANIFEST = "manifest.json"
SHARD_FORMAT = "labels_{:05d}.npz"
#: Top-level packages of the project: a data folder inside one of them is refused.
PACKAGES = ("engine", "nets", "cube", "players", "arena", "training", "benchmarks", "cli", "weights")


class Reason(enum.IntEnum):
    """Why a position was chosen (stored per row)."""

    RANDOM = 0  # uniform over the pool
    DISAGREE = 1  # 0-ply and 1-ply equities of the position differ most
    PLAYS = 2  # one of two plays that 0 ply and 1 ply choose differently for the same roll
    CRASHED = 3  # gnubg's crashed class
    RARE = 4  # a structure seldom met in the pool

    @property
    def label(self) -> str:
        """The reason's name in settings and counts."""
        return self.name.lower()


@dataclass(frozen=True)
class Selection:
    """Shares of a shard's rows by :class:`Reason` (they sum to 1); what a share cannot fill goes to ``random``."""

    plays: float = 0.2
    disagree: float = 0.3
    crashed: float = 0.2
    rare: float = 0.1
    random: float = 0.2

    def __post_init__(self) -> None:
        values = asdict(self)
        bad = {k: v for k, v in values.items() if not (isinstance(v, int | float) and 0 <= v <= 1)}
        if bad:
            raise InvalidSpec(f"selection shares {bad}: each must be a number from 0 to 1")
        if not math.isclose(sum(values.values()), 1.0, abs_tol=1e-9):
            raise InvalidSpec(f"selection shares {values} sum to {sum(values.values()):g}, not 1")

    @classmethod
    def parse(cls, text: str) -> Selection:
        """``reason=share,...`` (reasons: plays, disagree, crashed, rare, random); unnamed ones get 0."""
        shares: dict[str, float] = {}
        names = [r.label for r in Reason]
        for item in text.split(","):
            name, sep, value = item.strip().partition("=")
            if not sep or name not in names:
                raise InvalidSpec(f"selection {text!r}: expected reason=share items with reasons {', '.join(names)}")
            try:
                shares[name] = float(value)
            except ValueError:
                raise InvalidSpec(f"selection {text!r}: share {value!r} of {name} is not a number") from None
        return cls(**{n: shares.get(n, 0.0) for n in names})

    def quotas(self, rows: int) -> dict[Reason, int]:
        """Rows per reason for a shard of ``rows`` (largest remainders; the shares' order breaks ties)."""
        exact = {r: getattr(self, r.label) * rows for r in Reason}
        quota = {r: math.floor(v) for r, v in exact.items()}
        left = rows - sum(quota.values())
        for r in sorted(exact, key=lambda r: quota[r] - exact[r])[:left]:
            quota[r] += 1
        return quota

    def text(self) -> str:
        """The selection as :meth:`parse` reads it."""
        return ",".join(f"{r.label}={getattr(self, r.label):g}" for r in Reason if getattr(self, r.label) > 0)


@dataclass(frozen=True)
class LabelConfig:
    """Settings of a rollout-label data set; all but ``out``, ``shards`` and ``block_rows`` must match on resume."""

    out: Path  # the folder of shards and manifest
    shards: int  # the data set's target size in shards, in total
    weights: Path | None = None  # the net that plays the pool's games and the rollouts; None: the shipped one
    rows: int = 32  # labelled positions per shard
    # Whole games, 216 trials (6 x 36: the first roll stratified): an equity SE of about 0.015 a position.
    # Truncation is much cheaper, but it moves the labels towards the net's own evaluation at the horizon
    # by more than their SE (results/labels/README.md).
    trials: int = 216  # rollout trials per position (a multiple of 36 stratifies the first roll)
    truncate: int | None = None  # plies after which a trial takes the net's 0-ply evaluation; None: whole games
    seed: int = 1
    pool_games: int = 100  # self-play games a shard's pool is drawn from (about 1,700 positions)
    keep: float = 0.25  # chance that a contact position met joins the pool
    keep_race: float = 0.5  # the same for race positions
    selection: Selection = field(default_factory=Selection)
    block_rows: int = 2048  # trials of all positions per lockstep block (speed only: labels do not depend on it)

    def __post_init__(self) -> None:
        for name, low in (("shards", 1), ("rows", 1), ("trials", 2), ("pool_games", 1), ("block_rows", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidSpec(f"{name} {value!r}: give an integer of at least {low}")
        if self.truncate is not None and (not isinstance(self.truncate, int) or self.truncate < 1):
            raise InvalidSpec(f"truncate {self.truncate!r}: give at least 1 ply (or none)")
        for name in ("keep", "keep_race"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise InvalidSpec(f"{name} {value!r}: give a share above 0 and at most 1")

    @property
    def weights_file(self) -> Path:
        """The labelling net's weights file."""
        return self.weights if self.weights is not None else DEFAULT_WEIGHTS

    def rollout_config(self, index: int) -> RolloutConfig:
        """How shard ``index``'s positions are rolled out: cubeless, 0 ply, luck-adjusted, the shard's own seed."""
        return RolloutConfig(
            trials=self.trials,
            plies=0,
            truncate=self.truncate,
            seed=rollout_seed(self.seed, index),
            weights=None if self.weights is None else str(self.weights),
            block_rows=self.block_rows,
            luck_screen=None,  # every play judged, as the labels committed so far were: their identity is fixed
        )

    def identity(self, weights_digest: str) -> dict[str, Any]:
        """The settings that define the data (the manifest's record), with the labelling net's SHA-256.

        ``weights`` names the file as given (``shipped`` for the package's); the digest identifies the net.
        """
        return {
            "weights": "shipped" if self.weights is None else str(self.weights),
            "weights_sha256": weights_digest,
            "rows": self.rows,
            "pool": {"games": self.pool_games, "keep": self.keep, "keep_race": self.keep_race, "plies": 0},
            "selection": asdict(self.selection),
            "rollout": {
                "trials": self.trials,
                "plies": 0,
                "truncate": self.truncate,
                "cubeful": False,
                "variance_reduction": True,
                "seed": self.seed,
                "seed_rule": "shard i rolls out with seed rollout_seed(seed, i)",
            },
        }


def rollout_seed(seed: int, index: int) -> int:
    """Shard ``index``'s rollout seed: a 62-bit draw from ``default_rng([seed, index, 1])``."""
    return int(np.random.default_rng([seed, index, 1]).integers(1 << 62))


# --------------------------------------------------------------------------------------------
# Pool and selection
# --------------------------------------------------------------------------------------------


def structure_keys(boards: np.ndarray) -> np.ndarray:
    """int64 (n,) coarse structure of each board (side on roll's view): equal keys, alike positions.

    The key combines, per side, the checkers back (on the bar or in the opponent's home board,
    up to 4), on the bar (up to 2) and the home-board points made (in pairs), and the pip
    difference in steps of 20 (clipped to 3 steps either way).
    """
    b = np.asarray(boards, np.int64).reshape(-1, 26)
    own, opp = np.clip(b, 0, None), np.clip(-b, 0, None)
    points = np.arange(26)
    parts = [
        np.minimum(own[:, 19:26].sum(axis=1), 4),
        np.minimum(opp[:, 0:7].sum(axis=1), 4),
        np.minimum(own[:, 25], 2),
        np.minimum(opp[:, 0], 2),
        (own[:, 1:7] >= 2).sum(axis=1) // 2,
        (opp[:, 19:25] >= 2).sum(axis=1) // 2,
        np.clip(((own * points).sum(axis=1) - (opp * (25 - points)).sum(axis=1)) // 20, -3, 3) + 3,
    ]
    key = np.zeros(len(b), np.int64)
    for part, size in zip(parts, (5, 5, 3, 3, 4, 4, 7), strict=True):
        key = key * size + part
    return key


@dataclass
class Pool:
    """Candidate positions of a shard (side on roll's view) with what the selection weighs."""

    boards: np.ndarray  # int8 (n, 26)
    games: np.ndarray  # int64 (n,): the self-play game each came from
    equity0: np.ndarray  # (n,) cubeless equity at 0 ply
    equity1: np.ndarray  # (n,) cubeless equity at 1 ply
    classes: np.ndarray  # int8 (n,) gnubg class codes (PositionClass.gnubg_code)
    pair: np.ndarray  # int64 (n,): the play pair a position belongs to (-1: none)
    pair_gap: np.ndarray  # (n,): the 1-ply equity the 0-ply choice of its pair gives up (0: no pair)


def _distinct(boards: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct board, in order."""
    keys = np.ascontiguousarray(boards).view(np.dtype((np.void, boards.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def _net_phase(boards: np.ndarray) -> np.ndarray:
    return np.isin(phases(boards), list(NET_OF_PHASE))


def build_pool(ev: Evaluator, cfg: LabelConfig, rng: np.random.Generator) -> Pool:
    """Shard pool from ``cfg.pool_games`` self-play games, with the play pairs 0 ply and 1 ply choose differently."""
    boards, games, _ = play_positions(ev, cfg.pool_games, min(cfg.pool_games, 250), (cfg.keep, cfg.keep_race), 0.0, rng)
    keep = _net_phase(boards)
    boards, games = boards[keep], games[keep]
    first = _distinct(boards)
    boards, games = boards[first], games[first]
    # one random roll per position, played at 0 ply and at 1 ply
    dice = rng.integers(1, 7, size=(len(boards), 2))
    kids, offsets = children_batch(boards, dice)
    equity_kids = -cubeless_equity(ev.evaluate_boards(kids))  # the mover's
    best0 = segment_argmax(equity_kids, offsets)
    best1 = choose_children(ev, kids, offsets, 1)
    differ = np.flatnonzero(best0 != best1)
    pair_boards = np.concatenate([kids[best0[differ]], kids[best1[differ]]])
    pair_values = -cubeless_equity(evaluate_plies(ev, pair_boards, 1)).reshape(2, -1)  # the mover's, at 1 ply
    gap = np.concatenate([pair_values[1] - pair_values[0]] * 2)
    pair_of = np.concatenate([np.arange(len(differ))] * 2)
    pair_games = np.concatenate([games[differ]] * 2)
    good = _net_phase(pair_boards)
    all_boards = np.concatenate([boards, pair_boards[good]])
    all_games = np.concatenate([games, pair_games[good]])
    all_pair = np.concatenate([np.full(len(boards), -1, np.int64), pair_of[good]])
    all_gap = np.concatenate([np.zeros(len(boards)), gap[good]])
    first = _distinct(all_boards)
    b = all_boards[first]
    return Pool(
        boards=b,
        games=all_games[first],
        equity0=cubeless_equity(ev.evaluate_boards(b)),
        equity1=cubeless_equity(evaluate_plies(ev, b, 1)),
        classes=gnubg_class_codes(b),
        pair=all_pair[first],
        pair_gap=all_gap[first],
    )


def select(pool: Pool, selection: Selection, rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pool indices of the chosen positions and the reason of each (at most ``rows``; fewer if the pool is smaller)."""
    quota = selection.quotas(rows)
    taken = np.zeros(len(pool.boards), bool)
    chosen: list[np.ndarray] = []
    reasons: list[np.ndarray] = []

    def take(index: np.ndarray, reason: Reason) -> None:
        taken[index] = True
        chosen.append(index)
        reasons.append(np.full(len(index), reason, np.int8))

    noise = rng.random(len(pool.boards))  # random tie-breaks
    # play pairs, the largest 1-ply gap first; a pair is taken whole or, at the quota's end, its first member only
    paired = np.flatnonzero(pool.pair >= 0)
    order = paired[np.lexsort((noise[paired], pool.pair[paired], -pool.pair_gap[paired]))]
    take(order[: quota[Reason.PLAYS]], Reason.PLAYS)
    free = np.flatnonzero(~taken & (pool.pair < 0))
    score = np.abs(pool.equity1 - pool.equity0)
    take(free[np.lexsort((noise[free], -score[free]))][: quota[Reason.DISAGREE]], Reason.DISAGREE)
    free = np.flatnonzero(~taken & (pool.classes == PositionClass.CRASHED.gnubg_code))
    take(free[np.argsort(noise[free])][: quota[Reason.CRASHED]], Reason.CRASHED)
    free = np.flatnonzero(~taken)
    keys = structure_keys(pool.boards)
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    frequency = counts[inverse.ravel()]
    take(free[np.lexsort((noise[free], frequency[free]))][: quota[Reason.RARE]], Reason.RARE)
    free = np.flatnonzero(~taken)
    missing = rows - sum(len(c) for c in chosen)
    take(free[np.argsort(noise[free])][:missing], Reason.RANDOM)
    return np.concatenate(chosen), np.concatenate(reasons)


# --------------------------------------------------------------------------------------------
# Labels and shards
# --------------------------------------------------------------------------------------------


@dataclass
class LabelShard:
    """One shard: positions (side on roll's view, before rolling) with rollout labels and provenance."""

    boards: np.ndarray  # int8 (n, 26)
    probabilities: np.ndarray  # float32 (n, 5): luck-adjusted rollout probabilities, side on roll's view
    standard_errors: np.ndarray  # float32 (n, 5): their standard errors
    equity: np.ndarray  # float32 (n,): cubeless equity of the rollout
    equity_se: np.ndarray  # float32 (n,): its standard error (luck-adjusted)
    raw_equity_se: np.ndarray  # float32 (n,): the standard error without the luck adjustment
    equity0: np.ndarray  # float32 (n,): the labelling net's 0-ply equity
    equity1: np.ndarray  # float32 (n,): its 1-ply equity
    reasons: np.ndarray  # int8 (n,): Reason
    classes: np.ndarray  # int8 (n,): gnubg class codes (PositionClass.gnubg_code)
    games: np.ndarray  # int64 (n,): shard * GAME_ID_STRIDE + the pool game it came from
    mean_plies: np.ndarray  # float32 (n,): mean plies played per trial

    ARRAYS = (
        "boards",
        "probabilities",
        "standard_errors",
        "equity",
        "equity_se",
        "raw_equity_se",
        "equity0",
        "equity1",
        "reasons",
        "classes",
        "games",
        "mean_plies",
    )

    def __len__(self) -> int:
        return len(self.boards)

    def to_bytes(self) -> bytes:
        """The shard as .npz bytes."""
        return arrays_to_npz({name: getattr(self, name) for name in self.ARRAYS})

    @classmethod
    def read(cls, path: Path) -> LabelShard:
        """Read a shard; raises JumpgammonError naming the file if it is not one."""
        shard = cls(**read_npz_arrays(path, cls.ARRAYS, "rollout-label shard"))
        n = len(shard.boards)
        shapes = {name: getattr(shard, name).shape for name in cls.ARRAYS}
        if shapes["boards"] != (n, 26) or any(
            s != ((n, 5) if name in ("probabilities", "standard_errors") else (n,))
            for name, s in shapes.items()
            if name != "boards"
        ):
            raise JumpgammonError(f"{path}: shard arrays of inconsistent shapes {shapes}")
        return shard


def label_positions(boards: np.ndarray, config: RolloutConfig) -> dict[str, np.ndarray]:
    """Roll out int8 (n, 26) boards together; their labels (side on roll's view) keyed as :class:`LabelShard`'s.

    No boards give empty labels (a pool can come up empty with few games and small keep shares).
    """
    starts = [RolloutStart(Position.from_board(b)) for b in boards]
    results = run_rollouts(starts, config, workers=1, progress=False) if starts else []
    nan5 = np.full(5, np.nan)
    return {
        "probabilities": np.array([r.estimate.probabilities for r in results], np.float32).reshape(-1, 5),
        "standard_errors": np.array(
            [nan5 if r.estimate.standard_errors is None else r.estimate.standard_errors for r in results], np.float32
        ).reshape(-1, 5),
        "equity": np.array([r.estimate.equity for r in results], np.float32),
        "equity_se": np.array([np.nan if r.estimate.equity_se is None else r.estimate.equity_se for r in results]),
        "raw_equity_se": np.array([np.nan if r.raw.equity_se is None else r.raw.equity_se for r in results]),
        "mean_plies": np.array([r.outcomes.plies.mean() for r in results], np.float32),
    }


def make_shard(ev: Evaluator, cfg: LabelConfig, index: int) -> LabelShard:
    """Shard ``index`` of the data set ``cfg`` describes: a function of the settings, ``(seed, index)`` and the net."""
    rng = np.random.default_rng([cfg.seed, index])
    pool = build_pool(ev, cfg, rng)
    chosen, reasons = select(pool, cfg.selection, cfg.rows, rng)
    boards = pool.boards[chosen]
    labels = label_positions(boards, cfg.rollout_config(index))
    return LabelShard(
        boards=boards,
        probabilities=labels["probabilities"],
        standard_errors=labels["standard_errors"],
        equity=labels["equity"],
        equity_se=labels["equity_se"].astype(np.float32),
        raw_equity_se=labels["raw_equity_se"].astype(np.float32),
        equity0=pool.equity0[chosen].astype(np.float32),
        equity1=pool.equity1[chosen].astype(np.float32),
        reasons=reasons,
        classes=pool.classes[chosen],
        games=pool.games[chosen] + index * GAME_ID_STRIDE,
        mean_plies=labels["mean_plies"],
    )


# --------------------------------------------------------------------------------------------
# The data set: folder, manifest, where shards are made
# --------------------------------------------------------------------------------------------


def shard_path(out: Path, index: int) -> Path:
    """The file of shard ``index``."""
    return out / SHARD_FORMAT.format(index)


def shard_paths(out: Path) -> list[Path]:
    """The shard files of a data folder, in order."""
    return sorted(out.glob("labels_*.npz"))


def check_out_folder(out: Path) -> None:
    """Refuse a data folder that is a file or lies inside one of the project's packages (weights/ included)."""
    if out.exists() and not out.is_dir():
        raise JumpgammonError(f"--out {str(out)!r} is a file; give a folder for the shards")
    resolved = out.resolve()
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            root = Path(folder).resolve()
            if resolved == root or root in resolved.parents:
                raise JumpgammonError(f"--out {str(out)!r} is inside the package {name}/; use e.g. runs/labels")


def _counts(shards: Sequence[LabelShard]) -> dict[str, Any]:
    """Rows, rows per reason and class, and the standard errors of the equity labels over ``shards``."""
    if sum(len(s) for s in shards) == 0:
        return {"rows": 0}
    reasons = np.concatenate([s.reasons for s in shards])
    classes = np.concatenate([s.classes for s in shards])
    se = np.concatenate([s.equity_se for s in shards]).astype(np.float64)
    raw = np.concatenate([s.raw_equity_se for s in shards]).astype(np.float64)
    plies = np.concatenate([s.mean_plies for s in shards]).astype(np.float64)
    return {
        "rows": int(len(reasons)),
        "by_reason": {r.label: int((reasons == r).sum()) for r in Reason},
        "by_class": {c.value: int((classes == c.gnubg_code).sum()) for c in NET_CLASSES},
        "equity_se": {
            "mean": round(float(np.nanmean(se)), 5),
            "median": round(float(np.nanmedian(se)), 5),
            "max": round(float(np.nanmax(se)), 5),
            "raw_mean": round(float(np.nanmean(raw)), 5),
        },
        "mean_plies_per_trial": round(float(plies.mean()), 2),
    }


@dataclass
class LabelResult:
    """What :func:`label` reports: the folder's shards and rows, and this call's work and speed."""

    out: str
    shards: int
    made: int  # shards written by this call
    rows_made: int
    seconds: float  # wall-clock seconds of this call's labelling
    shard_seconds: float  # the seconds the processes spent making this call's shards, summed
    workers: int
    stopped: bool  # shards were left undone because the time given ran out
    counts: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict, with rows per second of this call: overall, and per process busy labelling (per core)."""
        d = asdict(self)
        d["rows_per_second"] = round(self.rows_made / self.seconds, 4) if self.seconds > 0 else None
        busy = self.shard_seconds
        d["rows_per_core_second"] = round(self.rows_made / busy, 4) if busy > 0 else None
        return d


@dataclass(frozen=True)
class MadeShard:
    """A shard as a process finished it, with the seconds that process spent on it."""

    index: int
    shard: LabelShard
    seconds: float


def timed_shard(ev: Evaluator, cfg: LabelConfig, index: int) -> MadeShard:
    """Make shard ``index`` (:func:`make_shard`), timing it."""
    started = time.perf_counter()
    shard = make_shard(ev, cfg, index)
    return MadeShard(index, shard, time.perf_counter() - started)


_WORKER: tuple[Evaluator, LabelConfig] | None = None


def _worker_init(cfg: LabelConfig) -> None:
    global _WORKER
    _WORKER = (load_evaluator(cfg.weights_file), cfg)


def _worker_shard(index: int) -> MadeShard:
    assert _WORKER is not None
    ev, cfg = _WORKER
    return timed_shard(ev, cfg, index)


def _made_shards(
    cfg: LabelConfig, ev: Evaluator, todo: list[int], workers: int, ray_address: str | None, deadline: float | None
) -> Iterator[MadeShard]:
    """Each shard of ``todo`` as it is finished: here, in worker processes or as Ray tasks.

    No shard is started after ``deadline`` (a ``time.perf_counter`` value; None: none); those started finish.
    """
    waiting = list(reversed(todo))

    def more() -> bool:
        return bool(waiting) and (deadline is None or time.perf_counter() < deadline)

    if ray_address is not None:
        ray = connect_ray(ray_address)

        @ray.remote
        def shard_task(cfg: LabelConfig, index: int) -> MadeShard:
            return timed_shard(load_evaluator(cfg.weights_file), cfg, index)

        width = max(workers, int(ray.cluster_resources().get("CPU", 1)))
        pending: list[Any] = []
        while pending or more():
            while more() and len(pending) < width:
                pending.append(shard_task.remote(cfg, waiting.pop()))
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    elif workers > 1 and len(todo) > 1:
        width = min(workers, len(todo))
        results: queue.SimpleQueue[MadeShard | BaseException] = queue.SimpleQueue()
        with worker_pool(width, _worker_init, (cfg,)) as pool:
            in_flight = 0
            while in_flight or more():
                while more() and in_flight < width:
                    pool.apply_async(_worker_shard, (waiting.pop(),), callback=results.put, error_callback=results.put)
                    in_flight += 1
                try:
                    item = results.get(timeout=1.0)
                except queue.Empty:
                    continue
                in_flight -= 1
                if isinstance(item, BaseException):
                    raise item
                yield item
    else:
        while more():
            yield timed_shard(ev, cfg, waiting.pop())


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        saved = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise JumpgammonError(f"{path}: not a rollout-label manifest ({exc})") from None
    if not isinstance(saved, dict) or saved.get("format") != FORMAT or not isinstance(saved.get("identity"), dict):
        raise JumpgammonError(f"{path}: not a rollout-label manifest (format {FORMAT!r} expected)")
    return saved


def _write_manifest(path: Path, identity: dict[str, Any], shards: int, counts: dict[str, Any]) -> None:
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "perspective": "side on roll, before rolling; probabilities " + ", ".join(OUTPUTS),
        "identity": identity,
        "shards_target": shards,
        "shards_done": counts.pop("shards_done"),
        "counts": counts,
    }
    write_atomic(path, (json.dumps(manifest, indent=1) + "\n").encode())


def label(
    cfg: LabelConfig,
    workers: int = 1,
    ray_address: str | None = None,
    progress: bool = True,
    on_shard: Callable[[int, LabelShard], None] | None = None,
    stop_after: float | None = None,
) -> LabelResult:
    """Write shards ``0 .. cfg.shards - 1`` into ``cfg.out`` (those there are kept); the folder's state after.

    The manifest records the settings and the labelling net's digest (a folder of other settings
    is refused, not mixed) and is rewritten with the counts after every shard. With ``stop_after``
    no shard is started after that many seconds (those started finish; a rerun goes on).
    """
    check_out_folder(cfg.out)
    if workers < 1:
        raise InvalidSpec(f"workers {workers!r}: give at least 1")
    weights = cfg.weights_file
    ev = load_evaluator(weights)  # a file that is not a net fails here, before any game
    identity = cfg.identity(sha256_hex(weights))
    manifest = cfg.out / MANIFEST
    if manifest.is_file():
        saved = _read_manifest(manifest)["identity"]
        saved["weights"] = identity["weights"]  # the same net under another path: the digest decides
        if saved != identity:
            diff = sorted(k for k in set(saved) | set(identity) if saved.get(k) != identity.get(k))
            raise JumpgammonError(f"{cfg.out}: its labels were made with other settings ({', '.join(diff)})")
    cfg.out.mkdir(parents=True, exist_ok=True)
    done = {}
    for index in range(cfg.shards):
        path = shard_path(cfg.out, index)
        remove_stale_temporaries(path)
        if path.is_file():
            done[index] = LabelShard.read(path)
    todo = [i for i in range(cfg.shards) if i not in done]
    _write_manifest(manifest, identity, cfg.shards, {"shards_done": len(done), **_counts(list(done.values()))})
    if stop_after is not None and stop_after < 0:
        raise InvalidSpec(f"stop_after {stop_after!r}: give 0 seconds or more")
    started = time.perf_counter()
    deadline = None if stop_after is None else started + stop_after
    bar = tqdm(total=cfg.shards, initial=len(done), unit="shard", disable=not progress, file=sys.stderr)
    made = rows_made = 0
    busy = 0.0
    try:
        for item in _made_shards(cfg, ev, todo, workers, ray_address, deadline):
            write_atomic(shard_path(cfg.out, item.index), item.shard.to_bytes())
            done[item.index] = item.shard
            made += 1
            rows_made += len(item.shard)
            busy += item.seconds
            _write_manifest(manifest, identity, cfg.shards, {"shards_done": len(done), **_counts(list(done.values()))})
            if on_shard is not None:
                on_shard(item.index, item.shard)
            bar.update(1)
    finally:
        bar.close()
    seconds = time.perf_counter() - started
    return LabelResult(
        out=str(cfg.out),
        shards=len(done),
        made=made,
        rows_made=rows_made,
        seconds=round(seconds, 2),
        shard_seconds=round(busy, 2),
        workers=1 if ray_address is None and (workers <= 1 or len(todo) <= 1) else workers,
        stopped=len(done) < cfg.shards,
        counts=_counts([done[i] for i in sorted(done)]),
    )


def read_labels(out: Path) -> LabelShard:
    """Every shard of a data folder as one (rows in shard order); raises JumpgammonError if it holds none."""
    paths = shard_paths(out)
    if not paths:
        raise JumpgammonError(f"{out}: no rollout-label shards there")
    shards = [LabelShard.read(p) for p in paths]
    return LabelShard(*(np.concatenate([getattr(s, n) for s in shards]) for n in LabelShard.ARRAYS))


def label_groups(data: LabelShard) -> dict[str, np.ndarray]:
    """The row groups errors are reported by: ``all``, each net class, each reason (``reason_NAME``); boolean masks."""
    groups = {"all": np.ones(len(data), bool)}
    groups |= {c.value: np.asarray(data.classes == c.gnubg_code) for c in NET_CLASSES}
    groups |= {f"reason_{r.label}": np.asarray(data.reasons == r) for r in Reason}
    return groups


def equity_errors(data: LabelShard, equity: np.ndarray) -> dict[str, dict[str, float | int]]:
    """Mean absolute error of ``equity`` (each row's cubeless equity, side on roll) against the rollout labels.

    Per group (all rows, each class, each reason): rows, the mean absolute error with its standard
    error (rows taken as independent), the mean signed error (``equity`` minus label) and the
    labels' mean SE. The labels' own noise adds to the error: about their SE squared over twice
    the error, small while the error is well above the SE.
    """
    equity = np.asarray(equity, np.float64)
    if equity.shape != (len(data),):
        raise ValueError(f"equity of shape {equity.shape} for {len(data)} rows")
    diff = equity - data.equity.astype(np.float64)
    out: dict[str, dict[str, float | int]] = {}
    for name, mask in label_groups(data).items():
        n = int(mask.sum())
        if n == 0:
            continue
        a = np.abs(diff[mask])
        out[name] = {
            "rows": n,
            "mae": round(float(a.mean()), 5),
            "mae_se": round(float(a.std(ddof=1) / math.sqrt(n)), 5) if n > 1 else float("nan"),
            "mean_error": round(float(diff[mask].mean()), 5),
            "label_se_mean": round(float(data.equity_se[mask].astype(np.float64).mean()), 5),
        }
    return out
