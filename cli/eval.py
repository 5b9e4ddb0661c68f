"""``jumpgammon eval ID``: probabilities, equity, jump volatility, cube actions, ranked moves."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.common import add_evaluation_arguments
from engine import board_text, parse_id_pair
from nets import load_evaluator
from nets.analysis import analyse, format_moves


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``eval`` subcommand."""
    p = sub.add_parser("eval", help="evaluate a POSITIONID[:MATCHID] for the side on roll")
    add_evaluation_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print; returns 0."""
    position, match = parse_id_pair(args.id)
    ev = load_evaluator(args.weights)
    result = analyse(ev, position, match, args.plies)
    if args.json:
        print(json.dumps(result))
        return 0
    print(board_text(position, match))
    print()
    print(format_analysis(result))
    return 0


def format_analysis(r: dict[str, Any]) -> str:
    """Human-readable report of :func:`nets.analysis.analyse`."""
    p = r["probabilities"]
    v = r["jump_volatility"]
    lines = [
        f"{r['plies']}-ply evaluation for the side on roll:",
        "        Win     W(g)    W(bg)   L(g)    L(bg)",
        f"        {p['win']:.3f}   {p['win_gammon']:.3f}   {p['win_backgammon']:.3f}   "
        f"{p['lose_gammon']:.3f}   {p['lose_backgammon']:.3f}",
        f"Cubeless equity: {r['cubeless_equity']:+.3f}",
        f"Local jump volatility (441 rolls): P_a {v['p_average']:.3f}  sigma_J {v['sigma']:.4f}  "
        f"E|jump| {v['mean_abs_jump']:.4f}  "
        f"(equity: sigma {v['equity_sigma']:.4f}, E|jump| {v['equity_mean_abs_jump']:.4f})",
    ]
    cube = r.get("cube", {})
    if "models" in cube:
        lines.append(f"Cube ({cube['state']}):")
        for name, d in cube["models"].items():
            lines.append(
                f"  {name}: no double {d['no_double']:+.3f}, double/take {d['double_take']:+.3f}, "
                f"double/pass {d['double_pass']:+.3f}  ->  {d['action']}"
            )
    elif cube:
        lines.append(f"Cube ({cube['state']}): {cube['note']}")
    if "moves" in r:
        lines.append("")
        lines.append(format_moves(r["moves"]))
    return "\n".join(lines)
