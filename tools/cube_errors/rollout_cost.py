"""What a cube-error decision costs to roll out: the measurements docs/experiments.md quotes.

    python tools/cube_errors/rollout_cost.py pool        # shard 0 of the full run: its first 4 decisions at 324 trials
    python tools/cube_errors/rollout_cost.py adjustment  # 8 pilot decisions with and without the luck adjustment

``pool`` draws shard 0 of ``experiment cube-errors``' default settings (the cubeful pool) and rolls
out its first four decisions at 324 trials: the SEs of ND and DT and the CPU seconds a trial of
both branches. ``adjustment`` rolls out the first 8 decisions of the committed pilot's shard 0 with
the luck adjustment (162 trials) and without (972 trials), and prints the CPU seconds each way
needs, a decision, for both SEs at 0.01 (each SE scaled as 1/sqrt(trials)). Process CPU seconds:
on a loaded machine they include the threads' waiting.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from arena.rollout import RolloutConfig, RolloutStart
from arena.rollout_cube import run_cube_decisions
from benchmarks.experiments.cube_errors import DRAW_MODELS, CubeErrorsConfig, build_pool, draw, gnubg_id, model_player
from engine import Position
from nets.evaluator import Evaluator, load_evaluator

PILOT = Path(__file__).resolve().parents[2] / "results/experiments/cube-errors-pilot/cube-errors/decisions_00000.npz"


def pool_cost() -> None:
    cfg = CubeErrorsConfig(out=Path("unused"))
    ev = load_evaluator(cfg.weights_file)
    evaluators: dict[str, Evaluator] = {}
    players = [model_player(s, None, evaluators) for s in DRAW_MODELS]
    rng = np.random.default_rng([cfg.seed, 0])
    pool = build_pool(ev, cfg, players, rng)
    chosen = draw(pool, cfg.shares, cfg.per_shard, rng)
    print(f"shard 0: strata {np.bincount(pool.reasons[chosen]).tolist()}, {int(pool.owned[chosen].sum())} on own cube")
    starts = [RolloutStart.parse(gnubg_id(pool.boards[i], bool(pool.owned[i]))) for i in chosen[:4]]
    started = time.process_time()
    rolled, _ = run_cube_decisions(starts, replace(cfg.rollout_config(0), trials=324), progress=False)
    cpu = time.process_time() - started
    print(f"CPU s a trial of both branches: {cpu / 324 / len(starts):.4f}")
    for d in rolled:
        print(f"  ND SE {d.figures[0].se:.3f}, DT SE {d.figures[1].se:.3f}")


def adjustment_cost() -> None:
    shard = np.load(PILOT)
    starts = [
        RolloutStart(Position.from_board(b), 1, 0 if owned else None)
        for b, owned in zip(shard["boards"][:8], shard["owned"][:8], strict=True)
    ]
    for adjusted, trials in ((True, 162), (False, 972)):
        cfg = RolloutConfig(trials=trials, plies=0, cubeful=True, cube="gnubg", seed=1, variance_reduction=adjusted)
        started = time.process_time()
        rolled, _ = run_cube_decisions(starts, cfg, progress=False)
        per_trial = (time.process_time() - started) / trials / len(starts)
        worst = np.array([max(d.figures[0].se or 0.0, d.figures[1].se or 0.0) for d in rolled])
        needed = float(np.mean(worst**2 / 1e-4 * trials * per_trial))
        print(f"luck adjustment {'on' if adjusted else 'off'}: {needed:.1f} CPU s a decision for both SEs at 0.01")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=("pool", "adjustment"))
    args = p.parse_args()
    pool_cost() if args.what == "pool" else adjustment_cost()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
