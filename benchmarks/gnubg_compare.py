"""Compare the evaluator's probabilities with GNU Backgammon's on positions from its own games.

The reference (``benchmarks/data/gnubg_evals.json``, written by tools/gnubg_fixtures) holds
gnubg 1.07's 0-ply cubeless probabilities (and 2-ply for a subset) for the side on roll.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from engine.position import Position
from nets.evaluator import Evaluator
from nets.lookahead import evaluate_plies
from nets.mlp import cubeless_equity

REFERENCE = Path(__file__).resolve().parent / "data" / "gnubg_evals.json"


@dataclass(frozen=True)
class GnubgErrors:
    """Mean absolute errors (side on roll's view) against one of gnubg's depths, over ``positions`` positions."""

    positions: int
    equity_mae: float
    win_mae: float
    probabilities_mae: list[float]
    equity_mae_by_phase: dict[str, float]


@dataclass(frozen=True)
class GnubgComparison:
    """``bench gnubg``: errors against gnubg's 0-ply and 2-ply figures (None where the reference has none)."""

    benchmark: ClassVar[str] = "gnubg-compare"
    plies: int
    positions: int
    vs_gnubg_0ply: GnubgErrors | None
    vs_gnubg_2ply: GnubgErrors | None

    def to_json(self) -> dict[str, Any]:
        """The comparison as ``bench gnubg --json`` prints it (a depth without figures is left out)."""
        out: dict[str, Any] = {"benchmark": self.benchmark, "plies": self.plies, "positions": self.positions}
        for key, errors in (("vs_gnubg_0ply", self.vs_gnubg_0ply), ("vs_gnubg_2ply", self.vs_gnubg_2ply)):
            if errors is not None:
                out[key] = asdict(errors)
        return out


def compare_with_gnubg(ev: Evaluator, plies: int = 0, reference: Path = REFERENCE) -> GnubgComparison:
    """Mean absolute errors against gnubg's 0-ply (and 2-ply) figures, overall and by phase."""
    cases = json.loads(reference.read_text())["cases"]
    boards = np.stack([Position.from_id(c["position_id"]).array for c in cases])
    ours = evaluate_plies(ev, boards, plies)
    errors: dict[str, GnubgErrors | None] = {}
    for key in ("eval0", "eval2"):
        idx = [i for i, c in enumerate(cases) if key in c]
        if not idx:
            errors[key] = None
            continue
        theirs = np.array([cases[i][key] for i in idx])
        mine = ours[idx]
        err_eq = np.abs(cubeless_equity(mine) - cubeless_equity(theirs))
        phases = np.array([cases[i]["phase_hint"] for i in idx])
        errors[key] = GnubgErrors(
            positions=len(idx),
            equity_mae=float(err_eq.mean()),
            win_mae=float(np.abs(mine[:, 0] - theirs[:, 0]).mean()),
            probabilities_mae=[float(v) for v in np.abs(mine - theirs).mean(axis=0)],
            equity_mae_by_phase={ph: float(err_eq[phases == ph].mean()) for ph in sorted(set(phases))},
        )
    return GnubgComparison(
        plies=plies, positions=len(cases), vs_gnubg_0ply=errors["eval0"], vs_gnubg_2ply=errors["eval2"]
    )
