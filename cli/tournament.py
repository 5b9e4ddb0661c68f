"""``jumpgammon tournament A B``: cubeless money games in lockstep with mirrored dice; ppg and SE."""

from __future__ import annotations

import argparse
import json

from benchmarks.pubeval import PubevalPolicy
from benchmarks.tournament import BatchPolicy, EvaluatorPolicy, play_tournament
from cli.common import add_json_argument, int_range


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tournament`` subcommand."""
    p = sub.add_parser("tournament", help="bot-vs-bot points per game with standard error")
    p.add_argument("a", help="player A: 'jumpgammon', 'pubeval' or a weights file path")
    p.add_argument("b", help="player B: same choices")
    p.add_argument(
        "--pairs", type=int_range(2, 10_000_000), default=1000, help="dice sequences, each played with both seatings"
    )
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=0)
    add_json_argument(p)
    p.set_defaults(func=run)


def make_policy(spec: str) -> BatchPolicy:
    """A batch player from its name or a weights path."""
    if spec == "pubeval":
        return PubevalPolicy()
    from nets import load_evaluator

    if spec == "jumpgammon":
        return EvaluatorPolicy(load_evaluator())
    return EvaluatorPolicy(load_evaluator(spec), name=f"jumpgammon[{spec}]")


def run(args: argparse.Namespace) -> int:
    """Play and report A's points per game; returns 0."""
    result = play_tournament(make_policy(args.a), make_policy(args.b), args.pairs, args.seed, progress=True)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        r = result
        print(f"{r.player_a} vs {r.player_b}: {r.ppg:+.3f} ppg +- {r.se:.3f} (1 SE) over {r.games} games")
        print(
            f"  A wins {r.wins_a} ({r.gammons_a} gammons, {r.backgammons_a} backgammons); "
            f"B gammons {r.gammons_b}, backgammons {r.backgammons_b}"
        )
    return 0
