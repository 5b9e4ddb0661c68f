"""``jumpgammon train``: batched self-play TD training, resumable from its weights file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from training.config import TrainConfig
from training.td import train


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train`` subcommand."""
    d = TrainConfig()
    p = sub.add_parser("train", help="self-play TD training (resumes from --out if it exists)")
    p.add_argument("--games", type=int, default=d.games, help="games to play in this run")
    p.add_argument("--parallel", type=int, default=d.parallel_games, help="games played in lockstep")
    p.add_argument("--lr", type=float, default=d.learning_rate, help="Adam learning rate")
    p.add_argument("--hidden", type=str, default=",".join(map(str, d.hidden)), help="hidden widths, e.g. 128,64")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--exploration", type=float, default=d.exploration)
    p.add_argument("--no-bearoff", action="store_true", help="do not use the bearoff databases")
    p.add_argument("--out", type=Path, default=d.out, help="weights file (resumed when present)")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every)
    p.add_argument("--log", type=Path, default=None, help="JSON-lines progress log")
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train and report the final state; returns 0."""
    cfg = TrainConfig(
        games=args.games,
        parallel_games=args.parallel,
        learning_rate=args.lr,
        hidden=tuple(int(h) for h in args.hidden.split(",")),
        seed=args.seed,
        exploration=args.exploration,
        use_bearoff=not args.no_bearoff,
        out=args.out,
        checkpoint_every=args.checkpoint_every,
        log=args.log,
        device=args.device,
        threads=args.threads,
    )
    state = train(cfg, progress=not args.json)
    result = {
        "games": state.games,
        "positions": state.positions,
        "seconds": round(state.seconds, 1),
        "weights": str(cfg.out),
    }
    print(json.dumps(result) if args.json else f"trained {state.games:,} games in total; weights in {cfg.out}")
    return 0
