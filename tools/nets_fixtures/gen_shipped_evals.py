"""Record the shipped net's 0-ply evaluations and the v1 encoding of fixed positions, to pin them bit for bit.

usage: python -m tools.nets_fixtures.gen_shipped_evals

Writes ``tests/fixtures/shipped_net_evals.npz``: the boards (int8, side on roll), the evaluator's
float64 probabilities for them with the bearoff databases, the SHA-256 of the float32 v1 encodings
of the same boards, and the digest of ``weights/default.jgw`` they were made with. The positions are
those met in seeded random games (every phase) and the decisions of the move-error set (gnubg's
contact, crashed and race classes). A test asserts that today's code gives exactly these numbers,
so a change to the encoding or the routing that moves an old net's output by one bit fails.
Rerun only when the shipped net itself is replaced.
"""

from __future__ import annotations

import hashlib
import io
import sys
from pathlib import Path

import numpy as np

from benchmarks.move_error import MoveErrorSet
from benchmarks.positions import random_game_positions
from nets.encoding import encode
from nets.evaluator import load_evaluator
from nets.weights import weights_digest, write_atomic
from weights import DEFAULT_WEIGHTS

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "shipped_net_evals.npz"


def main() -> int:
    """Write the fixture; returns the exit code."""
    games, _ = random_game_positions(40, seed=7)
    rng = np.random.default_rng(7)
    games = games[np.sort(rng.choice(len(games), size=min(1500, len(games)), replace=False))]
    decisions = MoveErrorSet.load().boards()
    decisions = decisions[np.sort(rng.choice(len(decisions), size=1500, replace=False))]
    boards = np.concatenate([games, decisions]).astype(np.int8)
    probabilities = load_evaluator().evaluate_boards(boards)
    encoded = encode(boards)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        boards=boards,
        probabilities=probabilities,
        encoding_sha256=np.array(hashlib.sha256(encoded.tobytes()).hexdigest()),
        weights_digest=np.array(weights_digest(DEFAULT_WEIGHTS)),
    )
    write_atomic(OUT, buffer.getvalue())
    print(f"wrote {OUT}: {len(boards)} positions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
