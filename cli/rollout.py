"""``jumpgammon rollout ID --trials N --plies P``: games played out from a position, with standard errors."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from arena.rollout import (
    DEFAULT_CUBE,
    RolloutConfig,
    RolloutResult,
    RolloutStart,
    build_player,
    read_position_file,
    run_rollouts,
    stratification_warning,
)
from arena.rollout_cube import CubeDecisionRollout, run_cube_decisions
from arena.rollout_plays import PlayRollout, filtered_candidates, named_candidates, run_play_rollout
from cli.common import PLIES, add_json_argument, existing_file, int_range
from cli.tournament import CUBE_SPECS

MAX_TRIALS = 10_000_000


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rollout`` subcommand."""
    p = sub.add_parser(
        "rollout",
        help="roll out a POSITIONID[:MATCHID]: probabilities and equity with standard errors",
        description=(
            "Play trials from the position to the end of the game (or --truncate plies) in lockstep batches; "
            "report the five probabilities and the equity, with standard errors, from the view of the side on "
            "roll. Quasi-random dice stratify the first two rolls; luck adjustment (0-ply) reduces the variance. "
            "Dice in the match ID are played first. Money play only. "
            f"Cube specs: {CUBE_SPECS} (default {DEFAULT_CUBE} with --cubeful)."
        ),
    )
    p.add_argument("id", metavar="POSITIONID[:MATCHID]", nargs="?", default=None)
    p.add_argument("--file", type=existing_file, default=None, help="roll out every ID in FILE (one a line)")
    p.add_argument("--trials", type=int_range(1, MAX_TRIALS), default=1296, help="trials per position (default 1296)")
    p.add_argument("--plies", type=PLIES, default=0, help="depth of the players' move choice, 0-2")
    p.add_argument("--cubeful", action="store_true", help="play with the doubling cube; report the cubeful equity")
    p.add_argument("--cube", default=None, metavar="CUBE", help="both sides' cube strategy (needs --cubeful)")
    p.add_argument(
        "--cube-decision",
        action="store_true",
        help="roll out no double and double/take on the same dice (cubeful; --cube plays the later cube actions)",
    )
    p.add_argument(
        "--plays",
        type=int_range(1, 100),
        default=None,
        metavar="N",
        help="roll out the N best plays of the match ID's dice (by the net at --filter-plies) on the same dice",
    )
    p.add_argument(
        "--moves",
        action="append",
        default=None,
        metavar="MOVE",
        help='roll out this play of the match ID\'s dice, e.g. "24/18 13/11" (repeat for each candidate)',
    )
    p.add_argument("--filter-plies", type=PLIES, default=0, help="depth of the --plays filter, 0-2 (default 0)")
    p.add_argument("--truncate", type=int_range(1, 10_000), default=None, metavar="N", help="stop after N plies")
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=0)
    p.add_argument("--workers", type=int_range(1, 256), default=1, help="processes on this machine")
    p.add_argument(
        "--no-variance-reduction", action="store_true", help="no luck adjustment (faster; larger standard errors)"
    )
    p.add_argument("--weights", type=existing_file, default=None, help="weights file (default: the shipped net)")
    add_json_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Roll out and report; returns 0."""
    if (args.id is None) == (args.file is None):
        raise ValueError("give one POSITIONID[:MATCHID] or --file FILE, not both or neither")
    plays = args.plays is not None or args.moves is not None
    if plays and (args.file is not None or args.cube_decision):
        raise ValueError("--plays and --moves take one POSITIONID:MATCHID with dice, without --file or --cube-decision")
    if args.file is not None:
        starts = read_position_file(Path(args.file).read_text().splitlines(), str(args.file))
    else:
        starts = [RolloutStart.parse(args.id)]
    config = RolloutConfig(
        trials=args.trials,
        plies=args.plies,
        cubeful=args.cubeful or args.cube_decision,
        cube=args.cube,
        truncate=args.truncate,
        seed=args.seed,
        variance_reduction=not args.no_variance_reduction,
        weights=str(args.weights) if args.weights is not None else None,
    )
    note = stratification_warning(args.trials)
    if note is not None:
        print(f"jumpgammon rollout: warning: {note}", file=sys.stderr)
    started = time.perf_counter()
    if args.cube_decision:
        return report_cube_decisions(run_cube_decisions(starts, config, workers=args.workers), started, args)
    if plays:
        if args.moves is not None:
            candidates = named_candidates(starts[0], args.moves)
        else:
            candidates = filtered_candidates(build_player(config)[1], starts[0], args.plays, args.filter_plies)
        return report_plays(run_play_rollout(starts[0], candidates, config, workers=args.workers), started, args)
    results = run_rollouts(starts, config, workers=args.workers)
    seconds = time.perf_counter() - started
    total = sum(r.trials for r in results)
    if args.json:
        timing = {"seconds": round(seconds, 3), "trials_per_second": round(total / seconds, 2) if seconds else None}
        if args.file is None:
            print(json.dumps({**results[0].to_json(), **timing}))
        else:
            print(json.dumps({"rollouts": [r.to_json() for r in results], "trials": total, **timing}))
        return 0
    for r in results:
        print(format_result(r))
        print()
    print(f"{total} trials in {seconds:.1f} s ({total / seconds:.1f} trials/s)")
    return 0


def format_result(r: RolloutResult) -> str:
    """Human-readable rollout of one position, from its side on roll's view."""
    c = r.config
    depth = f"{c.plies}-ply" + (f", truncated after {c.truncate} plies" if c.truncate else "")
    reduction = "luck-adjusted (0-ply)" if c.variance_reduction else "no variance reduction"
    lines = [
        f"Rollout of {r.start.text} for the side on roll: {r.trials} trials, {depth}, seed {c.seed}, {reduction}",
        "            Win      W(g)     W(bg)    L(g)     L(bg)    Equity",
        _row("estimate", r.estimate.probabilities, r.estimate.equity, "+"),
    ]
    if r.estimate.standard_errors is not None and r.estimate.equity_se is not None:
        lines.append(_row("SE", r.estimate.standard_errors, r.estimate.equity_se, ""))
        if c.variance_reduction and r.raw.standard_errors is not None and r.raw.equity_se is not None:
            lines.append(_row("raw", r.raw.probabilities, r.raw.equity, "+"))
            lines.append(_row("raw SE", r.raw.standard_errors, r.raw.equity_se, ""))
    if c.cubeful and r.estimate.cubeful_equity is not None:
        se = r.estimate.cubeful_equity_se
        raw_se = r.raw.cubeful_equity_se
        a = r.cube_actions()
        lines.append(
            f"Cubeful equity ({c.cube_spec}): {r.estimate.cubeful_equity:+.4f}"
            + (f", SE {se:.4f}" if se is not None else "")
            + (f" (raw SE {raw_se:.4f})" if c.variance_reduction and raw_se is not None else "")
            + f"; {a['doubles']} doubles, {a['takes']} takes, {a['passes']} passes"
        )
    return "\n".join(lines)


