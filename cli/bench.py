"""``jumpgammon bench WHAT``: speed figures (move generation, evaluation, arena, training); accuracy against gnubg."""

from __future__ import annotations

import argparse
import datetime
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.speed import bench_eval, bench_movegen
from cli.common import (
    PLIES,
    add_json_argument,
    existing_file,
    fill_defaults,
    given_options,
    int_range,
    path_arg,
    torch_device,
)
from nets.weights import write_atomic
from players.specs import weights_identity
from weights import DEFAULT_WEIGHTS

EPILOG = """\
examples:
  jumpgammon bench movegen --games 200
  jumpgammon bench eval --repeats 3
  jumpgammon bench moves --plies 1
  jumpgammon bench arena --games 2000
  jumpgammon bench cube-bearoff --out results/benchmarks
  jumpgammon bench rollout --repeats 3 --out results/rollout-speed"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    p = sub.add_parser("bench", epilog=EPILOG)
    p.add_argument(
        "what",
        choices=["movegen", "eval", "gnubg", "moves", "labels", "train", "cube-bearoff", "arena", "rollout"],
        help=(
            "what to measure (moves: checker-play error against gnubg 2-ply; labels: equity error against "
            "rollout labels, beside gnubg 0-ply's; train: the train command's speed; rollout: a cube-decision "
            "rollout's CPU seconds against GNU Backgammon 1.07's, which it needs at /usr/games/gnubg)"
        ),
    )
    p.add_argument(
        "--device",
        type=torch_device,
        default=None,
        help="eval and gnubg: cpu (numpy nets), or cuda/cuda:N (torch nets on that device)",
    )
    p.add_argument("--weights", type=existing_file, default=None, help="weights file for eval, gnubg, moves and labels")
    p.add_argument(
        "--labels", type=path_arg, default=None, help="labels: a rollout-label folder (`jumpgammon label --out`)"
    )
    p.add_argument(
        "--against",
        type=existing_file,
        default=None,
        help="labels and moves: compare with this net at the same plies (labels: instead of gnubg 0-ply), paired",
    )
    p.add_argument(
        "--games",
        type=int_range(1, 1_000_000),
        default=None,
        help=(
            "seeded games supplying the positions (default 200); arena: games per tournament (default 2000, "
            "even); train: the training run's games (default 20,000)"
        ),
    )
    p.add_argument(
        "--repeats",
        type=int_range(1, 1000),
        default=None,
        help=(
            "movegen and eval: timed repeats (default 5); the best rate, and the median 441-roll time, are reported; "
            "rollout: alternating runs of both programs (default 3), the medians compared"
        ),
    )
    p.add_argument(
        "--trials", type=int_range(2, 1_000_000), default=None, help="rollout: trials of each branch (default 1296)"
    )
    p.add_argument("--plies", type=PLIES, default=None, help="gnubg, moves and labels: lookahead, 0-2 (default 0)")
    p.add_argument(
        "--data", type=existing_file, default=None, help="moves: the decision set (default: the committed one)"
    )
    p.add_argument(
        "--gnubg-games",
        type=int_range(2, 1_000_000),
        default=None,
        help="train: gnubg 0-ply self-play games timed beside the training (half before, half after)",
    )
    p.add_argument("--profile", action="store_true", help="train: sample the training with py-spy")
    p.add_argument(
        "--sample",
        type=int_range(1, 851_929),
        default=None,
        help="cube-bearoff: seeded sample of two-sided positions (default: all 851,929)",
    )
    p.add_argument("--seed", type=int_range(0), default=None, help="cube-bearoff: the sample's seed (default 20240601)")
    p.add_argument("--no-fit", action="store_true", help="cube-bearoff: skip the search for the best alpha and x")
    p.add_argument(
        "--out",
        type=path_arg,
        default=None,
        metavar="DIR",
        help=(
            "cube-bearoff: also write cube_bearoff.json and cube_bearoff.md into DIR (e.g. results/benchmarks); "
            "rollout: cube_decision_vs_gnubg.json (e.g. results/rollout-speed)"
        ),
    )
    add_json_argument(p)
    p.set_defaults(func=run)


# The options each benchmark reads (the others given are refused: they were ignored), and the defaults.
OPTIONS_READ: dict[str, set[str]] = {
    "movegen": {"games", "repeats"},
    "eval": {"games", "repeats", "device", "weights"},
    "gnubg": {"device", "weights", "plies"},
    "moves": {"weights", "plies", "against", "data"},
    "labels": {"weights", "labels", "against", "plies"},
    "train": {"games", "gnubg_games", "profile"},
    "cube-bearoff": {"sample", "seed", "no_fit", "out"},
    "arena": {"games"},
    "rollout": {"repeats", "trials", "out"},
}
DEFAULTS: dict[str, Any] = {"device": "cpu", "repeats": 5, "plies": 0, "gnubg_games": 2000}
# Where a benchmark's own defaults differ (rollout: each repeat runs gnubg twice and a whole rollout).
DEFAULTS_OF: dict[str, dict[str, Any]] = {"rollout": {"repeats": 3, "trials": 1296}}
# The benchmarks that measure a net: the shipped one unless --weights names another (arena: the shipped one).
MEASURES_A_NET = {"eval", "gnubg", "moves", "labels", "arena", "rollout"}


def measured(args: argparse.Namespace) -> dict[str, Any]:
    """What a result was measured with and when: the date and the digests of the net (and ``--against``) measured."""
    stamp: dict[str, Any] = {"date": datetime.date.today().isoformat()}
    if args.what in MEASURES_A_NET:
        net = args.weights if args.weights is not None else DEFAULT_WEIGHTS
        stamp.update(weights=str(net), weights_sha256=weights_identity(net, "--weights"))
    if args.against is not None:
        stamp.update(against=str(args.against), against_sha256=weights_identity(args.against, "--against"))
    return stamp


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures, with the date and the net's digest; returns 0."""
    unread = given_options(args, set().union(*OPTIONS_READ.values()) - OPTIONS_READ[args.what])
    if unread:
        raise ValueError(f"bench {args.what} does not read {', '.join(unread)}")
    fill_defaults(args, {**DEFAULTS, **DEFAULTS_OF.get(args.what, {})})
    args.measured = stamp = measured(args)
    code = _measure(args)
    if not args.json:
        net = f" with net {stamp['weights']} ({stamp['weights_sha256']})" if "weights" in stamp else ""
        against = f" against {stamp['against']} ({stamp['against_sha256']})" if "against" in stamp else ""
        print(f"measured {stamp['date']}{net}{against}")
    return code


