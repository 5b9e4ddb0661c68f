"""How far ``jumpgammon analyse`` agrees with GNU Backgammon 1.07's ``analyse match`` on the same files.

The fixture (``tests/fixtures/gnubg_analysis``, made by ``tools/gnubg_fixtures/gen_analysis.py``) holds
matches and money sessions with gnubg's own analysis at 2 ply. :func:`agreement` analyses the same
files and compares, move by move and player by player. The nets differ, so agreement is
statistical. Run as a script for the figures::

    .venv/bin/python -m tests.analysis.agreement --plies 0
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis.analyse import analyse_file
from analysis.evaluate import CubeDecisionAnalysis
from analysis.inputs import read_records
from analysis.marks import RATING_BOUNDS, CubeError, Rating, Skill, rating_of
from analysis.replay import CubeTurn, replay
from analysis.summary import FileAnalysis
from cube.match import game_result_mwc, mwc_to_equity
from cube.met import MatchEquityTable, published_met
from nets.evaluator import load_evaluator

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_analysis"
BAD = {Skill.BAD.value, Skill.VERY_BAD.value}
#: gnubg's statistics keys of the cube error classes, in :class:`CubeError` order.
GNUBG_CUBE_KEYS = {
    CubeError.MISSED_DOUBLE_BELOW_CP: "cube missed-double-below-cp",
    CubeError.MISSED_DOUBLE_ABOVE_CP: "cube missed-double-above-cp",
    CubeError.WRONG_DOUBLE_BELOW_DP: "cube wrong-double-below-dp",
    CubeError.WRONG_DOUBLE_ABOVE_TG: "cube wrong-double-above-tg",
    CubeError.WRONG_TAKE: "cube wrong-take",
    CubeError.WRONG_PASS: "cube wrong-drop",
}


@dataclass(frozen=True)
class Correlation:
    """Pearson's r of ``n`` pairs with its 95% interval (Fisher's z) and the least-squares slope ours/gnubg's."""

    n: int
    r: float
    low: float
    high: float
    slope: float

    @classmethod
    def of(cls, gnubg: np.ndarray, ours: np.ndarray) -> Correlation:
        """The correlation of two equal-length samples."""
        r = float(np.corrcoef(gnubg, ours)[0, 1])
        half = 1.96 / math.sqrt(len(gnubg) - 3)
        z = math.atanh(min(r, 0.999999))
        slope = float(np.dot(gnubg, ours) / np.dot(gnubg, gnubg))
        return cls(len(gnubg), r, math.tanh(z - half), math.tanh(z + half), slope)


@dataclass(frozen=True)
class PlayerRates:
    """One player of one file: checker error rates (mEMG per unforced move) by gnubg and by us, and the same in
    points (money) or MWC (match) per unforced move."""

    file: str
    name: str
    unforced: int
    gnubg: float
    ours: float
    gnubg_units: float
    ours_units: float
    match: bool  # units are MWC (else points)


@dataclass(frozen=True)
class Agreement:
    """The comparison of one analysis depth with gnubg's (module docstring).

    ``marked_*`` count unforced moves marked bad or very bad by gnubg, by us, by both (``overlap``
    is both over either); ``errors`` and ``luck`` correlate per-move errors and per-roll luck (EMG);
    ``cube`` counts each cube error class over all players, gnubg's then ours; over the cube
    decisions both analysed, ``cube_no_double`` correlates the no-double equities and
    ``cube_margin`` the doubling margins (min(double/take, double/pass) minus no double, EMG),
    ``cube_same_double`` is the share where both say double or both say not, and ``cube_doubles``
    counts the decisions each calls a double.
    """

    plies: int
    files: int
    games: int
    moves: int
    unforced: int
    marked_gnubg: int
    marked_ours: int
    marked_both: int
    overlap: float
    errors: Correlation
    luck: Correlation
    rates: Correlation
    mean_rate_gap: float
    mwc_rates: Correlation  # the match players' checker error rates in MWC per unforced move, gnubg's and ours
    players: tuple[PlayerRates, ...]
    cube: dict[str, tuple[int, int]]
    close_cube: tuple[int, int]
    cube_no_double: Correlation
    cube_margin: Correlation
    cube_same_double: float
    cube_doubles: tuple[int, int]
    ratings_match_gnubg: tuple[int, int]
    opening_luck_gap: float  # mean of gnubg's minus our luck over the games' opening rolls (EMG)


