"""The full run's table as docs/experiments.md quotes it, from a report of the committed shards.

    python tools/cube_errors/docs_table.py [--plot results/experiments/cube-errors/plot.png]
    python tools/cube_errors/docs_table.py --deeper
    python tools/cube_errors/docs_table.py --decided

Prints the summary figures ("The full run") and the markdown rows of the models' table that
``tests/benchmarks/test_cube_errors.py`` checks against the same report, for pasting after new shards;
``--plot`` also draws the report (as a finished run's ``plot.png``) to the file given. ``--deeper``
prints instead the rows of the table of the models deciding from the net at 1 and 2 plies (reports
with ``--model-plies``), with their by-cube figures. ``--decided`` counts the decisions whose two-roll
lookahead shows the game decided or nearly (at most ``SEARCH_CELLS`` lines open), and the decisions each
model takes otherwise with the two-roll rule (:mod:`cube.two_roll`: exact where decided, searched where
nearly) than without it; then each model's paired difference from Janowski with and without the rule, over
all decisions, over those rolled out before and after the rule was written (from decision ``AFTER_THE_RULE``
on), and the later part's difference minus the earlier's (independent decisions: the SEs add in quadrature),
since the rule was written after the run had shown one of the errors it removes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy import stats

from benchmarks.experiments.cube_errors import (
    DEFAULT_MODELS,
    CubeErrorsConfig,
    decision_errors,
    draw_player,
    model_decisions,
    model_player,
    plot_cube_errors,
    read_shards,
    run_cube_errors,
)
from cube.two_roll import SEARCH_CELLS, uncertain_cells
from nets.evaluator import Evaluator, load_evaluator
from nets.volatility import two_roll_outcomes_batch

FULL_RUN = Path(__file__).resolve().parents[2] / "results" / "experiments" / "cube-errors"
# Decisions from here on were rolled out after the two-roll rule was written (2026-11-27: the run stood at 61 to 64
# shards while it was written), so they are out of sample for it.
AFTER_THE_RULE = 1280


def _paired(d: dict) -> str:
    """A paired difference as the docs quote it, e.g. ``-2.3 (0.6)``."""
    return f"{d['mp_per_decision']:+.1f} ({d['se']:.1f})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plot", type=Path, help="also draw the report to this PNG file")
    p.add_argument("--deeper", action="store_true", help="the table of the models at 1 and 2 plies")
    p.add_argument("--decided", action="store_true", help="the decisions decided within two rolls")
    args = p.parse_args()
    if args.deeper:
        deeper_rows()
        return 0
    if args.decided:
        decided_counts()
        return 0
    result = run_cube_errors(CubeErrorsConfig(out=FULL_RUN), DEFAULT_MODELS, play=False, progress=False)
    if args.plot is not None and not plot_cube_errors(result, args.plot):
        return 1
    data = read_shards(FULL_RUN)
    assert data is not None
    s = result["summary"]
    worst = np.maximum(data.nd_se, data.dt_se)
    capped = int((data.trials >= CubeErrorsConfig(out=FULL_RUN).trials_cap).sum())
    shards = len(list(FULL_RUN.glob("decisions_*.npz")))
    remaining = s["projected"]["core_hours_for_2000_capped"] * (1 - s["decisions"] / 2000)
    print(
        f"{s['decisions']:,} of 2,000 decisions ({shards} shards): {s['trials_per_branch']['mean']:,.0f} trials a "
        f"branch on average, {s['cpu_seconds']['per_decision']:.0f} CPU s a decision "
        f"({s['cpu_seconds']['rollouts']:,.0f} s in all), {s['se']['at_target']:,} of the {s['decisions']:,} at "
        f"SE <= 0.01 on both branches, {capped} stopped by the cap (the largest SE left, {worst.max():.3f})"
        + (f"; remaining at this rate: {remaining:.0f} core-hours" if remaining > 0 else "")
    )
    floor = result["noise_floor"]
    print(f"the noise floor, {floor['mp_per_decision']:.1f} mp a decision (simulation SE {floor['simulation_se']:.2f})")
    first = DEFAULT_MODELS[0]
    for spec, m in result["models"].items():
        g = m["per_500_games"]
        paired = "" if spec == first else f"{m['minus'][first]['mp_per_decision']:+.1f} ({m['minus'][first]['se']:.1f})"
        errors = ", ".join(str(v) for v in m["errors"].values())
        print(
            f"| `{spec}` | {m['mp_per_decision']:.1f} ({m['se']:.1f}) | {g['points']:.1f} ({g['se']:.1f}) | "
            f"{paired} | {errors} |"
        )
    print()
    print(
        "| model | centred cube: mp a decision (SE) | centred, minus janowski, paired (SE) | own cube (redoubles) "
        "| own cube, minus janowski, paired (SE) |"
    )
    print("|---|---|---|---|---|")
    for spec, m in result["models"].items():
        c, o = m["by_cube"]["centered"], m["by_cube"]["owned"]
        cuts = ("centered", "owned")
        pairs = ["" if spec == first else _paired(m["minus"][first]["by_cube"][cut]) for cut in cuts]
        print(
            f"| `{spec}` | {c['mp_per_decision']:.1f} ({c['se']:.1f}) | {pairs[0]} | "
            f"{o['mp_per_decision']:.1f} ({o['se']:.1f}) | {pairs[1]} |"
        )
    return 0


def decided_counts() -> None:
    """How many committed decisions are decided within two rolls or nearly, and where each model's decision changes
    with the two-roll rule (its action or its answer to a double, asked as scoring and as the draw ask it)."""
    data = read_shards(FULL_RUN)
    assert data is not None
    evaluator = load_evaluator()
    open_lines = uncertain_cells(two_roll_outcomes_batch(evaluator, data.boards))
    sure = np.flatnonzero(open_lines <= SEARCH_CELLS)
    nearly = np.flatnonzero((open_lines > 0) & (open_lines <= SEARCH_CELLS))
    print(f"{len(sure) - len(nearly)} of the {len(data):,} decisions are decided within two rolls")
    print(f"{len(nearly)} more nearly (1 to {SEARCH_CELLS} of the 441 lines open): decisions {nearly.tolist()}")
    boards, owned = data.boards[sure], data.owned[sure]
    evaluators: dict[str, Evaluator] = {}
    first = DEFAULT_MODELS[0]
    baseline = decision_errors(data, *model_decisions(model_player(first, None, evaluators), data.boards, data.owned))
    later = np.arange(len(data)) >= AFTER_THE_RULE
    earlier, later_part = f"before {AFTER_THE_RULE:,}", f"from {AFTER_THE_RULE:,}"
    parts = {"all": np.full(len(data), True), earlier: ~later, later_part: later}
    for spec in DEFAULT_MODELS:
        now = model_decisions(model_player(spec, None, evaluators), boards, owned)
        before = model_decisions(draw_player(spec, None, evaluators), boards, owned)
        changed = (now[0] != before[0]) | (now[1] != before[1])
        which = f" (decisions {sure[changed].tolist()})" if changed.any() else ""
        print(f"{spec}: {int(changed.sum())} changed{which}")
        if spec == first:
            continue
        cuts = []
        # The rule acts only where the game is decided or nearly, so a model it changes nowhere there scores the same
        # without it: scored once.
        players = [("with the rule", model_player(spec, None, evaluators))]
        if changed.any():
            players.append(("without", draw_player(spec, None, evaluators)))
        for name, player in players:
            diff = 1000 * (decision_errors(data, *model_decisions(player, data.boards, data.owned)) - baseline)
            figures = {where: _mean_se(diff[mask]) for where, mask in parts.items()}
            for where, (mean, se) in figures.items():
                n = int(parts[where].sum())
                cuts.append(f"{name}, {where} ({n:,}): {mean:+.1f} (SE {se:.1f}, p = {_p(mean, se):.2g})")
            (early, se_early), (late, se_late) = figures[earlier], figures[later_part]
            # The two parts hold different decisions, so their difference's SE adds theirs in quadrature; a few
            # large errors make the differences heavy-tailed, so a permutation test says it without the normal.
            gap, se = late - early, float(np.hypot(se_early, se_late))
            cuts.append(
                f"{name}, later part minus earlier: {gap:+.1f} (SE {se:.1f}, p = {_p(gap, se):.2g}; "
                f"{PERMUTATIONS:,} permutations, p = {_permutation_p(diff, later):.2g})"
            )
            if name == "with the rule":
                with_rule = diff
        same = "" if changed.any() else " (the same without the rule)"
        print(f"  {spec} minus {first}, mp a decision{same}: " + "; ".join(cuts))
        print(f"    with the rule, by part and cube: {_where_it_lies(with_rule, later, data.owned)}")


LARGEST = 8


def _where_it_lies(diff: np.ndarray, later: np.ndarray, owned: np.ndarray) -> str:
    """Each part's mean ``diff`` (mp a decision) on the centred and the roller's own cube, and how much of the part's
    total its ``LARGEST`` differences (by size) carry: where a paired lead comes from."""
    cuts = []
    for part, in_part in ((f"before {AFTER_THE_RULE:,}", ~later), (f"from {AFTER_THE_RULE:,}", later)):
        for cube, on_cube in (("centred", ~owned), ("own cube", owned)):
            mean, se = _mean_se(diff[in_part & on_cube])
            cuts.append(f"{part}, {cube} ({int((in_part & on_cube).sum()):,}): {mean:+.1f} (SE {se:.1f})")
        d = diff[in_part]
        largest = d[np.argsort(-np.abs(d))[:LARGEST]]
        cuts.append(
            f"{part}, its {LARGEST} largest differences {largest.sum() / 1000:+.2f} of its {d.sum() / 1000:+.2f} "
            f"points ({int((d != 0).sum())} decisions differ)"
        )
    return "; ".join(cuts)


PERMUTATIONS = 10_000


def _permutation_p(diff: np.ndarray, later: np.ndarray, seed: int = 0) -> float:
    """The two-sided p that the later decisions' mean ``diff`` differs from the earlier's this much by chance: the
    share of random splits of the same sizes (``PERMUTATIONS`` of them, seeded) whose gap is at least as large."""
    observed = abs(diff[later].mean() - diff[~later].mean())
    rng = np.random.default_rng(seed)
    n_later, hits = int(later.sum()), 0
    for _ in range(PERMUTATIONS // 1000):
        shuffled = diff[np.argsort(rng.random((1000, len(diff))), axis=1)]
        gaps = shuffled[:, :n_later].mean(axis=1) - shuffled[:, n_later:].mean(axis=1)
        hits += int((np.abs(gaps) >= observed - 1e-12).sum())
    return (hits + 1) / (PERMUTATIONS + 1)


def _mean_se(values: np.ndarray) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (NaN for fewer than two)."""
    if len(values) < 2:
        return float("nan"), float("nan")
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def _p(mean: float, se: float) -> float:
    """The two-sided normal p-value of a mean at its SE."""
    return float(2 * stats.norm.sf(abs(mean / se)))


