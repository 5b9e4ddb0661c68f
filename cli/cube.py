"""``jumpgammon cube``: cube decision points and cubeful equities for one game state."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cli.common import add_json_argument, check_output_file, float_range, int_range
from cube.distributions import DISTRIBUTIONS
from cube.points import POINT_MEANINGS, POINT_NAMES
from cube.report import MODELS, PLOT_FORMATS, plot_equities, report
from cube.states import CubeState
from nets.weights import write_atomic

EPILOG = """examples:
  jumpgammon cube --W 1.4 --L 1.2 --model jump-linear --alpha 0.1
  jumpgammon cube --W 1.3 --L 1.2 --model janowski --x 0.68 --at 0.5,0.7
  jumpgammon cube --W 1.4 --L 1.2 --model jump-numerical --alpha 0.1 --plot curves.png

The decision points (the player is the side on roll; u: the opponent owns the cube, o: the player owns it,
c: centred; E_C, E_O, E_U: the player's cubeful equity, cube centred, owned, owned by the opponent):
""" + "\n".join(f"  {name:<6} {meaning}" for name, meaning in POINT_MEANINGS.items())


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``cube`` subcommand to the top-level parser."""
    p = sub.add_parser(
        "cube",
        description=(
            "Print the ten cube decision points (player's cubeless P) and the centred, "
            "owned and unavailable cubeful equities (normalised to the cube) of a game "
            "state W, L under a cube model."
        ),
        epilog=EPILOG,
    )
    p.add_argument(
        "--W",
        type=float_range(1, 3),
        required=True,
        help="average value of games won, 1 to 3 (eval prints a position's)",
    )
    p.add_argument(
        "--L",
        type=float_range(1, 3),
        required=True,
        help="average value of games lost, 1 to 3 (eval prints a position's)",
    )
    p.add_argument("--model", choices=MODELS, default="jump-linear")
    p.add_argument("--x", type=float_range(0, 1), help="Janowski cube-life index (both sides)")
    p.add_argument("--x1", type=float_range(0, 1), help="refined model: index of the side on roll")
    p.add_argument("--x2", type=float_range(0, 1), help="refined model: index of the opponent")
    p.add_argument(
        "--alpha",
        type=float_range(0, 0.5, low_open=True, high_open=True),
        help="jump volatility E|J| (remote; default 0.10, the remote volatility eval's jump models use)",
    )
    p.add_argument(
        "--local-alpha",
        type=float_range(0, 0.5, low_open=True, high_open=True),
        help="local jump volatility (linear/nonlinear)",
    )
    p.add_argument(
        "--distribution",
        choices=DISTRIBUTIONS,
        default=None,
        help="jump distribution (jump-nonlinear, jump-numerical; default double-exponential)",
    )
    p.add_argument(
        "--statistical",
        action="store_true",
        default=None,
        help="scale alpha by 1.24 (statistical estimates; jump-linear only)",
    )
    p.add_argument(
        "--grid", type=int_range(20, 2_000), default=None, help="P buckets of jump-numerical (20-2000; default 400)"
    )
    p.add_argument("--jacoby", action="store_true", help="Jacoby rule")
    p.add_argument("--beavers", action="store_true", help="beavers allowed")
    p.add_argument("--at", default=None, help="comma-separated P values, e.g. 0.3,0.5,0.7 (default: none)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the three equity curves (.png, .svg or .pdf)")
    add_json_argument(p)
    p.set_defaults(func=run)


def _fmt(v: float | None, nd: int = 4) -> str:
    return "-" if v is None else f"{v:.{nd}f}"


def _plot_file(text: str | None) -> Path | None:
    """The ``--plot`` file, checked before any work: a writable file in an existing folder, named .png, .svg or .pdf."""
    if text is None:
        return None
    path = Path(text)
    if not text.strip() or path.suffix[1:].lower() not in PLOT_FORMATS:
        raise ValueError(f"--plot {text!r}: give a file ending in {', '.join('.' + f for f in PLOT_FORMATS)}")
    check_output_file(path, "--plot")
    return path


def run(args: argparse.Namespace) -> int:
    """Run ``jumpgammon cube``; returns the exit status."""
    model_args = {
        "x": args.x,
        "x1": args.x1,
        "x2": args.x2,
        "alpha": args.alpha,
        "local_alpha": args.local_alpha,
        "distribution": args.distribution,
        "statistical": args.statistical,
        "N": args.grid,
    }
    plot = _plot_file(args.plot)
    text = args.at or ""
    at = [s.strip() for s in text.split(",") if s.strip()]
    if args.at is not None and not at:
        raise ValueError(f"--at {args.at!r} names no P value (give e.g. 0.3,0.5,0.7)")
    rep = report(args.model, args.W, args.L, at, jacoby=args.jacoby, beavers=args.beavers, **model_args)
    if plot is not None:
        picture = plot_equities(args.model, rep.W, rep.L, jacoby=args.jacoby, fmt=plot.suffix[1:].lower(), **model_args)
        write_atomic(plot, picture)
    if args.json:
        print(json.dumps(rep.as_dict()))
        return 0
    params = ", ".join(f"{k}={v}" for k, v in rep.params.items())
    print(f"model {rep.model}: W={rep.W:g} L={rep.L:g} ({params})")
    print("decision points (player's cubeless P):")
    pts = rep.points.as_dict()
    for name in POINT_NAMES:
        print(f"  {name:6s} {_fmt(pts[name]):>6s}  {POINT_MEANINGS[name]}")
    if rep.implied_x1 is not None:
        print(f"implied Janowski indices: x1={rep.implied_x1:.3f} x2={rep.implied_x2:.3f}")
    if rep.equity_at:
        print(f"{'P':>8s} {'centered':>9s} {'owned':>9s} {'unavail':>9s}")
        for key, eq in rep.equity_at.items():
            # + 0.0 after rounding: a tiny negative (the centred equity at P = 0.5) prints 0.0000, not -0.0000
            cells = " ".join(f"{round(eq[state], 4) + 0.0:9.4f}" for state in CubeState)
            print(f"{key:>8s} {cells}")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0
