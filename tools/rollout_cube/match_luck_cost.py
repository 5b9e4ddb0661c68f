"""The luck of the cubeful MWC against the cubeless MWC's, on the 20 match cube decisions of the gnubg fixtures.

    python tools/rollout_cube/match_luck_cost.py --trials 324

Rolls out the match cases of tests/fixtures/gnubg_rollout_cube.json (0-ply, gnubg's cube model in the
trials, seed 1) twice on the same dice: the MWC adjusted by the luck of the cubeless MWC, then by the
luck of gnubg's 0-ply cubeful MWC. Prints each decision's ND and DT SEs both ways, the mean ratio of the
worse branch's variance (cubeful over cubeless) and the CPU seconds of each run; docs/rollouts.md quotes it.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from compare_gnubg_fixtures import start_of  # the fixtures' cases as rollout starts (the tool beside this one)

from arena.rollout import RolloutConfig
from arena.rollout_cube import run_cube_decisions

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "gnubg_rollout_cube.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=324)
    args = parser.parse_args(argv)
    cases = [c for c in json.loads(FIXTURE.read_text())["cases"] if c["kind"] == "match"]
    starts = [start_of(c) for c in cases]
    base = RolloutConfig(trials=args.trials, cubeful=True, cube="gnubg", seed=1)
    worst = {}
    for name, cubeful in (("cubeless MWC luck", False), ("cubeful MWC luck", True)):
        started = time.process_time()
        rolled, _ = run_cube_decisions(starts, replace(base, match_cubeful_luck=cubeful), progress=False)
        cpu = time.process_time() - started
        ses = np.array([[d.figures[0].se or 0.0, d.figures[1].se or 0.0] for d in rolled])
        worst[name] = ses.max(axis=1)
        print(f"{name}: {cpu:.1f} CPU s; mean SE ND {ses[:, 0].mean():.4f}, DT {ses[:, 1].mean():.4f}")
        print("  ND " + " ".join(f"{v:.3f}" for v in ses[:, 0]))
        print("  DT " + " ".join(f"{v:.3f}" for v in ses[:, 1]))
    ratio = worst["cubeful MWC luck"] ** 2 / np.maximum(worst["cubeless MWC luck"] ** 2, 1e-12)
    print(
        f"variance of the worse branch, cubeful over cubeless: mean {ratio.mean():.2f}, median {np.median(ratio):.2f}"
    )
    print("  each " + " ".join(f"{r:.2f}" for r in ratio))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
