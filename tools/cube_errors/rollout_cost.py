"""What a cube-error decision costs to roll out: the measurements docs/experiments.md quotes.

    python tools/cube_errors/rollout_cost.py pool        # shard 0 of the full run: its first 4 decisions at 324 trials
    python tools/cube_errors/rollout_cost.py adjustment  # 8 pilot decisions with and without the luck adjustment
    python tools/cube_errors/rollout_cost.py cubeful     # shard 0's first 8 decisions: cubeless against cubeful luck
    python tools/cube_errors/rollout_cost.py screen      # the same: the luck's plays among pubeval's top 8 or 12
    python tools/cube_errors/rollout_cost.py narrow      # the same: pubeval's top 8 against top 4, 2 and 1

``pool`` draws shard 0 of ``experiment cube-errors``' default settings (the cubeful pool) and rolls
out its first four decisions at 324 trials: the SEs of ND and DT and the CPU seconds a trial of
both branches. ``adjustment`` rolls out the first 8 decisions of the committed pilot's shard 0 with
the luck adjustment (162 trials) and without (972 trials), and prints the CPU seconds each way
needs, a decision, for both SEs at 0.01 (each SE scaled as 1/sqrt(trials)). ``cubeful`` rolls out
shard 0's first 8 decisions at 324 trials on the same dice twice, the luck being that of the
cubeless equity times the cube, then that of the 0-ply cubeful equity, and prints each
decision's SEs both ways and the CPU seconds a decision needs for both SEs at 0.01. Process CPU seconds:
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


def shard0_starts(count: int) -> list[RolloutStart]:
    """The first ``count`` decisions of shard 0 of ``experiment cube-errors``' default settings."""
    cfg = CubeErrorsConfig(out=Path("unused"))
    ev = load_evaluator(cfg.weights_file)
    evaluators: dict[str, Evaluator] = {}
    players = [model_player(s, None, evaluators) for s in DRAW_MODELS]
    rng = np.random.default_rng([cfg.seed, 0])
    pool = build_pool(ev, cfg, players, rng)
    chosen = draw(pool, cfg.shares, cfg.per_shard, rng)
    return [RolloutStart.parse(gnubg_id(pool.boards[i], bool(pool.owned[i]))) for i in chosen[:count]]


def pool_cost() -> None:
    starts = shard0_starts(4)
    started = time.process_time()
    rolled, _ = run_cube_decisions(
        starts, replace(CubeErrorsConfig(out=Path("unused")).rollout_config(0), trials=324), progress=False
    )
    cpu = time.process_time() - started
    print(f"CPU s a trial of both branches: {cpu / 324 / len(starts):.4f}")
    for d in rolled:
        print(f"  ND SE {d.figures[0].se:.3f}, DT SE {d.figures[1].se:.3f}")


def compare_variants(variants: dict[str, dict[str, object]]) -> None:
    """Shard 0's first 8 decisions at 324 trials under each variant of the rollout config (same dice): CPU and
    SEs, the CPU s a decision for both SEs at 0.01, and each variant's variance of the worse branch over the
    first's."""
    starts = shard0_starts(8)
    base = replace(CubeErrorsConfig(out=Path("unused")).rollout_config(0), trials=324)
    worst: dict[str, np.ndarray] = {}
    for name, changes in variants.items():
        started = time.process_time()
        rolled, _ = run_cube_decisions(starts, replace(base, **changes), progress=False)  # type: ignore[arg-type]
        per_trial = (time.process_time() - started) / 324 / len(starts)
        ses = np.array([[d.figures[0].se or 0.0, d.figures[1].se or 0.0] for d in rolled])
        worst[name] = ses.max(axis=1)
        needed = float(np.mean(worst[name] ** 2 / 1e-4 * 324 * per_trial))
        print(f"{name}: {per_trial:.4f} CPU s a trial, {needed:.1f} CPU s a decision for both SEs at 0.01")
        print("  ND SEs " + " ".join(f"{v:.3f}" for v in ses[:, 0]))
        print("  DT SEs " + " ".join(f"{v:.3f}" for v in ses[:, 1]))
    first = next(iter(worst))
    for name in list(worst)[1:]:
        ratio = worst[name] ** 2 / worst[first] ** 2
        print(
            f"variance of the worse branch, {name} over {first}: mean {ratio.mean():.2f}, each "
            + " ".join(f"{r:.2f}" for r in ratio)
        )


def cubeful_luck_cost() -> None:
    compare_variants({"cubeless luck": {"cubeful_luck": False}, "cubeful luck": {"cubeful_luck": True}})


def screen_cost() -> None:
    compare_variants({"every play": {}, "pubeval's top 8": {"luck_screen": 8}, "pubeval's top 12": {"luck_screen": 12}})


def narrow_screen_cost() -> None:
    compare_variants({f"pubeval's top {k}": {"luck_screen": k} for k in (8, 4, 2, 1)})


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
    modes = {
        "pool": pool_cost,
        "adjustment": adjustment_cost,
        "cubeful": cubeful_luck_cost,
        "screen": screen_cost,
        "narrow": narrow_screen_cost,
    }
    p.add_argument("what", choices=tuple(modes))
    modes[p.parse_args().what]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
