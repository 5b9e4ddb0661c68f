"""The full run's table as docs/experiments.md quotes it, from a report of the committed shards.

    python tools/cube_errors/docs_table.py [--plot results/experiments/cube-errors/plot.png]

Prints the summary figures ("The full run so far") and the markdown rows of the models' table that
``tests/benchmarks/test_cube_errors.py`` checks against the same report, for pasting after new shards;
``--plot`` also draws the report (as a finished run's ``plot.png``) to the file given.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.experiments.cube_errors import (
    DEFAULT_MODELS,
    CubeErrorsConfig,
    plot_cube_errors,
    read_shards,
    run_cube_errors,
)

FULL_RUN = Path(__file__).resolve().parents[2] / "results" / "experiments" / "cube-errors"


def _paired(d: dict) -> str:
    """A paired difference as the docs quote it, e.g. ``-2.3 (0.6)``."""
    return f"{d['mp_per_decision']:+.1f} ({d['se']:.1f})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plot", type=Path, help="also draw the report to this PNG file")
    args = p.parse_args()
    result = run_cube_errors(CubeErrorsConfig(out=FULL_RUN), DEFAULT_MODELS, play=False, progress=False)
    if args.plot is not None and not plot_cube_errors(result, args.plot):
        return 1
    data = read_shards(FULL_RUN)
    assert data is not None
    s = result["summary"]
    worst = np.maximum(data.nd_se, data.dt_se)
    capped = int((data.trials >= CubeErrorsConfig(out=FULL_RUN).trials_cap).sum())
    shards = len(list(FULL_RUN.glob("decisions_*.npz")))
    print(
        f"{s['decisions']:,} of 2,000 decisions ({shards} shards): {s['trials_per_branch']['mean']:,.0f} trials a "
        f"branch on average, {s['cpu_seconds']['per_decision']:.0f} CPU s a decision "
        f"({s['cpu_seconds']['rollouts']:,.0f} s in all), {s['se']['at_target']:,} of the {s['decisions']:,} at "
        f"SE <= 0.01 on both branches, {capped} stopped by the cap (the largest SE left, {worst.max():.3f}); "
        f"remaining at this rate: {s['projected']['core_hours_for_2000_capped'] * (1 - s['decisions'] / 2000):.0f} "
        "core-hours"
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


if __name__ == "__main__":
    raise SystemExit(main())
