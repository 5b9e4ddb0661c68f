"""Input encodings of positions for the nets, computed in batches by compiled kernels.

Two encodings exist, named in every weights file (:class:`Encoding`):

- ``jumpgammon-v1``: each side from its own view (side on roll first, then the opponent) by the
  same 109 features, then two global features: 220 inputs.
- ``jumpgammon-v2``: the 220 inputs of v1, unchanged and in the same places, then 24 more
  game-describing features per side (side on roll first): 268 inputs. A v1 net becomes a v2 net
  computing the same function by giving the new inputs zero weights.

``FEATURES`` documents every unit of v2 in one line (v1's are its first 220).
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from numba import njit, prange

from engine.movegen import rear_and_front

PER_SIDE = 109  # v1 features per side
N_INPUTS = 2 * PER_SIDE + 2  # inputs of v1
EXTRA_PER_SIDE = 24  # v2 features per side beyond v1's
V2_INPUTS = N_INPUTS + 2 * EXTRA_PER_SIDE

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

# The v2 features of one side, in the order the kernel writes them. "Escaping" from a point (see
# _escape_table) means getting past every point the other side has made among the 10 in front.
# Shots, pip loss and double hits follow the rules of _hit_analysis.
_EXTRA_FEATURES: list[str] = [
    "off 1-5: min(checkers borne off, 5) / 5",
    "off 6-10: checkers borne off beyond 5, at most 5, / 5",
    "off 11-15: checkers borne off beyond 10 / 5",
    "break contact: pips the checkers behind the other side's rearmost checker need to reach its point / 100",
    "free pips: pip count of the checkers already past every checker of the other side / 100",
    "back checker: point of the rearmost checker (bar 25; 0 with none left) / 25",
    "back anchor: the rearmost made point (2+ checkers) / 24; 0 with none",
    "forward anchor: the made point in the other side's half (13-24) nearest home, as (25 - point) / 12; 0 with none",
    "pip loss: expected pips lost to a hit: mean over the 36 rolls of the largest (25 - point) of a blot hit / 25",
    "hit twice: rolls (of 36) on which the other side can hit two of these blots / 36",
    "back trapped: rolls (of 36) on which a checker on the own 24-point would not escape (get past the other "
    "side's made points among the 10 in front) / 36",
    "rear trapped: rolls (of 36) on which the rearmost checker (bar 25) would not escape / 36; 0 with none left",
    "rear containment: 1 - fewest escaping rolls / 36 from the points between the rearmost checker (bar 25) and the "
    "13-point; 0 once it is past the 13-point",
    "rear containment squared: the square of rear containment",
    "containment: 1 - fewest escaping rolls / 36 from any of the points 13-24, whether or not a checker is there",
    "containment squared: the square of containment",
    "mobility: over checkers outside the home board (bar included), the die values landing on a point "
    "the other side has not made / 90",
    "spread: mean over checkers in play of the squared distance behind their mean point (0 for those ahead) / 100",
    "timing: pips playable before a home point must be broken: (point - 6) beyond the 6-point, "
    "(point - 1) per spare beyond two on a home point / 100",
    "backbone: made points within 11 pips in front of the rearmost made point, if that is in the other "
    "side's half (13-24), at most 6, / 6",
    "enter: (points made by the other side in its home board / 6) squared, one bar checker's chance to stay out",
    "enter all: rolls (of 36) on which the checkers on the bar cannot all enter / 36; 0 with none there",
    "back game: 1 when holding two or more points in the other side's home board",
    "back game, one point: 1 when holding exactly one point there with 3+ checkers in that board or on the bar",
]
assert len(_EXTRA_FEATURES) == EXTRA_PER_SIDE

FEATURES: tuple[str, ...] = tuple(
    [f"on roll, {f}" for f in _SIDE_FEATURES]
    + [f"opponent, {f}" for f in _SIDE_FEATURES]
    + ["race lead: (opponent pips - own pips) / 100", "contact: 1 while the sides can still hit each other"]
    + [f"on roll, {f}" for f in _EXTRA_FEATURES]
    + [f"opponent, {f}" for f in _EXTRA_FEATURES]
)
assert len(FEATURES) == V2_INPUTS


class Encoding(StrEnum):
    """An input encoding, by the name a weights file records."""

    V1 = "jumpgammon-v1"
    V2 = "jumpgammon-v2"

    @classmethod
    def parse(cls, text: str) -> Encoding:
        """The encoding named ``text`` (``v2`` or ``jumpgammon-v2``); raises ValueError naming it."""
        name = text.strip().lower()
        for encoding in cls:
            if name in (encoding.value, encoding.short):
                return encoding
        raise ValueError(f"encoding {text!r}: expected one of {', '.join(e.short for e in cls)}")

    @property
    def short(self) -> str:
        """The short name: ``v1`` or ``v2``."""
        return self.value.removeprefix("jumpgammon-")

    @property
    def n_inputs(self) -> int:
        """Inputs per position."""
        return N_INPUTS if self is Encoding.V1 else V2_INPUTS

    @property
    def features(self) -> tuple[str, ...]:
        """One line per input, in order."""
        return FEATURES[: self.n_inputs]

    def inputs(self, boards: np.ndarray) -> np.ndarray:
        """Inputs of a batch of int8 (n, 26) boards as float32 (n, n_inputs), side on roll first."""
        return encode(boards, self)


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
    return _write_side(me, them, out, base, -1)


@njit(cache=True)
def _write_side(me: np.ndarray, them: np.ndarray, out: np.ndarray, base: int, shots: int) -> int:
    """Write the 109 v1 features of ``me`` against ``them`` (arrays as for :func:`_shots`) at ``out[base:]``; the pips.

    ``shots`` is the shot count when the caller has it, else -1 (counted here).
    """
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
    out[k + 5] = (_shots(me, them) if shots < 0 else shots) / 36.0 if blots > 0 else 0.0
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
    """Fill ``out[i]`` (float32, N_INPUTS) with the v1 features of ``boards[i]`` (side on roll's view)."""
    for i in prange(boards.shape[0]):
        b = boards[i]
        row = out[i]
        own = _encode_side(b, False, row, 0)
        opp = _encode_side(b, True, row, PER_SIDE)
        row[2 * PER_SIDE] = (opp - own) / 100.0
        row[2 * PER_SIDE + 1] = 1.0 if _contact(b) else 0.0


# --------------------------------------------------------------------------------------------
# v2: game-describing features beyond v1's, per side
# --------------------------------------------------------------------------------------------

BLOCKADE = 10  # escaping means getting past every point the other side has made among this many in front
WINDOW = 12  # the points in front of a checker whose being made the escape table looks at
_WINDOW_MASK = (1 << WINDOW) - 1
ROW_BLOCK = 64  # rows per parallel task: scratch arrays are allocated once per block


@njit(cache=True)
def _escape_table() -> np.ndarray:
    """Rolls (of 36) on which a lone checker escapes, by the mask of made points in front of it.

    Bit j of the mask says that the point ``WINDOW - j`` pips ahead is made by the other side. A
    roll escapes when some way of playing it with that checker alone ends beyond the farthest made
    point among the ``BLOCKADE`` points in front, every landing on the way open (not made; points
    more than ``WINDOW`` ahead count as open, which matters only for 5-5 against a point made 10
    ahead): one die, both dice in either order, or a double's 1 to 4 steps. With no made point among
    the ``BLOCKADE`` every roll escapes.
    """
    table = np.empty(1 << WINDOW, np.int64)
    for mask in range(1 << WINDOW):
        last = 0
        for dist in range(1, BLOCKADE + 1):
            if mask >> (WINDOW - dist) & 1:
                last = dist
        if last == 0:
            table[mask] = 36
            continue
        count = 0
        for a in range(1, 7):
            for b in range(1, 7):
                if a == b:
                    for k in range(1, 5):
                        dist = k * a
                        if dist <= WINDOW and mask >> (WINDOW - dist) & 1:
                            break
                        if dist > last:
                            count += 1
                            break
                else:
                    open_a = (mask >> (WINDOW - a) & 1) == 0
                    open_b = (mask >> (WINDOW - b) & 1) == 0
                    open_ab = (mask >> (WINDOW - a - b) & 1) == 0
                    if (
                        (open_a and a > last)
                        or (open_b and b > last)
                        or ((open_a or open_b) and open_ab and a + b > last)
                    ):
                        count += 1
        table[mask] = count
    return table


ESCAPES = _escape_table()
ESCAPES.flags.writeable = False


@njit(cache=True, inline="always")
def _window(made: int, q: int) -> int:
    """The escape-table mask for a checker on point ``q``; bit p of ``made`` marks a made point p (1..24)."""
    if q >= WINDOW:
        return (made >> (q - WINDOW)) & _WINDOW_MASK
    return (made << (WINDOW - q)) & _WINDOW_MASK


BOARD_BITS = ((1 << 25) - 1) & ~1  # bits 1..24: the points of the board


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    """Set bits of a mask below bit 62, without branches."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True, inline="always")
def _lowest_point(x: int) -> int:
    """The index of the lowest set bit of a non-zero mask."""
    return _popcount((x & -x) - 1)


@njit(cache=True)
def _hit_analysis(me: np.ndarray, them: np.ndarray) -> tuple[int, int, int]:
    """(shots, pip loss, double hits) of ``me``'s blots against ``them`` (arrays as for :func:`_shots`), over 36 rolls.

    Shots: the rolls on which some blot can be hit, exactly as :func:`_shots` counts them. Pip
    loss: the sum over the 36 rolls of the largest ``25 - point`` of a blot that roll can hit.
    Double hits: the rolls that can hit two blots. Any other roll: one die hits a blot and the
    other die another, from another point or from a point of 2+ checkers, or the hitter goes on
    with the other die onto a second blot. A double: two blots whose fewest steps from a checker of
    ``them`` add up to 4 or less, or one checker meeting two blots within its 4 steps. Every step
    lands on a point ``me`` has not made; while ``them`` has a checker on the bar only checkers
    entering from it move (in any order: as for the shots, the rule that every checker on the bar
    enters first is not applied). Computed on bit masks of points.
    """
    blots = 0
    made = 0
    sources = 0
    single = 0
    for p in range(1, 25):
        blots |= int(me[p] == 1) << p
        made |= int(me[p] >= 2) << p
        sources |= int(them[p] > 0) << p
        single |= int(them[p] == 1) << p
    if them[0] > 0:
        sources = 1
        single = int(them[0] == 1)
    if blots == 0 or sources == 0 or (blots >> _lowest_point(sources)) == 0:
        return 0, 0, 0
    open_points = BOARD_BITS & ~made
    shots = 0
    loss = 0
    twice = 0
    for a in range(1, 7):
        for b in range(a, 7):
            two = False
            if a == b:
                weight = 1
                reach = sources
                carrying = 0  # where checkers that have hit already stand
                hit = 0
                within1 = within2 = within3 = 0
                for k in range(1, 5):
                    carrying = (carrying << a) & open_points
                    reach = (reach << a) & open_points
                    if carrying & blots:
                        two = True
                    landed = reach & blots
                    carrying |= landed
                    hit |= landed
                    if k == 1:
                        within1 = _popcount(hit)
                    elif k == 2:
                        within2 = _popcount(hit)
                    elif k == 3:
                        within3 = _popcount(hit)
                if within2 >= 2 or (within1 >= 1 and within3 >= 2):
                    two = True
            else:
                weight = 2
                on_a = (sources << a) & blots
                on_b = (sources << b) & blots
                via = ((((sources << a) & open_points) << b) | (((sources << b) & open_points) << a)) & blots
                hit = on_a | on_b | via
                if ((on_a << b) | (on_b << a)) & blots:
                    two = True
                elif on_a and on_b:
                    same_checker = _popcount(single & (blots >> a) & (blots >> b))
                    if _popcount(on_a) * _popcount(on_b) - _popcount(on_a & on_b) - same_checker > 0:
                        two = True
            if hit:
                shots += weight
                loss += weight * (25 - _lowest_point(hit))
            if two:
                twice += weight
    return shots, loss, twice


@njit(cache=True)
def _write_extra(
    me: np.ndarray, them: np.ndarray, out: np.ndarray, base: int, loss: int, twice: int, escapes: np.ndarray
) -> None:
    """Write the 24 v2 features of ``me`` against ``them`` (``_EXTRA_FEATURES``) at ``out[base:]``.

    ``loss`` and ``twice`` are :func:`_hit_analysis`' pip loss and double hits.
    """
    blocks = 0  # bit p: point p made by the other side
    for p in range(24, 0, -1):
        blocks |= int(them[p] >= 2) << p
    opp_rear = 0  # the other side's rearmost checker, in this side's numbering (0: its bar, 25: none)
    while opp_rear < 25 and them[opp_rear] == 0:
        opp_rear += 1
    in_play = pips = behind = free = timing = mobility = 0
    rear = there = 0
    own_made = 0
    for p in range(1, 26):
        n = me[p]
        in_play += n
        pips += n * p
        rear = max(rear, p * int(n > 0))
        behind += n * max(p - opp_rear, 0)
        free += n * p * int(p < opp_rear)
        if p > 6:
            timing += n * (p - 6)
            mobility += n * (6 - _popcount((blocks >> (p - 6)) & 63))
        else:
            timing += max(n - 2, 0) * (p - 1)
        if p >= 19:
            there += n
        if p <= 24:
            own_made |= int(n >= 2) << p
    anchor = 24  # the rearmost made point
    while anchor > 0 and not (own_made >> anchor) & 1:
        anchor -= 1
    outer = own_made >> 13 << 13
    forward = _lowest_point(outer) if outer else 0  # the made point of 13-24 nearest home
    held = _popcount(own_made >> 19)
    off = 15 - in_play
    out[base] = min(off, 5) / 5.0
    out[base + 1] = min(max(off - 5, 0), 5) / 5.0
    out[base + 2] = max(off - 10, 0) / 5.0
    out[base + 3] = behind / 100.0
    out[base + 4] = free / 100.0
    out[base + 5] = rear / 25.0
    out[base + 6] = anchor / 24.0
    out[base + 7] = (25 - forward) / 12.0 if forward else 0.0
    out[base + 8] = loss / (36.0 * 25.0)
    out[base + 9] = twice / 36.0
    # escapes and containment, against the points the other side has made
    out[base + 10] = (36 - escapes[_window(blocks, 24)]) / 36.0
    out[base + 11] = (36 - escapes[_window(blocks, rear)]) / 36.0 if rear > 0 else 0.0
    fewest = 36
    fewest_rear = 36
    for q in range(13, 26):
        e = escapes[_window(blocks, q)]
        if q <= rear and e < fewest_rear:
            fewest_rear = e
        if q <= 24 and e < fewest:
            fewest = e
    rear_containment = 1.0 - fewest_rear / 36.0
    containment = 1.0 - fewest / 36.0
    out[base + 12] = rear_containment
    out[base + 13] = rear_containment * rear_containment
    out[base + 14] = containment
    out[base + 15] = containment * containment
    out[base + 16] = mobility / 90.0
    spread = 0.0
    if in_play:
        mean = pips / in_play
        for p in range(int(mean) + 1, 26):
            spread += me[p] * (p - mean) * (p - mean)
        spread /= in_play
    out[base + 17] = spread / 100.0
    out[base + 18] = timing / 100.0
    backbone = 0
    if anchor >= 13:
        backbone = _popcount(own_made & ((1 << anchor) - 1) & ~((1 << (anchor - 11)) - 1))
    out[base + 19] = min(backbone, 6) / 6.0
    closed = _popcount((blocks >> 19) & 63)
    out[base + 20] = (closed / 6.0) * (closed / 6.0)
    # rolls on which the bar checkers do not all enter: each die enters one on an open point, a double up to 4
    on_bar = me[25]
    open_points = 6 - closed
    if on_bar == 0:
        stay = 0
    elif on_bar == 1:
        stay = closed * closed
    elif on_bar == 2:
        stay = 30 - open_points * (open_points - 1) + closed
    elif on_bar <= 4:
        stay = 30 + closed
    else:
        stay = 36
    out[base + 21] = stay / 36.0
    out[base + 22] = 1.0 if held >= 2 else 0.0
    out[base + 23] = 1.0 if held == 1 and there >= 3 else 0.0


@njit(cache=True)
def _encode_v2_side(
    b: np.ndarray, flip: bool, row: np.ndarray, me: np.ndarray, them: np.ndarray, escapes: np.ndarray
) -> int:
    """Write one side's v1 and v2 features into ``row`` (own view; ``flip`` for the opponent); returns its pips."""
    me[0] = 0
    them[25] = 0
    for p in range(1, 26):
        me[p] = _count(b, flip, p)
        them[p - 1] = _other(b, flip, p - 1)
    shots, loss, twice = _hit_analysis(me, them)
    pips = _write_side(me, them, row, PER_SIDE if flip else 0, shots)
    _write_extra(me, them, row, N_INPUTS + (EXTRA_PER_SIDE if flip else 0), loss, twice, escapes)
    return pips


@njit(cache=True, parallel=True)
def _encode_v2_into(boards: np.ndarray, out: np.ndarray, escapes: np.ndarray) -> None:
    """Fill ``out[i]`` (float32, V2_INPUTS) with the v2 features of ``boards[i]`` (side on roll's view)."""
    n = boards.shape[0]
    for block in prange((n + ROW_BLOCK - 1) // ROW_BLOCK):
        me = np.empty(26, np.int64)
        them = np.empty(26, np.int64)
        for i in range(block * ROW_BLOCK, min(n, (block + 1) * ROW_BLOCK)):
            b = boards[i]
            row = out[i]
            own = _encode_v2_side(b, False, row, me, them, escapes)
            opp = _encode_v2_side(b, True, row, me, them, escapes)
            row[2 * PER_SIDE] = (opp - own) / 100.0
            row[2 * PER_SIDE + 1] = 1.0 if _contact(b) else 0.0


def encode(boards: np.ndarray, encoding: Encoding = Encoding.V1) -> np.ndarray:
    """Inputs of a batch of int8 (n, 26) boards as float32 (n, encoding.n_inputs), side on roll first."""
    arr = np.ascontiguousarray(boards, dtype=np.int8)
    if arr.ndim == 1:
        arr = arr[None, :]
    out = np.empty((arr.shape[0], encoding.n_inputs), np.float32)
    if encoding is Encoding.V1:
        encode_into(arr, out)
    else:
        _encode_v2_into(arr, out, ESCAPES)
    return out