def _measure(args: argparse.Namespace) -> int:
    """Run the benchmark ``args.what`` and print its figures (JSON with ``args.measured``); returns 0."""
    if args.what == "arena":
        from benchmarks.arena_speed import bench_arena

        games = args.games if args.games is not None else 2000
        if games % 2:  # mirrored pairs, as tournament: an odd count is refused rather than rounded up
            raise ValueError(f"--games {games}: the arena plays mirrored pairs, give an even number")
        arena = bench_arena(games)
        if args.json:
            print(json.dumps({**arena.to_json(), **args.measured}))
            return 0
        for key, rate in arena.tournaments().items():
            share = rate.lookahead_share
            extra = f", lookahead for {100 * share:.1f}% of positions judged" if share else ""
            print(f"{key}: {rate.games_per_second:,.1f} games/s ({rate.games} games in {rate.seconds} s{extra})")
        g = arena.gnubg_0ply_selfplay_plain_loop
        print(f"gnubg 0-ply self-play, findbestmove in a plain loop: {g.games_per_second:,.1f} games/s")
        print(
            f"cubeless net@0 / gnubg: {arena.cubeless_over_gnubg:.2f}x; "
            f"Janowski / cubeless: {arena.janowski_over_cubeless:.2f}; "
            f"replayed / Janowski: {arena.replayed_over_janowski:.2f}"
        )
        return 0
    if args.what == "moves":
        return _moves(args)
    if args.what == "labels":
        return _labels(args)
    if args.what == "train":
        return _train(args)
    if args.games is None:
        args.games = 200
    if args.what == "gnubg":
        from benchmarks.gnubg_compare import compare_with_gnubg
        from benchmarks.speed import evaluator_on

        comparison = compare_with_gnubg(evaluator_on(args.device, args.weights), plies=args.plies)
        if args.json:
            print(json.dumps({**comparison.to_json(), **args.measured}))
            return 0
        print(f"{args.plies}-ply cubeless equity against gnubg 1.07 on {comparison.positions} positions from its games")
        for key, r in (("vs_gnubg_0ply", comparison.vs_gnubg_0ply), ("vs_gnubg_2ply", comparison.vs_gnubg_2ply)):
            if r is not None:
                phases = ", ".join(f"{k} {v:.4f}" for k, v in r.equity_mae_by_phase.items())
                print(f"  {key}: mean |equity error| {r.equity_mae:.4f} over {r.positions} ({phases})")
        return 0
    if args.what == "cube-bearoff":
        return _cube_bearoff(args)
    if args.what == "rollout":
        return _rollout(args)
    if args.what == "eval":
        speed = bench_eval(args.games, args.repeats, args.device, args.weights)
        if args.json:
            print(json.dumps({**speed.to_json(), **args.measured}))
        else:
            print(f"0-ply evaluation of {speed.positions:,} positions from {args.games} seeded games on {args.device}")
            print(f"  evaluations / second:     {speed.evaluations_per_second:,.0f}")
            print(
                f"  jump volatility (441 rolls), median of {speed.jump_volatility_positions}: "
                f"{speed.jump_volatility_ms_median:.1f} ms (mean {speed.jump_volatility_ms_mean:.1f} ms)"
            )
            print(
                f"  the same {speed.jump_volatility_positions} in one batched 441-roll pass: "
                f"{speed.jump_volatility_batched_ms:.1f} ms a position"
            )
        return 0
    movegen = bench_movegen(args.games, args.repeats)
    if args.json:
        print(json.dumps({**movegen.to_json(), **args.measured}))
    else:
        print(f"move generation over {movegen.positions:,} (position, roll) pairs from {args.games} seeded games")
        print(f"  distinct children:        {movegen.children:,}")
        print(f"  children / second:        {movegen.children_per_second:,.0f}")
        print(f"  batched, flipped / second: {movegen.children_per_second_batched_flipped:,.0f}")
        print(f"  pairs / second:           {movegen.pairs_per_second:,.0f}")
        print(
            f"  Position.children, one call per position: {movegen.single_call_children_per_second:,.0f} "
            f"children/s, {movegen.single_call_over_plain_python:.1f}x a plain-Python generator "
            f"({movegen.plain_python_children_per_second:,.0f}/s)"
        )
    return 0