def _row(label: str, values: np.ndarray, equity: float, sign: str) -> str:
    cells = "".join(f"{float(v):<9.4f}" for v in values)
    return f"  {label:<9} {cells}{equity:{sign}.4f}"


def _timing(trials: int, started: float) -> dict[str, float | None]:
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 3), "trials_per_second": round(trials / seconds, 2) if seconds else None}


def report_cube_decisions(decisions: list[CubeDecisionRollout], started: float, args: argparse.Namespace) -> int:
    """Print the cube-decision rollouts (JSON or text); returns 0. Trials count both branches."""
    total = sum(2 * d.trials for d in decisions)
    timing = _timing(total, started)
    if args.json:
        rollouts = [{**d.no_double.to_json(), "cube_decision": d.to_json()} for d in decisions]
        if args.file is None:
            print(json.dumps({**rollouts[0], **timing}))
        else:
            print(json.dumps({"rollouts": rollouts, "trials": total, **timing}))
        return 0
    for d in decisions:
        print(format_cube_decision(d))
        print()
    print(f"{total} trials (both branches) in {timing['seconds']:.1f} s ({timing['trials_per_second']} trials/s)")
    return 0


def format_cube_decision(d: CubeDecisionRollout) -> str:
    """Human-readable cube-decision rollout, from the doubler's view, in points per initial cube."""
    r, c = d.no_double, d.config
    depth = f"{c.plies}-ply" + (f", truncated after {c.truncate} plies" if c.truncate else "")
    reduction = "luck-adjusted (0-ply)" if c.variance_reduction else "no variance reduction"
    nd, dt, dp = d.figures
    margin, take = d.margin, d.take_margin

    def se(value: float | None) -> str:
        return "" if value is None else f"  SE {value:.4f}"

    lines = [
        f"Cube decision rollout of {d.start.text} for the side on roll: {d.trials} trials a branch, {depth}, "
        f"seed {c.seed}, {reduction}, later cube actions by {c.cube_spec}",
        "  cubeless   Win      W(g)     W(bg)    L(g)     L(bg)    Equity",
        _row("estimate", r.estimate.probabilities, r.estimate.equity, "+"),
        f"  No double     {nd.value:+.4f}{se(nd.se)}",
        f"  Double/take   {dt.value:+.4f}{se(dt.se)}",
        f"  Double/pass   {dp:+.4f}",
        f"Proper cube action: {d.action}",
        f"  double minus no double {margin.value:+.4f}{se(margin.se)} (paired);"
        f" pass minus take {take.value:+.4f}{se(take.se)}",
    ]
    return "\n".join(lines)


def report_plays(rollout: PlayRollout, started: float, args: argparse.Namespace) -> int:
    """Print the candidate plays best first (JSON or text); returns 0."""
    total = rollout.trials * len(rollout.candidates)
    timing = _timing(total, started)
    if args.json:
        print(json.dumps({**rollout.to_json(), **timing}))
        return 0
    print(format_plays(rollout))
    print()
    print(f"{total} trials in {timing['seconds']:.1f} s ({timing['trials_per_second']} trials/s)")
    return 0


def format_plays(rollout: PlayRollout) -> str:
    """Human-readable ranking of the rolled-out plays, from the mover's view."""
    c, start = rollout.config, rollout.start
    depth = f"{c.plies}-ply" + (f", truncated after {c.truncate} plies" if c.truncate else "")
    kind = f"cubeful ({c.cube_spec})" if c.cubeful else "cubeless"
    dice = f"{start.dice[0]}-{start.dice[1]}" if start.dice else "?"
    lines = [
        f"Plays of {dice} in {start.text} rolled out for the mover: {rollout.trials} trials each on the same dice, "
        f"{depth}, seed {c.seed}, {kind} equity",
        f"     {'Move':<24} Equity    SE       Diff      paired SE",
    ]
    for k, p in enumerate(rollout.ranked(), 1):
        se = "" if p.equity.se is None else f"{p.equity.se:.4f}"
        dse = "" if p.difference.se is None else f"{p.difference.se:.4f}"
        lines.append(f"  {k:>2}. {p.move:<24} {p.equity.value:+.4f}   {se:<8} {p.difference.value:+.4f}   {dse}")
    return "\n".join(lines)
