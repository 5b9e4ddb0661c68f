"""The jump model alone in nearly decided bear-offs: its cost by how many two-roll chances are uncertain.

Every position of the two-sided bear-off database with checkers on both sides whose 441 two-roll win
chances are not all 0 or 1 (those the exact rule of ``cube.two_roll`` leaves to the model), grouped by
how many of the 441 are short of 0 or 1; for each group and cube state (centred, the roller's own),
the mean cost of ``jump_local(0.1, numerical)``'s double or no double against the database's exact
equities, in millipoints a position, and how often it costs anything. Prints a table; about 10 minutes.

    python tools/cube_bearoff/near_decided.py
"""

from __future__ import annotations

import numpy as np

from cube.states import CubeState
from cube.strategy import JumpApproximation, jump_local
from cube.two_roll import DECIDED_TOLERANCE
from cube.volatility import local_volatility
from nets.bearoff import N_TWO_SIDED, N_TWO_SIDED_SIDE, load_two_sided

#: Groups by the number of uncertain chances: 1-10, 11-50, 51-200, 201-441.
EDGES = (1, 11, 51, 201, 442)
CHUNK = 20_000


def main() -> int:
    db = load_two_sided(progress=False)
    model = jump_local(0.1, JumpApproximation.NUMERICAL)
    states = (CubeState.CENTERED, CubeState.OWNED)
    totals = {state: np.zeros((len(EDGES) - 1, 3)) for state in states}  # positions, cost, costly
    for start in range(0, N_TWO_SIDED, CHUNK):
        idx = np.arange(start, min(start + CHUNK, N_TWO_SIDED))
        mine, his = np.divmod(idx, N_TWO_SIDED_SIDE)
        idx = idx[(mine > 0) & (his > 0)]
        chances = db.two_roll_win_chances(idx)
        uncertain = ((chances > DECIDED_TOLERANCE) & (chances < 1.0 - DECIDED_TOLERANCE)).sum(axis=1)
        keep = uncertain > 0
        chances, idx, uncertain = chances[keep], idx[keep], uncertain[keep]
        probs = np.zeros((len(idx), 5))
        probs[:, 0] = db.win[idx]
        alpha = local_volatility(chances)
        group = np.digitize(uncertain, EDGES[1:-1])
        for column, state in enumerate(states):
            no_double, double_take = db.no_double[column, idx], 2.0 * db.no_double[2, idx]
            best = np.maximum(no_double, np.minimum(double_take, 1.0))
            chosen = model.decide(probs, state, local_alpha=alpha)
            cost = best - np.where(chosen.action == "double", np.minimum(double_take, 1.0), no_double)
            for g in range(len(EDGES) - 1):
                m = group == g
                totals[state][g] += (m.sum(), cost[m].sum(), (cost[m] > 1e-9).sum())
    heads = ("uncertain chances", "positions", "centred: mp a position", "costly", "own cube: mp a position", "costly")
    print("| " + " | ".join(heads) + " |")
    print("|---|---|---|---|---|---|")
    for g in range(len(EDGES) - 1):
        n = totals[CubeState.CENTERED][g][0]
        cells = [f"{EDGES[g]} to {EDGES[g + 1] - 1}", f"{int(n):,}"]
        for state in states:
            _, cost, costly = totals[state][g]
            cells += [f"{1000 * cost / max(n, 1):.2f}", f"{100 * costly / max(n, 1):.2f}%"]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
