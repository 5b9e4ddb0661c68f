"""Record each decision's cube value in the full run's shards that were written without it.

    python tools/cube_errors/add_cube_values.py [--out results/experiments/cube-errors]

A decision's errors count in points at the cube's value where its pool game met it (1 on a centred cube; 2,
4, ... on the roller's own). Shards written before the shards recorded it get it by drawing each shard's
decisions again (seconds a shard: the pool's self-play and the walk of its cube, no rollout), checked to be
the same decisions, and the shard is rewritten atomically with nothing else changed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.experiments.cube_errors import (
    MANIFEST,
    CubeErrorsConfig,
    DecisionShard,
    config_of_manifest,
    shard_path,
    with_cube_values,
)
from nets.weights import write_atomic

FULL_RUN = Path(__file__).resolve().parents[2] / "results" / "experiments" / "cube-errors"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=FULL_RUN, help="the run's folder (its manifest and shards)")
    args = p.parse_args()
    cfg: CubeErrorsConfig = config_of_manifest(args.out / MANIFEST, args.out)
    for path in sorted(args.out.glob("decisions_*.npz")):
        index = int(path.stem.removeprefix("decisions_"))
        if DecisionShard.read(path).cubes_known:
            continue
        shard = with_cube_values(cfg, index)
        write_atomic(shard_path(args.out, index), shard.to_bytes())
        owned = shard.cube[shard.owned]
        print(f"{path.name}: cube values added ({int(owned.max(initial=0))} the largest; {len(owned)} owned)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