def fixture(folder: Path = FOLDER) -> dict[str, Any]:
    """The fixture's analysis.json."""
    return json.loads((folder / "analysis.json").read_text())


def printed_checker_rates(entry: dict[str, Any]) -> list[float]:
    """gnubg's checker error rates of X and O as ``show statistics match`` prints them (mEMG per unforced move)."""
    rows = [cells for label, *cells in entry["statistics"] if label == "Error rate"]
    return _numbers(rows[0]) if rows else []


def printed_checker_units_rates(entry: dict[str, Any]) -> list[float]:
    """gnubg's checker error rates of X and O in points (money) or MWC (match) per unforced move (bracketed)."""
    rows = [cells for label, *cells in entry["statistics"] if label == "Error rate"]
    if not rows:
        return []
    out = []
    for cell in rows[0]:
        if cell.startswith("("):
            text = cell.strip("() ")
            out.append(abs(float(text.rstrip("%"))) / (100.0 if text.endswith("%") else 1.0))
    return out


def _numbers(cells: list[str]) -> list[float]:
    """The plain numbers among a statistics row's cells (gnubg's EMG figures, not the bracketed MWC or points)."""
    out = []
    for cell in cells:
        try:
            out.append(abs(float(cell)))
        except ValueError:
            continue
    return out


def _gnubg_rating_check(entries: list[dict[str, Any]]) -> tuple[int, int]:
    """How many of gnubg's printed ratings :func:`rating_of` gives from gnubg's printed error rates (same, total).

    Each rating row (checker, cube, overall) follows the error rate it is made from; a rate printed
    within 0.05 of a band's bound is left out (the printed figure is rounded to 0.1).
    """
    bounds = [bound for _, bound in RATING_BOUNDS]
    same = total = 0
    for entry in entries:
        rates: list[float] = []
        for label, *cells in entry["statistics"]:
            if label == "Error rate":
                rates = _numbers(cells)
            elif label.endswith("rating"):
                for value, name in zip(rates, cells, strict=True):
                    if name in {r.value for r in Rating} and min(abs(value - b) for b in bounds) > 0.05:
                        total += 1
                        same += rating_of(value) is Rating(name)
    return same, total


def _compare_cube(
    ours: Sequence[CubeDecisionAnalysis],
    turns: Sequence[CubeTurn],
    actions: list[list[Any]],
    met: MatchEquityTable,
    out: list[tuple[float, float, float, float, bool, bool]],
) -> None:
    """Append (gnubg's no double, ours, gnubg's margin, ours, gnubg doubles, we double) per cube turn both analysed.

    gnubg's analysis of a turn sits on the double it judged or on the roll after a no double;
    money figures are normalised equity, match figures MWC (turned into EMG at the turn's cube).
    """
    by_turn = {(c.move, c.doubled): (c, t) for c, t in zip(ours, turns, strict=True)}
    rolls = 0
    for row in actions:
        kind = row[1]
        if kind == "move":
            rolls += 1
            nd, dt = row[10], row[11]
            key = (rolls, False)
        elif kind == "double":
            nd, dt = row[2], row[3]
            key = (rolls + 1, True)
        else:
            continue
        if nd is None or dt is None or key not in by_turn:
            continue
        c, t = by_turn[key]
        dp = 1.0
        if t.cube.match is not None:
            nd, dt, dp = (
                float(v)
                for v in mwc_to_equity(
                    [nd, dt, game_result_mwc(met, t.cube.match.score, won=t.cube.value)], met, t.cube.match
                )
            )
        theirs_margin = min(dt, dp) - nd
        ours_margin = min(c.double_take, c.double_pass) - c.no_double
        out.append((nd, c.no_double, theirs_margin, ours_margin, theirs_margin >= 0, ours_margin >= 0))


