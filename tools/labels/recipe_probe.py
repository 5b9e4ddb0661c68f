"""Cost and accuracy of rollout-label recipes on positions the labeller would choose.

Draws one shard's selection (``jumpgammon label``'s pool and shares, seed SEED) and rolls the same
positions out with each recipe on the same dice (same rollout seed): whole games and truncated
after each N in --truncate. Prints JSON: per recipe the seconds, trials per second (this process,
one core), mean plies per trial, mean equity SE, and for truncated recipes the mean and RMS of
(truncated - whole-game) equity with the RMS that the whole games' own SE alone would give.
usage: python tools/labels/recipe_probe.py --positions 16 --trials 144 --truncate 11 21
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from nets.evaluator import load_evaluator
from training.rollout_labels import LabelConfig, build_pool, label_positions, select


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=16)
    parser.add_argument("--trials", type=int, default=144)
    parser.add_argument("--truncate", type=int, nargs="*", default=[11, 21])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    cfg = LabelConfig(out=Path("unused"), shards=1, rows=args.positions, seed=args.seed)
    ev = load_evaluator()
    rng = np.random.default_rng([cfg.seed, 0])
    t0 = time.perf_counter()
    pool = build_pool(ev, cfg, rng)
    chosen, reasons = select(pool, cfg.selection, cfg.rows, rng)
    pool_seconds = time.perf_counter() - t0
    boards = pool.boards[chosen]
    out: dict[str, object] = {
        "positions": len(boards),
        "trials": args.trials,
        "pool_seconds": round(pool_seconds, 1),
        "pool_size": len(pool.boards),
    }
    whole = None
    for truncate in [None, *args.truncate]:
        rc = LabelConfig(out=Path("unused"), shards=1, trials=args.trials, truncate=truncate, seed=cfg.seed)
        t = time.perf_counter()
        labels = label_positions(boards, rc.rollout_config(0))
        seconds = time.perf_counter() - t
        row: dict[str, object] = {
            "seconds": round(seconds, 1),
            "trials_per_second": round(len(boards) * args.trials / seconds, 2),
            "rows_per_second": round(len(boards) / seconds, 4),
            "mean_plies": round(float(labels["mean_plies"].mean()), 2),
            "equity_se_mean": round(float(labels["equity_se"].mean()), 5),
            "raw_equity_se_mean": round(float(labels["raw_equity_se"].mean()), 5),
        }
        if whole is None:
            whole = labels
        else:
            diff = labels["equity"].astype(np.float64) - whole["equity"]
            row["minus_whole_mean"] = round(float(diff.mean()), 5)
            row["minus_whole_mean_se"] = round(float(diff.std(ddof=1) / np.sqrt(len(diff))), 5)
            row["minus_whole_rms"] = round(float(np.sqrt((diff**2).mean())), 5)
            row["whole_se_rms"] = round(float(np.sqrt((whole["equity_se"] ** 2).mean())), 5)
        out["whole" if truncate is None else f"truncate_{truncate}"] = row
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
