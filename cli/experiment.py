"""``jumpgammon experiment NAME``: the jump-model paper's self-play experiments (see benchmarks.experiments)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.experiments.cube_errors import (
    DEFAULT_MODELS,
    DEFAULT_TRIALS_CAP,
    CubeErrorsConfig,
    run_cube_errors,
    split_models,
)
from benchmarks.experiments.cube_sweeps import run_sweep
from benchmarks.experiments.fit import Optimum
from benchmarks.experiments.ladder import run_ladder
from benchmarks.experiments.local import run_local
from benchmarks.experiments.remote import run_remote
from benchmarks.experiments.sweep import GAMES_PER_BLOCK, SweepSettings
from benchmarks.experiments.volnet import run_volnet
from cli.common import add_json_argument, existing_file, float_range, int_range, path_arg
from engine.position import PhaseName
from nets.evaluator import load_evaluator
from players.specs import MAX_PLIES, net_spec

EXPERIMENTS = ("janowski", "jump", "remote", "local", "ladder", "volnet", "cube-errors")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``experiment`` subcommand."""
    p = sub.add_parser(
        "experiment",
        help="the jump-model paper's self-play experiments (resumable; JSON result and PNG plot)",
        description=(
            "janowski: Janowski x from 0.50 to 0.90 against x = 0.70; jump: constant jump volatility (linear, "
            "nonlinear, numerical) against Janowski x = 0.70. Each point is played until its standard error "
            "reaches --se or --max-games; every point keeps a ledger in OUT/NAME, so the same command resumes. "
            "remote: remote jump volatility from --games cubeless self-play games (batches kept, resumable). "
            "local: jump-local against Janowski x = 0.70 and against the best constant jump volatility, each "
            "to --se (the same sweep machinery and ledgers). "
            "ladder: the shipped net at 0 and 2 ply against pubeval and GNU Backgammon 0-ply, cubeless and "
            "cubeful (--games for 0-ply rows, --games-deep for 2-ply rows; one ledger per row, resumable). "
            "volnet: a net learning local jump volatility from --positions self-play positions labelled by the "
            "441-roll lookahead, its test error and speed, and --games of jump-net against jump-local (resumable). "
            "cube-errors: --decisions money cube decisions drawn from self-play near the decision points, rolled "
            "out cubefully to --until-se (or --trials-cap), and each of --models' errors against them (resumable "
            "shards; --ray)."
        ),
    )
    p.add_argument("name", choices=EXPERIMENTS)
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=1)
    p.add_argument("--se", type=float_range(0.0, 1.0, low_open=True), default=0.003, help="SE target per point (ppg)")
    p.add_argument("--min-games", type=int_range(GAMES_PER_BLOCK), default=8 * GAMES_PER_BLOCK)
    p.add_argument("--max-games", type=int_range(GAMES_PER_BLOCK), default=400 * GAMES_PER_BLOCK)
    p.add_argument(
        "--games",
        type=int_range(2),
        default=None,
        help="remote: self-play games (default 100,000); ladder: games of each 0-ply row (default 20,000); "
        "volnet: head-to-head games, even (default 100,000)",
    )
    p.add_argument(
        "--games-deep", type=int_range(2), default=1_024, help="ladder: games of each 2-ply row (default 1,024)"
    )
    p.add_argument(
        "--positions", type=int_range(1), default=100_000, help="volnet: labelled positions to train and test on"
    )
    p.add_argument(
        "--degree",
        type=int_range(2, 4),
        default=None,
        help="janowski, jump: fit this degree instead of the fit rule's choice (exploration; the rule: "
        "docs/experiments.md)",
    )
    p.add_argument("--workers", type=int_range(1, 256), default=1, help="processes on this machine")
    p.add_argument(
        "--curves",
        type=_curve_names,
        default=(),
        help=(
            "comma-separated curves to play (jump: linear,nonlinear,numerical) or ladder rows (see --help of "
            "the ladder's result); default all"
        ),
    )
    p.add_argument(
        "--weights",
        type=existing_file,
        default=None,
        help="the net every experiment plays with (default the shipped net); ledgers and data of another net "
        "are refused",
    )
    p.add_argument(
        "--report",
        action="store_true",
        help="play and write nothing: reprint what the folder holds (its ledgers, else its result.json and pairs.npz)",
    )
    p.add_argument(
        "--luck",
        action="store_true",
        help="janowski, jump, local: luck-adjust every game (each roll judged once by the experiment's own net); "
        "points, SEs and fits on the adjusted results, the raw ones beside; ledgers of either kind are "
        "refused by the other (report a luck run with --luck too)",
    )
    p.add_argument(
        "--luck-screen",
        type=int_range(1, 64),
        default=None,
        metavar="N",
        help="with --luck: judge each roll's best of pubeval's top N plays (default: every play, as the committed "
        "sweeps did); part of the ledgers' identity",
    )
    p.add_argument(
        "--refit",
        action="store_true",
        help="janowski, jump: play nothing, fit a finished sweep's committed points (result.json, pairs.npz) "
        "again and rewrite its result.json and plot.png",
    )
    p.add_argument(
        "--out",
        type=path_arg,
        required=True,
        metavar="DIR",
        help="the experiments' folder: NAME's results are read from and written to DIR/NAME "
        "(the committed ones: --out results/experiments)",
    )
    cube_errors = p.add_argument_group("cube-errors")
    cube_errors.add_argument("--decisions", type=int_range(1), default=2_000, help="decisions, in shards of 20")
    cube_errors.add_argument(
        "--trials-cap",
        type=int_range(2),
        default=DEFAULT_TRIALS_CAP,
        help="most trials a branch; raised on a folder, its decisions left at the old cap go on to the new one",
    )
    cube_errors.add_argument(
        "--until-se", type=float_range(0.0, 1.0, low_open=True), default=0.01, help="SE target of ND and DT"
    )
    cube_errors.add_argument(
        "--models", type=_models, default=",".join(DEFAULT_MODELS), metavar="SPEC,...", help="cube specs to score"
    )
    cube_errors.add_argument(
        "--model-plies",
        type=int_range(0, MAX_PLIES),
        default=0,
        metavar="N",
        help="with --report: the models decide from the net at N plies (the rollouts stay at 0 ply); each model's "
        "difference from itself at 0 ply is printed beside",
    )
    cube_errors.add_argument(
        "--ray", default=None, metavar="ADDRESS", help="shards as Ray tasks (auto, local, HOST:PORT)"
    )
    add_json_argument(p)
    p.set_defaults(func=run)


