"""How far the committed sweeps' optima depend on two choices: the degree cap, and the net on the same dice.

``degree-cap``: every committed curve (docs/experiments.md, rows 1 and 2 and the luck-adjusted
repeats) refitted by the degree rule with its cap at 4 (the rule), 5 and 6: the degree chosen,
the optimum and its interval at that degree, the interval with the degree chosen again in every
replicate, the highest degree's step p-value, and how often each degree is chosen.

``same-dice``: Janowski's best x on the TD net and on the shipped net, both played at seed 2 (pair
k of both runs rolled from the same dice), bootstrapped together: one Poisson(1) weight per pair
index shared by both runs, each refitted at the degree the rule chose for it. Prints the difference
of the optima with its paired SE and 95% interval beside the SE the two runs' own bootstraps would
give it as independent runs.

Reads only the committed ``result.json`` and ``pairs.npz`` files; a few seconds a curve.

    python tools/sweep_fits/robustness.py degree-cap [--run FOLDER] [--curve CURVE] [--caps 4,5,6] [--json]
    python tools/sweep_fits/robustness.py same-dice [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.experiments.cube_sweeps import committed_points, curves
from benchmarks.experiments.fit import DegreeRule, bootstrap_peaks, fit_optimum
from benchmarks.experiments.sweep import identical_point

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "results" / "experiments"
# Each committed sweep folder (a folder of experiment folders) and what the docs call it.
RUNS = {
    RESULTS: "TD net, seed 1",
    RESULTS / "shipped-net-seed2": "shipped net, seed 2",
    RESULTS / "td-net-seed2": "TD net, seed 2",
}
CAPS = (4, 5, 6)
CURVES = ("janowski", "linear", "nonlinear", "numerical")
REPLICATES = 2000


def experiment_of(curve: str) -> str:
    """The experiment whose sweep plays ``curve``: Janowski's x, or one of the jump model's three curves."""
    return "janowski" if curve == "janowski" else "jump"


def curve_points(folder: Path, curve: str) -> tuple[list[float], list[np.ndarray]] | None:
    """``curve``'s swept values and per-pair points from the committed sweep in ``folder`` (None: not played there)."""
    experiment = experiment_of(curve)
    points = committed_points(folder / experiment)
    (spec,) = [c for c in curves(experiment) if c.name == curve]
    if not any(spec.spec(x) in points for x in spec.values):
        return None
    pairs = [
        points[spec.spec(x)].pair_points if spec.spec(x) in points else identical_point("", spec.spec(x)).pair_points
        for x in spec.values
    ]
    return list(spec.values), pairs


def seed_of(folder: Path, curve: str) -> int:
    """The seed the committed sweep of ``curve`` in ``folder`` was played (and bootstrapped) with."""
    return int(json.loads((folder / experiment_of(curve) / "result.json").read_text())["seed"])


def degree_cap(runs: list[Path], names: tuple[str, ...], caps: tuple[int, ...], as_json: bool) -> None:
    """Print the fits of the committed curves ``names`` in ``runs`` with the rule's cap at each of ``caps``."""
    records = []
    for folder in runs:
        for curve in names:
            found = curve_points(folder, curve)
            if found is None:
                continue
            xs, pairs = found
            show = (lambda v: f"{v:.3f}") if curve == "janowski" else (lambda v: f"{100 * v:.1f}%")
            for cap in caps:
                opt = fit_optimum(xs, pairs, seed=seed_of(folder, curve), rule=DegreeRule(last=cap))
                top = opt.fits[-1]
                assert opt.selected_ci95 is not None and opt.selected_shares is not None and top.p_step is not None
                shares_by_degree = dict(zip([f.degree for f in opt.fits], opt.selected_shares, strict=True))
                records.append(
                    {
                        "run": RUNS[folder],
                        "curve": curve,
                        "cap": cap,
                        "degree": opt.degree,
                        "best": opt.best,
                        "ci95": opt.ci95,
                        "selected_ci95": opt.selected_ci95,
                        "selected_shares": shares_by_degree,
                        "top_degree": top.degree,
                        "top_best": top.best,
                        "top_p_step": top.p_step,
                    }
                )
                shares = ", ".join(f"{d}: {share:.0%}" for d, share in shares_by_degree.items())
                if not as_json:
                    print(
                        f"{RUNS[folder]}, {curve}, cap {cap}: degree {opt.degree}, best {show(opt.best)} "
                        f"[{show(opt.ci95[0])}, {show(opt.ci95[1])}] at that degree, "
                        f"[{show(opt.selected_ci95[0])}, {show(opt.selected_ci95[1])}] with the degree chosen again "
                        f"({shares}); degree {top.degree}: best {show(top.best)}, step p {top.p_step:.2g}"
                    )
    if as_json:
        print(json.dumps(records))


