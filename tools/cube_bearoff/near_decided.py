"""The jump model in late bear-offs, alone and with the two-roll search: its cost by how many lines are open.

Every position of the two-sided bear-off database with checkers on both sides, grouped by how many of
its 441 two-roll win chances are short of 0 or 1 (open lines; none: decided). For each group, the mean
cost of ``jump_local(0.1, numerical)``'s double or no double (centred, and on the roller's own cube) and
of its take or pass against the database's exact equities, in millipoints a position, with how many
positions it costs anything: first the model alone (its local volatility from the lookahead), then the
two-roll search of :mod:`cube.two_roll` (the model with its remote volatility at the open lines only).
The strategy searches where at most ``SEARCH_CELLS`` lines are open; the rows past it show what searching
there too would do, on every ``SAMPLE``-th position (the search is slow where most lines are open).
Prints that table, then how far the no double is from the exact one (mean and largest miss, each cube state)
over every position with 1 to ``SEARCH_CELLS`` open lines, alone and searched; about 20 minutes.

    python tools/cube_bearoff/near_decided.py
"""

from __future__ import annotations

import numpy as np

from cube.states import CubeState
from cube.strategy import JumpApproximation, JumpStrategy, jump_local
from cube.two_roll import SEARCH_CELLS, uncertain_cells
from cube.volatility import local_volatility
from nets.bearoff import N_TWO_SIDED, TwoSidedDatabase, games_on, load_two_sided

#: Groups by the number of open lines, each from its edge to the next one's less 1.
EDGES = (0, 1, 11, 51, 201, SEARCH_CELLS + 1, 301, 442)
#: Past the search's limit, every SAMPLE-th position of the database.
SAMPLE = 20
CHUNK = 20_000
KINDS = ("centred", "own cube", "take")


def costs(db: TwoSidedDatabase, idx: np.ndarray, model: JumpStrategy, search: bool) -> dict[str, np.ndarray]:
    """Each position's cost (points) of the model's double or no double (centred, own cube) and take or pass."""
    chances = db.two_roll_win_chances(idx)
    probs = np.zeros((len(idx), 5))
    probs[:, 0] = db.win[idx]
    double_take = 2.0 * db.no_double[2, idx]
    out: dict[str, np.ndarray] = {}
    for column, state in enumerate((CubeState.CENTERED, CubeState.OWNED)):
        no_double = db.no_double[column, idx]
        best = np.maximum(no_double, np.minimum(double_take, 1.0))
        if search:
            chosen = model.decide(probs, state, lookahead=chances)
        else:
            chosen = model.decide(probs, state, local_alpha=local_volatility(chances))
        out[KINDS[column]] = best - np.where(chosen.action == "double", np.minimum(double_take, 1.0), no_double)
        if column == 0:  # the answer to a double is the same whoever held the cube before it
            out["take"] = np.where(chosen.take != (double_take <= 1.0), np.abs(double_take - 1.0), 0.0)
    return out


def equity_misses(db: TwoSidedDatabase, model: JumpStrategy) -> None:
    """Print the no double's miss against the exact one where the strategy searches (1 to SEARCH_CELLS open)."""
    states = (CubeState.CENTERED, CubeState.OWNED, CubeState.UNAVAILABLE)
    misses = {(search, state): [0.0, 0.0] for search in (False, True) for state in states}  # sum, largest
    n = 0
    for start in range(0, N_TWO_SIDED, CHUNK):
        idx = games_on(np.arange(start, min(start + CHUNK, N_TWO_SIDED)))
        chances = db.two_roll_win_chances(idx)
        open_lines = uncertain_cells(chances)
        near = (open_lines > 0) & (open_lines <= SEARCH_CELLS)
        idx, chances = idx[near], chances[near]
        probs = np.zeros((len(idx), 5))
        probs[:, 0] = db.win[idx]
        n += len(idx)
        for search in (False, True):
            if search:
                eq = model.equities(probs, lookahead=chances)
            else:
                eq = model.equities(probs, local_alpha=local_volatility(chances))
            for column, state in enumerate(states):
                miss = np.abs(eq[state] - db.no_double[column, idx])
                total = misses[search, state]
                total[0] += float(miss.sum())
                total[1] = max(total[1], float(miss.max(initial=0.0)))
    print(f"\nNo double against the exact one, {n:,} positions with 1 to {SEARCH_CELLS} open lines (mean, largest):\n")
    print("| cube | alone | searched |")
    print("|---|---|---|")
    for state in states:
        cells = [
            f"{misses[search, state][0] / max(n, 1):.4f}, {misses[search, state][1]:.3f}" for search in (False, True)
        ]
        print(f"| {state} | " + " | ".join(cells) + " |")


def main() -> int:
    db = load_two_sided(progress=False)
    model = jump_local(0.1, JumpApproximation.NUMERICAL)
    model.search_cells = 441  # every position searched, to show where the search's limit should be
    groups = len(EDGES) - 1
    totals = {(search, kind): np.zeros((groups, 3)) for search in (False, True) for kind in KINDS}
    for start in range(0, N_TWO_SIDED, CHUNK):
        idx = games_on(np.arange(start, min(start + CHUNK, N_TWO_SIDED)))
        group = np.digitize(uncertain_cells(db.two_roll_win_chances(idx)), EDGES[1:-1])
        idx, group = idx[(group < 5) | (idx % SAMPLE == 0)], group[(group < 5) | (idx % SAMPLE == 0)]
        for search in (False, True):
            for kind, cost in costs(db, idx, model, search).items():
                for g in range(groups):
                    m = group == g
                    totals[search, kind][g] += (m.sum(), cost[m].sum(), (cost[m] > 1e-9).sum())
    heads = ["open lines of 441", "positions"]
    heads += [f"{kind}: {how}" for how in ("alone", "searched") for kind in KINDS]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for g in range(groups):
        n = totals[False, "take"][g][0]
        sampled = f" (every {SAMPLE}th)" if EDGES[g] > SEARCH_CELLS else ""
        cells = [f"{EDGES[g]} to {EDGES[g + 1] - 1}", f"{int(n):,}{sampled}"]
        for search in (False, True):
            for kind in KINDS:
                _, cost, costly = totals[search, kind][g]
                cells.append(f"{1000 * cost / max(n, 1):.2f}, {int(costly):,}")
        print("| " + " | ".join(cells) + " |")
    equity_misses(db, model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
