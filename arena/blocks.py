"""What money blocks (:class:`arena.games.BlockResult`) and match blocks share: seats and saved lines.

Both hold mirrored pairs in order (game or match ``2j`` and ``2j + 1`` are pair ``first_pair + j``),
with player A's seat, per-seat counters indexed ``[row, seat]`` and per-player cube counts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from nets.weights import write_atomic


class PairBlock(Protocol):
    """A finished block of mirrored pairs of games or matches."""

    @property
    def first_pair(self) -> int: ...

    @property
    def seat_of_a(self) -> np.ndarray: ...

    @property
    def winner(self) -> np.ndarray: ...

    @property
    def records(self) -> Sequence[object] | None: ...

    @property
    def evaluations(self) -> np.ndarray: ...

    @property
    def lookaheads(self) -> np.ndarray: ...


class CubeCounts(Protocol):
    """A player's tally with the cube evaluation counts."""

    cube_evaluations: int
    lookaheads: int


BlockT = TypeVar("BlockT", bound=PairBlock)


def add_seat_counts(
    stats: CubeCounts, block: PairBlock, seat: np.ndarray, a_side: bool, counters: Iterable[str]
) -> None:
    """Add to ``stats`` the block's per-seat ``counters`` at ``seat`` (one per row) and A's or B's cube counts.

    ``seat`` is the seat of the player counted (A with ``a_side``, else B) in each game or match.
    """
    rows = np.arange(len(seat))
    for name in counters:
        setattr(stats, name, getattr(stats, name) + int(getattr(block, name)[rows, seat].sum()))
    player = 0 if a_side else 1
    stats.cube_evaluations += int(block.evaluations[player])
    stats.lookaheads += int(block.lookaheads[player])


def save_block_lines(
    path: Path,
    tournament: dict[str, Any],
    names: tuple[str, str],
    blocks: Sequence[BlockT],
    details: Callable[[BlockT, int, object], dict[str, object]],
) -> None:
    """Write ``tournament`` as the first JSON line, then a line per recorded game or match, atomically.

    Each line holds the pair, A's seat, the players in seat order, then ``details(block, row, record)``.
    """
    lines = [json.dumps({"tournament": tournament})]
    for block in blocks:
        assert block.records is not None
        for j, record in enumerate(block.records):
            seat_a = int(block.seat_of_a[j])
            line: dict[str, object] = {
                "pair": block.first_pair + j // 2,
                "seat_of_a": seat_a,
                "players": list(names)[:: 1 if seat_a == 0 else -1],
            }
            lines.append(json.dumps(line | details(block, j, record)))
    write_atomic(path, ("\n".join(lines) + "\n").encode())
