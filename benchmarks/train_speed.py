"""``jumpgammon bench train``: the whole ``jumpgammon train`` command's games per second beside gnubg's self-play.

The training run is the command itself in a fresh process (imports, bearoff databases, numba's
cached kernels, checkpoints and the final write included) into a temporary run file, timed by
the wall clock; its own ``seconds`` (the time inside the training loop) comes back as well.
GNU Backgammon's rate is its 0-ply self-play with ``findbestmove`` in a plain loop
(:func:`benchmarks.arena_speed.gnubg_selfplay_rate`), measured in the same run, half before and
half after the training so that a drifting machine weighs on both. Figures, never thresholds.

With ``profile``, py-spy samples the training process and :func:`profile_breakdown` sorts each
sample of its main thread into a part of the work by the innermost frame it recognises.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.arena_speed import gnubg_selfplay_rate
from engine.errors import JumpgammonError

#: (part of the work, frame text marking it), innermost match wins; compilation and imports are checked first.
OUTER_PARTS = (
    ("numba compilation", "numba/core/dispatcher.py"),
    ("imports", "importlib._bootstrap"),
    ("bearoff databases (load)", "load_databases ("),
    ("checkpoints", "save_checkpoint ("),
)
INNER_PARTS = (
    ("move generation", "children_batch ("),
    ("encoding", "encode (nets/encoding.py"),
    ("backprop", "Tensor.backward ("),
    ("Adam step", "torch/optim/"),
    ("learning: forward and loss", "_learn (training/td.py"),
    ("evaluation of the children (forward)", "Evaluator.evaluate_boards ("),
    ("choosing the move (argmax, exploration)", "segment_argmax ("),
    ("bookkeeping in the loop (phases, targets, progress)", "train (training/td.py"),
)
OTHER = "other (start-up, exit)"


def profile_breakdown(collapsed: str) -> dict[str, float]:
    """Share of the main thread's samples in each part of the work, from py-spy's raw (collapsed) output.

    Each line is ``frame;frame;... count``, outermost first; stacks of other threads (tqdm's
    monitor) are left out. Returns shares summing to 1 (an empty profile gives an empty dict).
    """
    counts: Counter[str] = Counter()
    for line in collapsed.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit() or stack.startswith("_bootstrap (threading.py"):
            continue
        frames = stack.split(";")
        part = next((name for name, mark in OUTER_PARTS if any(mark in f for f in frames)), None)
        if part is None:
            part = next(
                (name for f in reversed(frames) for name, mark in INNER_PARTS if mark in f),
                OTHER,
            )
        counts[part] += int(count)
    total = sum(counts.values())
    return {part: n / total for part, n in counts.most_common()} if total else {}


def train_command(out: Path, games: int, seed: int, parallel: int) -> list[str]:
    """The ``jumpgammon train`` command line (this interpreter, ``-m cli.main``) of a fresh run into ``out``."""
    return [
        sys.executable,
        "-m",
        "cli.main",
        "train",
        "--out",
        str(out),
        "--games",
        str(games),
        "--seed",
        str(seed),
        "--parallel",
        str(parallel),
        "--json",
    ]


@dataclass(frozen=True)
class TrainRun:
    """The timed ``jumpgammon train`` command: its games, wall-clock and training-loop seconds and rates."""

    games: int
    positions: int
    parallel: int
    wall_seconds: float
    loop_seconds: float
    games_per_second: float
    loop_games_per_second: float | None
    profiled: bool


@dataclass(frozen=True)
class GnubgSelfplay:
    """gnubg's 0-ply self-play timed in the same run, half before and half after the training."""

    games: int
    seconds: float
    games_per_second: float
    before_training_games_per_second: float
    after_training_games_per_second: float


@dataclass(frozen=True)
class TrainSpeed:
    """``bench train``: the train command's rate beside gnubg's; ``profile`` (part -> share) when profiled."""

    benchmark: ClassVar[str] = "train"
    train: TrainRun
    gnubg_0ply_selfplay: GnubgSelfplay
    train_over_gnubg: float
    omp_num_threads: str | None
    profile: dict[str, float] | None = None

    def to_json(self) -> dict[str, Any]:
        """The figures as ``bench train --json`` prints them (``profile`` only when profiled)."""
        out = {"benchmark": self.benchmark, **asdict(self)}
        if self.profile is None:
            del out["profile"]
        return out


def bench_train(
    games: int = 20_000, gnubg_games: int = 2_000, seed: int = 1, parallel: int = 512, profile: bool = False
) -> TrainSpeed:
    """Games per second of the whole train command and of gnubg's 0-ply self-play in the same run, and their ratio.

    With ``profile`` the training runs under py-spy (100 samples a second), which slows it a little.
    """
    py_spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if profile and py_spy is None:
        raise JumpgammonError("--profile needs py-spy on PATH (pip install py-spy)")
    gnubg_selfplay_rate(4, seed + 1)  # warm gnubg's caches and nets
    before = gnubg_selfplay_rate(max(1, gnubg_games // 2), seed)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = train_command(Path(tmp) / "bench.jgw", games, seed, parallel)
        raw = Path(tmp) / "profile.txt"
        if profile:
            assert py_spy is not None
            cmd = [py_spy, "record", "-r", "100", "--format", "raw", "-o", str(raw), "--", *cmd]
        start = time.perf_counter()
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise JumpgammonError(f"the training command failed with exit code {done.returncode}")
        # py-spy writes its own lines to stdout too: the command's reply is its one JSON line.
        reply = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("{")))
        breakdown = profile_breakdown(raw.read_text()) if profile and raw.is_file() else None
    after = gnubg_selfplay_rate(max(1, gnubg_games - gnubg_games // 2), seed + 2)
    gnubg_seconds = before.seconds + after.seconds
    gnubg_rate = (before.games + after.games) / gnubg_seconds
    return TrainSpeed(
        train=TrainRun(
            games=reply["games"],
            positions=reply["positions"],
            parallel=parallel,
            wall_seconds=round(wall, 1),
            loop_seconds=reply["seconds"],
            games_per_second=reply["games"] / wall,
            loop_games_per_second=reply["games"] / reply["seconds"] if reply["seconds"] else None,
            profiled=profile,
        ),
        gnubg_0ply_selfplay=GnubgSelfplay(
            games=before.games + after.games,
            seconds=round(gnubg_seconds, 2),
            games_per_second=gnubg_rate,
            before_training_games_per_second=before.games_per_second,
            after_training_games_per_second=after.games_per_second,
        ),
        train_over_gnubg=reply["games"] / wall / gnubg_rate,
        omp_num_threads=os.environ.get("OMP_NUM_THREADS"),
        profile=breakdown,
    )
