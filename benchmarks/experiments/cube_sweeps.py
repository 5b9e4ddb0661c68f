"""Experiments 1 and 2 of the jump-model paper: cube strategies swept against Janowski x = 0.70.

1. ``janowski``: Janowski players of cube-life index x from 0.50 to 0.90 against x = 0.70
   (paper: best x = 0.70; Higgins' later estimate 0.7 +- 0.05).
2. ``jump``: constant jump volatility alpha from 4% to 20%, for the linear, the nonlinear and
   the numerical solution, against Janowski x = 0.70 (paper: best alpha 11.3% linear, 9.1%
   nonlinear).

Every player uses the same net at 0-ply for the checker play, so points differ only through the
cube. Each sweep writes ``result.json`` (points with SE and games, fitted optimum with its 95%
interval), ``pairs.npz`` (every point's per-pair points) and ``plot.png`` to its folder; every
point's ledger is kept there, so a stopped sweep resumes with the same command. A report reads
the ledgers where every point of a curve has one, else ``result.json`` and ``pairs.npz`` (all a
fresh clone has), refits, and writes nothing.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.experiments.fit import Optimum, fit_optimum
from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import check_folder, claim_folder, committed_result, nothing_played
from benchmarks.experiments.sweep import PointResult, PointSpec, SweepSettings, identical_point, play_points
from cube.strategy import JumpApproximation
from nets.weights import write_atomic

REFERENCE = "janowski:0.7"
JANOWSKI_XS = (0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90)
JUMP_ALPHAS = (0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20)
JUMP_APPROXIMATIONS = tuple(JumpApproximation)
PAPER = {"janowski": 0.70, "linear": 0.113, "nonlinear": 0.091}


@dataclass(frozen=True)
class Curve:
    """One swept family: its name, the parameter values, and the cube spec of each."""

    name: str
    parameter: str
    values: tuple[float, ...]
    spec: Callable[[float], str]


@dataclass(frozen=True)
class CurveResult:
    """One family's points (A's view against the reference), one per swept ``values`` entry, and its fitted optimum."""

    name: str
    parameter: str
    paper_best: float | None
    values: tuple[float, ...]
    points: list[PointResult]
    optimum: Optimum

    def to_json(self) -> dict[str, Any]:
        """The curve as result.json holds it (each point with its parameter ``value``)."""
        return {
            "name": self.name,
            "parameter": self.parameter,
            "paper_best": self.paper_best,
            "points": [dict(p.to_json(), value=v) for p, v in zip(self.points, self.values, strict=True)],
            "optimum": self.optimum.to_json(),
        }


@dataclass(frozen=True)
class SweepResult:
    """A sweep (``janowski`` or ``jump``) against ``opponent``; ``complete`` when a run played every point to target."""

    experiment: str
    opponent: str
    checker_play: str
    seed: int
    se_target: float
    complete: bool
    games_total: int
    curves: list[CurveResult]
    luck_adjusted: bool = False  # points, SEs and fits on luck-adjusted results (each point's raw figures beside)
    luck_screen: int | None = None  # the luck's plays among pubeval's top N (None: every play)

    def to_json(self) -> dict[str, Any]:
        """The sweep as result.json and ``experiment janowski|jump --json`` hold it."""
        out: dict[str, Any] = {
            "experiment": self.experiment,
            "opponent": self.opponent,
            "checker_play": self.checker_play,
            "seed": self.seed,
            "se_target": self.se_target,
            "complete": self.complete,
            "games_total": self.games_total,
            "curves": [c.to_json() for c in self.curves],
        }
        if self.luck_adjusted:
            out["luck_adjusted"] = True
        if self.luck_screen is not None:
            out["luck_screen"] = self.luck_screen
        return out


def curves(experiment: str, only: tuple[str, ...] = ()) -> list[Curve]:
    """The families an experiment sweeps (``janowski`` or ``jump``), all of them or those named in ``only``.

    Raises ValueError naming a curve in ``only`` that the experiment does not have.
    """
    if experiment == "janowski":
        every = [Curve("janowski", "x", JANOWSKI_XS, lambda x: f"janowski:{x:g}")]
    else:
        every = [
            Curve(approx, "alpha", JUMP_ALPHAS, lambda a, approx=approx: f"jump:{a:g}:{approx}")  # type: ignore[misc]
            for approx in JUMP_APPROXIMATIONS
        ]
    names = [c.name for c in every]
    for name in only:
        if name not in names:
            raise ValueError(f"curve {name!r}: experiment {experiment} has {', '.join(names)}")
    return [c for c in every if not only or c.name in only]


def run_sweep(
    experiment: str,
    out: Path,
    settings: SweepSettings,
    degree: int | None = None,
    progress: bool = True,
    play: bool = True,
    only: tuple[str, ...] = (),
    weights: Path | None = None,
    refit: bool = False,
) -> SweepResult:
    """Play every point of ``experiment`` to the SE target, fit each curve, write result.json, pairs.npz, plot.png.

    ``weights`` is the checker play's net (default shipped; ``settings.checker`` plays it), and
    the folder belongs to it. With ``play`` False nothing is played or written: the result is
    what the ledgers hold so far, or, for a curve without them, what ``result.json`` and
    ``pairs.npz`` hold; ValueError when the folder holds nothing. ``only`` names the curves to
    play (all by default); the others are reported from their ledgers where every point has one,
    and left out of the result where not. ``degree`` overrides the fit rule (:data:`fit.RULE`).
    A report reprints the committed fit of a curve where it was fitted the same way; with
    ``refit`` (no ``play``) it fits the committed points again and rewrites result.json and
    plot.png (never pairs.npz), keeping the committed run's seed, SE target and checker play;
    ValueError unless the folder holds a finished run's result without ledgers.
    """
    if refit and (play or only):
        raise ValueError("a refit plays nothing and rewrites every curve: call it with play False and no curves named")
    header = committed_result(out) if refit else None
    if header is not None:
        settings = replace(settings, seed=header["seed"], se_target=header["se_target"])
    if play:
        claim_folder(out, weights)
    else:
        check_folder(out, weights)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    wanted = {curve.name for curve in curves(experiment, only)}
    committed = committed_points(out) if not play else {}
    plan: list[tuple[Curve, list[PointSpec | str]]] = []
    to_play: list[PointSpec] = []
    to_report: list[PointSpec] = []
    from_result: dict[PointSpec, PointResult] = {}
    for curve in curves(experiment):
        row: list[PointSpec | str] = []
        for value in curve.values:
            spec = curve.spec(value)
            label = f"{curve.name} {curve.parameter}={value:g}"
            if spec == REFERENCE:
                row.append(label)  # the reference itself: exactly 0, no games
                continue
            row.append(PointSpec(label, spec, REFERENCE, out / f"{spec.replace(':', '_')}.ledger.jsonl"))
        specs = [p for p in row if isinstance(p, PointSpec)]
        if play and curve.name in wanted:
            to_play.extend(specs)
        elif all(p.ledger.exists() for p in specs):
            to_report.extend(specs)  # a curve not played this time is still reported from its ledgers
        elif not play and (not only or curve.name in wanted) and all(p.a_cube in committed for p in specs):
            from_result.update({p: committed[p.a_cube] for p in specs})  # a finished run's result
        else:
            continue
        plan.append((curve, row))
    if not play and not plan:
        raise nothing_played(out)
    if from_result and not refit:  # a finished run's result is reprinted as the kind it is, never passed off
        luck_run = bool((committed_result(out) or {}).get("luck_adjusted"))
        if luck_run != (settings.luck_weights is not None):
            kinds = ("luck-adjusted", "--luck") if luck_run else ("raw (not luck-adjusted)", "no --luck")
            raise ValueError(f"{str(out)!r} holds a {kinds[0]} run: report it with {kinds[1]}")
    played = dict(zip(to_play, play_points(to_play, settings, progress, log, play), strict=True))
    played.update(zip(to_report, play_points(to_report, settings, progress, log, play=False), strict=True))
    played.update(from_result)
    # A report is complete when it reprints a finished run's result and nothing else.
    finished = bool((committed_result(out) or {}).get("complete")) if from_result and not to_report else False
    complete = play or finished
    if refit and not finished:
        raise ValueError(
            f"{str(out)!r}: a refit reads a finished run's result.json and pairs.npz, and none without ledgers is here"
        )
    fitted = committed_optima(out, degree) if from_result and not refit else {}
    families: list[CurveResult] = []
    for curve, row in plan:
        points = [played[p] if isinstance(p, PointSpec) else identical_point(p, REFERENCE) for p in row]
        reprinted = all(p in from_result for p in row if isinstance(p, PointSpec)) and curve.name in fitted
        optimum = (
            fitted[curve.name]  # a finished run's fit of these very points, fitted as asked
            if reprinted
            else fit_optimum(curve.values, [p.pair_points for p in points], degree=degree, seed=settings.seed)
        )
        families.append(CurveResult(curve.name, curve.parameter, PAPER.get(curve.name), curve.values, points, optimum))
    result = SweepResult(
        experiment=experiment,
        opponent=REFERENCE,
        checker_play=header["checker_play"] if header else settings.checker,
        seed=settings.seed,
        se_target=settings.se_target,
        complete=complete,
        games_total=sum(p.games for c in families for p in c.points),
        curves=families,
        luck_adjusted=bool(header.get("luck_adjusted"))
        if header
        else any(p.raw is not None for c in families for p in c.points),
        luck_screen=header.get("luck_screen") if header else settings.luck_screen,
    )
    if play or refit:
        write_atomic(out / "result.json", (json.dumps(result.to_json(), indent=1) + "\n").encode())
        plot_sweep(result, out / "plot.png")
    if play:
        save_pair_points(out / "pairs.npz", [p for c in families for p in c.points])
    return result


def committed_optima(out: Path, degree: int | None) -> dict[str, Optimum]:
    """The fitted optimum of each curve in ``out``'s result.json, by curve name, where it was fitted as asked.

    ``degree`` None asks for the fit rule's choice, a number for that degree forced.
    """
    result = committed_result(out) or {}
    optima = {c["name"]: Optimum.from_json(c["optimum"]) for c in result.get("curves", [])}
    return {name: opt for name, opt in optima.items() if opt.fitted_as(degree)}


def committed_points(out: Path) -> dict[str, PointResult]:
    """The points a finished sweep left in ``out`` (``result.json`` and ``pairs.npz``), by A's cube spec.

    Empty when either file is missing; ValueError naming a file whose points disagree with the other.
    """
    result = committed_result(out)
    path = out / "pairs.npz"
    if result is None or not path.exists():
        return {}
    with np.load(path) as arrays:
        pairs = {name: arrays[name] for name in arrays.files}
    points: dict[str, PointResult] = {}
    for curve in result.get("curves", []):
        for p in curve["points"]:
            if not p["games"]:
                continue  # the reference point
            doubled = pairs.get(p["a_cube"])
            if doubled is None or 2 * len(doubled) != p["games"]:
                raise ValueError(f"{str(path)!r} does not hold the {p['games']:,} games of {p['label']!r}")
            points[p["a_cube"]] = PointResult(
                label=p["label"],
                a_cube=p["a_cube"],
                b_cube=p["b_cube"],
                ppg=p["ppg"],
                se=p["se"],
                games=p["games"],
                doubles_a=p["doubles_a"],
                doubles_b=p["doubles_b"],
                pair_points=doubled / 2.0,
                raw=(p["raw_ppg"], p["raw_se"]) if "raw_ppg" in p else None,
            )
    return points


def save_pair_points(path: Path, points: list[PointResult]) -> None:
    """Every point's per-pair points (twice A's mean: integers, or floats when luck-adjusted), so the fit can be
    redone without the ledgers."""
    arrays: dict[str, Any] = {p.a_cube: _compact(2 * p.pair_points) for p in points if p.games}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomic(path, buffer.getvalue())


def _compact(doubled: np.ndarray) -> np.ndarray:
    """Raw pair points (whole points) as int32; luck-adjusted ones as they are."""
    whole = np.rint(doubled)
    return whole.astype(np.int32) if np.array_equal(whole, doubled) else doubled.astype(np.float64)


def plot_sweep(result: SweepResult, path: Path) -> bool:
    """Draw each curve's points with 1-SE bars, its (GLS) fit and optimum to ``path``; False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, curve in enumerate(result.curves):
        color = f"C{k}"
        xs = np.array(curve.values)
        ys = np.array([p.ppg for p in curve.points]) * 1000
        es = np.array([p.se for p in curve.points]) * 1000
        ax.errorbar(xs, ys, yerr=es, fmt="o", color=color, capsize=3, label=f"{curve.name} (SE bars)")
        grid = np.linspace(xs.min(), xs.max(), 200)
        opt = curve.optimum
        ax.plot(grid, np.polyval(opt.coefficients, grid) * 1000, "-", color=color, alpha=0.7)
        low, high = opt.ci95
        ax.axvspan(low, high, color=color, alpha=0.12)
        label = f"best {opt.best:.3f} [{low:.3f}, {high:.3f}], degree {opt.degree} GLS"
        ax.axvline(opt.best, color=color, lw=1, label=label)
        if curve.paper_best is not None:
            ax.axvline(curve.paper_best, color=color, lw=1, ls=":", label=f"paper {curve.paper_best:g}")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel(result.curves[0].parameter)
    ax.set_ylabel(f"milli-points per game against {result.opponent}")
    adjusted = ", luck-adjusted" if result.luck_adjusted else ""
    games = f"{result.games_total:,} games{adjusted}"
    ax.set_title(f"{result.experiment} sweep, {result.checker_play} checker play, {games}")
    ax.legend(fontsize=7)
    save_png(plt, fig, path)
    return True
