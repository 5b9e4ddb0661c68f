"""Compare the evaluator's probabilities with GNU Backgammon's on positions from its own games.

The reference (``benchmarks/data/gnubg_evals.json``, written by tools/gnubg_fixtures) holds
gnubg 1.07's 0-ply cubeless probabilities (and 2-ply for a subset) for the side on roll.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from engine.position import Position
from nets.evaluator import Evaluator
from nets.lookahead import evaluate_plies
from nets.mlp import cubeless_equity

REFERENCE = Path(__file__).resolve().parent / "data" / "gnubg_evals.json"


def compare_with_gnubg(ev: Evaluator, plies: int = 0, reference: Path = REFERENCE) -> dict[str, Any]:
    """Mean absolute errors against gnubg's 0-ply (and 2-ply) figures, overall and by phase."""
    cases = json.loads(reference.read_text())["cases"]
    boards = np.stack([Position.from_id(c["position_id"]).array for c in cases])
    ours = evaluate_plies(ev, boards, plies)
    result: dict[str, Any] = {"benchmark": "gnubg-compare", "plies": plies, "positions": len(cases)}
    for key in ("eval0", "eval2"):
        idx = [i for i, c in enumerate(cases) if key in c]
        if not idx:
            continue
        theirs = np.array([cases[i][key] for i in idx])
        mine = ours[idx]
        err_eq = np.abs(cubeless_equity(mine) - cubeless_equity(theirs))
        phases = np.array([cases[i]["phase_hint"] for i in idx])
        result[f"vs_gnubg_{key[-1]}ply"] = {
            "positions": len(idx),
            "equity_mae": float(err_eq.mean()),
            "win_mae": float(np.abs(mine[:, 0] - theirs[:, 0]).mean()),
            "probabilities_mae": [float(v) for v in np.abs(mine - theirs).mean(axis=0)],
            "equity_mae_by_phase": {ph: float(err_eq[phases == ph].mean()) for ph in sorted(set(phases))},
        }
    return result
