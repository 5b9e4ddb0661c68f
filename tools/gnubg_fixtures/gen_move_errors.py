"""Generate benchmarks/data/move_errors.npz: checker-play decisions from gnubg's games, every play scored at 2-ply.

Run from the repository root with the ``gnubg`` package installed (``pip install -e ".[gnubg]"``):

    OMP_NUM_THREADS=1 python tools/gnubg_fixtures/gen_move_errors.py [--per-class 3000] [--games 3000]

Decisions come from seeded games of the in-process gnubg at 0-ply against itself (cubeless money,
``players.gnubg_player.GnubgPlayer``): every turn whose roll leaves more than one distinct resulting
position (this project's move generator, ``engine.batch.children_batch``), each (position, roll)
kept once. Each decision gets gnubg's position class (``gnubg.classify`` of the position before the
move: 10 contact, 9 crashed, 8 race; the bear-off database classes are left out). Up to
``--per-class`` decisions of each class are drawn at random across all games and, for every
resulting position, the package's cubeless equity is recorded at 2-ply and at 0-ply (evalcontext
deterministic, pruning on, no noise; money, centred cube), both from the mover's view (minus
gnubg's equity of the child, which the opponent is on roll in). A child in which the mover has
borne off its last checker is scored exactly (1, 2 or 3) instead of asking gnubg.

The file is written (atomically) every ``--save-every`` decisions, classes interleaved, so a run cut
short leaves a usable set; rerunning the same command resumes it. ``--subset`` also writes the first
few decisions of each class to ``tests/fixtures/move_errors_subset.npz`` for the tests.

Arrays (``benchmarks.move_error.MoveErrorSet`` reads them): ``position_ids`` (S14, the decision
with the mover on roll), ``dice`` (int8 (n, 2)), ``gnubg_class`` (int8), ``offsets`` (int64 (n + 1)),
``child_ids`` (S14, each resulting position with the opponent on roll), ``equity2`` and ``equity0``
(float32, mover's cubeless equity of each child at gnubg 2-ply and 0-ply), ``meta`` (a JSON string).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = os.getcwd()
sys.path.insert(0, REPO_ROOT)

import gnubg  # noqa: E402

from engine.batch import children_batch  # noqa: E402
from engine.ids import position_id_from_board  # noqa: E402
from engine.position import Position  # noqa: E402
from nets.evaluator import game_over_probabilities  # noqa: E402
from nets.mlp import cubeless_equity  # noqa: E402
from nets.weights import write_atomic  # noqa: E402
from players.cube import parse_cube_spec  # noqa: E402
from players.gnubg_binding import CENTRED, ON_ROLL, gnubg_boards  # noqa: E402
from players.gnubg_player import make_gnubg_player  # noqa: E402

SEED = 20261123
OUT = Path(REPO_ROOT) / "benchmarks" / "data" / "move_errors.npz"
SUBSET = Path(REPO_ROOT) / "tests" / "fixtures" / "move_errors_subset.npz"
SUBSET_PER_CLASS = 8
#: gnubg's position classes (eval.h ``positionclass``) kept for the benchmark.
CLASSES = {10: "contact", 9: "crashed", 8: "race"}


def selfplay_decisions(games: int, seed: int) -> list[tuple[np.ndarray, tuple[int, int], int]]:
    """(board, roll, gnubg class) of each distinct decision with more than one play in gnubg@0's self-play games."""
    player = make_gnubg_player(0, parse_cube_spec("none"))
    rng = np.random.default_rng(seed)
    seen: set[tuple[str, int, int]] = set()
    out: list[tuple[np.ndarray, tuple[int, int], int]] = []
    for game in range(games):
        board = Position.initial().array.copy()
        first = True
        while True:
            a, b = (int(v) for v in rng.integers(1, 7, size=2))
            while first and a == b:
                a, b = (int(v) for v in rng.integers(1, 7, size=2))
            first = False
            kids, _ = children_batch(board[None], np.array([[a, b]]))
            if len(kids) > 1:
                key = (position_id_from_board(board), max(a, b), min(a, b))
                if key not in seen:
                    seen.add(key)
                    cls = int(gnubg.classify(gnubg_boards(board[None])[0]))
                    if cls in CLASSES:
                        out.append((board.copy(), (max(a, b), min(a, b)), cls))
            child = player.choose_moves(board[None], np.array([[a, b]]))[0]
            if not (child < 0).any():  # the mover has borne off its last checker
                break
            board = child
        if (game + 1) % 200 == 0:
            print(f"  {game + 1} games, {len(out)} decisions", file=sys.stderr, flush=True)
    return out


def mover_equities(kids: np.ndarray, context: object) -> np.ndarray:
    """gnubg's cubeless equity of each child for the side that just moved (exact for finished games)."""
    cube_info = gnubg.cubeinfo(1, CENTRED, ON_ROLL, 0, (0, 0), 0)
    out = np.empty(len(kids))
    finished = ~(kids < 0).any(axis=1)
    if finished.any():
        out[finished] = -cubeless_equity(game_over_probabilities(kids[finished]))
    for i in np.flatnonzero(~finished):
        out[i] = -gnubg.evaluate(gnubg_boards(kids[i : i + 1])[0], cube_info, context)[5]
    return out


