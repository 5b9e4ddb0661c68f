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

    python tools/sweep_fits/robustness.py degree-cap
    python tools/sweep_fits/robustness.py same-dice
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
REPLICATES = 2000


def curve_points(folder: Path, curve: str) -> tuple[list[float], list[np.ndarray]] | None:
    """``curve``'s swept values and per-pair points from the committed sweep in ``folder`` (None: not played there)."""
    experiment = "janowski" if curve == "janowski" else "jump"
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
    experiment = "janowski" if curve == "janowski" else "jump"
    return int(json.loads((folder / experiment / "result.json").read_text())["seed"])


def degree_cap() -> None:
    """Print every committed curve's fit with the rule's cap at 4, 5 and 6."""
    for folder, run in RUNS.items():
        for curve in ("janowski", "linear", "nonlinear", "numerical"):
            found = curve_points(folder, curve)
            if found is None:
                continue
            xs, pairs = found
            show = (lambda v: f"{v:.3f}") if curve == "janowski" else (lambda v: f"{100 * v:.1f}%")
            for cap in CAPS:
                opt = fit_optimum(xs, pairs, seed=seed_of(folder, curve), rule=DegreeRule(last=cap))
                top = opt.fits[-1]
                shares = ", ".join(
                    f"{f.degree}: {share:.0%}" for f, share in zip(opt.fits, opt.selected_shares or (), strict=True)
                )
                print(
                    f"{run}, {curve}, cap {cap}: degree {opt.degree}, best {show(opt.best)} "
                    f"[{show(opt.ci95[0])}, {show(opt.ci95[1])}] at that degree, "
                    f"[{show(opt.selected_ci95[0])}, {show(opt.selected_ci95[1])}] with the degree chosen again "
                    f"({shares}); degree {top.degree}: best {show(top.best)}, step p {top.p_step:.2g}"
                    if opt.selected_ci95 is not None and top.p_step is not None
                    else f"{run}, {curve}, cap {cap}: degree {opt.degree}, best {show(opt.best)}"
                )


def same_dice() -> None:
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
        degree = opt.degree
        bests.append(opt.best)
        peaks.append(bootstrap_peaks(xs, pairs, degree, weights))
        print(
            f"{RUNS[folder]}: best x {bests[-1]:.4f} (degree {degree}), bootstrap SE {peaks[-1].std(ddof=1):.4f}, "
            f"{min(len(p) for p in pairs if len(p)):,} to {max(len(p) for p in pairs):,} pairs a point"
        )
    diff = peaks[0] - peaks[1]
    low, high = np.quantile(diff, [0.025, 0.975])
    independent = float(np.hypot(peaks[0].std(ddof=1), peaks[1].std(ddof=1)))
    print(
        f"TD minus shipped: {bests[0] - bests[1]:+.4f}, paired SE {diff.std(ddof=1):.4f}, 95% interval "
        f"[{low:+.4f}, {high:+.4f}], above 0 in {np.mean(diff > 0):.1%} of {REPLICATES:,} replicates "
        f"(as independent runs the SE would be {independent:.4f}; correlation of the two optima "
        f"{np.corrcoef(peaks[0], peaks[1])[0, 1]:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=("degree-cap", "same-dice"))
    args = parser.parse_args()
    degree_cap() if args.check == "degree-cap" else same_dice()


if __name__ == "__main__":
    main()
