"""Match equity tables (METs): published tables as data, and Tom Keith's algorithm.

A table holds match-winning chances (MWC, in [0, 1]) before a game starts, for equal players:

``pre_crawford[i, j]``
    the chance of the player ``i + 1``-away against an opponent ``j + 1``-away. Row 0 (and
    column 0) is the **Crawford game**: the first game after a side reached 1-away, played without
    the cube. ``pre_crawford[i, j] + pre_crawford[j, i] = 1``.
``post_crawford[j]``
    the chance of the trailer ``j + 1``-away against a 1-away leader in a **post-Crawford** game
    (the cube is back; the trailer doubles early, the leader may drop for free at even scores).
    ``post_crawford[0] = 0.5`` is 1-away against 1-away (double match point).

Equities ``2 MWC - 1`` (in [-1, 1]) are the same numbers on the scale seed 002 prints.

Published tables (``cube/data/met_*.json``, converted from the XML files GNU Backgammon ships,
their authors and transcribers named in each file's ``source``; :func:`published_met`):
``Kazaross-XG2`` (gnubg's default: XG rollouts to 9 points, GNUbg Supremo rollouts to 15,
extended to 25), ``Rockwell-Kazaross`` (GNUbg Supremo rollouts to 15, extended to 25) and
``Woolsey`` (Kit Woolsey, 1992, 15 points; the table of gnubg's cubeful-equity worked example).
:func:`load_gnubg_xml` reads any such XML file with explicit tables.

Tom Keith's algorithm (:func:`keith_met`), as seed 002 describes it: a won game is a gammon with
probability ``G`` (gammons include backgammons) and a backgammon with probability ``B``.

* Post-Crawford, the trailer doubles at once, so an ``n``-away trailer plays for twice the
  stake: ``PC(n) = 1/2 [(1-G) PC(n-2) + (G-B) PC(n-4) + B PC(n-6)] - FD(n)``, ``PC(1) = 1/2``,
  ``PC(k <= 0) = 1``; ``FD(n)`` is the leader's free drop at even ``n`` (refusing the double
  when behind costs him nothing). The free drops are parameters: they come from the
  distribution of winning chances early in a game, not from G and B.
* The Crawford game (no cube): the leader wins the match with probability 1/2; otherwise the
  trailer wins 1, 2 or 3 points and the match goes post-Crawford.
* Other scores (both sides at least 2-away): a fully efficient cube. With the cube at ``c``
  and the winning chance ``p`` of the player, his MWC is linear in ``p`` between the points
  where the cube changes hands: owning the cube, from (0, lose ``c``) to (his cash point,
  win ``c``); the opponent owning it, from (his take point, lose ``c``) to (1, win ``c``),
  where "win"/"lose" weigh single games and gammons. Starting from a cube so high that any
  win ends the match (MWC = ``p``), each cube level's cash point is where the opponent's
  doubled-cube line reaches the pass value, and its take point where the player's own
  doubled-cube line reaches his pass value; the centred 1-cube line through (take point, lose 1)
  and (cash point, win 1) gives the table entry at ``p = 1/2``.

Reproduction of seed 002's printed 12-away table (27.60% gammons, 1.1% backgammons; tested in
``tests/cube/test_met.py``): the note's numbers follow this algorithm with backgammons left out
before the Crawford game (``pre_crawford_backgammons=False``, the default here): with them
counted, entries move by up to 0.0054 and 112 of the 144 miss. The note's post-Crawford row came
from 2-ply state probabilities: the recursion above gives its odd-away entries (no free drop
there) and needs free drops of 0.014, 0.0079, 0.0032, 0.0015, 0.0006 and 0.0003 at 2-, 4-, ...,
12-away for the even ones; these are the default ``NOTE_FREE_DROPS`` (none beyond 12-away), with
which all 12 post-Crawford entries and 142 of the 144 pre-Crawford entries come out to the
printed three decimals (the same 142 when the note's printed post-Crawford row is fed in; its
Crawford row then comes out 11 of 11). The two misses, 6-away against 12-away and back, are
0.55648 against a printed 0.557: the post-Crawford inputs are rounded, and a post-Crawford row
within half a unit of the printed third decimal gives all 144. With gnubg's free drops
(``GNUBG_FREE_DROPS``: 0.015 at 2-away, 0.004 at 4-away, none beyond) 66 entries miss, by up to
0.0033.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from cube.errors import CubeInputError, FloatArray

__all__ = [
    "DEFAULT_MET",
    "GNUBG_FREE_DROPS",
    "NOTE_FREE_DROPS",
    "PUBLISHED_METS",
    "MatchEquityTable",
    "crawford_game_mwc",
    "extended_met",
    "keith_met",
    "keith_post_crawford",
    "load_gnubg_xml",
    "met_by_name",
    "published_met",
]

#: Published tables shipped in ``cube/data`` (name -> file).
PUBLISHED_METS: dict[str, str] = {
    "Kazaross-XG2": "met_kazaross_xg2.json",
    "Rockwell-Kazaross": "met_rockwell_kazaross.json",
    "Woolsey": "met_woolsey.json",
}
#: GNU Backgammon's default table.
DEFAULT_MET = "Kazaross-XG2"
#: Free drops (trailer's away -> MWC the leader's free drop takes) of gnubg's generated tables
#: (its ``mec``/``zadeh`` parameters ``free-drop-2-away`` and ``free-drop-4-away``).
GNUBG_FREE_DROPS: Mapping[int, float] = {2: 0.015, 4: 0.004}
#: The free drops seed 002's post-Crawford row implies at 27.60% gammons and 1.1% backgammons
#: (its even entries against the recursion, to the precision of the printed row).
NOTE_FREE_DROPS: Mapping[int, float] = {2: 0.014, 4: 0.0079, 6: 0.0032, 8: 0.0015, 10: 0.0006, 12: 0.0003}
#: Tables must agree with ``pre[i, j] + pre[j, i] = 1`` to this (published tables print 5-6 digits).
_SYMMETRY_TOLERANCE = 1e-6
# A gnubg file's pair may miss 1 by this much, a rounding of the published figures, and be made to add up.
_ROUNDING_TOLERANCE = 0.005


def _frozen(arr: FloatArray) -> FloatArray:
    out = np.array(arr, dtype=np.float64)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """A match equity table: MWC before a game, pre-Crawford (with the Crawford game) and post-Crawford.

    ``pre_crawford[i, j]`` is the chance of the player ``i + 1``-away against ``j + 1``-away (row 0:
    the Crawford game); ``post_crawford[j]`` the chance of a ``j + 1``-away trailer against a 1-away
    leader after the Crawford game. ``name`` identifies the table, ``source`` says where it comes from.
    """

    name: str
    source: str
    pre_crawford: FloatArray
    post_crawford: FloatArray
    #: How many points of it are the source's own numbers (the rest extended as gnubg does); 0: all of it.
    given_length: int = 0

    def __post_init__(self) -> None:
        pre = np.asarray(self.pre_crawford, dtype=np.float64)
        post = np.asarray(self.post_crawford, dtype=np.float64).ravel()
        label = f"match equity table {self.name!r}"
        if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or pre.shape[0] < 1:
            raise CubeInputError(f"{label}: pre-Crawford table must be square, got shape {pre.shape}")
        if post.shape != (pre.shape[0],):
            raise CubeInputError(
                f"{label}: post-Crawford row has {post.size} entries, expected {pre.shape[0]} (the table's length)"
            )
        for what, arr in (("pre-Crawford", pre), ("post-Crawford", post)):
            bad = ~(np.isfinite(arr) & (arr >= 0.0) & (arr <= 1.0))
            if bad.any():
                where = np.unravel_index(int(np.argmax(bad)), arr.shape)
                at = " against ".join(f"{int(k) + 1}-away" for k in where)
                raise CubeInputError(
                    f"{label}: {what} entries must be match-winning chances in [0, 1], "
                    f"got {float(arr[where])!r} at {at}"
                )
        asym = np.abs(pre + pre.T - 1.0)
        if np.any(asym > _SYMMETRY_TOLERANCE):
            i, j = (int(k) for k in np.unravel_index(np.argmax(asym), asym.shape))
            raise CubeInputError(
                f"{label}: {i + 1}-away against {j + 1}-away is {float(pre[i, j]):.6g} and the other way round "
                f"{float(pre[j, i]):.6g}, which add up to {float(pre[i, j] + pre[j, i]):.6g}, not 1 (this program "
                "needs the two sides' chances to add up to 1)"
            )
        if abs(post[0] - 0.5) > _SYMMETRY_TOLERANCE:
            raise CubeInputError(f"{label}: post-Crawford 1-away against 1-away must be 0.5, got {post[0]!r}")
        object.__setattr__(self, "pre_crawford", _frozen(pre))
        object.__setattr__(self, "post_crawford", _frozen(post))
        if not 0 <= self.given_length <= pre.shape[0]:
            raise CubeInputError(f"{label}: given length {self.given_length} is not 0 to {pre.shape[0]}")

    @property
    def length(self) -> int:
        """The longest match (in points) the table covers."""
        return int(self.pre_crawford.shape[0])

    def mwc(self, away: int, opp_away: int, *, crawford: bool = False) -> float:
        """The player's MWC before a game with ``away`` and ``opp_away`` points still to win.

        ``crawford``: this game is the Crawford game (exactly one side 1-away); a side 1-away
        without it means a post-Crawford game. A side 0 (or fewer) points away has won the match.
        """
        if away <= 0:
            return 1.0
        if opp_away <= 0:
            return 0.0
        if max(away, opp_away) > self.length:
            raise CubeInputError(
                f"score {away}-away against {opp_away}-away is beyond table {self.name!r} "
                f"(it covers matches up to {self.length} points)"
            )
        one_away = away == 1 or opp_away == 1
        if crawford and (not one_away or away == opp_away):
            raise CubeInputError(
                f"Crawford game at {away}-away against {opp_away}-away: the Crawford game needs exactly one side 1-away"
            )
        if one_away and not crawford:
            if away == opp_away:
                return 0.5
            return 1.0 - float(self.post_crawford[opp_away - 1]) if away == 1 else float(self.post_crawford[away - 1])
        return float(self.pre_crawford[away - 1, opp_away - 1])

    def equity(self, away: int, opp_away: int, *, crawford: bool = False) -> float:
        """The player's match equity ``2 MWC - 1`` (in [-1, 1]) before a game at this score."""
        return 2.0 * self.mwc(away, opp_away, crawford=crawford) - 1.0

    @property
    def pre_crawford_equity(self) -> FloatArray:
        """The pre-Crawford table as equities ``2 MWC - 1``."""
        return 2.0 * self.pre_crawford - 1.0

    @property
    def post_crawford_equity(self) -> FloatArray:
        """The post-Crawford row (trailer's view) as equities ``2 MWC - 1``."""
        return 2.0 * self.post_crawford - 1.0

    def truncated(self, length: int) -> MatchEquityTable:
        """The same table for matches up to ``length`` points (at most its own length)."""
        if not 1 <= length <= self.length:
            raise CubeInputError(
                f"match length {length} is beyond table {self.name!r}, "
                f"which covers matches of 1 to {self.length} points"
            )
        given = min(self.given_length or self.length, length)
        return MatchEquityTable(
            self.name, self.source, self.pre_crawford[:length, :length], self.post_crawford[:length], given
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: name, source, length, ``pre_crawford`` rows and ``post_crawford`` (MWC)."""
        return {
            "name": self.name,
            "source": self.source,
            "length": self.length,
            "given_length": self.given_length or self.length,
            "pre_crawford": self.pre_crawford.tolist(),
            "post_crawford": self.post_crawford.tolist(),
        }


# --------------------------------------------------------------------------- gnubg's extension

#: The longest match gnubg plays: every table it reads is extended to this many points.
GNUBG_MAX_LENGTH = 64
#: gnubg's post-Crawford extension: its gammon rate and the leader's free drops at 2- and 4-away.
_EXTENSION_GAMMON_RATE = 0.25
_EXTENSION_FREE_DROPS = {2: 0.015, 4: 0.004}
#: gnubg's per-game standard deviation of points by distance from the match (1- to 11-away; beyond: the last).
_EXTENSION_SPREAD = (1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72, 1.77)


def extended_met(table: MatchEquityTable, length: int = GNUBG_MAX_LENGTH) -> MatchEquityTable:
    """``table`` extended to ``length`` points as GNU Backgammon 1.07 extends every table it reads.

    Post-Crawford, the source's entries are kept up to one short of its length and the rest follow
    the trailer's recursion ``PC(n) = G/2 PC(n-4) + (1-G)/2 PC(n-2)`` with G = 0.25 (and gnubg's
    free drops at 2- and 4-away); gnubg regenerates the source's last entry too, since the first
    post-Crawford score of an ``n``-point match is ``n - 1``-away. Pre-Crawford, a score beyond the
    source is the chance a normal variable (the points won over the games left, about
    ``(a + b) / 2`` of them, each of spread ``s(a)``, ``s(b)`` by distance) ends ``a - b`` ahead,
    cut off at six standard deviations. The source's own rows are kept (``given_length``).
    """
    n = table.given_length or table.length
    if length < n:
        raise CubeInputError(f"cannot extend table {table.name!r} of {n} points to {length}")
    post = np.empty(length)
    post[: n - 1] = table.post_crawford[: n - 1]
    g = _EXTENSION_GAMMON_RATE
    for i in range(max(n - 1, 1), length):
        four_back = post[i - 4] if i >= 4 else 1.0
        two_back = post[i - 2] if i >= 2 else 1.0
        post[i] = g * 0.5 * four_back + (1.0 - g) * 0.5 * two_back - _EXTENSION_FREE_DROPS.get(i + 1, 0.0)
    pre = np.empty((length, length))
    pre[:n, :n] = table.pre_crawford[:n, :n]

    def spread(away: int) -> float:
        return _EXTENSION_SPREAD[min(away, len(_EXTENSION_SPREAD)) - 1]

    for i in range(n, length):
        for j in range(i + 1):
            a, b = i + 1, j + 1
            sigma = math.sqrt(spread(a) ** 2 + spread(b) ** 2) * math.sqrt((a + b) / 2.0)
            ahead = float(a - b)
            if 6.0 * sigma > ahead:
                pre[i, j] = 0.5 * (math.erf(6.0 / math.sqrt(2.0)) - math.erf(ahead / sigma / math.sqrt(2.0)))
            else:
                pre[i, j] = 0.0
            pre[j, i] = 1.0 - pre[i, j]
    return MatchEquityTable(table.name, table.source, pre, post, n)


# --------------------------------------------------------------------------- published tables


@cache
def published_met(name: str = DEFAULT_MET) -> MatchEquityTable:
    """A shipped published table by name (case-insensitive); CubeInputError names an unknown one."""
    key = next((k for k in PUBLISHED_METS if k.lower() == name.lower()), None)
    if key is None:
        raise CubeInputError(f"unknown match equity table {name!r}: known are {', '.join(PUBLISHED_METS)}")
    text = resources.files("cube").joinpath("data", PUBLISHED_METS[key]).read_text(encoding="utf-8")
    data = json.loads(text)
    given = MatchEquityTable(
        data["name"], data["source"], np.array(data["pre_crawford"]), np.array(data["post_crawford"])
    )
    return extended_met(given)


def met_by_name(name: str) -> MatchEquityTable:
    """A published table by name, or a GNU Backgammon XML file by path (``*.xml``)."""
    if name.lower().endswith(".xml"):
        return load_gnubg_xml(name)
    if not any(k.lower() == name.lower() for k in PUBLISHED_METS):
        raise CubeInputError(
            f"unknown match equity table {name!r}: known are {', '.join(PUBLISHED_METS)}, or a GNU Backgammon .xml file"
        )
    return published_met(name)


def _xml_rows(table: ET.Element, what: str, path: str) -> list[list[float]]:
    kind = table.get("type", "explicit")
    if kind != "explicit":
        raise CubeInputError(f"{path}: {what} table of type {kind!r} is not supported (only explicit tables)")
    try:
        return [[float(me.text or "") for me in row.findall("me")] for row in table.findall("row")]
    except ValueError as exc:
        raise CubeInputError(f"{path}: {what} table has an entry that is not a number ({exc})") from None


def load_gnubg_xml(path: str | Path) -> MatchEquityTable:
    """Read a GNU Backgammon match equity XML file (``met.dtd``) with explicit tables.

    The table is named by the file's ``<name>``; ``source`` records the description and the file.
    A post-Crawford table given separately for the two players must be the same for both. Pairs of
    pre-Crawford entries that miss adding up to 1 by at most 0.005 (rounded published figures) are
    made to add up, each moved by half the miss, and ``source`` says so.
    """
    label = str(path)
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise CubeInputError(f"cannot read match equity table {label!r}: {exc}") from None
    info, pre = root.find("info"), root.find("pre-crawford-table")
    posts = root.findall("post-crawford-table")
    if root.tag != "met" or info is None or pre is None or not posts:
        raise CubeInputError(f"{label!r} is not a GNU Backgammon match equity table (met.dtd)")
    name = (info.findtext("name") or Path(label).stem).strip()
    description = " ".join((info.findtext("description") or "").split())
    rows = _xml_rows(pre, "pre-Crawford", label)
    post_rows = [r for p in posts for r in _xml_rows(p, "post-Crawford", label)]
    if any(r != post_rows[0] for r in post_rows[1:]):
        raise CubeInputError(f"{label}: different post-Crawford tables for the two players are not supported")
    if not rows or any(len(r) != len(rows) for r in rows):
        raise CubeInputError(f"{label}: pre-Crawford table is not square")
    source = f"{description} (GNU Backgammon match equity file {Path(label).name})"
    pre_table = np.array(rows, dtype=np.float64)
    off = np.abs(pre_table + pre_table.T - 1.0) if np.isfinite(pre_table).all() else np.zeros(1)
    if _SYMMETRY_TOLERANCE < off.max() <= _ROUNDING_TOLERANCE:
        # A published table rounded to three digits can miss 1 by a digit or two in a pair (Ortega and Kleinman's,
        # 0.002); gnubg reads each side's own entry. Splitting the difference keeps the two sides' chances adding
        # up to 1, as this program needs, and moves no entry by more than half of it.
        pre_table = (pre_table + (1.0 - pre_table.T)) / 2.0
        source += f"; its pairs made to add up to 1 (each by half its miss, at most {off.max():.3g})"
    post = list(post_rows[0])
    if len(post) == len(rows) - 1:
        # gnubg reads only n - 1 post-Crawford entries of an n-point table (the first post-Crawford score is
        # n - 1-away) and makes the n-th by its recursion, as extended_met does: its own g11.xml and mec26.xml
        # give 24 for 25 points. A stand-in fills the place extended_met recomputes.
        post.append(post[-1])
    try:
        return extended_met(MatchEquityTable(name, source, pre_table, np.array(post)))
    except CubeInputError as exc:  # the table's own complaint, named by the file the user gave
        raise CubeInputError(f"{label}: {exc}") from None


# --------------------------------------------------------------------------- Keith's algorithm


def _check_rates(gammon_rate: float, backgammon_rate: float) -> tuple[float, float]:
    g, b = float(gammon_rate), float(backgammon_rate)
    if not (math.isfinite(g) and 0.0 <= g < 1.0):
        raise CubeInputError(f"gammon rate {gammon_rate!r} is not in [0, 1)")
    if not (math.isfinite(b) and 0.0 <= b <= g):
        raise CubeInputError(f"backgammon rate {backgammon_rate!r} is not in [0, gammon rate {g!r}]")
    return g, b


def _check_length(length: int) -> int:
    if isinstance(length, bool) or not isinstance(length, int | np.integer) or not 1 <= length <= 64:
        raise CubeInputError(f"match length {length!r} is not an integer from 1 to 64")
    return int(length)


def keith_post_crawford(
    gammon_rate: float, backgammon_rate: float, length: int = 25, free_drops: Mapping[int, float] = NOTE_FREE_DROPS
) -> FloatArray:
    """The trailer's post-Crawford MWC ``[j]`` at ``j + 1``-away (Keith's recursion with free drops)."""
    g, b = _check_rates(gammon_rate, backgammon_rate)
    n = _check_length(length)
    pc = np.empty(n)

    def at(away: int) -> float:
        return 1.0 if away <= 0 else float(pc[away - 1])

    pc[0] = 0.5
    for away in range(2, n + 1):
        value = 0.5 * ((1.0 - g) * at(away - 2) + (g - b) * at(away - 4) + b * at(away - 6))
        pc[away - 1] = value - float(free_drops.get(away, 0.0))
    if np.any(pc < 0.0) or np.any(pc > 1.0):
        raise CubeInputError(f"free drops {dict(free_drops)!r} push a post-Crawford MWC outside [0, 1]")
    return pc


def crawford_game_mwc(post_crawford: FloatArray, gammon_rate: float, backgammon_rate: float = 0.0) -> FloatArray:
    """The 1-away leader's MWC ``[j]`` in the Crawford game against ``j + 1``-away (``[0]`` = 0.5).

    The leader wins the game (and match) half the time; otherwise the trailer wins 1, 2 or 3
    points and the next game is post-Crawford (``post_crawford``: the trailer's chances there).
    """
    g, b = _check_rates(gammon_rate, backgammon_rate)
    pc = np.asarray(post_crawford, dtype=np.float64)

    def trailer(away: int) -> float:
        return 1.0 if away <= 0 else float(pc[away - 1])

    out = np.empty(pc.size)
    out[0] = 0.5
    for away in range(2, pc.size + 1):
        lose = (1.0 - g) * trailer(away - 1) + (g - b) * trailer(away - 2) + b * trailer(away - 3)
        out[away - 1] = 0.5 + 0.5 * (1.0 - lose)
    return out


def _keith_entry(away: int, opp_away: int, mwc: Any, g: float, b: float) -> float:
    """The player's MWC at ``away`` against ``opp_away`` (both >= 2) with a fully efficient cube.

    ``mwc(a, o)`` gives already computed entries (a side <= 0 away has won). Each cube level is
    kept as two lines in the player's winning chance p: owning the cube, (0, lose) to
    (cash point, cash); the opponent owning it, (take point, pass) to (1, win).
    """

    def win(cube: int) -> float:
        return (
            (1 - g) * mwc(away - cube, opp_away)
            + (g - b) * mwc(away - 2 * cube, opp_away)
            + b * mwc(away - 3 * cube, opp_away)
        )

    def lose(cube: int) -> float:
        return (
            (1 - g) * mwc(away, opp_away - cube)
            + (g - b) * mwc(away, opp_away - 2 * cube)
            + b * mwc(away, opp_away - 3 * cube)
        )

    cube = 1 << (max(away, opp_away) - 1).bit_length()  # any win ends the match: MWC = p
    # owned line: (0, own_low) .. (own_cp, own_high); opponent's line: (opp_tp, opp_low) .. (1, opp_high)
    own_low, own_cp, own_high = lose(cube), 1.0, win(cube)
    opp_tp, opp_low, opp_high = 0.0, lose(cube), win(cube)
    tp = cp = 0.0
    while cube > 1:
        cube //= 2
        cash, pass_ = mwc(away - cube, opp_away), mwc(away, opp_away - cube)
        # the player's cash point: the opponent's line after the double (he owns 2 cube) reaches the pass value
        cp = opp_tp + (cash - opp_low) / (opp_high - opp_low) * (1.0 - opp_tp)
        # the player's take point: his own line after the double reaches what passing leaves him
        tp = own_cp * (pass_ - own_low) / (own_high - own_low)
        cp, tp = min(max(cp, 0.0), 1.0), min(max(tp, 0.0), 1.0)
        own_low, own_cp, own_high = lose(cube), cp, cash
        opp_tp, opp_low, opp_high = tp, pass_, win(cube)
    pass_, cash = mwc(away, opp_away - 1), mwc(away - 1, opp_away)
    if tp >= 0.5:  # the opponent doubles the opening position out
        return float(pass_)
    if cp <= 0.5:
        return float(cash)
    return float(pass_ + (cash - pass_) * (0.5 - tp) / (cp - tp))


def keith_met(
    gammon_rate: float,
    backgammon_rate: float,
    length: int = 25,
    *,
    free_drops: Mapping[int, float] = NOTE_FREE_DROPS,
    post_crawford: FloatArray | None = None,
    pre_crawford_backgammons: bool = False,
) -> MatchEquityTable:
    """Tom Keith's table for ``length`` points from a gammon and a backgammon rate (module notes).

    ``gammon_rate``: share of games ending in a gammon or backgammon; ``backgammon_rate``: in a
    backgammon. ``post_crawford`` (the trailer's MWC ``[j]`` at ``j + 1``-away) replaces the
    generated post-Crawford row; ``pre_crawford_backgammons`` counts backgammons before the
    Crawford game too (seed 002's table does not).
    """
    g, b = _check_rates(gammon_rate, backgammon_rate)
    n = _check_length(length)
    if post_crawford is None:
        pc = keith_post_crawford(g, b, n, free_drops)
        drops = ", ".join(f"{k}-away {v:g}" for k, v in sorted(free_drops.items())) or "none"
        pc_source = f"post-Crawford by the same rates, free drops {drops}"
    else:
        pc = np.asarray(post_crawford, dtype=np.float64).ravel()
        if pc.size < n:
            raise CubeInputError(f"post-Crawford row has {pc.size} entries, fewer than the length {n}")
        pc = pc[:n]
        pc_source = "post-Crawford row given"
    b_pre = b if pre_crawford_backgammons else 0.0
    crawford = crawford_game_mwc(pc, g, b_pre)
    table = np.full((n, n), np.nan)
    table[0, :], table[:, 0] = crawford, 1.0 - crawford

    def mwc(a: int, o: int) -> float:
        if a <= 0:
            return 1.0
        if o <= 0:
            return 0.0
        return float(table[a - 1, o - 1])

    for total in range(4, 2 * n + 1):
        for a in range(max(2, total - n), min(n, total - 2) + 1):
            o = total - a
            if a <= o:
                value = _keith_entry(a, o, mwc, g, b_pre)
                table[a - 1, o - 1], table[o - 1, a - 1] = value, 1.0 - value
    bg_note = "counted" if pre_crawford_backgammons else "not counted before the Crawford game"
    source = f"Tom Keith's algorithm (seed 002): gammons {g:g}, backgammons {b:g} ({bg_note}); {pc_source}"
    return MatchEquityTable(f"Keith G={g:g} B={b:g}", source, table, pc)