def interleaved(decisions: list[tuple[np.ndarray, tuple[int, int], int]], per_class: int, seed: int) -> list[int]:
    """Indices of up to ``per_class`` random decisions of each class, the classes taken in turn."""
    rng = np.random.default_rng(seed)
    by_class = {c: [i for i, d in enumerate(decisions) if d[2] == c] for c in CLASSES}
    picks = {c: list(rng.permutation(v)[:per_class]) for c, v in by_class.items()}
    order: list[int] = []
    for k in range(per_class):
        order += [int(picks[c][k]) for c in CLASSES if k < len(picks[c])]
    return order


@dataclass
class Scored:
    """One decision with every play's resulting position and the mover's equities at gnubg 2-ply and 0-ply."""

    position_id: str
    dice: tuple[int, int]
    gnubg_class: int
    child_ids: list[str]
    equity2: np.ndarray
    equity0: np.ndarray


def to_npz(rows: list[Scored], meta: dict[str, object]) -> bytes:
    """The compressed npz of the scored decisions ``rows``."""
    arrays: dict[str, Any] = {
        "position_ids": np.array([r.position_id for r in rows], dtype="S14"),
        "dice": np.array([r.dice for r in rows], dtype=np.int8).reshape(-1, 2),
        "gnubg_class": np.array([r.gnubg_class for r in rows], dtype=np.int8),
        "offsets": np.concatenate([[0], np.cumsum([len(r.child_ids) for r in rows])]).astype(np.int64),
        "child_ids": np.array([c for r in rows for c in r.child_ids], dtype="S14"),
        "equity2": np.concatenate([r.equity2 for r in rows] or [np.zeros(0)]).astype(np.float32),
        "equity0": np.concatenate([r.equity0 for r in rows] or [np.zeros(0)]).astype(np.float32),
        "meta": np.array(json.dumps(meta)),
    }
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def rows_from_npz(path: Path) -> list[Scored]:
    """The scored decisions of an earlier run's file (to resume it)."""
    with np.load(path) as z:
        off = z["offsets"]
        return [
            Scored(
                position_id=z["position_ids"][i].decode(),
                dice=(int(z["dice"][i, 0]), int(z["dice"][i, 1])),
                gnubg_class=int(z["gnubg_class"][i]),
                child_ids=[c.decode() for c in z["child_ids"][off[i] : off[i + 1]]],
                equity2=z["equity2"][off[i] : off[i + 1]].astype(np.float64),
                equity0=z["equity0"][off[i] : off[i + 1]].astype(np.float64),
            )
            for i in range(len(off) - 1)
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="gnubg@0 self-play games supplying the decisions")
    parser.add_argument("--per-class", type=int, default=3000, help="decisions of each gnubg class at most")
    parser.add_argument("--save-every", type=int, default=150)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--subset", action="store_true", help=f"also write {SUBSET_PER_CLASS} decisions a class")
    args = parser.parse_args()
    meta = {
        "source": "gnubg Python package " + str(gnubg.version) + ", in-process 0-ply self-play, money, cubeless",
        "seed": SEED,
        "games": args.games,
        "per_class": args.per_class,
        "classes": {str(k): v for k, v in CLASSES.items()},
        "equity": "mover's cubeless money equity of each child: gnubg 2-ply (equity2) and 0-ply (equity0)",
        "evalcontext": "deterministic, pruning on, no noise",
    }
    t0 = time.perf_counter()
    decisions = selfplay_decisions(args.games, SEED)
    counts = {CLASSES[c]: sum(d[2] == c for d in decisions) for c in CLASSES}
    print(f"{len(decisions)} decisions from {args.games} games in {time.perf_counter() - t0:.0f} s: {counts}")
    meta["available"] = counts
    order = interleaved(decisions, args.per_class, SEED + 1)
    rows = rows_from_npz(args.out) if args.out.is_file() else []
    for k, (row, index) in enumerate(zip(rows, order, strict=False)):
        board, dice, _ = decisions[index]
        if row.position_id != position_id_from_board(board) or row.dice != dice:
            raise SystemExit(f"{args.out} does not continue this run's decisions (row {k}); remove it")
    print(f"resuming at {len(rows)} of {len(order)} decisions", file=sys.stderr)
    ctx2 = gnubg.evalcontext(0, 2, 1, 1, 0.0)
    ctx0 = gnubg.evalcontext(0, 0, 1, 1, 0.0)
    t0, start = time.perf_counter(), len(rows)
    for k in range(start, len(order)):
        board, dice, cls = decisions[order[k]]
        kids, _ = children_batch(board[None], np.array([dice]))
        rows.append(
            Scored(
                position_id_from_board(board),
                dice,
                cls,
                [position_id_from_board(c) for c in kids],
                mover_equities(kids, ctx2),
                mover_equities(kids, ctx0),
            )
        )
        if (k + 1) % args.save_every == 0 or k + 1 == len(order):
            meta["decisions"] = len(rows)
            write_atomic(args.out, to_npz(rows, meta))
            rate = (k + 1 - start) / (time.perf_counter() - t0)
            print(f"  {len(rows)} / {len(order)} decisions scored ({rate:.2f}/s)", file=sys.stderr, flush=True)
    if args.subset:
        picked = [r for c in CLASSES for r in [r for r in rows if r.gnubg_class == c][:SUBSET_PER_CLASS]]
        write_atomic(SUBSET, to_npz(picked, {**meta, "subset_of": str(args.out.name), "decisions": len(picked)}))


if __name__ == "__main__":
    main()
