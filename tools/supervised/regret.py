"""Choice regret of weight files on the training and validation decision groups of pooled data folders.

usage: python -m tools.supervised.regret DATA[,DATA...] WEIGHTS [WEIGHTS ...]

The split is the fit's own (seed 1, 10% of the games held out; folders listed after these keep it,
since games are drawn in folder order), so a candidate fitted with these folders listed first is
measured on the groups it was and was not trained on. Regret is the label equity (milli-equity
per group) lost by playing the net's choice instead of the labels' best; each file after the first
also gets its validation regret minus the first's, paired over the same groups, with its SE.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from nets.evaluator import load_evaluator
from nets.model import torch_evaluator
from training.supervised.losses import choice_regrets
from training.supervised.shards import load_phase_data


def _mean_se(values: np.ndarray) -> str:
    if len(values) < 2:
        return f"{values.mean() if len(values) else 0.0:.2f}"
    return f"{values.mean():.2f} (SE {values.std(ddof=1) / np.sqrt(len(values)):.2f})"


def main(argv: list[str]) -> int:
    """Print one line per weights file: each net's training and validation regret; returns the exit code."""
    if len(argv) < 2:
        print("usage: python -m tools.supervised.regret DATA[,DATA...] WEIGHTS [WEIGHTS ...]", file=sys.stderr)
        return 2
    data, _ = load_phase_data(tuple(Path(p) for p in argv[0].split(",")), 0.1, 1)
    first: dict[str, np.ndarray] = {}
    for weights in argv[1:]:
        ev = torch_evaluator(load_evaluator(weights, bearoff=False))
        parts = []
        for name, d in data.items():
            net = ev.nets[name]
            train = choice_regrets(net, d.x_train, d.y_train, d.groups_train)  # type: ignore[arg-type]
            val = choice_regrets(net, d.x_val, d.y_val, d.groups_val)  # type: ignore[arg-type]
            text = f"{name}: train {train.mean():.2f}, validation {_mean_se(val)}"
            if name in first:
                text += f", minus the first {_mean_se(val - first[name])}"
            else:
                first[name] = val
            parts.append(f"{text} ({len(d.groups_train)} and {len(d.groups_val)} groups)")
        print(weights, " | ".join(parts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