def deeper_rows() -> None:
    """The rows of the models' table at 1 and 2 plies, then each model's by-cube figures at 2 plies."""
    first = DEFAULT_MODELS[0]
    base, one, two = (
        run_cube_errors(CubeErrorsConfig(out=FULL_RUN), DEFAULT_MODELS, play=False, progress=False, model_plies=n)
        for n in (0, 1, 2)
    )
    for spec in DEFAULT_MODELS:
        cells = [f"{base['models'][spec]['mp_per_decision']:.1f} ({base['models'][spec]['se']:.1f})"]
        for result in (one, two):
            m = result["models"][spec]
            cells += [f"{m['mp_per_decision']:.1f} ({m['se']:.1f})", _paired(m["minus_at_0_ply"])]
        cells.append("" if spec == first else _paired(two["models"][spec]["minus"][first]))
        print(f"| `{spec}` | " + " | ".join(cells) + " |")
    print()
    for spec in DEFAULT_MODELS:
        m = two["models"][spec]
        cuts = [f"{cut} {f['mp_per_decision']:.1f} ({f['se']:.1f})" for cut, f in m["by_cube"].items()]
        if spec != first:
            cuts += [f"{cut} minus {first} {_paired(m['minus'][first]['by_cube'][cut])}" for cut in m["by_cube"]]
        print(f"2 ply {spec}: " + ", ".join(cuts))


if __name__ == "__main__":
    raise SystemExit(main())
