"""The jump model alone in late bear-offs: its cost by how many of the two-roll chances are uncertain.

Every position of the two-sided bear-off database with checkers on both sides, grouped by how many of
its 441 two-roll win chances are short of 0 or 1 (none: decided, where the exact rule of ``cube.two_roll``
now decides instead of the model); for each group, the mean cost of ``jump_local(0.1, numerical)``'s
double or no double (centred, and on the roller's own cube) and of its take or pass against the
database's exact equities, in millipoints a position, with how many positions it costs anything.
Prints a table; about 10 minutes.

    python tools/cube_bearoff/near_decided.py
"""

from __future__ import annotations

import numpy as np

from cube.states import CubeState
from cube.strategy import JumpApproximation, jump_local
from cube.two_roll import DECIDED_TOLERANCE
from cube.volatility import local_volatility
from nets.bearoff import N_TWO_SIDED, N_TWO_SIDED_SIDE, load_two_sided

#: Groups by the number of uncertain chances: 0 (decided), 1-10, 11-50, 51-200, 201-441.
EDGES = (0, 1, 11, 51, 201, 442)
CHUNK = 20_000


def main() -> int:
    db = load_two_sided(progress=False)
    model = jump_local(0.1, JumpApproximation.NUMERICAL)
    states = (CubeState.CENTERED, CubeState.OWNED)
    kinds: tuple[str, ...] = (*(state.value for state in states), "take")
    totals = {kind: np.zeros((len(EDGES) - 1, 3)) for kind in kinds}  # positions, cost, costly
    for start in range(0, N_TWO_SIDED, CHUNK):
        idx = np.arange(start, min(start + CHUNK, N_TWO_SIDED))
        mine, his = np.divmod(idx, N_TWO_SIDED_SIDE)
        idx = idx[(mine > 0) & (his > 0)]
        chances = db.two_roll_win_chances(idx)
        uncertain = ((chances > DECIDED_TOLERANCE) & (chances < 1.0 - DECIDED_TOLERANCE)).sum(axis=1)
        probs = np.zeros((len(idx), 5))
        probs[:, 0] = db.win[idx]
        alpha = local_volatility(chances)
        group = np.digitize(uncertain, EDGES[1:-1])
        double_take = 2.0 * db.no_double[2, idx]
        for column, state in enumerate(states):
            no_double = db.no_double[column, idx]
            best = np.maximum(no_double, np.minimum(double_take, 1.0))
            chosen = model.decide(probs, state, local_alpha=alpha)
            chose = np.where(chosen.action == "double", np.minimum(double_take, 1.0), no_double)
            costs: dict[str, np.ndarray] = {state.value: best - chose}
            if column == 0:  # the answer to a double is the same whoever held the cube before it
                costs["take"] = np.where(chosen.take != (double_take <= 1.0), np.abs(double_take - 1.0), 0.0)
            for kind, cost in costs.items():
                for g in range(len(EDGES) - 1):
                    m = group == g
                    totals[kind][g] += (m.sum(), cost[m].sum(), (cost[m] > 1e-9).sum())
    heads = ("uncertain chances", "positions", "centred: mp, costly", "own cube: mp, costly", "take: mp, costly")
    print("| " + " | ".join(heads) + " |")
    print("|---|---|---|---|---|")
    for g in range(len(EDGES) - 1):
        n = totals["take"][g][0]
        cells = [f"{EDGES[g]} to {EDGES[g + 1] - 1}", f"{int(n):,}"]
        for kind in kinds:
            _, cost, costly = totals[kind][g]
            cells.append(f"{1000 * cost / max(n, 1):.2f}, {int(costly):,}")
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
