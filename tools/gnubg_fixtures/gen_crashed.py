"""Generate tests/fixtures/gnubg_crashed.json: gnubg's class of positions near the crashed boundary.

Plain Python with the ``gnubg`` package (``pip install -e ".[gnubg]"``), from the repository root:

    python tools/gnubg_fixtures/gen_crashed.py

Each case is a random position with contact in which one side (either, at random) has few checkers
in play: 4 to 15 checkers left, a random number of them stacked on its ace and deuce points (the
stacks gnubg does not count as in play), the rest spread over its other points and the bar, and
the other side holding at least one checker behind it. gnubg's class (``gnubg.classify``, codes as
in ``gfx_common.CLASS_NAMES``; half the cases of each) is recorded beside the position ID, so a test can check the
engine's crashed classification against gnubg's without gnubg.
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter

REPO_ROOT = os.getcwd()
sys.path.insert(0, REPO_ROOT)

import gnubg  # noqa: E402
from fixture_json import write_fixture  # noqa: E402

from engine.ids import board_from_side_counts, position_id_from_board, side_counts  # noqa: E402

SEED = 20261124
CASES = 3000
OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "gnubg_crashed.json")


def random_side(rng: random.Random) -> list[int]:
    """Counts (points 1..24 then bar, own view) of a side with few checkers in play and stacks low."""
    counts = [0] * 25
    left = rng.randint(4, 15)
    ace = rng.choice([0, 0, 1, 2, 3, 4, 5, 6])
    deuce = rng.choice([0, 0, 1, 2, 3, 4, 5])
    ace, deuce = min(ace, left), min(deuce, max(left - ace, 0))
    counts[0], counts[1] = ace, deuce
    for _ in range(left - ace - deuce):
        counts[rng.choice(range(2, 25)) if rng.random() < 0.95 else 24] += 1
    return counts


def random_other(rng: random.Random) -> list[int]:
    """Counts of the other side: 8 to 15 checkers, at least one far back so that contact is likely."""
    counts = [0] * 25
    counts[rng.randint(17, 24)] += 1
    for _ in range(rng.randint(7, 14)):
        counts[rng.randint(0, 23)] += 1
    return counts


def main() -> int:
    """Write the fixture; returns the exit code."""
    rng = random.Random(SEED)
    cases: list[dict] = []
    while len(cases) < CASES:
        few, other = random_side(rng), random_other(rng)
        mine, theirs = (few, other) if rng.random() < 0.5 else (other, few)
        board = board_from_side_counts(theirs, mine)
        if isinstance(board, int):
            continue  # both sides on one point
        back_theirs, back_mine = side_counts(board)
        cls = gnubg.classify((back_theirs, back_mine), 0)
        if cls not in (9, 10) or sum(c["gnubg_class"] == cls for c in cases) >= CASES // 2:
            continue  # only contact positions, half of them crashed
        cases.append({"position_id": position_id_from_board(board), "gnubg_class": cls})
    counts = Counter("crashed" if c["gnubg_class"] == 9 else "contact" for c in cases)
    out = {"generator": "tools/gnubg_fixtures/gen_crashed.py", "seed": SEED, "class_counts": dict(counts)}
    out["cases"] = cases
    write_fixture(OUT, out, {"cases"})
    sys.stderr.write(f"wrote {OUT}: {len(cases)} cases {dict(counts)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