def same_dice(as_json: bool) -> None:
    """Print the difference of Janowski's best x between the two nets at seed 2, bootstrapped on the shared dice."""
    runs = [RESULTS / "td-net-seed2", RESULTS / "shipped-net-seed2"]
    found = [curve_points(folder, "janowski") for folder in runs]
    assert all(f is not None for f in found), "both seed-2 Janowski sweeps must be committed"
    seeds = {seed_of(folder, "janowski") for folder in runs}
    assert len(seeds) == 1, f"the runs were played at different seeds {seeds}: their dice are not shared"
    n_max = max(len(p) for f in found if f is not None for p in f[1])
    weights = np.random.default_rng(0).poisson(1.0, (REPLICATES, n_max)).astype(float)
    peaks, bests = [], []
    for folder, f in zip(runs, found, strict=True):
        assert f is not None
        xs, pairs = f
        opt = fit_optimum(xs, pairs, replicates=20)  # the rule's degree and optimum need no bootstrap
        bests.append(opt.best)
        peaks.append(bootstrap_peaks(xs, pairs, opt.degree, weights))
        if not as_json:
            print(
                f"{RUNS[folder]}: best x {opt.best:.4f} (degree {opt.degree}), bootstrap SE "
                f"{peaks[-1].std(ddof=1):.4f}, {min(len(p) for p in pairs if len(p)):,} to "
                f"{max(len(p) for p in pairs):,} pairs a point"
            )
    diff = peaks[0] - peaks[1]
    low, high = np.quantile(diff, [0.025, 0.975])
    record = {
        "difference": bests[0] - bests[1],
        "paired_se": float(diff.std(ddof=1)),
        "ci95": [float(low), float(high)],
        "share_above_0": float(np.mean(diff > 0)),
        "independent_se": float(np.hypot(peaks[0].std(ddof=1), peaks[1].std(ddof=1))),
        "correlation": float(np.corrcoef(peaks[0], peaks[1])[0, 1]),
        "own_se": [float(p.std(ddof=1)) for p in peaks],
    }
    if as_json:
        print(json.dumps(record))
        return
    print(
        f"TD minus shipped: {record['difference']:+.4f}, paired SE {record['paired_se']:.4f}, 95% interval "
        f"[{low:+.4f}, {high:+.4f}], above 0 in {record['share_above_0']:.1%} of {REPLICATES:,} replicates "
        f"(as independent runs the SE would be {record['independent_se']:.4f}; correlation of the two optima "
        f"{record['correlation']:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=("degree-cap", "same-dice"))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--run", choices=[f.name for f in RUNS], help="degree-cap: only this sweep folder")
    parser.add_argument("--curve", choices=CURVES, help="degree-cap: only this curve")
    parser.add_argument("--caps", default=",".join(map(str, CAPS)), help="degree-cap: the caps, comma-separated")
    args = parser.parse_args()
    if args.check == "same-dice":
        same_dice(args.json)
        return
    runs = [f for f in RUNS if args.run is None or f.name == args.run]
    try:
        caps = tuple(int(c) for c in args.caps.split(","))
    except ValueError:
        parser.error(f"--caps {args.caps!r}: expected degrees such as 4,5,6")
    degree_cap(runs, (args.curve,) if args.curve else CURVES, caps, args.json)


if __name__ == "__main__":
    main()
