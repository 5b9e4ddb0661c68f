"""The committed sweeps' fits: refitting ``pairs.npz`` by the rule gives ``result.json``, and the docs quote it.

docs/experiments.md quotes, for each curve of experiments 1 and 2, the rule's optimum, its two
intervals and the AIC-weighted optimum in the curve's part of its table row, and every degree's
optimum, interval, chi2 and step p-value in the table of every degree's fit. Both are built here
from ``result.json`` and must be in the docs as built, so a doc edit without a refit fails; and
``result.json`` must be what a refit of ``pairs.npz`` gives, so a refit without a doc edit fails too.
The optima, chi2 and p-values do not depend on the bootstrap and are checked against a quick refit;
the intervals against the full one (a slow test).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.experiments.cube_sweeps import committed_points, curves
from benchmarks.experiments.fit import REPLICATES, Optimum, fit_optimum
from benchmarks.experiments.sweep import identical_point

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "results" / "experiments"
DOC = REPO / "docs" / "experiments.md"
DEGREE_NAMES = {2: "quadratic", 3: "cubic", 4: "quartic"}
# Each curve's part of its table row: the row's number and the label that opens the curve's part.
ROWS = {
    "janowski": ("1", None),
    "linear": ("2", "Linear:"),
    "nonlinear": ("2", "Nonlinear:"),
    "numerical": ("2", "Numerical:"),
}
EXPERIMENT_OF = {"janowski": "janowski", "linear": "jump", "nonlinear": "jump", "numerical": "jump"}


def doc_part(curve: str) -> str:
    """The text of ``curve``'s part of its row in the table of docs/experiments.md."""
    number, label = ROWS[curve]
    (row,) = [line for line in DOC.read_text().splitlines() if line.startswith(f"| {number}. ")]
    if label is None:
        return row
    labels = [lab for n, lab in ROWS.values() if n == number and lab is not None]
    start = row.index(label)
    ends = [row.index(other, start + 1) for other in labels if other in row[start + 1 :]]
    return row[start : min(ends, default=len(row))]


def formatter(curve: str) -> Callable[[float], str]:
    """How the docs write a parameter value: Janowski x to 3 decimals, alpha in percent to 1."""
    return (lambda v: f"{v:.3f}") if curve == "janowski" else (lambda v: f"{100 * v:.1f}%")


def quoted_phrases(curve: str, opt: Optimum) -> list[str]:
    """What the docs must say of ``curve``'s fit, built from the fit itself."""
    v = formatter(curve)
    assert opt.selected_ci95 is not None and opt.aic_best is not None and opt.aic_se is not None
    phrases = [
        f"**{v(opt.best)}**",
        f"[{v(opt.ci95[0])}, {v(opt.ci95[1])}] at that degree",
        f"[{v(opt.selected_ci95[0])}, {v(opt.selected_ci95[1])}] with the degree chosen again in every replicate",
        f"AIC-weighted {v(opt.aic_best)} +- {v(opt.aic_se)}",
    ]
    return phrases


def degree_lines(curve: str, opt: Optimum) -> list[str]:
    """The lines of the table of every degree's fit that the docs must hold for ``curve``, built from the fit."""
    v = formatter(curve)
    lines = []
    for f in opt.fits:
        name = DEGREE_NAMES[f.degree] + (" (the rule's)" if f.degree == opt.degree else "")
        step = "" if f.p_step is None else f"{f.p_step:.2g}"
        lines.append(
            f"| {curve} | {name} | {v(f.best)} [{v(f.ci95[0])}, {v(f.ci95[1])}] | {f.chi2:.1f} on {f.dof} | {step} |"
        )
    return lines


def committed_curve(curve: str, run: Path = COMMITTED) -> dict[str, Any]:
    """``curve`` as the committed result.json of ``run`` (a folder of experiment folders) holds it."""
    result = json.loads((run / EXPERIMENT_OF[curve] / "result.json").read_text())
    (found,) = [c for c in result["curves"] if c["name"] == curve]
    return found


def refit(curve: str, replicates: int, run: Path = COMMITTED) -> Optimum:
    """``curve``'s fit from ``run``'s committed pairs.npz by the rule, with the committed run's seed."""
    experiment = EXPERIMENT_OF[curve]
    folder = run / experiment
    points = committed_points(folder)
    (spec,) = [c for c in curves(experiment) if c.name == curve]
    pairs = [
        points[spec.spec(x)].pair_points if spec.spec(x) in points else identical_point("", spec.spec(x)).pair_points
        for x in spec.values
    ]
    seed = json.loads((folder / "result.json").read_text())["seed"]
    return fit_optimum(spec.values, pairs, seed=seed, replicates=replicates)


def without_bootstrap(opt: dict[str, Any]) -> object:
    """What of a fit does not depend on the bootstrap: each degree's coefficients, optimum and chi2, the choice."""
    keep = ("degree", "coefficients", "best", "best_ppg", "chi2", "dof", "p_fit", "p_step", "aic")
    return opt["degree"], opt["forced"], opt["rule"], [{k: f[k] for k in keep} for f in opt["fits"]]


@pytest.mark.parametrize("curve", list(ROWS))
def test_the_docs_quote_the_committed_fit(curve: str) -> None:
    opt = Optimum.from_json(committed_curve(curve)["optimum"])
    assert opt.fitted_as(None) and opt.replicates == REPLICATES  # the rule's fit, at full size
    part = doc_part(curve)
    missing = [p for p in quoted_phrases(curve, opt) if p not in part]
    assert not missing, f"docs/experiments.md, {curve}: not quoted as result.json has it: {missing}"
    table = [line.strip() for line in DOC.read_text().splitlines() if line.startswith(f"| {curve} | ")]
    assert table == degree_lines(curve, opt), f"docs/experiments.md, {curve}: every degree's fit as result.json has it"


