"""Typed configuration of a self-play TD training run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from nets.encoding import Encoding
from players.cube import CubeSpec

DEFAULT_HIDDEN = (128, 64)


#: The learning rate of a run started from trained nets when none is given: Adam's first steps move every weight
#: by about the rate, and 1e-3 moved a converged net's equities by 0.058 on average in two games (3e-5: 0.0025).
CONTINUE_LEARNING_RATE = 3e-5
#: A new run's learning rate from random nets when none is given.
FRESH_LEARNING_RATE = 1e-3


DEFAULT_PARALLEL_GAMES = 512


@dataclass
class TrainConfig:
    """Settings of a batched self-play TD(0) run; ``out`` is the run's checkpoint file."""

    out: Path  # the run's weights and state; resumed when it exists; never the shipped weights/
    games: int = 100_000  # the run's target in total: a resumed run stops when it has played this many
    #: Games played in lockstep (one gradient step per move of all); None: a resumed run's games in flight, else
    #: DEFAULT_PARALLEL_GAMES.
    parallel_games: int | None = None
    #: None: the run's own on resume; for a new run 1e-3, or CONTINUE_LEARNING_RATE from ``start``'s trained nets
    learning_rate: float | None = None
    hidden: tuple[int, ...] | None = None  # None: the run's own on resume, else DEFAULT_HIDDEN
    start: Path | None = None  # a new run's initial nets (a weights file); None: random nets of ``hidden``
    seed: int | None = None  # None: the run's own on resume, else 1
    exploration: float = 0.0  # chance of a random legal move instead of the greedy one
    use_bearoff: bool = True  # exact database values as targets where they apply
    checkpoint_every: int = 2_000  # games between checkpoints (one atomic write of nets and state)
    log: Path | None = None  # JSON-lines progress log
    device: str = "cpu"
    threads: int = 1  # torch threads (0 keeps torch's default): one is 2.6x faster on a shared 2-core machine
    # cubeful self-play: spec A and spec B (or one for both seats); () cubeless; None: the run's own on resume
    cube: tuple[CubeSpec, ...] | None = None
    encoding: Encoding | None = None  # the nets' inputs; None: the run's own on resume, else the start's, else v1
    crashed_net: bool = False  # a new run also trains a crashed net (started as a copy of the contact net)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (paths as strings)."""
        d = asdict(replace(self, cube=None))
        d["cube"] = [spec.text for spec in self.cube] if self.cube is not None else None
        d["out"] = str(self.out)
        d["log"] = str(self.log) if self.log else None
        d["start"] = str(self.start) if self.start is not None else None
        d["hidden"] = list(self.hidden) if self.hidden is not None else None
        d["encoding"] = self.encoding.value if self.encoding is not None else None
        return d
