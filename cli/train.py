"""``jumpgammon train --out RUN.jgw --games N``: batched self-play TD training, resumable from RUN."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from arena.tournament import plural
from cli.common import add_json_argument, check_output_file, float_range, int_range, path_arg, torch_device
from engine.errors import InvalidSpec
from nets.encoding import Encoding
from nets.mlp import MAX_LAYERS, MAX_WIDTH
from players.cube import CubeSpec
from training.config import (
    CONTINUE_LEARNING_RATE,
    DEFAULT_HIDDEN,
    DEFAULT_PARALLEL_GAMES,
    FRESH_LEARNING_RATE,
    TrainConfig,
)
from training.selfplay_cube import parse_training_cube


def hidden_widths(text: str) -> tuple[int, ...]:
    """An argparse type for hidden layer widths such as ``128,64``."""
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected widths such as 128,64, got {text!r}") from None
    if not 1 <= len(widths) <= MAX_LAYERS or not all(1 <= w <= MAX_WIDTH for w in widths):
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_LAYERS} widths of 1 to {MAX_WIDTH}, got {text!r}")
    return widths


def encoding_name(text: str) -> Encoding:
    """An argparse type for an input encoding: ``v1`` or ``v2`` (or its full name)."""
    try:
        return Encoding.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cube_specs(text: str) -> tuple[CubeSpec, ...]:
    """An argparse type for ``SPEC[,SPEC]`` cube specs of self-play (``none``: cubeless)."""
    try:
        return parse_training_cube(text)
    except InvalidSpec as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


EPILOG = """\
examples:
  jumpgammon train --out runs/td.jgw --games 100000
  jumpgammon train --out runs/td.jgw --games 200000        (the same run, carried on to 200,000 games)
  jumpgammon train --out runs/small.jgw --games 20000 --hidden 64,32 --seed 7
  jumpgammon train --out runs/cube.jgw --games 50000 --cube janowski:0.7,jump:0.10:linear
  jumpgammon train --out runs/jump-net.jgw --games 50000 --cube jump-net