@pytest.mark.parametrize("curve", list(ROWS))
def test_a_quick_refit_of_the_committed_pairs_gives_the_committed_optima(curve: str) -> None:
    """The optima, chi2 and the rule's choice do not depend on the bootstrap: 20 replicates reproduce them."""
    committed = committed_curve(curve)["optimum"]
    refitted = refit(curve, replicates=20).to_json()
    assert without_bootstrap(refitted) == without_bootstrap(committed)


@pytest.mark.slow
@pytest.mark.parametrize("curve", list(ROWS))
def test_a_full_refit_of_the_committed_pairs_gives_the_committed_result(curve: str) -> None:
    """Every figure, the bootstrap intervals included (20 s a curve)."""
    assert refit(curve, replicates=REPLICATES).to_json() == committed_curve(curve)["optimum"]


def test_the_doc_parts_are_found_and_distinct() -> None:
    """Each curve's part is its own stretch of its row (a renamed label would otherwise check the wrong text)."""
    parts = {curve: doc_part(curve) for curve in ROWS}
    assert all(re.search(r"\*\*[\d.]+%?\*\*", p) for p in parts.values())
    assert len(set(parts.values())) == len(parts)


# The luck-adjusted repeats of experiments 1 and 2 (docs/experiments.md, "Experiments 1 and 2 again"): each run's
# folder and the curves it has finished (a curve not yet played is not in its result.json).
REPEATS = {"shipped-net-seed2": "shipped net, seed 2", "td-net-seed2": "TD net, seed 2"}


def repeat_curves() -> list[tuple[str, str]]:
    """(run folder, curve) of every finished curve of the repeats."""
    found = []
    for run in REPEATS:
        for experiment in ("janowski", "jump"):
            path = COMMITTED / run / experiment / "result.json"
            if path.exists():
                found += [(run, c["name"]) for c in json.loads(path.read_text())["curves"]]
    return found


def test_some_repeat_is_committed() -> None:
    assert ("shipped-net-seed2", "janowski") in repeat_curves()


@pytest.mark.parametrize(("run", "curve"), repeat_curves())
def test_a_repeat_refits_to_its_result_and_the_docs_quote_it(run: str, curve: str) -> None:
    committed = committed_curve(curve, COMMITTED / run)
    assert json.loads((COMMITTED / run / EXPERIMENT_OF[curve] / "result.json").read_text())["luck_adjusted"] is True
    assert without_bootstrap(refit(curve, 20, COMMITTED / run).to_json()) == without_bootstrap(committed["optimum"])
    opt = Optimum.from_json(committed["optimum"])
    assert opt.selected_ci95 is not None
    v = formatter(curve)
    row = [line for line in DOC.read_text().splitlines() if line.startswith(f"| {REPEATS[run]} | {curve} |")]
    assert len(row) == 1, f"docs/experiments.md has no row for {REPEATS[run]}, {curve}"
    for phrase in (
        f"**{v(opt.best)}**",
        f"[{v(opt.ci95[0])}, {v(opt.ci95[1])}]",
        f"[{v(opt.selected_ci95[0])}, {v(opt.selected_ci95[1])}]",
        f"{DEGREE_NAMES[opt.degree]}",
    ):
        assert phrase in row[0], (run, curve, phrase)


ROBUSTNESS = REPO / "tools" / "sweep_fits" / "robustness.py"


def robustness(*args: str) -> Any:
    """What ``tools/sweep_fits/robustness.py ARGS --json`` finds in the committed pairs."""
    run = subprocess.run(
        [sys.executable, str(ROBUSTNESS), *args, "--json"], capture_output=True, text=True, cwd=REPO, timeout=600
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.slow
def test_the_docs_quote_the_two_nets_optima_bootstrapped_on_their_shared_dice() -> None:
    found = robustness("same-dice")
    prose = " ".join(DOC.read_text().split())
    low, high = found["ci95"]
    assert f"optima differ by {found['difference']:.3f} (TD minus shipped)" in prose
    assert (
        f"the difference has an SE of {found['paired_se']:.3f} and a 95% interval of [{low:+.3f}, {high:+.3f}]" in prose
    )
    assert f"the two optima hardly correlate, {found['correlation']:.2f}," in prose


@pytest.mark.slow
def test_the_docs_quote_what_a_higher_degree_cap_changes_on_the_shipped_nets_curves() -> None:
    """The rule's cap at 5 takes the quintic on the nonlinear curve only and widens the numerical interval a little."""
    records = {
        (r["curve"], r["cap"]): r for r in robustness("degree-cap", "--run", "shipped-net-seed2", "--caps", "4,5")
    }
    prose = " ".join(DOC.read_text().split())
    v = formatter("numerical")
    at4, at5 = records["nonlinear", 4], records["nonlinear", 5]
    assert (at4["degree"], at5["degree"]) == (4, 5)
    assert all(records[c, 5]["degree"] == records[c, 4]["degree"] for c in ("janowski", "linear", "numerical"))
    assert f"takes the quintic (step p {at5['top_p_step']:.2g})" in prose
    ci, again = at5["ci95"], at5["selected_ci95"]
    assert (
        f"moves its optimum from {v(at4['best'])} to {v(at5['best'])} [{v(ci[0])}, {v(ci[1])}] "
        f"([{v(again[0])}, {v(again[1])}] with the degree chosen again)" in prose
    )
    n4, n5 = records["numerical", 4]["selected_ci95"], records["numerical", 5]["selected_ci95"]
    assert f"[{v(n5[0])}, {v(n5[1])}] against [{v(n4[0])}, {v(n4[1])}]" in prose
