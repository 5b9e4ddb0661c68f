"""Input encoding of positions for the nets, computed in batches by a compiled kernel.

Each side is described from its own view (side on roll first, then the opponent) by the same
109 features; two global features follow. ``FEATURES`` documents every unit in one line.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from engine.movegen import rear_and_front

PER_SIDE = 109
N_INPUTS = 2 * PER_SIDE + 2

_SIDE_FEATURES: list[str] = []
for _p in range(1, 25):
    _SIDE_FEATURES += [
        f"point {_p}: exactly one checker (a blot)",
        f"point {_p}: exactly two checkers",
        f"point {_p}: three or more checkers",
        f"point {_p}: (checkers - 3) / 2 beyond three",
    ]
_SIDE_FEATURES += [
    "bar: at least one checker on the bar",
    "bar: checkers on the bar / 3",
    "off: checkers borne off / 15",
    "pips: pip count / 167",
    "blots: number of blots / 5",
    "shots: rolls (of 36) on which the other side can hit one of these blots, direct or indirect / 36",
    "prime: longest run of consecutive made points (2+ checkers) / 6",
    "anchors: made points in the other side's home board / 6",
    "home: made points in own home board / 6",
    "back: checkers on the bar or in the other side's home board / 5",
    "escape: dice values (of 6) with which the rearmost checker lands on a point not made by the other side / 6",
    "outside: checkers not yet home (bar included) / 15",
    "crossovers: quadrant crossings still needed by all checkers / 30",
]
assert len(_SIDE_FEATURES) == PER_SIDE
FEATURES: tuple[str, ...] = tuple(
    [f"on roll, {f}" for f in _SIDE_FEATURES]
    + [f"opponent, {f}" for f in _SIDE_FEATURES]
    + ["race lead: (opponent pips - own pips) / 100", "contact: 1 while the sides can still hit each other"]
)


@njit(cache=True, inline="always")
def _count(b: np.ndarray, flip: bool, p: int) -> int:
    """Checkers of the viewed side on its point ``p`` (25 = its bar)."""
    v = -b[25 - p] if flip else b[p]
    return v if v > 0 else 0


@njit(cache=True, inline="always")
def _other(b: np.ndarray, flip: bool, p: int) -> int:
    """Checkers of the other side on the viewed side's point ``p`` (0 = the other side's bar)."""
    v = b[25 - p] if flip else -b[p]
    return v if v > 0 else 0


def _roll_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bit of each of the 21 rolls, its weight of 36, and per die value the mask of the rolls holding it."""
    index = np.zeros((7, 7), np.int64)
    weight = np.zeros(21, np.int64)
    bit = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            index[d1, d2] = index[d2, d1] = bit
            weight[bit] = 1 if d1 == d2 else 2
            bit += 1
    holding = np.zeros(7, np.int64)
    for d in range(1, 7):
        for e in range(1, 7):
            holding[d] |= 1 << index[d, e]
    return index, weight, holding


_ROLL_BIT, _ROLL_WEIGHT, _ROLLS_HOLDING = _roll_tables()
_ALL_ROLLS = (1 << 21) - 1


@njit(cache=True)
def _shots(me: np.ndarray, them: np.ndarray) -> int:
    """Rolls (of 36) on which ``them`` can hit a blot of ``me`` (both arrays in ``me``'s view).

    ``me[p]``/``them[p]`` for p = 0..25 with ``them[0]`` its bar; ``them`` moves upward in p.
    A roll hits when one die covers the distance, or both dice do with the point touched in
    between not made by ``me`` (either order), or a double does in 2 to 4 steps over points not
    made by ``me``. While ``them`` has a checker on the bar only that checker may hit.
    """
    # Each (blot, hitter) pair marks the rolls it hits in a 21-bit mask: the pairs are few,
    # where looping over the 21 rolls for every pair cost ten times as much.
    mask = 0
    top_source = 1 if them[0] > 0 else 25
    for target in range(1, 25):
        if me[target] != 1:
            continue
        for src in range(0, min(target, top_source)):
            if them[src] == 0:
                continue
            dist = target - src
            if dist <= 6:
                mask |= _ROLLS_HOLDING[dist]
            for d in range(1, 7):
                k = dist // d
                if dist % d == 0 and 2 <= k <= 4:
                    open_path = True
                    for s in range(1, k):
                        if me[src + s * d] >= 2:
                            open_path = False
                            break
                    if open_path:
                        mask |= 1 << _ROLL_BIT[d, d]
            for d1 in range(max(1, dist - 6), 7):
                d2 = dist - d1
                if d2 <= d1:
                    break
                if me[src + d1] < 2 or me[src + d2] < 2:
                    mask |= 1 << _ROLL_BIT[d1, d2]
            if mask == _ALL_ROLLS:
                return 36
    shots = 0
    for bit in range(21):
        if mask >> bit & 1:
            shots += _ROLL_WEIGHT[bit]
    return shots