Ctrl-C stops a run; the same command resumes it from its last checkpoint (--checkpoint-every games)."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train`` subcommand."""
    p = sub.add_parser(
        "train",
        description=(
            "Self-play TD(0) training. --out names the run's file: it is created, or resumed when it "
            "exists, and the run stops once it holds --games games in total (the games in flight are "
            "kept in the checkpoint, not played out), so rerunning the same "
            "command after an interruption finishes the run exactly as if it had not stopped. "
            "The shipped net is never written here: see 'jumpgammon weights promote'."
        ),
        epilog=EPILOG,
    )
    d = TrainConfig(out=Path("run.jgw"))
    p.add_argument("--out", type=path_arg, required=True, help="the run's checkpoint file (not in weights/)")
    p.add_argument("--games", type=int_range(1), default=d.games, help="the run's target in games, in total")
    p.add_argument(
        "--parallel",
        type=int_range(1, 1 << 16),
        default=None,
        help=f"games in lockstep (default: a resumed run's own; a new one {DEFAULT_PARALLEL_GAMES})",
    )
    p.add_argument(
        "--lr",
        type=float_range(0, 1, low_open=True),
        default=None,
        help=f"Adam learning rate (default: a resumed run's own; a new one {FRESH_LEARNING_RATE:g}, or "
        f"{CONTINUE_LEARNING_RATE:g} with --start, whose trained nets a large first step would damage)",
    )
    p.add_argument(
        "--hidden",
        type=hidden_widths,
        default=None,
        help=f"hidden widths of a new run (default {','.join(map(str, DEFAULT_HIDDEN))}); a resumed run keeps its own",
    )
    p.add_argument(
        "--start",
        type=path_arg,
        default=None,
        metavar="WEIGHTS",
        help="a new run starts from these nets (e.g. weights/default.jgw to train the shipped net on) "
        "instead of random ones of --hidden; a resumed run keeps its own",
    )
    p.add_argument(
        "--encoding",
        type=encoding_name,
        default=None,
        help="the nets' inputs, v1 or v2 (default: a resumed run's own, else --start's, else v1); "
        "a v1 --start becomes a v2 net computing the same, its new inputs at zero weight",
    )
    p.add_argument(
        "--crashed-net",
        action="store_true",
        help="a new run also trains a net for gnubg's crashed positions (from --start: a copy of its contact net)",
    )
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=None, help="seed of a new run (default 1)")
    p.add_argument(
        "--exploration",
        type=float_range(0, 1),
        default=d.exploration,
        help="chance of a random move (the position before it still learns the best move's value)",
    )
    p.add_argument("--no-bearoff", action="store_true", help="do not use the bearoff databases")
    p.add_argument(
        "--checkpoint-every", type=int_range(1), default=d.checkpoint_every, help="games between checkpoints"
    )
    p.add_argument(
        "--cube",
        type=cube_specs,
        default=None,
        metavar="SPEC[,SPEC]",
        help=(
            "cubeful self-play: the cube strategies of the two seats (one spec: both), e.g. "
            "janowski:0.7,jump:0.10:linear; none: cubeless (default for a new run; a resumed run keeps its own). "
            "jump-net takes the local volatility from the volatility net, jump-local from the training net's "
            "441-roll lookahead where the decision depends on it (with the jump table cache warm, about 3.4 and 6.6 "
            "times janowski's CPU time per game; docs/training.md)"
        ),
    )
    p.add_argument("--log", type=path_arg, default=None, help="JSON-lines progress log")
    p.add_argument("--device", type=torch_device, default="cpu", help="torch device: cpu, cuda, cuda:N")
    p.add_argument(
        "--threads",
        type=int_range(0, 1024),
        default=1,
        help="torch threads (default 1: the learning batches are small, and a second thread loses badly "
        "when another process holds a core; 0: torch's default)",
    )
    add_json_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train and report the final state; returns 0."""
    # Imported here so that torch loads only for training, not for every command the parser knows.
    from training.td import train

    check_output_file(args.log, "--log", make_folder=True)  # made with --out's, once the run is known good

    cfg = TrainConfig(
        out=args.out,
        games=args.games,
        parallel_games=args.parallel,
        learning_rate=args.lr,  # None: the run's own on resume, else by whether it starts from trained nets
        hidden=args.hidden,
        start=args.start,
        seed=args.seed,
        exploration=args.exploration,
        use_bearoff=not args.no_bearoff,
        checkpoint_every=args.checkpoint_every,
        log=args.log,
        device=args.device,
        threads=args.threads,
        cube=args.cube,
        encoding=args.encoding,
        crashed_net=args.crashed_net,
    )
    outcome = train(cfg, progress=True)
    state = outcome.state
    result = {
        "games": state.games,
        "positions": state.positions,
        "seconds": round(state.seconds, 1),
        "weights": str(cfg.out),
    }
    if outcome.cube is not None:
        result["cube"] = outcome.cube
    text = f"{cfg.out}: {state.games:,} games in total"
    if outcome.cube is not None:
        text += "; " + _cube_line(outcome.cube)
    print(json.dumps(result) if args.json else text)
    return 0


def _cube_line(report: dict[str, Any]) -> str:
    """One line of a run's cube record: passes, mean cube and, with two strategies, A's ppg against B."""
    counts = [f"{report[k]:,} {plural(word, report[k])}" for k, word in (("doubles", "double"), ("takes", "take"))]
    counts.append(f"{report['passes']:,} {plural('pass', report['passes'])}")
    cube = report["mean_final_cube"]
    line = ", ".join(counts) + (f", mean final cube {cube:.2f}" if cube is not None else "")
    a = report["strategies"][0]
    if "ppg" in a:
        se = f"{a['se']:.3f}" if a.get("se") is not None else "n/a"
        line += f"; {a['spec']} vs {report['strategies'][1]['spec']}: {a['ppg']:+.3f} ppg, SE {se}"
    return line
