"""An analysis as text (in the spirit of gnubg's) and as JSON (every field of the result dataclasses)."""

from __future__ import annotations

import dataclasses
import math
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from analysis.evaluate import CheckerDecision, CubeDecisionAnalysis
from analysis.marks import CubeError, Skill
from analysis.records import Action
from analysis.summary import FileAnalysis, GameAnalysis, MatchAnalysis, PlayerSummary
from engine.match import MAX_CUBE

__all__ = ["format_text", "to_json"]


def to_json(value: Any) -> Any:
    """``value`` as JSON-ready data: dataclasses by field, enums by value, floats to 6 decimals (nan: None)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else round(float(value), 6)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list | np.ndarray):
        return [to_json(v) for v in value]
    raise TypeError(f"no JSON form for {type(value).__name__}")


def _kind(m: MatchAnalysis) -> str:
    """The match length, or a money session with the rules it was read with (a .mat file without rule tags: off)."""
    if m.length:
        return f"{m.length}-point match"
    r = m.rules
    cube = "no cube" if r.max_cube == 1 else f"cube limit {r.max_cube}" if r.max_cube < MAX_CUBE else "no cube limit"
    return f"money session (Jacoby {'on' if r.jacoby else 'off'}, beavers {'on' if r.beavers else 'off'}, {cube})"


def _units(m: MatchAnalysis, value: float) -> str:
    """A figure in the match's units: points in money, MWC (percent) in a match."""
    return f"{100 * value:+.2f}%" if m.length else f"{value:+.3f}"


def _checker_line(m: MatchAnalysis, d: CheckerDecision) -> str:
    name = m.names[d.player]
    best = d.candidates[0]
    played = f"{d.dice[0]}{d.dice[1]}: {d.played or '(no play)'}"
    return (
        f"  move {d.move:3d} {name[:14]:<14} {played:<28} {d.skill.value:<9} {-d.error:+.3f} "
        f"({_units(m, -d.error_units)})  best {best.move}"
    )


def _cube_line(m: MatchAnalysis, c: CubeDecisionAnalysis) -> list[str]:
    lines = []
    eqs = f"ND {c.no_double:+.3f} D/T {c.double_take:+.3f} D/P {c.double_pass:+.3f}"
    if c.doubler_kind is not None and c.doubler_skill is not Skill.NONE:
        act = "doubled" if c.doubled else "no double"
        lines.append(
            f"  cube {c.move:3d} {m.names[c.player][:14]:<14} {act}: {c.doubler_kind.value} {c.doubler_skill.value} "
            f"{-c.doubler_error:+.3f} ({_units(m, -c.doubler_error_units)}); proper {c.proper.value}; {eqs}"
        )
    if c.taker_kind is not None and c.taker_skill is not Skill.NONE:
        taker = m.names[1 - c.player]
        what = "pass" if c.response is Action.PASS else "take"
        lines.append(
            f"  cube {c.move:3d} {taker[:14]:<14} {what}: {c.taker_kind.value} {c.taker_skill.value} "
            f"{-c.taker_error:+.3f} ({_units(m, -c.taker_error_units)}); proper {c.proper.value}; {eqs}"
        )
    return lines