def _models(text: str) -> tuple[str, ...]:
    """Cube specs from a comma-separated list (checked when the experiment runs)."""
    try:
        return split_models(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _curve_names(text: str) -> tuple[str, ...]:
    """The curve names in a comma-separated list (checked against the experiment later)."""
    names = tuple(name.strip() for name in text.split(","))
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected comma-separated curve names, got {text!r}")
    return names


def run(args: argparse.Namespace) -> int:
    """Run (or resume) the experiment; prints each curve's optimum; returns 0."""
    if args.max_games < args.min_games:
        raise ValueError(f"--max-games {args.max_games} is below --min-games {args.min_games}")
    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {str(args.out)!r} is not a folder")
    settings = SweepSettings(
        seed=args.seed,
        se_target=args.se,
        min_games=args.min_games,
        max_games=args.max_games,
        workers=args.workers,
        checker=net_spec(0, args.weights),
        luck_weights=(str(args.weights) if args.weights is not None else "") if args.luck else None,
        luck_screen=args.luck_screen,
    )
    if args.weights is not None:
        load_evaluator(args.weights, bearoff=False)  # refuse a file that is not a net before anything runs
    folder = args.out / args.name
    # Options of some experiments only: refused by the others (cube-errors and volnet included) before any work.
    if args.refit and args.report:
        raise ValueError("--refit rewrites result.json and --report writes nothing: give one of them")
    if args.refit and args.name not in ("janowski", "jump"):
        raise ValueError(f"--refit applies to the janowski and jump sweeps, not {args.name}")
    if args.luck and args.name not in ("janowski", "jump", "local"):
        raise ValueError(f"--luck applies to the janowski, jump and local sweeps, not {args.name}")
    if args.luck_screen is not None and not args.luck:
        raise ValueError(f"--luck-screen {args.luck_screen} needs --luck")
    if args.curves and args.name in ("remote", "local", "cube-errors", "volnet"):
        raise ValueError(f"--curves applies to the janowski and jump sweeps and the ladder, not {args.name}")
    if args.model_plies and args.name != "cube-errors":
        raise ValueError(f"--model-plies applies to cube-errors, not {args.name}")
    if args.name == "cube-errors":
        return _run_cube_errors(args, folder)
    if args.name == "volnet":
        return _run_volnet(args, folder)
    if args.name == "local":
        return _run_local(args, folder, settings)
    if args.name == "ladder":
        games = args.games if args.games is not None else 20_000
        ladder = run_ladder(
            folder,
            args.seed,
            games,
            args.games_deep,
            workers=args.workers,
            only=args.curves,
            play=not args.report,
            progress=not args.json,
            weights=args.weights,
        )
        if args.json:
            print(json.dumps(ladder.to_json()))
            return 0
        for row in ladder.rows:
            measured = f"{row.ppg:+.3f} ppg, SE {row.se:.3f}" if row.se is not None and row.ppg is not None else ""
            note = f"  ({row.skipped})" if row.skipped is not None else ""
            print(f"{row.name:<24} {measured or 'nothing played':<26} {row.games:>7,} games{note}")
        print(_where(args, folder))
        return 0
    if args.name == "remote":
        remote = run_remote(
            folder,
            args.games if args.games is not None else 100_000,
            args.seed,
            progress=not args.json,
            weights=args.weights,
            play=not args.report,
        )
        if args.json:
            print(json.dumps(remote))
            return 0
        print(f"paper: {remote['paper']['states']:,} states, mean |jump| {remote['paper']['all']}")
        for reading, parts in remote["readings"].items():
            for part in ("all", PhaseName.RACE, PhaseName.CONTACT):
                r = parts[part]
                print(
                    f"{reading:>15} {part:<7} {r['states']:>7,} states: SD {r['sd']:.4f} +- {r['sd_se']:.4f}, "
                    f"mean |jump| {r['mean_abs']:.4f} +- {r['mean_abs_se']:.4f}"
                )
        implied = dict(remote["implied_janowski_x"])
        paper = implied.pop("paper_inputs")
        print(f"implied Janowski x, paper's inputs (alpha {paper['alpha']}, W = L = {paper['W']}): {paper['x']:.3f}")
        for reading, scales in implied.items():
            shown = ", ".join(
                f"{v['x']:.3f} +- {v['x_se']:.3f} (alpha x {v['scale']}: {v['alpha']:.4f})" for v in scales.values()
            )
            print(f"implied Janowski x, {reading} (W = L = {scales['paper_scale']['W']:.3f}): {shown}")
        print(_where(args, folder))
        return 0
    result = run_sweep(
        args.name,
        folder,
        settings,
        degree=args.degree,
        progress=not args.json,
        play=not args.report and not args.refit,
        only=args.curves,
        weights=args.weights,
        refit=args.refit,
    )
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    for curve in result.curves:
        print(*_optimum_lines(curve.name, curve.parameter, curve.paper_best, curve.optimum), sep="\n")
        for p in curve.points:
            raw = "" if p.raw is None else f"  (raw {p.raw[0] * 1000:+.1f}, SE {p.raw[1] * 1000:.1f})"
            print(f"  {p.label:<28} {p.ppg * 1000:+7.1f} mppg  SE {p.se * 1000:5.1f}  {p.games:>8,} games{raw}")
    print(f"{result.games_total:,} games; {_where(args, folder)}")
    return 0


def _optimum_lines(name: str, parameter: str, paper: float | None, opt: Optimum) -> list[str]:
    """A curve's optimum in words: the headline fit and its intervals, then every degree's fit."""
    how = "forced by --degree" if opt.forced else "by the fit rule" if opt.rule is not None else "as committed"
    lines = [
        f"{name}: best {parameter} {opt.best:.3f}, degree {opt.degree} ({how}), 95% interval "
        f"[{opt.ci95[0]:.3f}, {opt.ci95[1]:.3f}] (paper {paper})"
    ]
    if (warning := opt.edge_warning) is not None:
        lines.append(f"  warning: {warning}")
    if opt.selected_ci95 is not None and opt.selected_shares is not None:
        shares = ", ".join(f"{f.degree}: {s:.0%}" for f, s in zip(opt.fits, opt.selected_shares, strict=True))
        lines.append(
            f"  with the degree chosen again in each of {opt.replicates:,} replicates: "
            f"[{opt.selected_ci95[0]:.3f}, {opt.selected_ci95[1]:.3f}] (degrees chosen {shares}); "
            f"AIC-weighted {opt.aic_best:.3f} +- {opt.aic_se:.3f}"
        )
    if opt.covariance is not None:
        c = opt.covariance
        lines.append(
            f"  points' covariance: {c.kind.value} (GLS chi2); correlation's smallest eigenvalue "
            f"{c.smallest_eigenvalue:.3g}, ridge {c.ridge:g}"
        )
    for f in opt.fits:
        step = f", step p {f.p_step:.2g}" if f.p_step is not None else ""
        lines.append(
            f"  degree {f.degree}: {f.best:.4f} [{f.ci95[0]:.3f}, {f.ci95[1]:.3f}], "
            f"chi2 {f.chi2:.1f} on {f.dof} (p {f.p_fit:.2g}{step})"
        )
    return lines


def _where(args: argparse.Namespace, folder: Path) -> str:
    """Where the result went: written to ``folder``, or, for a report, read from it."""
    if args.report:
        return f"reported from {folder} (nothing written)"
    return f"result.json and plot.png {'rewritten from pairs.npz' if args.refit else 'written'} in {folder}"


def _run_volnet(args: argparse.Namespace, folder: Path) -> int:
    """Experiment 5; prints the test errors, the speed-up and the head-to-head so far; returns 0."""
    games = args.games if args.games is not None else 100_000
    if games % 2:
        raise ValueError(f"--games {games}: the head-to-head plays mirrored pairs, give an even number")
    result = run_volnet(
        folder,
        args.positions,
        games,
        args.seed,
        args.workers,
        play=not args.report,
        progress=not args.json,
        weights=args.weights,
    )
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    data = result.data
    print(f"{data.positions:,} positions ({data.train_rows:,} training, {data.test_rows:,} test)")
    for part, r in result.test.items():
        net, flat = r.net, r.constant_train_mean
        if net.rows:
            print(
                f"  {part:<8} {net.rows:>6,} test positions: MAE {net.mae:.4f} RMSE {net.rmse:.4f} "
                f"corr {net.correlation:.3f} (a constant: MAE {flat.mae:.4f})"
            )
    for state, d in result.cube_decisions_where_gate_open.items():
        print(f"  {state} cube: gate open for {d.open:,}, same decision {d.same_share:.3f} +- {d.same_share_se:.3f}")
    speed = result.speed
    if speed is not None:
        print(
            f"  lookahead {1000 * speed.lookahead_seconds_per_position:.1f} ms, net "
            f"{1e6 * speed.net_seconds_per_position:.1f} us per position: {speed.speedup:,.0f} times faster"
        )
    h2h = result.head_to_head
    if h2h.games and h2h.ppg is not None and h2h.se is not None:
        print(f"  jump-net against jump-local: {h2h.ppg:+.4f} ppg, SE {h2h.se:.4f}, {h2h.games:,} games")
    print(_where(args, folder))
    return 0


def _run_local(args: argparse.Namespace, folder: Path, settings: SweepSettings) -> int:
    """Experiment 4; prints each comparison so far; returns 0."""
    result = run_local(folder, settings, progress=not args.json, play=not args.report, weights=args.weights)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    for p in result.points:
        print(f"{p.label:<36} {p.ppg * 1000:+7.1f} mppg  SE {p.se * 1000:5.1f}  {p.games:>8,} games")
    print(f"{result.games_total:,} games; {_where(args, folder)}")
    return 0


def _run_cube_errors(args: argparse.Namespace, folder: Path) -> int:
    """Cube error rates against cubeful rollouts: prints each model's errors; returns 0."""
    cfg = CubeErrorsConfig(
        out=folder,
        decisions=args.decisions,
        weights=args.weights,
        seed=args.seed,
        until_se=args.until_se,
        trials_cap=args.trials_cap,
    )
    result = run_cube_errors(
        cfg,
        args.models,
        args.workers,
        args.ray,
        play=not args.report,
        progress=not args.json,
        model_plies=args.model_plies,
    )
    if args.json:
        print(json.dumps(result))
        return 0
    s = result["summary"]
    print(
        f"{s['decisions']:,} decisions, {s['trials_per_branch']['mean']:.0f} trials a branch (mean), "
        f"{s['cpu_seconds']['per_decision']:.1f} CPU s a decision"
    )
    first = next(iter(result["models"]))
    for spec, m in result["models"].items():
        games, per_cube = m["per_500_games"], m.get("per_500_games_per_cube")
        per500 = f"{games['points']:.2f} +- {games['se']:.2f} points per 500 games" if games else ""
        if per_cube:  # results written before it have none
            per500 += f" ({per_cube['points']:.2f} +- {per_cube['se']:.2f} per cube)"
        errors = ", ".join(f"{k} {v}" for k, v in m["errors"].items())
        print(f"  {spec:<24} {_pm(m['mp_per_decision'], m['se'])} mp a decision  {per500}  ({errors})")
        if by_cube := m.get("by_cube"):  # results written before it have none
            cubes = ", ".join(f"{state} {_pm(f['mp_per_decision'], f['se'])}" for state, f in by_cube.items())
            print(f"  {'':<24} by cube: {cubes} mp a decision")
        if spec != first:
            d = m["minus"][first]
            print(f"  {'':<24} {_pm(d['mp_per_decision'], d['se'])} mp a decision more than {first} (paired)")
        if (at_0 := m.get("minus_at_0_ply")) is not None:
            print(f"  {'':<24} {_pm(at_0['mp_per_decision'], at_0['se'])} mp a decision more than itself at 0 ply")
    if (floor := result.get("noise_floor")) is not None:  # results written before it have none
        print(
            f"  the rollouts' noise alone charges the rolled-out actions {floor['mp_per_decision']:.1f} mp a decision"
        )
    plies = f" (the models at {args.model_plies} ply)" if args.model_plies else ""
    print(f"{'reported from' if args.report else 'result.json written in'} {folder}{plies}")
    return 0


def _pm(value: float, se: float | None) -> str:
    """``value +- se`` (the SE blank with a single decision)."""
    return f"{value:+7.1f} +- {se:5.1f}" if se is not None else f"{value:+7.1f}"
