"""``jumpgammon label --out DIR --shards N``: rollout labels of self-play positions chosen where they teach most."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cli.common import add_json_argument, existing_file, float_range, int_range, path_arg
from training.rollout_labels import LabelConfig, Selection, label

DEFAULTS = LabelConfig(out=Path("runs/labels"), shards=1)


def _selection(text: str) -> Selection:
    try:
        return Selection.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _truncate(text: str) -> int | None:
    if text == "none":
        return None
    return int_range(1, 10_000)(text)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``label`` subcommand."""
    p = sub.add_parser(
        "label",
        help="rollout labels: self-play positions chosen where they teach most, rolled out, in resumable shards",
        description=(
            "Each shard draws a pool of positions from cubeless 0-ply self-play of --weights, chooses --rows of them "
            "by --select (plays: 0 ply and 1 ply choose different plays; disagree: their equities differ most; "
            "crashed; rare: seldom-met structures; random) and rolls them out cubeless at 0 ply with the same net "
            "(stratified dice, luck adjustment, --truncate). Shards go to --out with a manifest of the settings "
            "and the net's SHA-256; a rerun writes only the missing shards. Probabilities are the side on roll's."
        ),
    )
    p.add_argument("--out", type=path_arg, required=True, help="data folder (e.g. runs/labels/NAME; not in a package)")
    p.add_argument("--shards", type=int_range(1, 1_000_000), required=True, help="the data set's size in shards")
    p.add_argument("--weights", type=existing_file, default=None, help="the labelling net (default: the shipped one)")
    p.add_argument("--rows", type=int_range(1, 100_000), default=DEFAULTS.rows, help="positions labelled per shard")
    p.add_argument("--trials", type=int_range(2, 1_000_000), default=DEFAULTS.trials, help="rollout trials a position")
    p.add_argument(
        "--truncate",
        type=_truncate,
        default=DEFAULTS.truncate,
        metavar="N|none",
        help="plies after which a trial takes the net's evaluation (default none: whole games)",
    )
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=DEFAULTS.seed)
    p.add_argument("--pool-games", type=int_range(1, 1_000_000), default=DEFAULTS.pool_games, help="games per pool")
    p.add_argument(
        "--keep", type=float_range(0, 1, low_open=True), default=DEFAULTS.keep, help="share of contact positions pooled"
    )
    p.add_argument(
        "--keep-race",
        type=float_range(0, 1, low_open=True),
        default=DEFAULTS.keep_race,
        help="share of race positions pooled",
    )
    p.add_argument(
        "--select",
        type=_selection,
        default=DEFAULTS.selection,
        metavar="REASON=SHARE,...",
        help=f"shares of the rows by reason (default {DEFAULTS.selection.text()})",
    )
    p.add_argument("--workers", type=int_range(1, 1024), default=1, help="processes on this machine, one shard each")
    p.add_argument(
        "--stop-after",
        type=float_range(0, 1e9),
        default=None,
        metavar="SECONDS",
        help="start no shard after SECONDS (those started finish; rerun to go on)",
    )
    p.add_argument("--ray", default=None, metavar="ADDRESS", help="label as Ray tasks (auto, local, HOST:PORT)")
    p.add_argument(
        "--block-rows",
        type=int_range(1, 1 << 20),
        default=DEFAULTS.block_rows,
        help="trials per lockstep block (speed only)",
    )
    add_json_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Label the missing shards and report the folder's counts and this run's speed; returns 0."""
    cfg = LabelConfig(
        out=args.out,
        shards=args.shards,
        weights=args.weights,
        rows=args.rows,
        trials=args.trials,
        truncate=args.truncate,
        seed=args.seed,
        pool_games=args.pool_games,
        keep=args.keep,
        keep_race=args.keep_race,
        selection=args.select,
        block_rows=args.block_rows,
    )
    result = label(cfg, workers=args.workers, ray_address=args.ray, progress=True, stop_after=args.stop_after)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    d = result.to_json()
    counts = result.counts
    print(f"{result.out}: {result.shards} shards, {counts.get('rows', 0)} rows ({result.made} shards made now)")
    if counts.get("rows"):
        print("  by reason: " + ", ".join(f"{k} {v}" for k, v in counts["by_reason"].items()))
        print("  by class:  " + ", ".join(f"{k} {v}" for k, v in counts["by_class"].items()))
        se = counts["equity_se"]
        print(f"  equity SE: mean {se['mean']:.4f}, max {se['max']:.4f} (without luck adjustment {se['raw_mean']:.4f})")
    if result.rows_made and d["rows_per_second"] is not None and d["rows_per_core_second"] is not None:
        print(
            f"  {result.rows_made} rows in {result.seconds:.1f} s: {d['rows_per_second']:.3f} rows/s with "
            f"{result.workers} processes, {d['rows_per_core_second']:.3f} rows per process-second labelling"
        )
    if result.stopped:
        print(f"  stopped: {result.shards} of {args.shards} shards done; rerun to go on")
    return 0
