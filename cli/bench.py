"""``jumpgammon bench WHAT``: speed figures (move generation; evaluation once nets land)."""

from __future__ import annotations

import argparse
import json

from benchmarks.speed import bench_movegen


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    p = sub.add_parser("bench", help="speed benchmarks")
    p.add_argument("what", choices=["movegen"], help="what to measure")
    p.add_argument("--games", type=int, default=200, help="seeded games supplying the positions")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats; the best is reported")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures; returns 0."""
    result = bench_movegen(args.games, args.repeats)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"move generation over {result['positions']:,} (position, roll) pairs from {args.games} seeded games")
        print(f"  distinct children:        {result['children']:,}")
        print(f"  children / second:        {result['children_per_second']:,.0f}")
        print(f"  batched, flipped / second:{result['children_per_second_batched_flipped']:,.0f}")
        print(f"  pairs / second:           {result['pairs_per_second']:,.0f}")
    return 0