def _moves(args: argparse.Namespace) -> int:
    """``bench moves``: the net's and gnubg 0-ply's checker-play error against gnubg 2-ply; returns 0."""
    from benchmarks.move_error import MOVE_ERRORS, bench_moves, markdown_table
    from nets.evaluator import load_evaluator

    against = None if args.against is None else load_evaluator(args.against)
    result = bench_moves(load_evaluator(args.weights), args.plies, args.data or MOVE_ERRORS, against)
    if args.json:
        print(json.dumps({**result.to_json(), **args.measured}))
        return 0
    print(
        f"mean checker-play error per decision (milli-equity, SE) against gnubg 2-ply on {result.decisions:,} "
        f"decisions from gnubg's games; the net plays at {args.plies}-ply"
    )
    print(markdown_table(result))
    if result.ours_minus_against is not None:
        shown = ", ".join(f"{k} {v.memg:+.2f} ({v.se:.2f})" for k, v in result.ours_minus_against.items())
        print(f"minus net:{args.against}@{args.plies}, paired (SE): {shown}")
    return 0


def _labels(args: argparse.Namespace) -> int:
    """``bench labels``: the net's equity error against a rollout-label folder, beside gnubg 0-ply's; returns 0."""
    from benchmarks.label_error import gnubg_equity, label_errors, net_equity
    from nets.evaluator import load_evaluator

    if args.labels is None:
        raise ValueError("bench labels needs --labels DIR (a folder of `jumpgammon label` shards)")
    if not args.labels.is_dir():
        raise ValueError(f"--labels {str(args.labels)!r} is not a folder")
    ev = load_evaluator(args.weights)
    reference: Callable[[np.ndarray], np.ndarray] | None
    if args.against is not None:
        name = f"net:{args.against}@{args.plies}"
        reference = net_equity(load_evaluator(args.against), args.plies)
    else:
        name, reference = "gnubg 0-ply", gnubg_equity()
    result = label_errors(args.labels, ev, args.plies, reference, name)
    if args.json:
        print(json.dumps({**result.to_json(), **args.measured}))
        return 0
    print(
        f"cubeless equity against the rollouts of {result.rows:,} positions in {result.folder} "
        f"({result.trials} trials a row, labelled by sha256:{result.labelling_net}); the net at {args.plies}-ply"
    )
    ref = result.reference or "gnubg 0-ply"
    print(f"| rows | n | net MAE (SE) | {ref} MAE (SE) | net minus {ref}, paired (SE) | labels' mean SE |")
    print("|---|---|---|---|---|---|")
    for group, mine in result.net.items():
        theirs = (result.reference_errors or {}).get(group)
        diff = (result.net_minus_reference or {}).get(group)
        print(
            f"| {group} | {mine['rows']:,} | {mine['mae']:.4f} ({mine['mae_se']:.4f}) | "
            + (f"{theirs['mae']:.4f} ({theirs['mae_se']:.4f})" if theirs else "(no gnubg package)")
            + " | "
            + (f"{diff['mean']:+.4f} ({diff['se']:.4f})" if diff else "")
            + f" | {mine['label_se_mean']:.4f} |"
        )
    return 0


