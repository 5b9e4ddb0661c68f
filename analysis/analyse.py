"""One file analysed end to end: read, replay, judge every decision in one batch, add up per game and per player."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from analysis.cubemodel import GNUBG_MODEL, MoneyCubeModel
from analysis.evaluate import MatchDecisions, analyse_decisions
from analysis.inputs import read_records
from analysis.replay import GameReplay, MatchReplay, replay
from analysis.summary import FileAnalysis, GameAnalysis, GraphPoint, MatchAnalysis, PlayerSummary, summarise_player
from cube.met import MatchEquityTable
from engine.errors import InvalidSpec
from nets.base import BoardEvaluator

__all__ = ["analyse_file", "match_result"]


def analyse_file(
    path: Path,
    ev: BoardEvaluator,
    plies: int,
    met: MatchEquityTable,
    weights: str,
    alternatives: int = 5,
    progress: bool = True,
    cube: MoneyCubeModel = GNUBG_MODEL,
    workers: int = 1,
) -> FileAnalysis:
    """Every match or session in ``path`` analysed at ``plies`` (``met`` at match scores; ``weights`` names the net).

    ``cube`` is the money cube model; a match may only be analysed with gnubg's. Raises InvalidRecord
    (a ValueError) naming the file, line and fault, or InvalidSpec for a cube model that does not fit,
    before anything is evaluated. ``workers`` processes share the evaluations beyond 0 ply (the same
    report as one process).
    """
    start = time.perf_counter()
    replays = [replay(record) for record in read_records(path)]
    longest = max(r.length for r in replays)
    if longest:
        met.truncated(longest)  # raises naming the table when it does not reach the match length
        if not cube.is_gnubg:
            raise InvalidSpec(
                f"--cube {cube.spec!r}: {path.name} holds a {longest}-point match, and at a match score only "
                "gnubg's cube model is used (--cube gnubg)"
            )
    decisions = analyse_decisions(ev, replays, plies, met if longest else None, alternatives, progress, cube, workers)
    matches = tuple(_match(r, d, met) for r, d in zip(replays, decisions, strict=True))
    totals = _totals(matches)
    return FileAnalysis(
        path, plies, met.name if longest else None, weights, matches, totals, time.perf_counter() - start, cube.spec
    )


def match_result(r: MatchReplay, met: MatchEquityTable, in_progress: float = 0.0) -> tuple[float, float]:
    """Each player's result, as gnubg counts it: in money the points won minus the points lost; in a match the MWC
    gained: 1 or 0 for a finished match (else the MWC at the final score) minus the MWC at its first game's score.

    A last game the record stops in the middle of counts at ``in_progress``, player 0's value after its last play
    (points in money, MWC in a match), so that the result and the luck cover the same rolls.
    """
    score = [0, 0]
    for g in r.games:
        if g.winner is not None:
            score[g.winner] += g.points
    first, last = r.games[0], r.games[-1]
    if not r.length:
        value = float(score[0] - score[1]) + (0.0 if last.finished else in_progress)
        return value, -value
    start = met.mwc(r.length - first.score[0], r.length - first.score[1], crawford=first.crawford)
    if last.winner is None:
        return in_progress - start, start - in_progress
    final = [last.score[0], last.score[1]]
    final[last.winner] += last.points
    if max(final) >= r.length:
        end = 1.0 if final[0] >= r.length else 0.0
    else:
        crawford_next = not any(r.length - 1 in g.score for g in r.games) and r.length - 1 in final
        end = met.mwc(r.length - final[0], r.length - final[1], crawford=crawford_next and final[0] != final[1])
    return end - start, start - end


def _match(r: MatchReplay, d: MatchDecisions, met: MatchEquityTable) -> MatchAnalysis:
    """One match's games and both players' summaries."""
    games = []
    c0 = k0 = 0
    for g in r.games:
        checker = d.checker[c0 : c0 + len(g.checker)]
        cube = d.cube[k0 : k0 + len(g.cube)]
        after = d.after[c0 : c0 + len(g.checker)]
        c0, k0 = c0 + len(g.checker), k0 + len(g.cube)
        graph = _graph(r, g, [(t.move, t.player, t.cube.value) for t in g.checker], after, met)
        games.append(
            GameAnalysis(g.number, g.score, g.crawford, g.winner, g.points, g.resigned, g.passed, checker, cube, graph)
        )
    result = match_result(r, met, games[-1].graph[-1].value if games else 0.0)
    players = _players(r.record.names, games, result)
    return MatchAnalysis(r.record.title, r.record.names, r.length, r.record.rules, tuple(games), players)


def _players(
    names: tuple[str, str], games: Sequence[GameAnalysis], result: tuple[float, float]
) -> tuple[PlayerSummary, PlayerSummary]:
    """Both players' summaries over ``games`` (each one's luck-adjusted result needs the other's luck)."""
    luck = [sum(d.luck.units for g in games for d in g.checker if d.player == p) for p in (0, 1)]
    return (
        summarise_player(0, names[0], games, result[0], luck[1]),
        summarise_player(1, names[1], games, result[1], luck[0]),
    )


def _totals(matches: Sequence[MatchAnalysis]) -> tuple[PlayerSummary, PlayerSummary]:
    """Each player's summary over every match of the file (the match's own when there is one)."""
    if len(matches) == 1:
        return matches[0].players
    games = [g for m in matches for g in m.games]
    result = (sum(m.players[0].result for m in matches), sum(m.players[1].result for m in matches))
    return _players(matches[0].names, games, result)


def _graph(
    r: MatchReplay, g: GameReplay, moves: Sequence[tuple[int, int, int]], values: np.ndarray, met: MatchEquityTable
) -> tuple[GraphPoint, ...]:
    """Player 0's value before the game and after each play, then the game's result (none for a game the record
    stops in the middle of): points (money) or MWC.

    ``values`` holds the mover's (EMG, MWC) after each play of ``moves`` (its number in the game, mover, cube).
    """
    if r.length:
        n = r.length
        start = met.mwc(n - g.score[0], n - g.score[1], crawford=g.crawford) if max(g.score) < n else 0.5
        points = [GraphPoint(0, float(start))]
        for (move, player, _), (_, mwc) in zip(moves, values, strict=True):
            points.append(GraphPoint(move, float(mwc if player == 0 else 1.0 - mwc)))
        if g.winner is None:
            return tuple(points)
        final = [g.score[0], g.score[1]]
        final[g.winner] += g.points
        if max(final) >= n:
            end = 1.0 if final[0] >= n else 0.0
        else:
            leader = n - 1 in final and not g.crawford and n - 1 not in g.score
            end = met.mwc(n - final[0], n - final[1], crawford=leader and final[0] != final[1])
        points.append(GraphPoint(points[-1].move + 1, end))
        return tuple(points)
    points = [GraphPoint(0, 0.0)]
    for (move, player, cube), (emg, _) in zip(moves, values, strict=True):
        points.append(GraphPoint(move, float(emg * cube if player == 0 else -emg * cube)))
    if g.winner is None:
        return tuple(points)
    won = float(g.points if g.winner == 0 else -g.points)
    points.append(GraphPoint(points[-1].move + 1, won))
    return tuple(points)
