"""Typed configuration of a self-play TD training run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class TrainConfig:
    """Settings of a batched self-play TD(0) run."""

    games: int = 100_000  # games to finish in this run (on top of a resumed run's)
    parallel_games: int = 512  # games played in lockstep; one gradient step per move of all
    learning_rate: float = 1e-3
    hidden: tuple[int, ...] = (128, 64)
    seed: int = 1
    exploration: float = 0.0  # chance of a random legal move instead of the greedy one
    use_bearoff: bool = True  # exact database values as targets where they apply
    out: Path = field(default_factory=lambda: Path("weights/default.jgw"))
    checkpoint_every: int = 2_000  # games between checkpoints (weights written atomically)
    log: Path | None = None  # JSON-lines progress log
    device: str = "cpu"
    threads: int = 0  # torch threads; 0 keeps torch's default

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (paths as strings)."""
        d = asdict(self)
        d["out"] = str(self.out)
        d["log"] = str(self.log) if self.log else None
        d["hidden"] = list(self.hidden)
        return d