def _cube_bearoff(args: argparse.Namespace) -> int:
    """``bench cube-bearoff``: cube models against exact play in the bearoff database, written to --out; returns 0."""
    from benchmarks import cube_bearoff

    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {str(args.out)!r} is not a folder")
    seed = cube_bearoff.DEFAULT_SEED if args.seed is None else args.seed
    result = cube_bearoff.bench_cube_bearoff(sample=args.sample, seed=seed, fit=not args.no_fit, progress=True)
    paths = cube_bearoff.write_results(result, args.out) if args.out is not None else None
    if args.json:
        print(json.dumps({**result.to_json(), **args.measured}))
        return 0
    print(cube_bearoff.markdown_table(result))
    if paths is not None:
        print(f"runtime {result.runtime_s:.0f} s; wrote {paths[0]} and {paths[1]}")
    return 0


def _train(args: argparse.Namespace) -> int:
    """``bench train``: the train command's games per second beside gnubg's 0-ply self-play; returns 0."""
    from benchmarks.train_speed import bench_train

    games = args.games if args.games is not None else 20_000
    result = bench_train(games, args.gnubg_games, profile=args.profile)
    if args.json:
        print(json.dumps({**result.to_json(), **args.measured}))
        return 0
    t, g = result.train, result.gnubg_0ply_selfplay
    print(
        f"jumpgammon train, {t.games:,} games: {t.wall_seconds:.1f} s for the whole command "
        f"({t.games_per_second:.1f} games/s; {t.loop_seconds:.1f} s in the training loop)"
    )
    print(f"gnubg 0-ply self-play, {g.games:,} games in the same run: {g.games_per_second:.1f} games/s")
    print(f"train / gnubg: {result.train_over_gnubg:.2f}x")
    for part, share in (result.profile or {}).items():
        print(f"  {100 * share:5.1f}%  {part}")
    return 0


def _rollout(args: argparse.Namespace) -> int:
    """``bench rollout``: a cube-decision rollout's CPU seconds against gnubg 1.07's, side by side; returns 0."""
    from benchmarks.rollout_speed import RESULT_FILE, bench_rollout

    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {str(args.out)!r} is not a folder")
    result = bench_rollout(args.trials, args.repeats, progress=not args.json)
    record = {**result.to_json(), "measured": args.measured}
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        write_atomic(args.out / RESULT_FILE, (json.dumps(record, indent=1) + "\n").encode())
    if args.json:
        print(json.dumps(record))
        return 0
    print(
        f"cube-decision rollout of {result.position}, {result.trials} trials a branch, one thread each, "
        f"{len(result.runs)} repeat{'s' if len(result.runs) != 1 else ''}: gnubg 1.07 "
        f"{result.gnubg_cpu_median:.1f} CPU s for its two branches, jumpgammon {result.jumpgammon_cpu_median:.1f} "
        "CPU s for both"
    )
    print(f"jumpgammon / gnubg speed per core: {result.speed_ratio_per_core:.2f}x (medians)")
    if args.out is not None:
        print(f"wrote {args.out / RESULT_FILE}")
    return 0