def _rate(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def summary_rows(m: MatchAnalysis | None, players: tuple[PlayerSummary, PlayerSummary], money: bool) -> list[list[str]]:
    """The summary table: a label and the two players' cells per row (gnubg's statistics, in its order)."""
    a, b = players
    unit = "points" if money else "MWC"

    def units(value: float) -> str:
        return f"{value:+.3f}" if money else f"{100 * value:+.2f}%"

    def rate(value: float | None, per: float | None, sign: str = "") -> str:
        """An mEMG rate with its points or MWC per decision in brackets, as gnubg prints them."""
        if value is None or per is None:
            return "n/a"
        return f"{value:{sign}.1f} ({per:{sign}.3f})" if money else f"{value:{sign}.1f} ({100 * per:{sign}.3f}%)"

    def row(label: str, fn: Any) -> list[str]:
        return [label, fn(a), fn(b)]

    rows = [
        ["", a.name, b.name],
        row("Moves (unforced)", lambda p: f"{p.moves} ({p.unforced_moves})"),
        row(
            "Doubtful / bad / very bad",
            lambda p: f"{p.checker_marks.doubtful} / {p.checker_marks.bad} / {p.checker_marks.very_bad}",
        ),  # fmt: skip
        row(f"Checker error EMG ({unit})", lambda p: f"{-p.checker_error:+.3f} ({units(-p.checker_error_units)})"),
        row(f"Checker error rate mEMG ({unit})", lambda p: rate(p.checker_rate, p.checker_rate_units)),
        row("Checker rating", lambda p: p.checker_rating.value if p.checker_rating else "n/a"),
        row("Cube decisions (close or actual)", lambda p: str(p.cube_decisions)),
        row("Doubles / takes / passes", lambda p: f"{p.doubles} / {p.takes} / {p.passes}"),
    ]
    if any(p.beavers for p in players):
        rows.append(row("Beavers (not judged)", lambda p: str(p.beavers)))
    kinds = {e.kind for p in players for e in p.cube_errors}
    for kind in [k for k in CubeError if k in kinds]:

        def cell(p: PlayerSummary, kind: Any = kind) -> str:
            found = [e for e in p.cube_errors if e.kind is kind]
            return f"{found[0].count} ({-found[0].error:+.3f})" if found else "0"

        rows.append(row(f"  {kind.value.capitalize()}", cell))
    rows += [
        row(f"Cube error EMG ({unit})", lambda p: f"{-p.cube_error:+.3f} ({units(-p.cube_error_units)})"),
        row(f"Cube error rate mEMG ({unit})", lambda p: rate(p.cube_rate, p.cube_rate_units)),
        row("Cube rating", lambda p: p.cube_rating.value if p.cube_rating else "n/a"),
        row("Very lucky / lucky rolls", lambda p: f"{p.luck_marks.very_lucky} / {p.luck_marks.lucky}"),
        row("Unlucky / very unlucky rolls", lambda p: f"{p.luck_marks.unlucky} / {p.luck_marks.very_unlucky}"),
        row(f"Luck EMG ({unit})", lambda p: f"{p.luck:+.3f} ({units(p.luck_units)})"),
        row(f"Luck rate mEMG ({unit}) per move", lambda p: rate(p.luck_rate, p.luck_rate_units, "+")),
        row("Luck rating", lambda p: p.luck_rating.value if p.luck_rating else "n/a"),
        row(f"Overall error rate mEMG ({unit})", lambda p: rate(p.overall_rate, p.overall_rate_units)),
        row("PR", lambda p: _rate(p.pr, 2)),
        row("Overall rating", lambda p: p.overall_rating.value if p.overall_rating else "n/a"),
        row(f"Result ({'points' if money else 'match'})", lambda p: units(p.result)),
        row("Luck-adjusted result", lambda p: units(p.luck_adjusted_result)),
    ]
    return rows


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(3)]
    return [f"  {r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}" for r in rows]


def game_outcome(m: MatchAnalysis, g: GameAnalysis) -> str:
    """``NAME wins N points`` (with how: resigned, pass), or that the record stops in the middle of the game."""
    if g.winner is None:
        return "in progress (the record stops here; valued by the position after the last play)"
    how = " (resigned)" if g.resigned else " (pass)" if g.passed else ""
    return f"{m.names[g.winner]} wins {g.points} point{'s' if g.points != 1 else ''}{how}"


def format_match(m: MatchAnalysis) -> list[str]:
    """The text of one match: each game's marked errors, then the summary table."""
    games = f"{len(m.games)} game{'' if len(m.games) == 1 else 's'}"
    lines = [f"{m.title}: {_kind(m)}, {m.names[0]} against {m.names[1]}, {games}"]
    for g in m.games:
        crawford = ", Crawford" if g.crawford else ""
        lines.append(f" Game {g.number}, score {g.score[0]}-{g.score[1]}{crawford}: {game_outcome(m, g)}")
        events: list[tuple[int, list[str]]] = [(d.ply, [_checker_line(m, d)]) for d in g.checker if d.skill]
        events += [(c.ply, _cube_line(m, c)) for c in g.cube]
        for _, text in sorted(events, key=lambda e: e[0]):
            lines.extend(text)
    lines.append(" Summary")
    lines.extend(_table(summary_rows(m, m.players, money=not m.length)))
    return lines


def format_text(a: FileAnalysis) -> str:
    """The whole report: a header, each match, and the totals over the file when it holds several matches."""
    depth = f"{a.plies} ply" + (f", MET {a.met}" if a.met else "")
    if any(not m.length for m in a.matches):
        depth += f", money cube model {a.cube}"
    lines = [
        f"Analysis of {a.path.name} at {depth} (luck at 0 ply), net {a.weights}: {len(a.matches)} "
        f"{'match' if len(a.matches) == 1 else 'matches'} in {a.seconds:.1f} s",
        "Errors are EMG (normalised equity per unit of the cube) lost by the player named, marked as gnubg does.",
        "",
    ]
    for m in a.matches:
        lines.extend(format_match(m))
        lines.append("")
    if len(a.matches) > 1:
        lines.append("Totals over the file")
        lines.extend(_table(summary_rows(None, a.totals, money=not a.matches[0].length)))
    return "\n".join(lines).rstrip() + "\n"
