"""A plain-Python move generator: the baseline that ``bench movegen`` compares single calls against.

Straightforward recursion over the dice with the rules spelled out (enter from the bar first,
no landing on two or more opposing checkers, hits go to the bar, bear off only with every
checker home and with a larger die only from the highest point, use as many dice as possible,
and the larger die when only one can be played). It is also an independent check of the
compiled generator (tests compare the two on random positions).
"""

from __future__ import annotations

from collections.abc import Sequence

BAR = 25


def _single_moves(board: list[int], die: int) -> list[list[int]]:
    """Boards after moving one checker ``die`` pips (side on roll's view, not flipped)."""
    sources = [BAR] if board[BAR] > 0 else [p for p in range(24, 0, -1) if board[p] > 0]
    highest = max((p for p in range(1, 26) if board[p] > 0), default=0)
    all_home = highest <= 6
    out = []
    for src in sources:
        dst = src - die
        if dst >= 1:
            if board[dst] <= -2:
                continue
            nb = list(board)
            nb[src] -= 1
            if nb[dst] == -1:
                nb[dst] = 0
                nb[0] -= 1  # the opponent's bar is board[0], counted negative
            nb[dst] += 1
            out.append(nb)
        elif all_home and (dst == 0 or src == highest):
            nb = list(board)
            nb[src] -= 1
            out.append(nb)
    return out


def python_children(board: Sequence[int], d1: int, d2: int) -> set[tuple[int, ...]]:
    """Distinct boards after each legal play of ``d1``-``d2`` (mover's view, not flipped)."""
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    results: dict[tuple[int, ...], int] = {}  # board -> dice used (the larger die counts for ties below)
    best = 0

    def walk(b: list[int], rest: list[int], used: int, pips: int) -> None:
        nonlocal best
        moved = False
        if rest:
            for nb in _single_moves(b, rest[0]):
                moved = True
                walk(nb, rest[1:], used + 1, pips + rest[0])
        if not moved:
            score = used * 10 + (pips if used == 1 and d1 != d2 else 0)
            best = max(best, score)
            key = tuple(b)
            results[key] = max(results.get(key, -1), score)

    for order in orders:
        walk(list(board), order, 0, 0)
    return {b for b, score in results.items() if score == best}