def agreement(plies: int, files: list[str] | None = None, folder: Path = FOLDER) -> Agreement:
    """Our analysis at ``plies`` of the fixture files (all, or those named) against gnubg's."""
    data = fixture(folder)
    entries = [e for e in data["files"] if files is None or e["file"] in files]
    ev = load_evaluator()
    met = published_met()
    gnubg_err, our_err, gnubg_luck, our_luck = [], [], [], []
    opening_gaps: list[float] = []
    marked = [0, 0, 0]
    players: list[PlayerRates] = []
    cube = {kind.value: [0, 0] for kind in CubeError}
    close = [0, 0]
    cube_pairs: list[tuple[float, float, float, float, bool, bool]] = []
    moves = unforced = games = 0
    for entry in entries:
        path = folder / entry["file"]
        result: FileAnalysis = analyse_file(path, ev, plies, met, "shipped", alternatives=1, progress=False)
        (match,) = result.matches
        (played,) = [replay(r) for r in read_records(path)]
        games += len(match.games)
        for game, theirs, turns in zip(match.games, entry["games"], played.games, strict=True):
            _compare_cube(game.cube, turns.cube, theirs["actions"], met, cube_pairs)
            rows = [a for a in theirs["actions"] if a[1] == "move"]
            for k, (d, row) in enumerate(zip(game.checker, rows, strict=True)):
                assert d.position_id == row[3], f"{entry['file']} game {game.number}: positions differ"
                moves += 1
                if k == 0:  # the game's opening roll
                    opening_gaps.append(row[8] - d.luck.equity)
                gnubg_luck.append(row[8])
                our_luck.append(d.luck.equity)
                if d.forced or row[6] is None:
                    continue
                unforced += 1
                gnubg_err.append(row[6])
                our_err.append(d.error)
                g_bad, o_bad = row[7] in BAD, d.skill.value in BAD
                marked[0] += g_bad
                marked[1] += o_bad
                marked[2] += g_bad and o_bad
            for key in ("X", "O"):
                stats = theirs["stats"].get(key, {})
                for kind, name in GNUBG_CUBE_KEYS.items():
                    cube[kind.value][0] += int(stats.get(name, 0))
                close[0] += int(stats.get("cube close-cube", 0))
        printed = printed_checker_rates(entry)
        printed_units = printed_checker_units_rates(entry)
        for side, key in ((0, "X"), (1, "O")):
            p = match.players[side]
            n = sum(int(g["stats"].get(key, {}).get("moves unforced-moves", 0)) for g in entry["games"])
            if n and p.checker_rate is not None and p.checker_rate_units is not None and len(printed) == 2:
                players.append(
                    PlayerRates(
                        entry["file"],
                        p.name,
                        n,
                        printed[side],
                        p.checker_rate,
                        printed_units[side],
                        p.checker_rate_units,
                        bool(entry["length"]),
                    )
                )
            for e in p.cube_errors:
                cube[e.kind.value][1] += e.count
            close[1] += p.cube_decisions
    pairs = np.array(cube_pairs, dtype=float).reshape(-1, 6)
    rates_g = np.array([p.gnubg for p in players])
    rates_o = np.array([p.ours for p in players])
    either = marked[0] + marked[1] - marked[2]
    return Agreement(
        plies=plies,
        files=len(entries),
        games=games,
        moves=moves,
        unforced=unforced,
        marked_gnubg=marked[0],
        marked_ours=marked[1],
        marked_both=marked[2],
        overlap=marked[2] / either if either else 1.0,
        errors=Correlation.of(np.array(gnubg_err), np.array(our_err)),
        luck=Correlation.of(np.array(gnubg_luck), np.array(our_luck)),
        rates=Correlation.of(rates_g, rates_o),
        mean_rate_gap=float(np.mean(np.abs(rates_g - rates_o))),
        mwc_rates=Correlation.of(
            np.array([p.gnubg_units for p in players if p.match]), np.array([p.ours_units for p in players if p.match])
        ),
        players=tuple(players),
        cube={k: (v[0], v[1]) for k, v in cube.items()},
        close_cube=(close[0], close[1]),
        cube_no_double=Correlation.of(pairs[:, 0], pairs[:, 1]),
        cube_margin=Correlation.of(pairs[:, 2], pairs[:, 3]),
        cube_same_double=float(np.mean(pairs[:, 4] == pairs[:, 5])),
        cube_doubles=(int(pairs[:, 4].sum()), int(pairs[:, 5].sum())),
        ratings_match_gnubg=_gnubg_rating_check(entries),
        opening_luck_gap=float(np.mean(opening_gaps)),
    )


def main() -> None:
    """Print the figures of one depth as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(asdict(agreement(args.plies)), indent=1))


if __name__ == "__main__":
    main()