@njit(cache=True)
def _encode_side(b: np.ndarray, flip: bool, out: np.ndarray, base: int) -> int:
    """Write the 109 features of one side (own view) at ``out[base:]``; returns its pip count."""
    me = np.zeros(26, np.int64)
    them = np.zeros(26, np.int64)
    for p in range(1, 26):
        me[p] = _count(b, flip, p)
    for p in range(0, 25):
        them[p] = _other(b, flip, p)
    on_board = 0
    pips = 0
    for p in range(1, 25):
        n = me[p]
        k = base + 4 * (p - 1)
        out[k] = 1.0 if n == 1 else 0.0
        out[k + 1] = 1.0 if n == 2 else 0.0
        out[k + 2] = 1.0 if n >= 3 else 0.0
        out[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0
        on_board += n
        pips += n * p
    bar = me[25]
    on_board += bar
    pips += 25 * bar
    k = base + 96
    out[k] = 1.0 if bar > 0 else 0.0
    out[k + 1] = bar / 3.0
    out[k + 2] = (15 - on_board) / 15.0
    out[k + 3] = pips / 167.0
    blots = 0
    prime = 0
    run = 0
    anchors = 0
    home = 0
    back = bar
    outside = bar
    cross = 4 * bar
    for p in range(1, 25):
        n = me[p]
        if n == 1:
            blots += 1
        if n >= 2:
            run += 1
            if run > prime:
                prime = run
            if p >= 19:
                anchors += 1
            if p <= 6:
                home += 1
        else:
            run = 0
        if p >= 19:
            back += n
        if p > 6:
            outside += n
        cross += n * ((p - 1) // 6)
    out[k + 4] = blots / 5.0
    out[k + 5] = _shots(me, them) / 36.0 if blots > 0 else 0.0
    out[k + 6] = prime / 6.0
    out[k + 7] = anchors / 6.0
    out[k + 8] = home / 6.0
    out[k + 9] = back / 5.0
    rear = 25
    while rear > 0 and me[rear] == 0:
        rear -= 1
    escape = 0
    for d in range(1, 7):
        land = rear - d
        if rear > 0 and (land <= 0 or them[land] < 2):
            escape += 1
    out[k + 10] = escape / 6.0
    out[k + 11] = outside / 15.0
    out[k + 12] = cross / 30.0
    return pips


@njit(cache=True)
def _contact(b: np.ndarray) -> bool:
    rear_own, front_opp = rear_and_front(b)
    return rear_own > front_opp


@njit(cache=True, parallel=True)
def encode_into(boards: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out[i]`` (float32, N_INPUTS) with the features of ``boards[i]`` (side on roll's view)."""
    for i in prange(boards.shape[0]):
        b = boards[i]
        row = out[i]
        own = _encode_side(b, False, row, 0)
        opp = _encode_side(b, True, row, PER_SIDE)
        row[2 * PER_SIDE] = (opp - own) / 100.0
        row[2 * PER_SIDE + 1] = 1.0 if _contact(b) else 0.0


def encode(boards: np.ndarray) -> np.ndarray:
    """Features of a batch of int8 (n, 26) boards as float32 (n, N_INPUTS), side on roll first."""
    arr = np.ascontiguousarray(boards, dtype=np.int8)
    if arr.ndim == 1:
        arr = arr[None, :]
    out = np.empty((arr.shape[0], N_INPUTS), np.float32)
    encode_into(arr, out)
    return out
