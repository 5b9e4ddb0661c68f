"""The effect of the evaluator's rule bounds on gammons (nets.evaluator.possible_results) on the shipped net, paired.

Measures, on the same decisions and rows, the shipped net with and without the bounds: the 0-ply (and
1-ply) move error against gnubg 2-ply (``bench moves``' decision set) and the equity error against
the rollout labels of ``results/labels/selfplay-s101``. "Without" replaces the bounds by the
identity for the measurement only.

usage: python tools/nets/outcome_rules_effect.py [--plies 0 1] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

import nets.evaluator as evaluator_module
from benchmarks.move_error import MoveErrorSet, decision_errors
from cube.efficiency import NET_CLASSES
from nets.evaluator import load_evaluator
from nets.lookahead import choose_children
from nets.mlp import cubeless_equity
from nets.weights import weights_digest, write_atomic
from training.rollout_labels import read_labels
from weights import DEFAULT_WEIGHTS

LABELS = Path("results/labels/selfplay-s101")


def _paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    d = a - b
    return {"with": float(a.mean()), "without": float(b.mean()), "difference": float(d.mean()),
            "se": float(d.std(ddof=1) / math.sqrt(len(d)))}  # fmt: skip


def measure(plies: list[int]) -> dict[str, Any]:
    """Move errors (mEMG) and label MAEs, with and without the bounds, paired."""
    moves = MoveErrorSet.load()
    kids = moves.child_boards()
    data = read_labels(LABELS)
    bounded = evaluator_module.within_rules
    out: dict[str, Any] = {"net": weights_digest(DEFAULT_WEIGHTS)[:16], "moves": {}, "labels": {}}
    runs: dict[bool, dict[str, np.ndarray]] = {}
    for on in (True, False):
        evaluator_module.within_rules = bounded if on else (lambda probs, possible: probs)
        ev = load_evaluator()
        found: dict[str, np.ndarray] = {}
        for p in plies:
            found[f"moves{p}"] = decision_errors(
                moves.equity2, moves.offsets, choose_children(ev, kids, moves.offsets, p)
            )
        found["labels0"] = np.abs(cubeless_equity(ev.evaluate_boards(data.boards)) - data.equity)
        runs[on] = found
    evaluator_module.within_rules = bounded
    for p in plies:
        key = f"moves{p}"
        out["moves"][f"{p}-ply"] = {"overall": _paired(runs[True][key], runs[False][key])} | {
            c.value: _paired(runs[True][key][m], runs[False][key][m])
            for c in NET_CLASSES
            if (m := moves.gnubg_class == c.gnubg_code).sum() > 1
        }
    out["labels"]["0-ply"] = {"all": _paired(runs[True]["labels0"], runs[False]["labels0"])} | {
        c.value: _paired(runs[True]["labels0"][m], runs[False]["labels0"][m])
        for c in NET_CLASSES
        if (m := data.classes == c.gnubg_code).sum() > 1
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, nargs="+", default=[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    result = measure(args.plies)
    text = json.dumps(result, indent=1) + "\n"
    if args.out is not None:
        write_atomic(args.out, text.encode())
    print(text)


if __name__ == "__main__":
    main()
