"""How well the clean comparisons' SEs describe their estimates: the stop rule replayed on resampled pairs.

    python tools/cube_comparisons/stop_rule_check.py [--replicates 400] [--seed 1]

Each comparison's luck-adjusted per-pair points (A's view, ppg; the pairs its summary counts) stand in for
the truth. Each replicate draws pairs from them with replacement, a block of 64 at a time, and stops as the
comparison did: at the first block whose SE is at most its target (at most its planned games), or at its
planned games when it has no target. Over the replicates it prints the estimates' spread against the SE
they reported, the share of 90% intervals that hold the truth, and the mean error. A stop rule that looks
at the SE stops more often just after the SE dips, and the pairs' heavy tails make an SE noisy, so the
reported SE can run low.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
from summarise import BLOCK_PAIRS, COMPARISONS, Comparison, read_ledger, summarise

from arena.ledger import block_from_json
from arena.tournament import MIN_UNITS_BEFORE_SE_STOP, pair_luck_of, pair_scores

FOLDER = Path(__file__).resolve().parents[2] / "results" / "tournaments" / "cube-comparisons"
Z90 = 1.6448536269514722


def adjusted_pairs(c: Comparison) -> np.ndarray:
    """The luck-adjusted points per pair (A's view) of the blocks ``c``'s summary counts."""
    records = read_ledger(FOLDER / f"{c.name}.ledger.gz")
    counted = summarise(c, records).games // 2
    held = {(b.first_pair, b.games // 2): b for b in map(block_from_json, records)}
    pairs = c.games // 2
    blocks = [held[(k, min(BLOCK_PAIRS, pairs - k))] for k in range(0, pairs, BLOCK_PAIRS) if k < counted]
    luck = pair_luck_of(blocks)
    assert luck is not None
    return (pair_scores(blocks) - luck)[:counted]


def replay(x: np.ndarray, c: Comparison, replicates: int, rng: np.random.Generator) -> dict[str, float]:
    """The stop rule of ``c`` on ``replicates`` resamples of ``x``: spread, mean SE, 90% coverage, bias."""
    truth = float(x.mean())
    most = c.games // 2
    ends = np.arange(BLOCK_PAIRS, most + BLOCK_PAIRS, BLOCK_PAIRS).clip(max=most)
    means, ses = np.empty(replicates), np.empty(replicates)
    for k in range(replicates):
        draw = x[rng.integers(0, len(x), most)]
        total, squares = np.cumsum(draw)[ends - 1], np.cumsum(draw**2)[ends - 1]
        mean = total / ends
        se = np.sqrt(np.maximum(squares / ends - mean**2, 0.0) * ends / (ends - 1) / ends)
        stop = len(ends) - 1
        if c.until_se is not None:  # as arena.tournament.stopping_prefix: never before its minimum of games
            below = np.flatnonzero((se <= c.until_se) & (2 * ends >= MIN_UNITS_BEFORE_SE_STOP))
            stop = int(below[0]) if len(below) else stop
        means[k], ses[k] = mean[stop], se[stop]
    covered = np.abs(means - truth) <= Z90 * ses
    return {
        "spread_milli": 1000 * float(means.std(ddof=1)),
        "reported_se_milli": 1000 * float(ses.mean()),
        "coverage_90": float(covered.mean()),
        "coverage_se": math.sqrt(0.9 * 0.1 / replicates),
        "bias_in_spreads": float((means.mean() - truth) / means.std(ddof=1)),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--replicates", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    out = {}
    for c in COMPARISONS:
        x = adjusted_pairs(c)
        out[c.name] = {"pairs": len(x), "until_se": c.until_se, **replay(x, c, args.replicates, rng)}
    if args.json:
        print(json.dumps(out))
        return 0
    print("comparison | pairs | stop | spread (milli-ppg) | mean SE reported | 90% coverage | bias (spreads)")
    for name, r in out.items():
        stop = f"SE {1000 * r['until_se']:g}" if r["until_se"] else "fixed"
        print(
            f"{name} | {r['pairs']:,} | {stop} | {r['spread_milli']:.2f} | {r['reported_se_milli']:.2f} | "
            f"{r['coverage_90']:.3f} ({r['coverage_se']:.3f}) | {r['bias_in_spreads']:+.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
